package controllers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/gateconfig"

	"github.com/toolgate/toolgate/internal/testenv"
)

// testMaxRemovedPins is the test manager's cap on the removed pins one
// server keeps, small enough for a test to reach.
const testMaxRemovedPins = 10

var (
	env         *testenv.Env
	testManager ctrl.Manager
	// testGates is the gate configuration builder the manager's ToolPolicy
	// reconciler evaluates through, as the operator's is.
	testGates *gateconfig.Builder
)

// TestMain starts one control plane and one manager, with every reconciler
// registered exactly as cmd/manager registers them, for the whole package.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, func(e *testenv.Env) (func(), error) {
		env = e
		ctrl.SetLogger(testenv.Logger())
		// The manager acts as a user that holds only the generated
		// ClusterRole, so every test here also proves the RBAC markers
		// grant what the reconcilers use.
		managerConfig, err := e.UserBoundToClusterRole(testenv.OperatorUser,
			filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
		if err != nil {
			return nil, err
		}
		managerConfig.QPS, managerConfig.Burst = 200, 400
		host, port, certDir := e.WebhookServer()
		mgr, err := ctrl.NewManager(managerConfig, ctrl.Options{
			Scheme:                 e.Scheme,
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
			WebhookServer:          webhook.NewServer(webhook.Options{Host: host, Port: port, CertDir: certDir}),
			Cache:                  CacheOptions(),
		})
		if err != nil {
			return nil, fmt.Errorf("creating manager: %w", err)
		}
		testManager = mgr
		testGates = &gateconfig.Builder{Reader: mgr.GetClient()}
		if err := SetupWithManager(mgr, Options{MaxRemovedPins: testMaxRemovedPins, ProbeConcurrency: 8, GateConfig: testGates}); err != nil {
			return nil, err
		}
		if err := approval.Setup(mgr, approval.Config{
			OperatorUsers: []string{testenv.OperatorUser},
			AdminGroups:   []string{testAdminGroup},
			// The second entry is in an agent namespace: listing it must
			// not let it decide.
			ApproverServiceAccounts: []string{"system:serviceaccount:reviewers:review-bot", "system:serviceaccount:agents:helper"},
		}); err != nil {
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
		if err := e.Client.Create(context.Background(), agentNamespace); err != nil {
			cancel()
			<-done
			return nil, err
		}
		// Wait for the webhook server before any test writes a status.
		if err := e.WaitForWebhookServer(); err != nil {
			cancel()
			<-done
			return nil, err
		}
		return func() { cancel(); <-done }, nil
	}, testenv.Options{Webhooks: true}))
}

// testAdminGroup is the group of toolgate administrators in these tests:
// its members may delete ToolPins that hold decisions.
const testAdminGroup = "toolgate-admins"
