package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
)

// kubeFlags are the connection flags of the cluster subcommands, named as
// kubectl names them so that `kubectl toolgate` reads like kubectl.
type kubeFlags struct {
	kubeconfig    string
	context       string
	namespace     string
	allNamespaces bool
	timeout       time.Duration
}

func (k *kubeFlags) register(fs *flag.FlagSet, allowAll bool) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&k.context, "context", "", "the kubeconfig context to use")
	fs.StringVar(&k.namespace, "n", "", "the namespace (default: the context's)")
	fs.StringVar(&k.namespace, "namespace", "", "the namespace (default: the context's)")
	fs.DurationVar(&k.timeout, "request-timeout", 30*time.Second, "how long the whole command may take talking to the API server")
	if allowAll {
		fs.BoolVar(&k.allNamespaces, "A", false, "every namespace")
		fs.BoolVar(&k.allNamespaces, "all-namespaces", false, "every namespace")
	}
}

// errImpersonation refuses a kubeconfig that impersonates: a decision is
// stamped with the identity the API server sees, and a tool that made it
// under someone else's name would record that name, not the reviewer's.
var errImpersonation = errors.New("the kubeconfig's user impersonates another identity (as, as-groups, as-uid or as-user-extra): toolgate impersonates nobody, so decisions carry your own identity; use a context without impersonation")

// client builds a client from the standard loading rules (--kubeconfig,
// $KUBECONFIG, ~/.kube/config, --context) and returns it with the
// namespace to use.
func (k *kubeFlags) client() (client.Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: k.context}
	if k.namespace != "" {
		overrides.Context.Namespace = k.namespace
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("loading the kubeconfig: %w", err)
	}
	if imp := cfg.Impersonate; imp.UserName != "" || imp.UID != "" || len(imp.Groups) > 0 || len(imp.Extra) > 0 {
		return nil, "", errImpersonation
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("finding the namespace: %w", err)
	}
	// toolgate's kinds are all the plugin reads or writes.
	scheme := k8sruntime.NewScheme()
	if err := toolgatev1alpha1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	cfg.Timeout = k.timeout
	cfg.UserAgent = "kubectl-toolgate/" + offline.Version
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to the API server: %w", err)
	}
	return c, ns, nil
}

// parseCommand parses flags that may come before, between or after the
// positional arguments (`approve PIN -n tools` as kubectl allows), which
// the standard flag package alone stops at. It returns false, with the
// exit code, when the command should stop: after -h (0) or on bad flags (2).
func parseCommand(fs *flag.FlagSet, args []string, stderr io.Writer, usage string) ([]string, int, bool) {
	fs.Usage = func() {
		fmt.Fprint(stderr, usage+"\n\nFlags:\n")
		fs.PrintDefaults()
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, ExitOK, false
			}
			return nil, ExitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		// After "--" everything is positional; the flag package has
		// already consumed the "--" itself.
		if len(args) >= len(rest)+1 && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
