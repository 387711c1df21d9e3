package gateserver

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/internal/gateproto"
)

func TestStreamServesTheTokensPodAndPushesOnInvalidate(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	other := a.createPod(ctx, t, "agent-1")
	b := newBuilder()
	// A debounce long enough that the burst below lands inside it however
	// the machine schedules this goroutine and the stream's.
	const debounce = 500 * time.Millisecond
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.Debounce = debounce })

	// The token is the second pod's: that is the pod served, whatever
	// else exists under the same service account.
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, other, gateproto.Audience)))
	eventually(t, "the first configuration is applied", func() bool { return len(g.configs()) == 1 })
	if c := g.last(); c.Namespace != a.ns || c.Pod != other.Name || c.Policies[0] != "initial" {
		t.Fatalf("applied a configuration for %s/%s (%v), want %s/%s", c.Namespace, c.Pod, c.Policies, a.ns, other.Name)
	}
	if got := b.builds(); len(got) != 1 || got[0] != a.ns+"/"+other.Name+"/"+string(other.UID) {
		t.Fatalf("the builder was asked for %v, want only the token's pod %s/%s/%s", got, a.ns, other.Name, other.UID)
	}
	if !g.Connected() {
		t.Fatal("the gate is not connected")
	}
	if got := testutil.ToFloat64(srv.metrics.connected); got != 1 {
		t.Fatalf("connected gates gauge = %v, want 1", got)
	}

	// A change in the gate's namespace reaches the live stream.
	b.set(func(b *testBuilder) { b.marker[a.ns] = "second" })
	srv.Invalidate(a.ns)
	eventually(t, "the new configuration is pushed", func() bool { return len(g.configs()) == 2 })
	if c := g.last(); c.Policies[0] != "second" {
		t.Fatalf("pushed %v, want the second configuration", c.Policies)
	}
	if n := g.Stats().Connections; n != 1 {
		t.Fatalf("the gate connected %d times: the push must come down the open stream", n)
	}

	// A burst of invalidations of unchanged content costs one build and
	// pushes nothing; another namespace's changes cost nothing at all.
	buildsBefore, pushesBefore := len(b.builds()), testutil.ToFloat64(srv.metrics.pushes)
	for range 5 {
		srv.Invalidate(a.ns)
	}
	srv.Invalidate("some-other-namespace")
	eventually(t, "the burst is rebuilt", func() bool { return len(b.builds()) > buildsBefore })
	// A second build would start one debounce after an invalidation the
	// first did not absorb: give it two.
	time.Sleep(2 * debounce)
	if got := len(b.builds()) - buildsBefore; got != 1 {
		t.Fatalf("a burst of invalidations cost %d builds, want 1", got)
	}
	if got := testutil.ToFloat64(srv.metrics.pushes); got != pushesBefore {
		t.Fatalf("pushes went from %v to %v for an unchanged revision", pushesBefore, got)
	}
	if len(g.configs()) != 2 {
		t.Fatalf("the gate applied %d configurations, want 2", len(g.configs()))
	}

	// A configuration that fails validation is refused by the gate, which
	// keeps the last good one; the operator counts it.
	b.set(func(b *testBuilder) { b.marker[a.ns] = "third"; b.invalid = true })
	srv.Invalidate("")
	eventually(t, "the invalid configuration is refused", func() bool { return g.Refused() == 1 })
	if rev, _ := g.LastApplied(); rev != g.last().Revision || g.last().Policies[0] != "second" {
		t.Fatalf("after a refused configuration the gate holds %q (%v), want the second one", rev, g.last().Policies)
	}
	if got := testutil.ToFloat64(srv.metrics.invalid); got != 1 {
		t.Fatalf("invalid configurations counted %v, want 1", got)
	}

	// And the next good one is applied.
	b.set(func(b *testBuilder) { b.invalid = false })
	srv.Invalidate("")
	eventually(t, "the third configuration is applied", func() bool { return len(g.configs()) == 3 })
	if n := g.Stats().Connections; n != 1 {
		t.Fatalf("the gate connected %d times, want 1", n)
	}
}

