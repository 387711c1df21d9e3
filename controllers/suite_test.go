package controllers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/toolgate/toolgate/internal/testenv"
)

var env *testenv.Env

// TestMain starts one control plane and one manager, with every reconciler
// registered exactly as cmd/manager registers them, for the whole package.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, func(e *testenv.Env) (func(), error) {
		env = e
		ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
		// The manager acts as a user that holds only the generated
		// ClusterRole, so every test here also proves the RBAC markers
		// grant what the reconcilers use.
		managerConfig, err := e.UserBoundToClusterRole("system:serviceaccount:toolgate-system:toolgate-manager",
			filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
		if err != nil {
			return nil, err
		}
		mgr, err := ctrl.NewManager(managerConfig, ctrl.Options{
			Scheme:                 e.Scheme,
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
		})
		if err != nil {
			return nil, fmt.Errorf("creating manager: %w", err)
		}
		if err := SetupWithManager(mgr, Options{}); err != nil {
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
		return func() { cancel(); <-done }, nil
	}))
}
