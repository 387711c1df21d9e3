package main

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// startRecorder is a webhook server that records when it starts.
type startRecorder struct {
	webhook.Server
	started chan struct{}
}

func (s *startRecorder) Start(ctx context.Context) error {
	close(s.started)
	<-ctx.Done()
	return nil
}

// TestCertificatesWait: with rotation, the webhook server starts, and what
// needs the certificate's files runs, only once the certificate is ready,
// and readiness fails until then; without rotation nothing waits.
func TestCertificatesWait(t *testing.T) {
	certs := newCertificates(&options{certRotation: true})
	inner := &startRecorder{started: make(chan struct{})}
	srv := certs.webhookServer(inner)
	var hookRan bool
	if err := certs.afterCertificate(func() error {
		select {
		case <-inner.started:
			t.Error("the webhook server started before what waited for the certificate")
		default:
		}
		hookRan = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hookRan {
		t.Fatal("the hook ran before the certificate was ready")
	}
	if err := certs.checker(nil); err == nil {
		t.Error("ready before the certificate")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	select {
	case <-inner.started:
		t.Fatal("the webhook server started before the certificate was ready")
	case <-time.After(50 * time.Millisecond):
	}
	close(certs.ready)
	select {
	case <-inner.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the webhook server did not start once the certificate was ready")
	}
	if !hookRan {
		t.Error("the hook did not run")
	}
	if err := certs.checker(nil); err != nil {
		t.Errorf("not ready with the certificate: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("start: %v", err)
	}

	off := newCertificates(&options{})
	if off.webhookServer(inner) != webhook.Server(inner) {
		t.Error("without rotation the webhook server is wrapped")
	}
	ran := false
	if err := off.afterCertificate(func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("without rotation the hook did not run at once (err %v)", err)
	}
	if err := off.checker(nil); err != nil {
		t.Errorf("without rotation not ready: %v", err)
	}
}
