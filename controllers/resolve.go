package controllers

import (
	"context"
	"crypto/tls"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/pkg/risk"
)

// resolveProbe turns an MCPServer into what the probe and the posture
// judgement need: the URL, headers from Secrets, the CA, and the posture.
// The endpoint is resolved as a gate's upstream is (gateconfig), so that
// the gate reaches exactly what the probe judged. A problem with what the
// server refers to is a *gateconfig.ConfigError, whose reason becomes the
// Ready condition's.
func resolveProbe(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (probe.Config, risk.Posture, error) {
	cfg := probe.Config{Header: http.Header{}}
	posture := risk.Posture{Trust: string(s.Spec.CatalogTrust)}
	e, err := gateconfig.ResolveEndpoint(ctx, c, s)
	if err != nil {
		return cfg, posture, err
	}
	cfg.URL, cfg.Transport, cfg.Header, cfg.Timeout = e.URL, e.Transport, e.Header, e.Timeout
	if ci := s.Spec.Probe.ClientInfo; ci != nil {
		cfg.ClientName, cfg.ClientVersion = ci.Name, ci.Version
	}
	posture.URL, posture.InCluster, posture.Authenticated = e.URL, e.InCluster, e.Authenticated
	posture.Transport = risk.TransportStreamableHTTP
	if e.Transport == toolgatev1alpha1.TransportSSE {
		posture.Transport = risk.TransportSSE
	}
	cfg.Limits = probe.DefaultLimits
	if s.Spec.Probe.MaxTools > 0 {
		cfg.Limits.MaxTools = int(s.Spec.Probe.MaxTools)
	}
	if e.TLS {
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: e.ServerName, RootCAs: e.CAPool}
		cfg.RootCAsPEM = e.CAPEM
	}
	return cfg, posture, nil
}
