package gateserver

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/inject"
)

// createInjectedPod creates a pod of the agent's service account as the
// injection webhook would have written it.
func (a *agent) createInjectedPod(ctx context.Context, t *testing.T, name string, mods ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	automount := false
	plain := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: name},
		Spec: corev1.PodSpec{
			ServiceAccountName: a.sa, AutomountServiceAccountToken: &automount,
			Containers: []corev1.Container{{Name: "agent", Image: "agent:latest"}},
		},
	}
	for _, mod := range mods {
		mod(plain)
	}
	pod, err := inject.Mutate(plain, inject.Template{
		Image: "example.com/toolgate/gate:test", OperatorURL: "https://127.0.0.1:9444", CAPEM: string(ca),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// TestTamperedGateIsRefused: the server's own check behind the guard
// policy, which this control plane does not run, as if it had been
// removed. A gate whose image is swapped in the live pod loses its stream
// at the next resync and cannot connect again, though its token stays valid and its review
// is cached; so does the gate of a pod given an ephemeral container that
// shares the gate's process namespace.
func TestTamperedGateIsRefused(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.ReviewCacheTTL, o.Resync = time.Hour, 300*time.Millisecond })
	refused := func() float64 { return testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failGateTampered)) }

	swapped := a.createInjectedPod(ctx, t, "swapped")
	swappedToken := a.token(ctx, t, swapped, gateproto.Audience)
	g := startGate(t, srv.url, writeToken(t, swappedToken))
	eventually(t, "the injected pod's gate has its configuration", func() bool { return len(g.configs()) == 1 })

	// kubectl set image pod/swapped toolgate-gate=evil.example/gate:1
	var live corev1.Pod
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(swapped), &live); err != nil {
		t.Fatal(err)
	}
	live.Spec.InitContainers[0].Image = "evil.example/gate:1"
	if err := env.Client.Update(ctx, &live); err != nil {
		t.Fatalf("swapping the gate's image: %v", err)
	}
	eventually(t, "the swapped gate's stream closes at its resync", func() bool { return !g.Connected() })
	if !g.logged("the operator closed the stream: the pod's gate is not the one injected") {
		t.Fatal("the gate was not told why its stream closed")
	}
	g.stop()
	code, body := status(t, srv.url, swappedToken)
	if code != http.StatusForbidden || !strings.Contains(body, "evil.example/gate:1") {
		t.Fatalf("the swapped gate reconnecting: status %d (%s), want 403 naming the image", code, body)
	}
	if got := refused(); got != 1 {
		t.Fatalf("auth failures{reason=%s} = %v, want the refused reconnect", failGateTampered, got)
	}

	// kubectl debug --target=toolgate-gate
	debugged := a.createInjectedPod(ctx, t, "debugged")
	debuggedToken := a.token(ctx, t, debugged, gateproto.Audience)
	if code, body := status(t, srv.url, debuggedToken); code != http.StatusOK {
		t.Fatalf("the pod before it is debugged: status %d (%s)", code, body)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(debugged), &live); err != nil {
		t.Fatal(err)
	}
	live.Spec.EphemeralContainers = []corev1.EphemeralContainer{{TargetContainerName: inject.ContainerName,
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox",
			TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}}
	if err := env.Client.SubResource("ephemeralcontainers").Update(ctx, &live); err != nil {
		t.Fatalf("adding an ephemeral container: %v", err)
	}
	if code, body := status(t, srv.url, debuggedToken); code != http.StatusForbidden || !strings.Contains(body, "container debugger") {
		t.Fatalf("the debugged pod's gate: status %d (%s), want 403 naming the debugger", code, body)
	}

	// A pod admitted with an /etc/hosts entry of its author's, as where
	// the injection webhook did not see it: the gate shares that file, so
	// the author would choose where it sends the upstream credentials.
	aliased := a.createInjectedPod(ctx, t, "aliased", func(p *corev1.Pod) {
		p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"mcp.tools.svc.cluster.local"}}}
	})
	if code, body := status(t, srv.url, a.token(ctx, t, aliased, gateproto.Audience)); code != http.StatusForbidden || !strings.Contains(body, "spec.hostAliases") {
		t.Fatalf("a pod with host aliases: status %d (%s), want 403 naming spec.hostAliases", code, body)
	}

	// An untouched injected pod is served, so the refusals above are the
	// changes', not the injection's.
	intact := a.createInjectedPod(ctx, t, "intact")
	if code, body := status(t, srv.url, a.token(ctx, t, intact, gateproto.Audience)); code != http.StatusOK {
		t.Fatalf("an intact injected pod: status %d (%s)", code, body)
	}
}

