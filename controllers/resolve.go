package controllers

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/pkg/risk"
)

// configError is a problem with what the MCPServer refers to; the reason
// becomes the condition's reason.
type configError struct {
	reason string
	msg    string
}

func (e *configError) Error() string { return e.msg }

// endpoint is an MCPServer's spec resolved against the objects it refers
// to: what the probe and a gate both need to reach the server. One
// resolution serves both, so that the gate reaches the server with exactly
// the address, credentials and CA the probe judged.
type endpoint struct {
	url       string
	transport toolgatev1alpha1.Transport
	// header holds the credentials from the server's Secrets.
	header http.Header
	// tls is set when spec.tls is; caPEM is its CA bundle, when given.
	tls        bool
	caPEM      []byte
	caPool     *x509.CertPool
	serverName string
	// timeout is spec.probe.timeout; zero when unset.
	timeout       time.Duration
	inCluster     bool
	authenticated bool
}

// resolveEndpoint resolves an MCPServer's endpoint, credentials and CA. A
// problem with what the server refers to is a *configError.
func resolveEndpoint(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (endpoint, error) {
	e := endpoint{header: http.Header{}}
	switch {
	case s.Spec.Endpoint.Service != nil:
		svc := s.Spec.Endpoint.Service
		scheme := cmp.Or(svc.Scheme, toolgatev1alpha1.DefaultServiceScheme)
		path := cmp.Or(svc.Path, toolgatev1alpha1.DefaultServicePath)
		e.url = fmt.Sprintf("%s://%s.%s.svc:%d%s", scheme, svc.Name, s.Namespace, svc.Port, path)
		e.inCluster = true
	case s.Spec.Endpoint.URL != "":
		e.url = s.Spec.Endpoint.URL
	default:
		return e, &configError{toolgatev1alpha1.ReasonInvalidEndpoint, "spec.endpoint names neither a service nor a URL"}
	}
	e.transport = cmp.Or(s.Spec.Transport, toolgatev1alpha1.DefaultTransport)
	if p := s.Spec.Probe; p.Timeout != nil {
		e.timeout = p.Timeout.Duration
	}

	if auth := s.Spec.Auth; auth != nil {
		if ref := auth.BearerToken; ref != nil {
			token, err := secretKey(ctx, c, s.Namespace, ref.Name, ref.Key)
			if err != nil {
				return e, err
			}
			bearer := "Bearer " + strings.TrimSpace(token)
			if err := gateproto.CheckHeader("Authorization", bearer); err != nil {
				return e, &configError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s: key %q is not a valid bearer token: %v", ref.Name, ref.Key, err)}
			}
			e.header.Set("Authorization", bearer)
			e.authenticated = true
		}
		if ref := auth.HeadersFrom; ref != nil {
			var secret corev1.Secret
			if err := getSecret(ctx, c, s.Namespace, ref.Name, &secret); err != nil {
				return e, err
			}
			for k, v := range secret.Data {
				// The gate's own rule: a header it would refuse makes this
				// server not ready, not the pod's whole configuration invalid.
				if err := gateproto.CheckHeader(k, string(v)); err != nil {
					return e, &configError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s: %v", ref.Name, err)}
				}
				e.header.Set(k, string(v))
			}
			e.authenticated = true
		}
	}

	if t := s.Spec.TLS; t != nil {
		e.tls, e.serverName = true, t.ServerName
		if ca := t.CA; ca != nil {
			var pem string
			var err error
			switch {
			case ca.Secret != nil:
				pem, err = secretKey(ctx, c, s.Namespace, ca.Secret.Name, ca.Secret.Key)
			case ca.ConfigMap != nil:
				pem, err = configMapKey(ctx, c, s.Namespace, ca.ConfigMap.Name, ca.ConfigMap.Key)
			}
			if err != nil {
				return e, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM([]byte(pem)) {
				return e, &configError{toolgatev1alpha1.ReasonInvalidCA, "spec.tls.ca holds no PEM certificate"}
			}
			e.caPool, e.caPEM = pool, []byte(pem)
		}
	}
	return e, nil
}

// resolveProbe turns an MCPServer into what the probe and the posture
// judgement need: the URL, headers from Secrets, the CA, and the posture.
func resolveProbe(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (probe.Config, risk.Posture, error) {
	cfg := probe.Config{Header: http.Header{}}
	posture := risk.Posture{Trust: string(s.Spec.CatalogTrust)}
	e, err := resolveEndpoint(ctx, c, s)
	if err != nil {
		return cfg, posture, err
	}
	cfg.URL, cfg.Transport, cfg.Header, cfg.Timeout = e.url, e.transport, e.header, e.timeout
	if ci := s.Spec.Probe.ClientInfo; ci != nil {
		cfg.ClientName, cfg.ClientVersion = ci.Name, ci.Version
	}
	posture.URL, posture.InCluster, posture.Authenticated = e.url, e.inCluster, e.authenticated
	posture.Transport = risk.TransportStreamableHTTP
	if e.transport == toolgatev1alpha1.TransportSSE {
		posture.Transport = risk.TransportSSE
	}
	cfg.Limits = probe.DefaultLimits
	if s.Spec.Probe.MaxTools > 0 {
		cfg.Limits.MaxTools = int(s.Spec.Probe.MaxTools)
	}
	if e.tls {
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: e.serverName, RootCAs: e.caPool}
		cfg.RootCAsPEM = e.caPEM
	}
	return cfg, posture, nil
}

// resolveUpstream turns an MCPServer into the upstream a gate reaches it
// at: the same address, credentials and CA the probe used.
func resolveUpstream(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (*gateproto.Upstream, error) {
	e, err := resolveEndpoint(ctx, c, s)
	if err != nil {
		return nil, err
	}
	u := &gateproto.Upstream{
		URL: e.url, Transport: string(e.transport), CAPEM: string(e.caPEM), ServerName: e.serverName,
		Timeout: gateproto.Duration{Duration: cmp.Or(e.timeout, toolgatev1alpha1.DefaultProbeTimeout)},
		// What the probe resolved and checked, so that the gate never
		// resolves the host in the agent's pod, whose /etc/hosts and
		// resolver the pod's author may have chosen.
		Addresses: slices.Clone(s.Status.Addresses),
	}
	if len(e.header) > 0 {
		u.Headers = make(map[string]string, len(e.header))
		for k := range e.header {
			u.Headers[k] = e.header.Get(k)
		}
	}
	return u, nil
}

func secretKey(ctx context.Context, c client.Reader, ns, name, key string) (string, error) {
	var secret corev1.Secret
	if err := getSecret(ctx, c, ns, name, &secret); err != nil {
		return "", err
	}
	v, ok := secret.Data[key]
	if !ok {
		return "", &configError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s has no key %q", name, key)}
	}
	return string(v), nil
}

func configMapKey(ctx context.Context, c client.Reader, ns, name, key string) (string, error) {
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &configError{toolgatev1alpha1.ReasonCANotFound, fmt.Sprintf("configmap %s not found", name)}
		}
		return "", err
	}
	v, ok := cm.Data[key]
	if !ok {
		return "", &configError{toolgatev1alpha1.ReasonCANotFound, fmt.Sprintf("configmap %s has no key %q", name, key)}
	}
	return v, nil
}

func secretError(name string, err error) error {
	if apierrors.IsNotFound(err) {
		return &configError{toolgatev1alpha1.ReasonSecretNotFound, fmt.Sprintf("secret %s not found (toolgate reads only Secrets labelled %s=true)", name, toolgatev1alpha1.LabelCredentials)}
	}
	return err
}

// getSecret reads a credentials Secret, refusing one not labelled for
// toolgate even when a cache without the restriction returns it.
func getSecret(ctx context.Context, c client.Reader, ns, name string, secret *corev1.Secret) error {
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, secret); err != nil {
		return secretError(name, err)
	}
	if secret.Labels[toolgatev1alpha1.LabelCredentials] != "true" {
		return &configError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s is not labelled %s=true; toolgate reads only Secrets meant for MCP servers", name, toolgatev1alpha1.LabelCredentials)}
	}
	return nil
}
