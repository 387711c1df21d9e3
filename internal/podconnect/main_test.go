package podconnect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/injector"
	"github.com/toolgate/toolgate/internal/testenv"
)

// The identities of these tests. Each may create pods and connect to
// them; only the administrators are named in the operator's
// --admin-users and --admin-groups, and only trustedUser in the opt-out
// guard's trust list.
const (
	userName      = "alice"
	adminName     = "toolgate-admin"
	adminGroup    = "toolgate-admins"
	groupAdmin    = "bob"
	trustedUser   = "trusted-deployer"
	operatorNS    = testenv.DefaultOperatorNamespace
	gateImage     = "example.com/toolgate/gate:test"
	connectorRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: pod-connector
rules:
- apiGroups: [""]
  resources: [pods/exec, pods/attach, pods/portforward]
  verbs: [create, get]
- apiGroups: [""]
  resources: [pods]
  verbs: [create, get, list, delete]
`
)

var (
	env *testenv.Env
	// user, admin and adminByGroup connect as the identities above;
	// trusted creates opted-out pods.
	user, admin, adminByGroup *rest.Config
	trusted                   client.Client
)

// TestMain starts a control plane with the injection webhooks (the
// injector and this guard) and the opt-out guard policy installed, and a
// manager that serves the injector and this webhook, as a user holding
// only the generated ClusterRole: the pods the tests connect to are
// injected by the real injector, and read with the operator's own rights.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, func(e *testenv.Env) (func(), error) {
		env = e
		ctrl.SetLogger(testenv.Logger())
		cfg, err := e.UserBoundToClusterRole(testenv.OperatorUser, filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
		if err != nil {
			return nil, err
		}
		host, port, certDir := e.WebhookServer()
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{
			Scheme:                 e.Scheme,
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
			WebhookServer:          webhook.NewServer(webhook.Options{Host: host, Port: port, CertDir: certDir}),
		})
		if err != nil {
			return nil, err
		}
		if err := injector.Setup(mgr, injector.Config{
			Template: inject.Template{Image: gateImage, OperatorURL: "https://toolgate-operator." + operatorNS + ".svc:9444", CAPEM: string(e.WebhookCA())},
			Settings: inject.Settings{OperatorNamespace: operatorNS},
		}); err != nil {
			return nil, err
		}
		if err := Setup(mgr, Config{AdminUsers: []string{adminName}, AdminGroups: []string{"other-admins", adminGroup}}); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := mgr.Start(ctx); err != nil {
				fmt.Fprintf(os.Stderr, "manager stopped: %v\n", err)
			}
		}()
		stop := func() { cancel(); <-done }
		if err := e.WaitForWebhookServer(); err != nil {
			stop()
			return nil, err
		}
		if err := setupIdentities(e); err != nil {
			stop()
			return nil, err
		}
		return stop, nil
	}, testenv.Options{Injection: true, OperatorNamespace: operatorNS}))
}

// setupIdentities provisions the connecting identities and trusts
// trustedUser with the opt-out.
func setupIdentities(e *testenv.Env) error {
	roleFile := filepath.Join(e.Dir, "connector-role.yaml")
	if err := os.WriteFile(roleFile, []byte(connectorRole), 0o600); err != nil {
		return err
	}
	var err error
	if user, err = e.UserBoundToClusterRole(userName, roleFile); err != nil {
		return err
	}
	if admin, err = e.UserBoundToClusterRole(adminName, roleFile); err != nil {
		return err
	}
	if adminByGroup, err = e.UserBoundToClusterRole(groupAdmin, roleFile, adminGroup); err != nil {
		return err
	}
	tcfg, err := e.UserBoundToClusterRole(trustedUser, roleFile)
	if err != nil {
		return err
	}
	if trusted, err = client.New(tcfg, client.Options{Scheme: e.Scheme}); err != nil {
		return err
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: operatorNS, Name: "toolgate-inject-trust"}, cm); err != nil {
		return fmt.Errorf("the opt-out guard's trust list was not installed: %w", err)
	}
	cm.Data["users"] += "," + trustedUser
	return e.Client.Update(ctx, cm)
}

// namespace creates a namespace of its own for one test, named after
// prefix, and returns its name: envtest runs no namespace controller, and
// a name of its own per run lets a test run again (go test -count).
func namespace(t *testing.T, prefix string, enabled bool) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if enabled {
		ns.Labels = map[string]string{"toolgate.dev/injection": "enabled"}
	}
	if err := env.Client.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func agentPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "example.com/agent:1"}}},
	}
}

// gatedPod creates the agent pod "agent" in an opted-in namespace and
// returns it as the injector left it.
func gatedPod(t *testing.T, ns string) *corev1.Pod {
	t.Helper()
	p := agentPod(ns, "agent")
	if err := env.Client.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.InitContainers) == 0 || p.Spec.InitContainers[0].Name != inject.ContainerName {
		t.Fatalf("pod %s/agent was not injected: %+v", ns, p.Spec.InitContainers)
	}
	return p
}

// connect POSTs to the pod's subresource with the given query, as kubectl
// exec, attach and port-forward do, without upgrading the connection.
// The API server runs admission before it looks for the pod's node; envtest
// has no node and no kubelet, so a connection admission lets through
// fails afterwards with "does not have a host assigned".
func connect(t *testing.T, cfg *rest.Config, pod *corev1.Pod, subresource string, params ...string) error {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := cs.CoreV1().RESTClient().Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource(subresource).Timeout(30 * time.Second)
	for i := 0; i+1 < len(params); i += 2 {
		req = req.Param(params[i], params[i+1])
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return req.Do(ctx).Error()
}

// exec is kubectl exec -c container -- /gate, unupgraded.
func exec(t *testing.T, cfg *rest.Config, pod *corev1.Pod, container string) error {
	t.Helper()
	params := []string{"command", "/gate", "command", "--operator-url=https://elsewhere.example", "stdout", "true", "stderr", "true"}
	if container != "" {
		params = append(params, "container", container)
	}
	return connect(t, cfg, pod, "exec", params...)
}

// requirePassed fails unless err is what the API server answers a
// connection admission let through: the pod has no node to connect to.
func requirePassed(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "does not have a host assigned") {
		t.Errorf("%s: %v, want it admitted (and then failing for want of a node)", what, err)
	}
}

func requireRefused(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: %v, want refused by the gate-access guard", what, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v, want a message naming %q", what, err, w)
		}
	}
}

// writeRole writes a ClusterRole manifest for UserBoundToClusterRole.
func writeRole(t *testing.T, role string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "role.yaml")
	if err := os.WriteFile(f, []byte(role), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
