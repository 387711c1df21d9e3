package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/gateserver"
)

// setupGateServer adds the server that streams each gate its
// configuration, on every replica. It takes the webhook server's
// certificate: the chart issues one certificate for the operator's Service,
// and gates trust its CA as the API server does.
//
// The manager's TLS options are deliberately not applied: --enable-http2
// turns HTTP/2 off for metrics and webhooks, but a gate multiplexes its
// stream and its call requests over one HTTP/2 connection. The gate
// server's own HTTP/2 limits are its defence against the rapid-reset class
// of attacks, and only pods with a valid token get past the headers.
//
// The builder is the one the ToolPolicy reconciler evaluates through; the
// cache's field indexes it reads are registered with the controllers,
// before this runs.
func setupGateServer(mgr ctrl.Manager, o *options, certs *certificates, builder *gateconfig.Builder) error {
	if o.gatePort == 0 {
		return nil
	}
	certDir, certName, keyName := webhookCert(mgr, o)
	// Pods that match the same policies share one evaluation until the
	// informer handlers below invalidate their namespace: a change that
	// reaches a thousand gates of one Deployment costs one evaluation.
	// Half the resync bounds how long one lasts should a handler miss a
	// change: a stream's periodic rebuild then evaluates afresh at least
	// every other time, so a missed change reaches a gate within about one
	// and a half resyncs, where without the memo it took one.
	builder.GroupTTL = o.gateResync / 2
	srv, err := gateserver.New(gateserver.Options{
		BindAddress: net.JoinHostPort(o.gateBindAddress, strconv.Itoa(o.gatePort)),
		CertDir:     certDir, CertName: certName, KeyName: keyName,
		Builder: builder, ServeUninjectedPods: o.gateServeUninjected, CheckServed: o.servedPods(),
		// Writes go to the API server; pods are read there too, not from
		// a cache: the operator may get pods, not list or watch them.
		Client: mgr.GetClient(), PodReader: mgr.GetAPIReader(),
		// Namespaces are in the cache already, for the injection webhook
		// and the invalidation handlers.
		NamespaceReader: mgr.GetClient(),
		// Calls wait on the cache, which every replica runs: a call held
		// on a replica that is not the leader sees decisions as fast.
		Pins: mgr.GetClient(), Recorder: mgr.GetEventRecorder("toolgate-gateserver"), RequiredApprovers: o.requiredApprovers,
		MaxStreams: o.gateMaxStreams, MaxConnecting: o.gateMaxConnecting, HeartbeatInterval: o.gateHeartbeat, Resync: o.gateResync, MaxStreamLifetime: o.gateMaxStreamLife,
		Logger: ctrl.Log.WithName("gateserver"),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(certs.runnable(srv)); err != nil {
		return fmt.Errorf("adding the gate server: %w", err)
	}
	return gateInvalidation(mgr, builder, srv)
}

// webhookCert returns where the webhook server reads its certificate,
// with controller-runtime's defaults for what the options leave empty.
func webhookCert(mgr ctrl.Manager, o *options) (dir, cert, key string) {
	dir, cert, key = o.webhookCertDir, "tls.crt", "tls.key"
	ws := mgr.GetWebhookServer()
	if w, ok := ws.(*certWaitingServer); ok {
		ws = w.Server
	}
	if ws, ok := ws.(*webhook.DefaultServer); ok {
		if ws.Options.CertDir != "" {
			dir = ws.Options.CertDir
		}
		if ws.Options.CertName != "" {
			cert = ws.Options.CertName
		}
		if ws.Options.KeyName != "" {
			key = ws.Options.KeyName
		}
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
	}
	return dir, cert, key
}

// gateInvalidation registers informer handlers on policies, servers, pins,
// credentials Secrets and namespaces that tell the server which
// namespace's gates a change concerns. Informers run on every replica, so
// a replica that is not the leader pushes as fast as the leader. The
// builder forgets the namespace's evaluations before the streams are told,
// so that none rebuilds from one made before the change.
func gateInvalidation(mgr ctrl.Manager, builder *gateconfig.Builder, srv *gateserver.Server) error {
	invalidate := func(namespace string) {
		builder.Invalidate(namespace)
		srv.Invalidate(namespace)
	}
	if err := gateconfig.WatchInvalidations(mgr, invalidate); err != nil {
		return fmt.Errorf("watching what gate configurations depend on: %w", err)
	}
	if err := gateconfig.WatchPinChanges(mgr, srv.PinChanged); err != nil {
		return fmt.Errorf("watching ToolPins for decisions on pending calls: %w", err)
	}
	return nil
}