// status opens the config stream with token and returns the HTTP status
// and the body's first line.
func status(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true,
	}}
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, url+gateproto.ConfigPath, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first, _ := bufio.NewReader(io.LimitReader(resp.Body, 1<<20)).ReadString('\n')
	return resp.StatusCode, strings.TrimSpace(first)
}

// heldBuilder holds every build until released: a gate being connected.
type heldBuilder struct {
	*testBuilder
	release chan struct{}
}

func (b heldBuilder) Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.testBuilder.Build(ctx, pod)
}

// TestConnectingIsBounded: a replica connects only so many gates at once
// and tells the others when to come back, so that a fleet reconnecting
// together is not all queued behind the API server's rate limit; the gate
// turned away is served once it comes back.
func TestConnectingIsBounded(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := heldBuilder{newBuilder(), make(chan struct{})}
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.MaxConnecting = 1 })
	first := startGate(t, srv.url, writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience)))
	eventually(t, "the first gate is being connected", func() bool { return len(b.builds()) == 0 && srv.connectingNow() == 1 })

	other := a.createPod(ctx, t, "other")
	token := a.token(ctx, t, other, gateproto.Audience)
	code, after := statusRetryAfter(t, srv.url, token)
	if code != http.StatusServiceUnavailable {
		t.Fatalf("a gate while another connects: status %d, want 503", code)
	}
	if n, err := strconv.Atoi(after); err != nil || n < minBusyRetry || n > minBusyRetry+busyRetrySpread {
		t.Fatalf("Retry-After %q, want %d to %d seconds", after, minBusyRetry, minBusyRetry+busyRetrySpread)
	}
	if got := testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failBusy)); got != 1 {
		t.Fatalf("auth failures{reason=%s} = %v, want 1", failBusy, got)
	}

	close(b.release)
	eventually(t, "the first gate is served", func() bool { return len(first.configs()) == 1 })
	if code, body := status(t, srv.url, token); code != http.StatusOK {
		t.Fatalf("the gate turned away, once the first is connected: status %d (%s)", code, body)
	}
}

// TestQuietStreamOutlivesTheWriteTimeout: the write timeout bounds each
// frame's write, not the quiet between frames. Over HTTP/2 a write
// deadline left set resets the stream when it passes, and with the
// heartbeat longer than the write timeout (15s and 10s by default) every
// gate would reconnect between two heartbeats.
func TestQuietStreamOutlivesTheWriteTimeout(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	srv := startServer(t, newBuilder(), "127.0.0.1:0", func(o *Options) {
		o.HeartbeatInterval, o.WriteTimeout = time.Second, 100*time.Millisecond
	})
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience)))
	eventually(t, "the first configuration is applied", func() bool { return len(g.configs()) == 1 })
	// Twenty write timeouts and two heartbeats.
	time.Sleep(2 * time.Second)
	if st := g.Stats(); st.Connections != 1 || !st.Connected {
		t.Fatalf("the gate connected %d times (connected now: %v, last error %q): a quiet stream was cut",
			st.Connections, st.Connected, st.LastError)
	}
}

// statusRetryAfter opens a stream and returns its status and Retry-After.
func statusRetryAfter(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true,
	}}
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, url+gateproto.ConfigPath, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

