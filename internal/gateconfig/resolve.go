package gateconfig

import (
	"cmp"
	"context"
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
)

// ConfigError is a problem with what an MCPServer refers to (a Secret or
// CA missing or unusable, no endpoint): the server is then not ready, and
// Reason becomes the reason of the condition that says so.
type ConfigError struct {
	Reason  string
	Message string
}

func (e *ConfigError) Error() string { return e.Message }

// Endpoint is an MCPServer's spec resolved against the objects it refers
// to: what the probe and a gate both need to reach the server. One
// resolution serves both, so that the gate reaches the server with exactly
// the address, credentials and CA the probe judged.
type Endpoint struct {
	URL       string
	Transport toolgatev1alpha1.Transport
	// Header holds the credentials from the server's Secrets.
	Header http.Header
	// TLS is set when spec.tls is; CAPEM is its CA bundle, when given,
	// and CAPool the same, parsed.
	TLS        bool
	CAPEM      []byte
	CAPool     *x509.CertPool
	ServerName string
	// Timeout is spec.probe.timeout; zero when unset.
	Timeout time.Duration
	// InCluster: the endpoint is a Service of the cluster.
	InCluster bool
	// Authenticated: the server's spec.auth gives credentials.
	Authenticated bool
}

// ResolveEndpoint resolves an MCPServer's endpoint, credentials and CA. A
// problem with what the server refers to is a *ConfigError.
func ResolveEndpoint(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (Endpoint, error) {
	e := Endpoint{Header: http.Header{}}
	switch {
	case s.Spec.Endpoint.Service != nil:
		svc := s.Spec.Endpoint.Service
		scheme := cmp.Or(svc.Scheme, toolgatev1alpha1.DefaultServiceScheme)
		path := cmp.Or(svc.Path, toolgatev1alpha1.DefaultServicePath)
		e.URL = fmt.Sprintf("%s://%s.%s.svc:%d%s", scheme, svc.Name, s.Namespace, svc.Port, path)
		e.InCluster = true
	case s.Spec.Endpoint.URL != "":
		e.URL = s.Spec.Endpoint.URL
	default:
		return e, &ConfigError{toolgatev1alpha1.ReasonInvalidEndpoint, "spec.endpoint names neither a service nor a URL"}
	}
	e.Transport = cmp.Or(s.Spec.Transport, toolgatev1alpha1.DefaultTransport)
	if p := s.Spec.Probe; p.Timeout != nil {
		e.Timeout = p.Timeout.Duration
	}

	if auth := s.Spec.Auth; auth != nil {
		if ref := auth.BearerToken; ref != nil {
			token, err := secretKey(ctx, c, s.Namespace, ref.Name, ref.Key)
			if err != nil {
				return e, err
			}
			bearer := "Bearer " + strings.TrimSpace(token)
			if err := gateproto.CheckHeader("Authorization", bearer); err != nil {
				return e, &ConfigError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s: key %q is not a valid bearer token: %v", ref.Name, ref.Key, err)}
			}
			e.Header.Set("Authorization", bearer)
			e.Authenticated = true
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
					return e, &ConfigError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s: %v", ref.Name, err)}
				}
				e.Header.Set(k, string(v))
			}
			e.Authenticated = true
		}
	}

	if t := s.Spec.TLS; t != nil {
		e.TLS, e.ServerName = true, t.ServerName
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
				return e, &ConfigError{toolgatev1alpha1.ReasonInvalidCA, "spec.tls.ca holds no PEM certificate"}
			}
			e.CAPool, e.CAPEM = pool, []byte(pem)
		}
	}
	return e, nil
}

// ResolveUpstream turns an MCPServer into the upstream a gate reaches it
// at: the same address, credentials and CA the probe used.
func ResolveUpstream(ctx context.Context, c client.Reader, s *toolgatev1alpha1.MCPServer) (*gateproto.Upstream, error) {
	e, err := ResolveEndpoint(ctx, c, s)
	if err != nil {
		return nil, err
	}
	u := &gateproto.Upstream{
		URL: e.URL, Transport: string(e.Transport), CAPEM: string(e.CAPEM), ServerName: e.ServerName,
		Timeout: gateproto.Duration{Duration: cmp.Or(e.Timeout, toolgatev1alpha1.DefaultProbeTimeout)},
		// What the probe resolved and checked, so that the gate never
		// resolves the host in the agent's pod, whose /etc/hosts and
		// resolver the pod's author may have chosen.
		Addresses: slices.Clone(s.Status.Addresses),
	}
	if len(e.Header) > 0 {
		u.Headers = make(map[string]string, len(e.Header))
		for k := range e.Header {
			u.Headers[k] = e.Header.Get(k)
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
		return "", &ConfigError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s has no key %q", name, key)}
	}
	return string(v), nil
}

func configMapKey(ctx context.Context, c client.Reader, ns, name, key string) (string, error) {
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &ConfigError{toolgatev1alpha1.ReasonCANotFound, fmt.Sprintf("configmap %s not found", name)}
		}
		return "", err
	}
	v, ok := cm.Data[key]
	if !ok {
		return "", &ConfigError{toolgatev1alpha1.ReasonCANotFound, fmt.Sprintf("configmap %s has no key %q", name, key)}
	}
	return v, nil
}

func secretError(name string, err error) error {
	if apierrors.IsNotFound(err) {
		return &ConfigError{toolgatev1alpha1.ReasonSecretNotFound, fmt.Sprintf("secret %s not found (toolgate reads only Secrets labelled %s=true)", name, toolgatev1alpha1.LabelCredentials)}
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
		return &ConfigError{toolgatev1alpha1.ReasonInvalidSecret, fmt.Sprintf("secret %s is not labelled %s=true; toolgate reads only Secrets meant for MCP servers", name, toolgatev1alpha1.LabelCredentials)}
	}
	return nil
}