// TestOnlyInjectedPods: as the manager runs it, the server serves only a
// gate the webhook injected, in a namespace labelled for injection. A pod
// that projects a token of the gate's audience itself (anyone who may
// create pods can) gets nothing, and neither does an injected-looking pod
// in a namespace the webhook and the guard policy do not cover.
func TestOnlyInjectedPods(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.ServeUninjectedPods = false })
	refused := func() float64 { return testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failNotInjected)) }

	code := func(pod *corev1.Pod) int {
		t.Helper()
		c, _ := status(t, srv.url, a.token(ctx, t, pod, gateproto.Audience))
		return c
	}
	// A plain pod, the agent's own.
	if got := code(a.pod); got != http.StatusForbidden {
		t.Fatalf("a pod that was never injected: HTTP %d, want 403", got)
	}
	// Injected-looking, in a namespace not labelled for injection.
	injected := a.createInjectedPod(ctx, t, "injected")
	if got := code(injected); got != http.StatusForbidden {
		t.Fatalf("an injected pod in a namespace not labelled for injection: HTTP %d, want 403", got)
	}
	if refused() != 2 {
		t.Fatalf("%v refusals counted as %s, want 2", refused(), failNotInjected)
	}

	var ns corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: a.ns}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels = map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, injected, gateproto.Audience)))
	eventually(t, "the injected pod's gate in a labelled namespace has its configuration", func() bool { return len(g.configs()) == 1 })
	if got := code(a.pod); got != http.StatusForbidden {
		t.Fatalf("a plain pod in a labelled namespace: HTTP %d, want 403", got)
	}

	// The namespace loses its label: the stream closes at its next check.
	ns.Labels = nil
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
	srv.Invalidate(a.ns)
	eventually(t, "the gate's stream closes once its namespace is no longer labelled", func() bool { return !g.Connected() })
}

// TestServedOnlyTheOperatorsGate: with the operator's template to compare
// with, a pod whose record and gate agree with each other but name an
// image this operator does not inject — written by the pod's author
// before its namespace was labelled — gets nothing; the same pod is
// served by an operator that injects that image.
func TestServedOnlyTheOperatorsGate(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	var ns corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: a.ns}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels = map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
	pod := a.createInjectedPod(ctx, t, "self-made") // image example.com/toolgate/gate:test
	token := a.token(ctx, t, pod, gateproto.Audience)
	served := func(image string) func(*corev1.Pod, map[string]string) error {
		tmpl := inject.Template{Image: image, OperatorURL: "https://127.0.0.1:9444"}
		return func(p *corev1.Pod, labels map[string]string) error {
			return inject.CheckServed(p, labels, tmpl, inject.Settings{OperatorNamespace: "toolgate-system"}, nil)
		}
	}
	other := startServer(t, newBuilder(), "127.0.0.1:0", func(o *Options) {
		o.ServeUninjectedPods, o.CheckServed = false, served("ghcr.io/toolgate/gate:0.1.0")
	})
	if code, body := status(t, other.url, token); code != http.StatusForbidden || !strings.Contains(body, "not one this operator injects") {
		t.Fatalf("a gate of an image this operator does not inject: HTTP %d %s", code, body)
	}
	same := startServer(t, newBuilder(), "127.0.0.1:0", func(o *Options) {
		o.ServeUninjectedPods, o.CheckServed = false, served("example.com/toolgate/gate:test")
	})
	g := startGate(t, same.url, writeToken(t, token))
	eventually(t, "the gate this operator injects has its configuration", func() bool { return len(g.configs()) == 1 })
}