func TestRefusals(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", nil)

	recreated := a.createPod(ctx, t, "recreated")
	recreatedToken := a.token(ctx, t, recreated, gateproto.Audience)
	deletePod(ctx, t, recreated)
	a.createPod(ctx, t, "recreated")

	for _, tc := range []struct {
		name   string
		token  string
		status int
		label  string
	}{
		{"no token", "", http.StatusUnauthorized, failMissingToken},
		{"garbage", "not-a-token", http.StatusUnauthorized, failUnauthn},
		{"the API server's audience", a.token(ctx, t, a.pod, "https://kubernetes.default.svc"), http.StatusUnauthorized, failUnauthn},
		{"another audience", a.token(ctx, t, a.pod, "toolgate.dev/something-else"), http.StatusUnauthorized, failUnauthn},
		{"not bound to a pod", a.token(ctx, t, nil, gateproto.Audience), http.StatusForbidden, failNotPodBound},
		// The API server itself invalidates a token whose pod is gone.
		{"pod deleted and recreated", recreatedToken, http.StatusUnauthorized, failUnauthn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(tc.label))
			code, body := status(t, srv.url, tc.token)
			if code != tc.status {
				t.Fatalf("status %d (%s), want %d", code, body, tc.status)
			}
			if got := testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(tc.label)); got != before+1 {
				t.Fatalf("auth failures{reason=%s} went from %v to %v, want one more", tc.label, before, got)
			}
			if tc.token != "" && strings.Contains(body, tc.token) {
				t.Fatal("the refusal echoes the token")
			}
		})
	}

	// A real gate with a refused token never applies anything.
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, nil, gateproto.Audience)))
	eventually(t, "the gate tried three times", func() bool {
		return testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failNotPodBound)) >= 4
	})
	if len(g.configs()) != 0 || g.Connected() {
		t.Fatalf("a refused gate applied %d configurations (connected %v)", len(g.configs()), g.Connected())
	}
	if !strings.Contains(g.Stats().LastError, "403") {
		t.Fatalf("the gate's last error is %q, want the 403", g.Stats().LastError)
	}
	if got := b.builds(); len(got) != 0 {
		t.Fatalf("the builder ran for refused gates: %v", got)
	}
}

// TestPodChecksBehindTheReviewCache checks the server's own pod checks,
// which the API server's do not cover while a review is cached: a pod
// replaced, or terminating, after its token was reviewed. An open stream
// sees the replacement at its next resync, which reads the pod again.
func TestPodChecksBehindTheReviewCache(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.ReviewCacheTTL, o.Resync = time.Hour, 300*time.Millisecond })

	// Replaced: a new pod of the same name has another UID.
	replaced := a.createPod(ctx, t, "replaced")
	replacedToken := a.token(ctx, t, replaced, gateproto.Audience)
	g := startGate(t, srv.url, writeToken(t, replacedToken))
	eventually(t, "the gate has its configuration", func() bool { return len(g.configs()) == 1 })
	deletePod(ctx, t, replaced)
	a.createPod(ctx, t, "replaced")
	eventually(t, "the stream of the replaced pod closes at its resync", func() bool { return !g.Connected() })
	if !g.logged("the operator closed the stream: the token's pod has been replaced") {
		t.Fatal("the gate was not told its pod was replaced")
	}
	g.stop()
	if code, body := status(t, srv.url, replacedToken); code != http.StatusForbidden {
		t.Fatalf("a cached token of a replaced pod: status %d (%s), want 403", code, body)
	}
	if got := testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failPodUID)); got < 1 {
		t.Fatalf("auth failures{reason=%s} = %v, want at least 1", failPodUID, got)
	}
	if g.last().Pod != "replaced" {
		t.Fatalf("the gate holds %s's configuration", g.last().Pod)
	}

	// Terminating: a finalizer holds the deleted pod.
	const finalizer = "toolgate.dev/test-hold"
	leaving := a.createPod(ctx, t, "leaving", finalizer)
	t.Cleanup(func() {
		var p corev1.Pod
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(leaving), &p); err == nil {
			p.Finalizers = nil
			_ = env.Client.Update(ctx, &p)
		}
	})
	leavingToken := a.token(ctx, t, leaving, gateproto.Audience)
	if code, body := status(t, srv.url, leavingToken); code != http.StatusOK {
		t.Fatalf("the leaving pod before its deletion: status %d (%s)", code, body)
	}
	deletePod(ctx, t, leaving)
	if code, body := status(t, srv.url, leavingToken); code != http.StatusForbidden {
		t.Fatalf("a terminating pod: status %d (%s), want 403", code, body)
	}
	if got := testutil.ToFloat64(srv.metrics.authFailures.WithLabelValues(failPodTerminates)); got != 1 {
		t.Fatalf("auth failures{reason=%s} = %v, want 1", failPodTerminates, got)
	}
}

