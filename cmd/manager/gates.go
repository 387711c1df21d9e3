package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/gateproto"
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
func setupGateServer(mgr ctrl.Manager, o *options) error {
	if o.gatePort == 0 {
		return nil
	}
	certDir, certName, keyName := webhookCert(mgr, o)
	srv, err := gateserver.New(gateserver.Options{
		BindAddress: net.JoinHostPort(o.gateBindAddress, strconv.Itoa(o.gatePort)),
		CertDir:     certDir, CertName: certName, KeyName: keyName,
		Builder: gateBuilder(mgr),
		// Writes go to the API server; pods are read there too, not from
		// a cache: the operator may get pods, not list or watch them.
		Client: mgr.GetClient(), PodReader: mgr.GetAPIReader(),
		MaxStreams: o.gateMaxStreams, HeartbeatInterval: o.gateHeartbeat, MaxStreamLifetime: o.gateMaxStreamLife,
		Logger: ctrl.Log.WithName("gateserver"),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(srv); err != nil {
		return fmt.Errorf("adding the gate server: %w", err)
	}
	gateInvalidation(mgr, srv)
	return nil
}

// webhookCert returns where the webhook server reads its certificate,
// with controller-runtime's defaults for what the options leave empty.
func webhookCert(mgr ctrl.Manager, o *options) (dir, cert, key string) {
	dir, cert, key = o.webhookCertDir, "tls.crt", "tls.key"
	if ws, ok := mgr.GetWebhookServer().(*webhook.DefaultServer); ok {
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

// gateBuilder is the seam where the lead wires controllers.GateConfigBuilder
// (policy evaluation), &controllers.GateConfigBuilder{Reader: mgr.GetClient()},
// once its cache indexes are registered. Until then every gate is refused
// a configuration, which the gate survives: it exposes nothing without one.
func gateBuilder(ctrl.Manager) gateserver.Builder { return unwiredBuilder{} }

// The builder to be wired already fits the server's interface.
var _ gateserver.Builder = (*controllers.GateConfigBuilder)(nil)

// unwiredBuilder builds nothing.
type unwiredBuilder struct{}

func (unwiredBuilder) Build(context.Context, *corev1.Pod) (*gateproto.Config, error) {
	return nil, errNoBuilder
}

var errNoBuilder = errors.New("no builder wired: the gate configuration builder is not part of this build yet")

// gateInvalidation is the seam where the lead registers
// controllers.GateInvalidation: informer handlers on policies, servers,
// pins and credential Secrets that call srv.Invalidate with the namespace
// whose gates a change concerns ("" for all):
// controllers.GateInvalidation(mgr, srv.Invalidate).
func gateInvalidation(ctrl.Manager, *gateserver.Server) {}
