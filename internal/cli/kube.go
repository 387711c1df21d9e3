package cli

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
)

// scheme holds the kinds the plugin reads or writes: toolgate's, and the
// review that tells the reviewer who the API server takes them for.
var scheme = func() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	if err := toolgatev1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := authenticationv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// restConfig is the connection kubectl would make with the same flags:
// --kubeconfig, $KUBECONFIG, ~/.kube/config, --context, --as and the rest.
// Impersonation is the API server's to allow (the impersonate verb) and
// to record: a decision made with --as is stamped with the identity
// impersonated, and the API server's audit log names who impersonated it.
func (o *options) restConfig() (*rest.Config, error) {
	cfg, err := o.config.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.UserAgent = "kubectl-toolgate/" + offline.Version
	return cfg, nil
}

// namespace is the namespace to use: -n, else the context's, else
// "default", as kubectl resolves it.
func (o *options) namespace() (string, error) {
	ns, _, err := o.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("finding the namespace: %w", err)
	}
	return ns, nil
}

// client returns a client for the API server and the namespace to use.
func (o *options) client() (client.WithWatch, string, error) {
	cfg, err := o.restConfig()
	if err != nil {
		return nil, "", err
	}
	ns, err := o.namespace()
	if err != nil {
		return nil, "", err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to the API server: %w", err)
	}
	return c, ns, nil
}

// whoAmI asks the API server who it takes the requester for, as
// `kubectl auth whoami` does: the identity a decision will be stamped
// with. "" when the API server cannot say (too old, or not allowed).
func whoAmI(ctx context.Context, c client.Client) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	review := &authenticationv1.SelfSubjectReview{}
	if err := c.Create(ctx, review); err != nil {
		return ""
	}
	return review.Status.UserInfo.Username
}