func TestOperatorGoesAwayAndComesBack(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", nil)
	addr := srv.Addr().String()
	tokenFile := writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience))

	g := startGate(t, srv.url, tokenFile)
	eventually(t, "the gate has its configuration", func() bool { return len(g.configs()) == 1 })
	first := g.last().Revision

	srv.stop()
	eventually(t, "the gate sees the operator gone", func() bool { return !g.Connected() })
	if !g.logged("the operator is shutting down") {
		t.Fatal("the operator did not tell the gate it is going away")
	}

	// A gate that starts while no operator answers is given nothing.
	fresh := startGate(t, srv.url, tokenFile)
	eventually(t, "the fresh gate tried to connect and failed", func() bool { return fresh.Stats().LastError != "" })
	if n := len(fresh.configs()); n != 0 {
		t.Fatalf("a gate that never reached the operator applied %d configurations", n)
	}
	if rev, _ := fresh.LastApplied(); rev != "" || fresh.Connected() {
		t.Fatalf("a gate that never reached the operator reports revision %q, connected %v", rev, fresh.Connected())
	}
	// The first keeps what it had.
	if rev, _ := g.LastApplied(); rev != first || len(g.configs()) != 1 {
		t.Fatalf("while the operator is away the gate holds %q after %d applies, want %q once", rev, len(g.configs()), first)
	}

	// The operator returns on the same address: both gates connect; the
	// first has nothing new to apply.
	startServer(t, b, addr, nil)
	eventually(t, "both gates reconnect", func() bool { return g.Connected() && fresh.Connected() })
	eventually(t, "the fresh gate has its configuration", func() bool { return len(fresh.configs()) == 1 })
	if n := g.Stats().Connections; n < 2 {
		t.Fatalf("the gate connected %d times, want a reconnection", n)
	}
	if len(g.configs()) != 1 {
		t.Fatalf("the gate applied the unchanged configuration again (%d applies)", len(g.configs()))
	}
	if fresh.last().Revision != first {
		t.Fatalf("the fresh gate holds %q, want %q", fresh.last().Revision, first)
	}
}

func TestStreamEndsAndBuildErrors(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.MaxStreamLifetime = 700 * time.Millisecond })
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience)))

	// The stream's lifetime ends it; the gate reconnects with its token
	// read again and keeps its configuration.
	eventually(t, "the gate reconnects after the stream's lifetime", func() bool { return g.Stats().Connections >= 2 })
	if len(g.configs()) != 1 {
		t.Fatalf("the gate applied %d configurations, want 1", len(g.configs()))
	}
	if !g.logged("lifetime") {
		t.Fatal("the gate was not told the stream's lifetime is over")
	}

	// A build that fails closes the stream with a reason that says
	// nothing of the cause; the gate keeps what it had.
	b.set(func(b *testBuilder) { b.fail = errors.New("secret other-team/credentials not found") })
	srv.Invalidate(a.ns)
	eventually(t, "the gate hears the build failed", func() bool { return g.logged("could not build") })
	if g.logged("other-team") {
		t.Fatal("the gate was told the builder's error")
	}
	if len(g.configs()) != 1 {
		t.Fatalf("the gate applied %d configurations, want its first kept", len(g.configs()))
	}
	if got := testutil.ToFloat64(srv.metrics.buildErrors); got < 1 {
		t.Fatalf("build errors counted %v", got)
	}
}

func TestStreamLimits(t *testing.T) {
	for _, http1 := range []bool{false, true} {
		t.Run(protoName(http1), func(t *testing.T) { testStreamLimits(t, http1) })
	}
}

func protoName(http1 bool) string {
	if http1 {
		return "HTTP/1.1"
	}
	return "HTTP/2"
}

func testStreamLimits(t *testing.T, http1 bool) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.MaxStreams, o.MaxStreamsPerPod = 2, 1 })
	token := a.token(ctx, t, a.pod, gateproto.Audience)

	// A second stream from the same pod replaces the first, which is told.
	first := openStreamOver(t, http1, srv.url, token)
	if f := first.next(t); f.Type != gateproto.FrameConfig {
		t.Fatalf("first frame %s, want config", f.Type)
	}
	second := openStreamOver(t, http1, srv.url, token)
	if f := second.next(t); f.Type != gateproto.FrameConfig {
		t.Fatalf("first frame %s, want config", f.Type)
	}
	for {
		f := first.next(t)
		if f.Type == gateproto.FrameHeartbeat {
			continue
		}
		if f.Type != gateproto.FrameError || !strings.Contains(f.Error, "newer stream") {
			t.Fatalf("the replaced stream got %+v, want an error frame", f)
		}
		break
	}
	eventually(t, "one stream is left", func() bool { return testutil.ToFloat64(srv.metrics.connected) == 1 })

	// The replica's limit counts every pod's streams.
	other := a.createPod(ctx, t, "agent-1")
	third := openStreamOver(t, http1, srv.url, a.token(ctx, t, other, gateproto.Audience))
	if f := third.next(t); f.Type != gateproto.FrameConfig {
		t.Fatalf("first frame %s, want config", f.Type)
	}
	late := a.createPod(ctx, t, "agent-2")
	if code, body := status(t, srv.url, a.token(ctx, t, late, gateproto.Audience)); code != http.StatusServiceUnavailable {
		t.Fatalf("a stream above the limit: status %d (%s), want 503", code, body)
	}
	if f := second.next(t); f.Type != gateproto.FrameHeartbeat {
		t.Fatalf("the remaining stream got %s, want heartbeats", f.Type)
	}
}

