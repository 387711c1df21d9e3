package main

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/podconnect"
)

// leaderElectionID names the Lease that the replicas of the operator compete
// for; only the holder reconciles.
const leaderElectionID = "toolgate-manager.toolgate.dev"

// leaseDuration is how long a dead leader keeps the Lease.
const leaseDuration = 15 * time.Second

// newManager builds the manager: the scheme, the API client's rate, the
// metrics and webhook servers, leader election and the cache.
func newManager(o *options, certs *certificates) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(toolgatev1alpha1.AddToScheme(scheme))

	var tlsOpts []func(*tls.Config)
	if !o.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{BindAddress: o.metricsAddr, SecureServing: o.metricsSecure, TLSOpts: tlsOpts}
	if o.metricsSecure {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = float32(o.apiQPS), o.apiBurst
	lease := leaseDuration
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsOpts,
		HealthProbeBindAddress: o.probeAddr,
		// Off unless asked for: the profiles are served without
		// authentication, and name what the operator holds.
		PprofBindAddress: o.pprofAddr,
		LeaderElection:   o.leaderElection,
		LeaderElectionID: leaderElectionID,
		// The Lease lives in the operator's own namespace unless told
		// otherwise; in a cluster client-go finds it from the service
		// account's mount, but the operator also runs outside one.
		LeaderElectionNamespace: cmp.Or(o.leaderElectionNS, o.operatorNamespace),
		// Stepping down on cancel lets a rolling update hand over at once
		// instead of waiting out the lease.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &lease,
		WebhookServer:                 certs.webhookServer(webhook.NewServer(webhook.Options{Port: o.webhookPort, CertDir: o.webhookCertDir, TLSOpts: tlsOpts})),
		Cache:                         controllers.CacheOptions(),
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	return mgr, nil
}

// wire registers the controllers, the webhooks, the gate server, the
// certificate's rotator and the health checks.
func wire(mgr ctrl.Manager, o *options, certs *certificates) error {
	if err := certs.addRotator(mgr, o); err != nil {
		return fmt.Errorf("setting up the certificate rotation: %w", err)
	}
	// One builder of the gates' configurations, with the cluster's
	// ceilings, serves the ToolPolicy reconciler and the gate server: a
	// policy's status then says what its gates are served.
	gates := &gateconfig.Builder{Reader: mgr.GetClient(), Ceilings: o.ceilings}
	if err := controllers.SetupWithManager(mgr, controllers.Options{
		RequiredApprovers: o.requiredApprovers,
		ProbeConcurrency:  o.probeConcurrency, MaxProbeTimeout: o.maxProbeTimeout,
		RemovedPinRetention: o.removedRetention, MaxRemovedPins: o.maxRemovedPins,
		ProbeMemoryBudget: int64(o.probeMemoryBudget), ProbeMemoryPerServer: int64(o.probeMemoryPerServer),
		ProbeAllowLinkLocal: o.probeAllowLinkLocal, GateConfig: gates,
		RequireInjection: !o.gateServeUninjected,
	}); err != nil {
		return err
	}
	if err := approval.Setup(mgr, approval.Config{
		OperatorUsers: []string{o.operatorUser}, ApproverServiceAccounts: o.approverSAs,
		AdminUsers: o.adminUsers, AdminGroups: o.adminGroups,
	}); err != nil {
		return fmt.Errorf("setting up the approval webhooks: %w", err)
	}
	// Served whether or not this replica injects: gated pods outlive a
	// configuration without --gate-image, and the webhook configuration
	// fails closed on a path nobody serves.
	if err := podconnect.Setup(mgr, podconnect.Config{AdminUsers: o.adminUsers, AdminGroups: o.adminGroups}); err != nil {
		return fmt.Errorf("setting up the gate-access webhook: %w", err)
	}
	// The injector reads the CA it hands the gates from the certificate's
	// files, which a rotated certificate has only once issued and mounted.
	if err := certs.afterCertificate(func() error { return setupInjector(mgr, o) }); err != nil {
		return fmt.Errorf("setting up the injection webhook: %w", err)
	}
	if err := setupGateServer(mgr, o, certs, gates); err != nil {
		return fmt.Errorf("setting up the gate server: %w", err)
	}
	if err := exportExpiry(mgr, o); err != nil {
		return err
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("certificate", certs.checker); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	// Ready only once the webhook server serves: a status patch that the
	// webhooks cannot see must fail, not pass.
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	return nil
}
