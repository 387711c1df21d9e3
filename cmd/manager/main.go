// Command manager runs the toolgate operator: the MCPServer, ToolPin and
// ToolPolicy controllers under one controller-runtime manager, with health
// and readiness probes, Prometheus metrics and leader election.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/controllers"
)

// leaderElectionID names the Lease that the replicas of the operator compete
// for; only the holder reconciles.
const leaderElectionID = "toolgate-manager.toolgate.dev"

// version is set at build time.
var version = "dev"

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "manager: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		metricsAddr          string
		metricsSecure        bool
		probeAddr            string
		enableLeaderElection bool
		leaderElectionNS     string
		enableHTTP2          bool
		requiredApprovers    int
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443",
		"address of the metrics endpoint; \"0\" disables it")
	flag.BoolVar(&metricsSecure, "metrics-secure", true,
		"serve metrics over HTTPS, to callers the API server authenticates and authorizes (get on /metrics)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false,
		"elect a leader among replicas so that only one reconciles")
	flag.StringVar(&leaderElectionNS, "leader-election-namespace", "",
		"namespace of the leader election Lease; the operator's own namespace when empty (in cluster)")
	flag.BoolVar(&enableHTTP2, "enable-http2", false,
		"serve metrics over HTTP/2 as well; off by default because of the HTTP/2 rapid reset and stream cancellation CVEs")
	flag.IntVar(&requiredApprovers, "required-approvers", 2,
		"distinct humans who must approve a tool whose approvalRecommendation is multi (at least 2)")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()

	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	setupLog := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(toolgatev1alpha1.AddToScheme(scheme))

	var tlsOpts []func(*tls.Config)
	if !enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{
		BindAddress:   metricsAddr,
		SecureServing: metricsSecure,
		TLSOpts:       tlsOpts,
	}
	if metricsSecure {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	leaseDuration := 15 * time.Second
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsOpts,
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          enableLeaderElection,
		LeaderElectionID:        leaderElectionID,
		LeaderElectionNamespace: leaderElectionNS,
		// Stepping down on cancel lets a rolling update hand over at once
		// instead of waiting out the lease.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}

	if err := controllers.SetupWithManager(mgr, controllers.Options{RequiredApprovers: requiredApprovers, Version: version}); err != nil {
		return err
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}

	setupLog.Info("starting manager", "leaderElection", enableLeaderElection, "metrics", metricsAddr)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