// rawStream is a config stream read frame by frame.
type rawStream struct {
	sc *bufio.Scanner
	// close hangs up.
	close func()
}

// openStreamOver opens a config stream over HTTP/1.1 or HTTP/2.
func openStreamOver(t *testing.T, http1 bool, url, token string) *rawStream {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
	want := 2
	if http1 {
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetHTTP1(true)
		want = 1
	}
	t.Cleanup(tr.CloseIdleConnections)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+gateproto.ConfigPath, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != want {
		t.Fatalf("status %s over %s, want 200 over %s", resp.Status, resp.Proto, protoName(http1))
	}
	if ct := resp.Header.Get("Content-Type"); ct != gateproto.StreamContentType {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, gateproto.MaxFrameBytes)
	return &rawStream{sc: sc, close: func() { cancel(); resp.Body.Close() }}
}

func (s *rawStream) next(t *testing.T) gateproto.Frame {
	t.Helper()
	if !s.sc.Scan() {
		t.Fatalf("the stream ended: %v", s.sc.Err())
	}
	var f gateproto.Frame
	if err := json.Unmarshal(s.sc.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != gateproto.Version {
		t.Fatalf("frame version %q", f.Version)
	}
	return f
}

func TestCallsAreNotServedYet(t *testing.T) {
	srv := startServer(t, newBuilder(), "127.0.0.1:0", nil)
	ca, _ := os.ReadFile(caFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	resp, err := c.Post(srv.url+gateproto.CallsPath, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("POST %s: %s, want 501", gateproto.CallsPath, resp.Status)
	}
}

// labelBuilder builds a configuration whose Policies name the pod's
// "policy" label: what picks a pod's policies is its labels.
type labelBuilder struct{ *testBuilder }

func (b labelBuilder) Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	c, err := b.testBuilder.Build(ctx, pod)
	if err != nil {
		return nil, err
	}
	// A policy name, as validation wants, for an unlabelled pod too.
	c.Policies = []string{"label-" + cmp.Or(pod.Labels["policy"], "none")}
	c.Revision = c.ComputeRevision()
	return c, nil
}

// podCounter counts the reads of pods, what a change that reaches every
// gate at once must not cost one of per gate.
type podCounter struct {
	client.Reader
	mu   sync.Mutex
	gets int
}

func (r *podCounter) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Pod); ok {
		r.mu.Lock()
		r.gets++
		r.mu.Unlock()
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *podCounter) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gets
}

// TestInvalidateReusesThePodRead: a change of policy pushes to every gate
// without reading every gate's pod again; the pod is read when the gate
// connects, and again at each resync (TestResyncFollowsThePodsLabels,
// TestPodChecksBehindTheReviewCache).
func TestInvalidateReusesThePodRead(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	pods := &podCounter{Reader: operator}
	srv := startServer(t, b, "127.0.0.1:0", func(o *Options) { o.PodReader, o.Resync = pods, time.Hour })
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience)))
	eventually(t, "the first configuration is applied", func() bool { return len(g.configs()) == 1 })
	if n := pods.count(); n != 1 {
		t.Fatalf("connecting read the pod %d times, want 1", n)
	}
	for i, marker := range []string{"second", "third"} {
		b.set(func(b *testBuilder) { b.marker[a.ns] = marker })
		srv.Invalidate(a.ns)
		eventually(t, "the change is pushed", func() bool { return len(g.configs()) == i+2 && g.last().Policies[0] == marker })
	}
	if n := pods.count(); n != 1 {
		t.Fatalf("two changes pushed read the pod %d times in all, want only the connect's", n)
	}
	if got := b.builds(); len(got) != 3 || got[2] != got[0] {
		t.Fatalf("builds %v: each rebuild must be for the pod the connect read", got)
	}
}

