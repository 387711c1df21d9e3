package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/internal/certexpiry"
)

// certificates says when the webhook server's certificate is usable.
//
// With --cert-rotation the operator issues that certificate itself, with
// open-policy-agent/cert-controller: a CA and a serving certificate in a
// Secret of its namespace, the CA written into the webhook configurations'
// caBundle, renewed before expiry. The kubelet then mounts the Secret into
// --webhook-cert-dir, which takes up to a minute after a first write. Until
// the files are there and the CA is injected, nothing that serves TLS with
// them may start (controller-runtime's certificate watcher fails on a
// missing file), and the injector cannot read the CA it hands every gate.
// So the webhook server, the gate server and the injector wait for ready,
// and readiness fails meanwhile.
//
// Without --cert-rotation the certificate is someone else's (cert-manager,
// or a test's) and already mounted: ready is closed from the start and the
// manager behaves as it always did.
type certificates struct {
	rotate bool
	ready  chan struct{}
	// beforeServe runs once ready, before the webhook server serves: what
	// must be registered on it but needs the certificate's files.
	beforeServe []func() error
}

// newCertificates returns the certificates' state for the options.
func newCertificates(o *options) *certificates {
	c := &certificates{rotate: o.certRotation, ready: make(chan struct{})}
	if !c.rotate {
		close(c.ready)
	}
	return c
}

// addRotator adds cert-controller's rotator to the manager. It runs on every
// replica, not only the leader: each replica waits for its own mount, and a
// replica that is not the leader must serve webhooks too. Replicas that
// renew at once conflict on the Secret's resourceVersion; the loser reads the
// winner's certificate.
func (c *certificates) addRotator(mgr ctrl.Manager, o *options) error {
	if !c.rotate {
		return nil
	}
	var hooks []rotator.WebhookInfo
	for _, n := range o.certMutating {
		hooks = append(hooks, rotator.WebhookInfo{Name: n, Type: rotator.Mutating})
	}
	for _, n := range o.certValidating {
		hooks = append(hooks, rotator.WebhookInfo{Name: n, Type: rotator.Validating})
	}
	svc := o.operatorService + "." + o.operatorNamespace
	return rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: o.operatorNamespace, Name: o.certSecret},
		CertDir:        o.webhookCertDir,
		CAName:         "toolgate-ca",
		CAOrganization: "toolgate",
		DNSName:        svc + ".svc",
		ExtraDNSNames:  []string{svc + ".svc.cluster.local", svc},
		IsReady:        c.ready,
		Webhooks:       hooks,
		FieldOwner:     "toolgate-manager",
		// Exiting on refresh would restart only the replica that renewed,
		// and a renewed serving certificate keeps its CA: the certificate
		// watchers of the webhook and gate servers pick it up in place.
		RestartOnSecretRefresh: false,
		RequireLeaderElection:  false,
	})
}

// exportExpiry registers the serving certificate's expiry gauge, read
// from the file the webhook and gate servers serve with, in either
// certificate mode: whoever renews the file, the gauge follows it.
func exportExpiry(mgr ctrl.Manager, o *options) error {
	dir, cert, _ := webhookCert(mgr, o)
	if err := crmetrics.Registry.Register(certexpiry.New(filepath.Join(dir, cert))); err != nil {
		return fmt.Errorf("registering the certificate's expiry metric: %w", err)
	}
	return nil
}

// checker is the readiness check of the certificate: failing until the
// rotator has the certificate mounted and its CA injected.
func (c *certificates) checker(_ *http.Request) error {
	select {
	case <-c.ready:
		return nil
	default:
		return errors.New("waiting for the webhook certificate to be issued and mounted")
	}
}

// webhookServer wraps the manager's webhook server so that it starts once
// the certificate is usable.
func (c *certificates) webhookServer(s webhook.Server) webhook.Server {
	if !c.rotate {
		return s
	}
	return &certWaitingServer{Server: s, certs: c}
}

// runnable wraps a runnable that serves with the certificate, such as the
// gate server, so that it starts once the certificate is usable.
func (c *certificates) runnable(r manager.Runnable) manager.Runnable {
	if !c.rotate {
		return r
	}
	return &certWaitingRunnable{inner: r, ready: c.ready}
}

// afterCertificate runs f now without rotation, or just before the webhook
// server serves with it, so that its error stops the manager either way.
func (c *certificates) afterCertificate(f func() error) error {
	if !c.rotate {
		return f()
	}
	c.beforeServe = append(c.beforeServe, f)
	return nil
}

// certWaitingServer is a webhook server that starts once its certificate is
// usable. Webhooks may be registered on it at any time before that.
type certWaitingServer struct {
	webhook.Server
	certs *certificates
}

// Start waits for the certificate, runs what waited for it and serves.
func (s *certWaitingServer) Start(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-s.certs.ready:
	}
	for _, f := range s.certs.beforeServe {
		if err := f(); err != nil {
			return err
		}
	}
	return s.Server.Start(ctx)
}

// certWaitingRunnable is a runnable that starts once the certificate is
// usable.
type certWaitingRunnable struct {
	inner manager.Runnable
	ready <-chan struct{}
}

// Start waits for the certificate and starts the runnable.
func (r *certWaitingRunnable) Start(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-r.ready:
	}
	return r.inner.Start(ctx)
}

// NeedLeaderElection keeps the runnable's own answer.
func (r *certWaitingRunnable) NeedLeaderElection() bool {
	if l, ok := r.inner.(manager.LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}

// completeCertRotation checks the certificate flags when rotation is on.
func (o *options) completeCertRotation(getenv func(string) string) error {
	o.certMutating, o.certValidating = splitList(o.certMutatingFlag), splitList(o.certValidatingFlag)
	if !o.certRotation {
		return nil
	}
	if o.operatorNamespace == "" {
		o.operatorNamespace = getenv("POD_NAMESPACE")
	}
	switch {
	case o.operatorNamespace == "":
		return errors.New("--cert-rotation needs --operator-namespace outside a pod (or set POD_NAMESPACE): the Secret lives there")
	case o.certSecret == "":
		return errors.New("--cert-rotation needs --cert-secret")
	case o.webhookCertDir == "":
		return errors.New("--cert-rotation needs --webhook-cert-dir, where the kubelet mounts --cert-secret")
	case o.operatorService == "":
		return errors.New("--cert-rotation needs --operator-service, the name the certificate is for")
	case len(o.certMutating)+len(o.certValidating) == 0:
		return fmt.Errorf("--cert-rotation needs the webhook configurations to inject the CA into (--cert-mutating-webhooks, --cert-validating-webhooks)")
	}
	return nil
}
