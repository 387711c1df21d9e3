// Command manager runs the toolgate operator: the MCPServer, ToolPin and
// ToolPolicy controllers under one controller-runtime manager, with health
// and readiness probes, Prometheus metrics and leader election.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/approval"
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
		webhookPort          int
		webhookCertDir       string
		operatorUser         string
		approverSAs          string
		probeConcurrency     int
		apiQPS               float64
		apiBurst             int
		maxProbeTimeout      time.Duration
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
	flag.IntVar(&webhookPort, "webhook-port", 9443, "port of the admission webhook server")
	flag.StringVar(&webhookCertDir, "webhook-cert-dir", "",
		"directory holding tls.crt and tls.key for the webhook server; the default is controller-runtime's")
	flag.StringVar(&operatorUser, "operator-user", "",
		"the operator's own user name, the only identity that writes ToolPin status beyond appending decisions; "+
			"default system:serviceaccount:$POD_NAMESPACE:$SERVICE_ACCOUNT_NAME")
	flag.StringVar(&approverSAs, "approver-service-accounts", "",
		"comma-separated service accounts (system:serviceaccount:NS:NAME) allowed to decide on tools; none by default")
	flag.IntVar(&probeConcurrency, "probe-concurrency", 4, "MCP servers probed at once")
	flag.DurationVar(&maxProbeTimeout, "max-probe-timeout", time.Minute,
		"cap on every MCPServer's spec.probe.timeout, so slow servers cannot hold every probe worker")
	flag.Float64Var(&apiQPS, "kube-api-qps", 50, "requests per second the operator may send the API server")
	flag.IntVar(&apiBurst, "kube-api-burst", 100, "burst of requests above --kube-api-qps")
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

	if operatorUser == "" {
		ns, sa := os.Getenv("POD_NAMESPACE"), os.Getenv("SERVICE_ACCOUNT_NAME")
		if ns == "" || sa == "" {
			return fmt.Errorf("--operator-user is required outside a pod (or set POD_NAMESPACE and SERVICE_ACCOUNT_NAME)")
		}
		operatorUser = "system:serviceaccount:" + ns + ":" + sa
	}
	var approvers []string
	for _, a := range strings.Split(approverSAs, ",") {
		if a = strings.TrimSpace(a); a != "" {
			if !strings.HasPrefix(a, "system:serviceaccount:") {
				return fmt.Errorf("--approver-service-accounts: %q is not system:serviceaccount:NAMESPACE:NAME", a)
			}
			approvers = append(approvers, a)
		}
	}

	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = float32(apiQPS), apiBurst
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
		WebhookServer:                 webhook.NewServer(webhook.Options{Port: webhookPort, CertDir: webhookCertDir, TLSOpts: tlsOpts}),
		Cache:                         controllers.CacheOptions(),
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}

	if err := controllers.SetupWithManager(mgr, controllers.Options{RequiredApprovers: requiredApprovers, Version: version, ProbeConcurrency: probeConcurrency, MaxProbeTimeout: maxProbeTimeout}); err != nil {
		return err
	}

	if err := approval.Setup(mgr, approval.Config{OperatorUsers: []string{operatorUser}, ApproverServiceAccounts: approvers}); err != nil {
		return fmt.Errorf("setting up the approval webhooks: %w", err)
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	// Ready only once the webhook server serves: a status patch that the
	// webhooks cannot see must fail, not pass.
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}

	setupLog.Info("starting manager", "leaderElection", enableLeaderElection, "metrics", metricsAddr)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