// TestResyncFollowsThePodsLabels: nothing invalidates a stream when its
// pod is relabelled, yet the labels pick the policies; the periodic
// rebuild reads the pod again and pushes what changed.
func TestResyncFollowsThePodsLabels(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	pod := a.createPod(ctx, t, "relabelled")
	srv := startServer(t, labelBuilder{newBuilder()}, "127.0.0.1:0", func(o *Options) { o.Resync = 500 * time.Millisecond })
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, pod, gateproto.Audience)))
	eventually(t, "the first configuration is applied", func() bool { return len(g.configs()) == 1 })
	if got := g.last().Policies[0]; got != "label-none" {
		t.Fatalf("first configuration for %q", got)
	}
	patch := []byte(`{"metadata":{"labels":{"policy":"strict"}}}`)
	if err := env.Client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the relabelled pod's configuration is pushed without an Invalidate", func() bool {
		return len(g.configs()) == 2 && g.last().Policies[0] == "label-strict"
	})
	if n := g.Stats().Connections; n != 1 {
		t.Fatalf("the gate connected %d times: the push must come down the open stream", n)
	}
}

// parkedOnStreams counts the server's goroutines that wait on a config
// stream: a handler still running, or an HTTP/1.1 connection's loop.
func parkedOnStreams() int {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "gateserver.(*Server).serveConfig") || strings.Contains(g, "net/http.(*conn).serve(") {
			n++
		}
	}
	return n
}

// TestHTTP1StreamHoldsNoGoroutine: a stream asked for over HTTP/1.1 is
// taken over from the HTTP server once the gate is authenticated, and
// served from timers: while it is open no goroutine of the server waits
// on it (an HTTP/2 stream's handler does), yet it gets heartbeats and
// pushes, and the gate gone is found and forgotten.
func TestHTTP1StreamHoldsNoGoroutine(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, b, "127.0.0.1:0", nil)
	token := a.token(ctx, t, a.pod, gateproto.Audience)

	s := openStreamOver(t, true, srv.url, token)
	if f := s.next(t); f.Type != gateproto.FrameConfig || f.Config.Pod != a.pod.Name {
		t.Fatalf("first frame %+v, want the pod's configuration", f)
	}
	eventually(t, "no goroutine waits on the HTTP/1.1 stream", func() bool { return parkedOnStreams() == 0 })
	if f := s.next(t); f.Type != gateproto.FrameHeartbeat {
		t.Fatalf("frame %s, want a heartbeat", f.Type)
	}
	b.set(func(b *testBuilder) { b.marker[a.ns] = "second" })
	srv.Invalidate(a.ns)
	for {
		f := s.next(t)
		if f.Type == gateproto.FrameHeartbeat {
			continue
		}
		if f.Type != gateproto.FrameConfig || f.Config.Policies[0] != "second" || f.Config.Revision != f.Config.ComputeRevision() {
			t.Fatalf("frame %+v, want the second configuration", f)
		}
		break
	}

	// An HTTP/2 stream of another pod, for comparison, holds its handler
	// and its connection's loop.
	other := a.createPod(ctx, t, "agent-1")
	h2 := openStreamOver(t, false, srv.url, a.token(ctx, t, other, gateproto.Audience))
	if f := h2.next(t); f.Type != gateproto.FrameConfig {
		t.Fatalf("first frame %s, want config", f.Type)
	}
	if n := parkedOnStreams(); n != 2 {
		t.Fatalf("%d goroutines wait on the two streams, want the HTTP/2 stream's two alone", n)
	}

	// The gate hangs up: the next heartbeats find it gone.
	s.close()
	eventually(t, "the gate gone is forgotten", func() bool { return testutil.ToFloat64(srv.metrics.connected) == 1 })
}
