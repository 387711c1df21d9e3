package injector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/testenv"
)

// operatorNamespace is the operator's namespace in these tests; the
// manifests' placeholder "system" becomes it.
const operatorNamespace = testenv.DefaultOperatorNamespace

// testTemplate is what the test manager injects.
func testTemplate(ca []byte) inject.Template {
	return inject.Template{
		Image:       "example.com/toolgate/gate:test",
		OperatorURL: "https://toolgate-operator." + operatorNamespace + ".svc:9444",
		CAPEM:       string(ca),
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
		},
	}
}

var (
	env *testenv.Env
	// untrusted and trusted may create pods and workloads everywhere;
	// only trusted is named in the opt-out guard's trust list.
	untrusted, trusted client.Client
)

// The creators' names; trustedGroup is trusted by group, the user by name.
const (
	untrustedUser = "alice"
	trustedUser   = "trusted-deployer"
	trustedGroup  = "toolgate-optout"
)

// creatorRole lets a user create pods and workloads, patch pods (images,
// ephemeral containers, resizes), and nothing about toolgate.
const creatorRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: workload-creator
rules:
- apiGroups: [""]
  resources: [pods, pods/ephemeralcontainers, pods/resize, replicationcontrollers]
  verbs: [create, get, update, patch, delete]
- apiGroups: [apps]
  resources: [deployments, replicasets, statefulsets, daemonsets]
  verbs: [create, get, update, patch, delete]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
  verbs: [create, get, update, patch, delete]
`

// setupCreators provisions the two creators and adds the trusted one to
// the guard's trust list, as an installation would, then waits until the
// API server's policy plugin has seen both the policy and the new list.
func setupCreators(e *testenv.Env) error {
	roleFile := filepath.Join(e.Dir, "creator-role.yaml")
	if err := os.WriteFile(roleFile, []byte(creatorRole), 0o600); err != nil {
		return err
	}
	ucfg, err := e.UserBoundToClusterRole(untrustedUser, roleFile)
	if err != nil {
		return err
	}
	tcfg, err := e.UserBoundToClusterRole(trustedUser, roleFile, trustedGroup)
	if err != nil {
		return err
	}
	if untrusted, err = client.New(ucfg, client.Options{Scheme: e.Scheme}); err != nil {
		return err
	}
	if trusted, err = client.New(tcfg, client.Options{Scheme: e.Scheme}); err != nil {
		return err
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: "toolgate-inject-trust"}, cm); err != nil {
		return fmt.Errorf("the guard's trust list was not installed: %w", err)
	}
	cm.Data["users"] += "," + trustedUser
	cm.Data["groups"] = "other-group, " + trustedGroup
	if err := e.Client.Update(ctx, cm); err != nil {
		return err
	}
	probe := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "guard-probe", Labels: enabledLabels()}}
	if err := e.Client.Create(ctx, probe); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		errU := untrusted.Create(ctx, optedOutPod("guard-probe", "probe"), client.DryRunAll)
		errT := trusted.Create(ctx, optedOutPod("guard-probe", "probe"), client.DryRunAll)
		if errU != nil && strings.Contains(errU.Error(), "opts out of the gate") && errT == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the opt-out guard did not take effect: untrusted %w, trusted %w", errU, errT)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestMain starts a control plane with the injection webhook and the
// opt-out guard installed, and a manager that serves only the injector, as
// a user holding only the generated ClusterRole.
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
		registerLaterSidecar(mgr.GetWebhookServer(), admission.NewDecoder(e.Scheme))
		if err := Setup(mgr, Config{Template: testTemplate(e.WebhookCA()), Settings: inject.Settings{OperatorNamespace: operatorNamespace}}); err != nil {
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
		if err := e.WaitForWebhookServer(); err != nil {
			cancel()
			<-done
			return nil, err
		}
		if err := setupCreators(e); err != nil {
			cancel()
			<-done
			return nil, err
		}
		return func() { cancel(); <-done }, nil
	}, testenv.Options{Injection: true}))
}
