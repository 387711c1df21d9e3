package testenv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// RequireEnv is the environment variable that turns missing control-plane
// binaries into a failure instead of a skip.
const RequireEnv = "TOOLGATE_REQUIRE_ENVTEST"

// ErrNoBinaries reports that KUBEBUILDER_ASSETS does not point at a
// kube-apiserver and an etcd.
var ErrNoBinaries = errors.New("envtest binaries not found: run `make envtest` (or set KUBEBUILDER_ASSETS to a directory holding kube-apiserver and etcd)")

// Env is a running control plane with toolgate's CRDs installed.
type Env struct {
	env *envtest.Environment

	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// Client is a controller-runtime client that knows toolgate's types.
	Client client.Client
	// Scheme holds the built-in kinds and toolgate's.
	Scheme *k8sruntime.Scheme
	// Dir is a directory that lives as long as the control plane.
	Dir string
}

// RepoRoot returns the repository's top directory, found from this file.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Scheme returns a scheme with the built-in kinds and toolgate's.
func Scheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(toolgatev1alpha1.AddToScheme(s))
	return s
}

// binariesPresent reports whether dir holds the two binaries envtest runs.
func binariesPresent(dir string) bool {
	if dir == "" {
		return false
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// Options select what Start installs besides the CRDs.
type Options struct {
	// Webhooks installs toolgate's admission webhook configurations,
	// pointed at a local serving port and certificate that WebhookServer
	// describes.
	Webhooks bool
	// Injection installs the gate's injection webhook and the guard on
	// exec, attach and port-forward into the gate (config/webhook/injection),
	// pointed at the same local serving port,
	// and the opt-out guard (config/policy): the ValidatingAdmissionPolicy,
	// its binding and its trust ConfigMap, with the manifests' placeholder
	// namespace "system" replaced by OperatorNamespace, which is created.
	// Apart from Webhooks so that packages whose tests create pods in
	// opted-in namespaces keep running without an injector.
	Injection bool
	// OperatorNamespace stands for the operator's namespace in the
	// injection manifests; "toolgate-system" when empty.
	OperatorNamespace string
	// NoCRDs starts a bare control plane, for whoever installs the CRDs
	// itself: the Helm chart, which refuses to adopt objects it did not
	// create. The webhook serving certificate (WebhookServer, WebhookCA)
	// is issued all the same.
	NoCRDs bool
}

// Start starts a control plane with toolgate's CRDs. It returns
// ErrNoBinaries when the binaries are missing; Main turns that into a skip
// or a failure.
func Start(opts ...Options) (*Env, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if !binariesPresent(os.Getenv("KUBEBUILDER_ASSETS")) {
		return nil, ErrNoBinaries
	}
	dir, err := os.MkdirTemp("", "toolgate-envtest-")
	if err != nil {
		return nil, err
	}
	scheme := Scheme()
	env := &envtest.Environment{Scheme: scheme}
	if !o.NoCRDs {
		env.CRDDirectoryPaths = []string{filepath.Join(RepoRoot(), "config", "crd", "bases")}
		env.ErrorIfCRDPathMissing = true
	}
	if o.Webhooks {
		mutating, validating, err := toolPinWebhooks()
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		env.WebhookInstallOptions.MutatingWebhooks = mutating
		env.WebhookInstallOptions.ValidatingWebhooks = validating
	}
	if o.Injection {
		env.WebhookInstallOptions.Paths = append(env.WebhookInstallOptions.Paths, filepath.Join(RepoRoot(), "config", "webhook", "injection"))
	}
	cfg, err := env.Start()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	e := &Env{env: env, Config: cfg, Client: c, Scheme: scheme, Dir: dir}
	if o.Injection {
		if err := e.installPolicies(o.OperatorNamespace); err != nil {
			_ = e.Stop()
			return nil, fmt.Errorf("installing config/policy: %w", err)
		}
	}
	return e, nil
}

// WebhookServer returns where the installed webhook configurations expect
// the webhook server: host, port and certificate directory.
func (e *Env) WebhookServer() (host string, port int, certDir string) {
	w := e.env.WebhookInstallOptions
	return w.LocalServingHost, w.LocalServingPort, w.LocalServingCertDir
}

// WaitForWebhookServer waits until something serves TLS where the
// installed webhook configurations expect the webhook server: a test that
// starts a manager must not write before its webhooks can answer.
func (e *Env) WaitForWebhookServer() error {
	host, port, _ := e.WebhookServer()
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only whether it listens
		if err == nil {
			_ = conn.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the webhook server did not come up on %s", addr)
}

// WebhookCA returns the PEM CA that signed the webhook serving certificate:
// what the API server trusts for the webhooks, and a gate for the operator.
func (e *Env) WebhookCA() []byte { return e.env.WebhookInstallOptions.LocalServingCAData }

// Stop stops the control plane and removes its directory.
func (e *Env) Stop() error {
	err := e.env.Stop()
	_ = os.RemoveAll(e.Dir)
	return err
}

// StopAtCleanup stops the control plane when tb and its cleanups are done,
// and fails tb when it does not stop cleanly. Registered right after Start,
// it runs last: after the cleanups that stop operators and managers, which
// would otherwise keep watching and hold the API server up to its stop
// timeout.
func (e *Env) StopAtCleanup(tb testing.TB) {
	tb.Helper()
	tb.Cleanup(func() {
		if err := e.Stop(); err != nil {
			tb.Errorf("stopping the control plane: %v", err)
		}
	})
}

// User provisions a user with the given name and groups and returns a
// controller-runtime client and a kubeconfig file acting as that user. The
// user has no permissions until a test grants them with RBAC.
func (e *Env) User(name string, groups ...string) (client.Client, string, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, "", fmt.Errorf("adding user %q: %w", name, err)
	}
	c, err := client.New(u.Config(), client.Options{Scheme: e.Scheme})
	if err != nil {
		return nil, "", err
	}
	kubeconfig, err := u.KubeConfig()
	if err != nil {
		return nil, "", err
	}
	f, err := os.CreateTemp(e.Dir, "kubeconfig-*")
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if _, err := f.Write(kubeconfig); err != nil {
		return nil, "", err
	}
	return c, f.Name(), nil
}

// UserBoundToClusterRole creates the ClusterRole in roleFile, binds it to a
// new user of the given name, and returns a REST config acting as that user.
func (e *Env) UserBoundToClusterRole(user, roleFile string, groups ...string) (*rest.Config, error) {
	data, err := os.ReadFile(roleFile)
	if err != nil {
		return nil, err
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		return nil, fmt.Errorf("%s: %w", roleFile, err)
	}
	ctx := context.Background()
	if err := e.Client.Create(ctx, &role); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating ClusterRole %s: %w", role.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: role.Name + "-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := e.Client.Create(ctx, binding); err != nil {
		return nil, fmt.Errorf("binding ClusterRole %s: %w", role.Name, err)
	}
	if err := e.waitForBinding(ctx, user, groups, role); err != nil {
		return nil, err
	}
	u, err := e.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding user %q: %w", user, err)
	}
	return u.Config(), nil
}

// waitForBinding waits until the API server's authorizer grants the user
// the role's first rule: a new binding reaches it through an informer, and
// a test that acts at once would meet RBAC's refusal instead of the one it
// tests.
func (e *Env) waitForBinding(ctx context.Context, user string, groups []string, role rbacv1.ClusterRole) error {
	if len(role.Rules) == 0 || len(role.Rules[0].Verbs) == 0 || len(role.Rules[0].Resources) == 0 {
		return nil
	}
	rule := role.Rules[0]
	attrs := &authorizationv1.ResourceAttributes{Verb: rule.Verbs[0], Resource: rule.Resources[0]}
	if len(rule.APIGroups) > 0 {
		attrs.Group = rule.APIGroups[0]
	}
	if resource, sub, ok := strings.Cut(attrs.Resource, "/"); ok {
		attrs.Resource, attrs.Subresource = resource, sub
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: append([]string{"system:authenticated"}, groups...), ResourceAttributes: attrs,
		}}
		if err := e.Client.Create(ctx, review); err != nil {
			return fmt.Errorf("asking whether %s holds %s: %w", user, role.Name, err)
		}
		if review.Status.Allowed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the binding of %s to %s did not take effect in 10s", user, role.Name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// KubeconfigFor provisions a user, binds it to the ClusterRole in roleFile
// when one is given, and writes a kubeconfig for it into dir.
func (e *Env) KubeconfigFor(dir, user, roleFile string, groups ...string) (string, error) {
	if roleFile != "" {
		if _, err := e.UserBoundToClusterRole(user, roleFile, groups...); err != nil {
			return "", err
		}
	}
	u, err := e.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return "", fmt.Errorf("adding user %q: %w", user, err)
	}
	kubeconfig, err := u.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, strings.NewReplacer(":", "-", "/", "-").Replace(user)+".kubeconfig")
	return path, os.WriteFile(path, kubeconfig, 0o600)
}

// AdminKubeconfig writes a kubeconfig for a cluster administrator
// (system:masters) and returns its path.
func (e *Env) AdminKubeconfig() (string, error) {
	_, path, err := e.User("toolgate-test-admin", "system:masters")
	return path, err
}

// Main starts one control plane for a test package, runs its tests and stops
// it; it is meant to be called from TestMain. setup receives the running
// control plane and returns a teardown, run before the control plane stops
// (a manager that still watches would hold the API server up to its stop
// timeout). Missing binaries skip the package with a message, or fail it
// when RequireEnv is set.
func Main(m *testing.M, setup func(*Env) (teardown func(), err error), opts ...Options) int {
	env, err := Start(opts...)
	if errors.Is(err, ErrNoBinaries) && os.Getenv(RequireEnv) == "" {
		fmt.Fprintf(os.Stderr, "SKIP: %v (set %s=1 to make this a failure)\n", err, RequireEnv)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	teardown, err := setup(env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: setting up the test package: %v\n", err)
		_ = env.Stop()
		return 1
	}
	code := m.Run()
	if teardown != nil {
		teardown()
	}
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n", err)
	}
	return code
}
