package gateserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// The tests here open pending calls as a gate does, against ToolPins in a
// real API server, and decide them by writing the pin's status as the
// approval webhooks would leave it (stamped decisions).

const (
	callFP      = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	otherFP     = "sha256:3333333333333333333333333333333333333333333333333333333333333333"
	callDigest  = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	gatedTool   = "deploy"
	toolboxName = "toolbox"
)

// callBuilder gates one tool of one server for the pods it names; every
// other pod's configuration serves the server without gating the tool.
type callBuilder struct {
	*testBuilder
	server, pin string
	mu          sync.Mutex
	gatedPods   map[string]bool // namespace/name
	// resultAction is the tool's ResultAction for every pod.
	resultAction gateproto.FindingAction
}

func (b *callBuilder) Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	c, err := b.testBuilder.Build(ctx, pod)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	gatedHere := b.gatedPods[pod.Namespace+"/"+pod.Name]
	resultAction := b.resultAction
	b.mu.Unlock()
	tool := gateproto.Tool{Name: gatedTool, Decision: gateproto.DecisionExposed, Pin: b.pin, Fingerprint: callFP, Level: "L4", ResultAction: resultAction}
	if gatedHere {
		tool.Decision, tool.ApprovalRule = gateproto.DecisionApprovalGated, "minLevel L4"
	}
	c.Servers = []gateproto.Server{{
		ID: b.server, Ready: true,
		Upstream: &gateproto.Upstream{URL: "http://toolbox.tools.svc:8080/mcp", Transport: "StreamableHTTP"},
		Tools:    []gateproto.Tool{tool},
	}}
	c.ApprovalTimeout = gateproto.Duration{Duration: 30 * time.Second}
	c.Revision = c.ComputeRevision()
	return c, nil
}

// callFixture is an agent namespace, a namespace of tools with a Trusted
// pin of the gated tool, and a server whose builder gates it for the
// agent's first pod.
type callFixture struct {
	agent *agent
	pinNS string
	pin   client.ObjectKey
	b     *callBuilder
	srv   *running
}

func newCallFixture(ctx context.Context, t *testing.T, tweaks ...func(*Options)) *callFixture {
	t.Helper()
	a := newAgent(ctx, t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tools-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	f := &callFixture{agent: a, pinNS: ns.Name, pin: client.ObjectKey{Namespace: ns.Name, Name: lifecycle.PinName(toolboxName, gatedTool)}}
	f.b = &callBuilder{testBuilder: newBuilder(), server: ns.Name + "/" + toolboxName, pin: f.pin.Name,
		gatedPods: map[string]bool{a.ns + "/" + a.pod.Name: true}}
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.pin.Namespace, Name: f.pin.Name},
		Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: toolboxName}, ToolName: gatedTool},
	}
	if err := env.Client.Create(ctx, pin); err != nil {
		t.Fatal(err)
	}
	f.setStatus(ctx, t, func(st *toolgatev1alpha1.ToolPinStatus) {
		st.State, st.ObservedFingerprint = toolgatev1alpha1.PinTrusted, callFP
		st.Pinned = &toolgatev1alpha1.PinnedDefinition{Fingerprint: callFP, Time: metav1.Now(), Source: toolgatev1alpha1.PinnedOnFirstUse}
		st.Decisions = []toolgatev1alpha1.Decision{}
	})
	f.srv = startServer(t, f.b, "127.0.0.1:0", func(o *Options) {
		o.Pins = operator
		for _, tw := range tweaks {
			tw(o)
		}
	})
	return f
}

// setStatus changes the pin's status as an administrator. The server
// writes the same status (opening, resolving and sweeping calls), so an
// update that loses to one of its writes is made again on the pin read
// afresh: change must apply to whatever status it is given.
func (f *callFixture) setStatus(ctx context.Context, t *testing.T, change func(*toolgatev1alpha1.ToolPinStatus)) {
	t.Helper()
	err := retry.RetryOnConflict(conflictBackoff, func() error {
		pin := &toolgatev1alpha1.ToolPin{}
		if err := env.Client.Get(ctx, f.pin, pin); err != nil {
			return err
		}
		change(&pin.Status)
		return env.Client.Status().Update(ctx, pin)
	})
	if err != nil {
		t.Fatalf("updating the pin's status: %v", err)
	}
	f.srv.notify(f.pin)
}

func (f *callFixture) get(ctx context.Context, t *testing.T) *toolgatev1alpha1.ToolPin {
	t.Helper()
	pin := &toolgatev1alpha1.ToolPin{}
	if err := env.Client.Get(ctx, f.pin, pin); err != nil {
		t.Fatal(err)
	}
	return pin
}

// notify tells the server a pin changed, as the manager's informer does;
// the tests read the API server directly and have no informer.
func (r *running) notify(key client.ObjectKey) {
	if r != nil {
		r.PinChanged(key.Namespace, key.Name)
	}
}

// request is a valid call of the gated tool.
func (f *callFixture) request(id string) gateproto.CallRequest {
	return gateproto.CallRequest{
		Version: gateproto.Version, CallID: id, Server: f.b.server, Tool: gatedTool, Pin: f.pin.Name,
		Fingerprint: callFP, ArgumentsDigest: callDigest, ArgumentsPreview: `{"target":"staging"}`,
	}
}

// postCall opens a pending call with token and returns the response, whose
// body the caller closes (closing it withdraws an open call).
func (f *callFixture) postCall(ctx context.Context, t *testing.T, token string, req gateproto.CallRequest) *http.Response {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}}
	t.Cleanup(c.CloseIdleConnections)
	body, _ := json.Marshal(&req)
	hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.url+gateproto.CallsPath, strings.NewReader(string(body)))
	hreq.Header.Set("Authorization", "Bearer "+token)
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// refusal opens a call that must be refused and returns the status and
// the reason given.
func (f *callFixture) refusal(ctx context.Context, t *testing.T, token string, req gateproto.CallRequest) (int, string) {
	t.Helper()
	resp := f.postCall(ctx, t, token, req)
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func pendingOf(ns, pod string, n int, expiry time.Time) []toolgatev1alpha1.PendingCall {
	out := make([]toolgatev1alpha1.PendingCall, n)
	for i := range out {
		out[i] = toolgatev1alpha1.PendingCall{
			ID: fmt.Sprintf("held-%s-%s-%d", ns, pod, i), Fingerprint: callFP, ArgumentsDigest: callDigest,
			Agent:         toolgatev1alpha1.AgentIdentity{Namespace: ns, Pod: pod, ServiceAccount: "agent"},
			RequestedTime: metav1.NewTime(expiry.Add(-time.Minute)), ExpiryTime: metav1.NewTime(expiry),
		}
	}
	return out
}

func TestServeCallRefusals(t *testing.T) {
	ctx := testContext(t)
	f := newCallFixture(ctx, t)
	token := f.agent.token(ctx, t, f.agent.pod, gateproto.Audience)
	other := f.agent.createPod(ctx, t, "agent-1")
	otherToken := f.agent.token(ctx, t, other, gateproto.Audience)
	later := time.Now().Add(time.Hour)

	for _, tc := range []struct {
		name   string
		token  string
		change func(*gateproto.CallRequest)
		status func(*toolgatev1alpha1.ToolPinStatus)
		want   int
		reason string
	}{
		{name: "a pod whose configuration does not gate the tool", token: otherToken,
			want: http.StatusForbidden, reason: `tool "deploy" is Exposed in this pod's configuration, not ApprovalGated`},
		{name: "a tool the configuration does not hold", change: func(r *gateproto.CallRequest) { r.Tool = "other" },
			want: http.StatusForbidden, reason: `tool "other" is not in this pod's configuration`},
		{name: "a server the configuration does not serve", change: func(r *gateproto.CallRequest) { r.Server = f.pinNS + "/elsewhere" },
			want: http.StatusForbidden, reason: "this pod's configuration does not serve " + f.pinNS + "/elsewhere"},
		{name: "another pin", change: func(r *gateproto.CallRequest) { r.Pin = "toolbox-other" },
			want: http.StatusForbidden, reason: `tool "deploy" is pinned by ` + f.pin.Name + `, not toolbox-other`},
		{name: "another fingerprint", change: func(r *gateproto.CallRequest) { r.Fingerprint = otherFP },
			want: http.StatusForbidden, reason: `tool "deploy" is gated at fingerprint ` + callFP},
		{name: "a pin that is not Trusted", status: func(st *toolgatev1alpha1.ToolPinStatus) { st.State = toolgatev1alpha1.PinAwaitingReview },
			want: http.StatusForbidden, reason: "is AwaitingReview at " + callFP + ", not Trusted at the fingerprint called"},
		{name: "a pin Trusted at another fingerprint", status: func(st *toolgatev1alpha1.ToolPinStatus) { st.ObservedFingerprint = otherFP },
			want: http.StatusForbidden, reason: "is Trusted at " + otherFP + ", not Trusted at the fingerprint called"},
		{name: "a call id that is pending", change: func(r *gateproto.CallRequest) { r.CallID = "held-" + f.agent.ns + "-agent-0-0" },
			status: func(st *toolgatev1alpha1.ToolPinStatus) { st.PendingCalls = pendingOf(f.agent.ns, "agent-0", 1, later) },
			want:   http.StatusConflict, reason: "already exists"},
		{name: "a call id that was resolved", change: func(r *gateproto.CallRequest) { r.CallID = "done" },
			status: func(st *toolgatev1alpha1.ToolPinStatus) {
				st.CallHistory = []toolgatev1alpha1.CallRecord{{ID: "done", Verdict: toolgatev1alpha1.CallApproved, Fingerprint: callFP, ArgumentsDigest: callDigest,
					Agent: toolgatev1alpha1.AgentIdentity{Namespace: f.agent.ns, Pod: "agent-0"}, RequestedTime: metav1.Now(), ResolvedTime: metav1.Now()}}
			},
			want: http.StatusConflict, reason: "call done already exists"},
		{name: "the pod's share is full",
			status: func(st *toolgatev1alpha1.ToolPinStatus) {
				st.PendingCalls = pendingOf(f.agent.ns, "agent-0", toolgatev1alpha1.MaxPendingCallsPerPod, later)
			},
			want: http.StatusTooManyRequests, reason: fmt.Sprintf("pod %s/agent-0 already holds 8 pending calls on this tool, its share", f.agent.ns)},
		{name: "the namespace's share is full",
			status: func(st *toolgatev1alpha1.ToolPinStatus) {
				for i := range 4 {
					st.PendingCalls = append(st.PendingCalls, pendingOf(f.agent.ns, fmt.Sprintf("worker-%d", i), 8, later)...)
				}
			},
			want: http.StatusTooManyRequests, reason: fmt.Sprintf("namespace %s already holds 32 pending calls on this tool, its share", f.agent.ns)},
		{name: "the pin is full",
			status: func(st *toolgatev1alpha1.ToolPinStatus) {
				for i := range 8 {
					st.PendingCalls = append(st.PendingCalls, pendingOf(fmt.Sprintf("team-%d", i), "agent-0", 8, later)...)
				}
			},
			want: http.StatusTooManyRequests, reason: "the tool already holds 64 pending calls, the most it may"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.setStatus(ctx, t, func(st *toolgatev1alpha1.ToolPinStatus) {
				st.State, st.ObservedFingerprint, st.PendingCalls, st.CallHistory = toolgatev1alpha1.PinTrusted, callFP, nil, nil
				if tc.status != nil {
					tc.status(st)
				}
			})
			before := f.get(ctx, t).Status
			req := f.request("call-1")
			if tc.change != nil {
				tc.change(&req)
			}
			tok := token
			if tc.token != "" {
				tok = tc.token
			}
			code, reason := f.refusal(ctx, t, tok, req)
			if code != tc.want || !strings.Contains(reason, tc.reason) {
				t.Fatalf("answered %d %q, want %d %q", code, reason, tc.want, tc.reason)
			}
			if after := f.get(ctx, t).Status; len(after.PendingCalls) != len(before.PendingCalls) || len(after.CallHistory) != len(before.CallHistory) {
				t.Fatalf("a refused call changed the pin: %d pending, %d in history; were %d, %d",
					len(after.PendingCalls), len(after.CallHistory), len(before.PendingCalls), len(before.CallHistory))
			}
		})
	}

	t.Run("a pin that does not exist", func(t *testing.T) {
		f.setStatus(ctx, t, func(st *toolgatev1alpha1.ToolPinStatus) { st.PendingCalls, st.CallHistory = nil, nil })
		f.b.mu.Lock()
		f.b.pin = "toolbox-gone"
		f.b.mu.Unlock()
		defer func() { f.b.mu.Lock(); f.b.pin = f.pin.Name; f.b.mu.Unlock() }()
		req := f.request("call-2")
		req.Pin = "toolbox-gone"
		if code, reason := f.refusal(ctx, t, token, req); code != http.StatusForbidden || !strings.Contains(reason, "does not exist") {
			t.Fatalf("answered %d %q, want 403 and that it does not exist", code, reason)
		}
	})
}

// TestStaleCallsAreSweptWhenACallOpens: a call left behind by a replica
// that died is resolved Expired, past its expiry and grace
// (lifecycle.CallExpiryGrace), by the next write on the pin; a call within
// its grace and a call of another agent that is still waiting stay.
func TestStaleCallsAreSweptWhenACallOpens(t *testing.T) {
	ctx := testContext(t)
	f := newCallFixture(ctx, t)
	token := f.agent.token(ctx, t, f.agent.pod, gateproto.Audience)
	now := time.Now()
	stale := pendingOf("team-a", "dead", 1, now.Add(-lifecycle.CallExpiryGrace-time.Minute))
	recent := pendingOf("team-b", "slow", 1, now.Add(-lifecycle.CallExpiryGrace/2)) // expired, within the grace
	waiting := pendingOf("team-c", "alive", 1, now.Add(time.Hour))
	f.setStatus(ctx, t, func(st *toolgatev1alpha1.ToolPinStatus) {
		st.PendingCalls = append(append(stale, recent...), waiting...)
	})

	cctx, cancel := context.WithCancel(ctx)
	resp := f.postCall(cctx, t, token, f.request("fresh"))
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("opening a call: %s %s", resp.Status, b)
	}
	st := f.get(ctx, t).Status
	ids := map[string]bool{}
	for _, c := range st.PendingCalls {
		ids[c.ID] = true
	}
	if ids[stale[0].ID] || !ids[recent[0].ID] || !ids[waiting[0].ID] || !ids["fresh"] {
		t.Fatalf("pending after the sweep: %v; want the recent, the waiting and the fresh call, not the stale one", ids)
	}
	if r := lifecycle.ResolvedCall(&st, stale[0].ID); r == nil || r.Verdict != toolgatev1alpha1.CallExpired {
		t.Fatalf("the stale call's record: %+v, want Expired", r)
	}

	// The gate giving up withdraws its call for good.
	cancel()
	resp.Body.Close()
	eventually(t, "the abandoned call is withdrawn", func() bool {
		st := f.get(ctx, t).Status
		r := lifecycle.ResolvedCall(&st, "fresh")
		return r != nil && r.Verdict == toolgatev1alpha1.CallWithdrawn && lifecycle.PendingCall(&st, "fresh") == nil
	})
}

// TestADefinitionChangeRejectsAWaitingCall: an approval of a call is one of
// the definition called; if the pin stops being Trusted at that
// fingerprint while the call waits, the approval does not release it.
func TestADefinitionChangeRejectsAWaitingCall(t *testing.T) {
	ctx := testContext(t)
	f := newCallFixture(ctx, t)
	g := startGate(t, f.srv.url, writeToken(t, f.agent.token(ctx, t, f.agent.pod, gateproto.Audience)))

	decide := func(id string, change func(*toolgatev1alpha1.ToolPinStatus)) gateproto.CallOutcome {
		t.Helper()
		type result struct {
			out gateproto.CallOutcome
			err error
		}
		done := make(chan result, 1)
		go func() {
			out, err := g.Approve(ctx, f.request(id))
			done <- result{out, err}
		}()
		eventually(t, "the call "+id+" is pending", func() bool {
			st := f.get(ctx, t).Status
			return lifecycle.PendingCall(&st, id) != nil
		})
		if n, age := waiting(t, f.srv.metrics.waiting); n < 1 || age < 0 {
			t.Errorf("while %s waits: %v calls waiting, the oldest for %vs", id, n, age)
		}
		f.setStatus(ctx, t, func(st *toolgatev1alpha1.ToolPinStatus) {
			if change != nil {
				change(st)
			}
			st.Decisions = append(st.Decisions, toolgatev1alpha1.Decision{
				Action: toolgatev1alpha1.DecisionApprove, Fingerprint: callFP, CallID: id, User: "alice", Time: &metav1.Time{Time: time.Now()},
			})
		})
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("call %s: %v", id, r.err)
			}
			return r.out
		case <-time.After(eventuallyTimeout):
			t.Fatalf("call %s: no outcome", id)
		}
		return gateproto.CallOutcome{}
	}

	waited := func(outcome string) float64 {
		return collect(t, f.srv.metrics.waited)["toolgate_operator_held_call_wait_seconds{"+outcome+"}"]
	}
	approvedBefore, rejectedBefore := waited("approved"), waited("rejected")
	// Approved while the definition stands: released, with the digest.
	if out := decide("kept", nil); out.Verdict != gateproto.CallApproved || out.ArgumentsDigest != callDigest || out.By != "alice" {
		t.Fatalf("outcome of an approved call: %+v", out)
	}
	// Approved as the definition changes: rejected.
	out := decide("changed", func(st *toolgatev1alpha1.ToolPinStatus) {
		st.State, st.ObservedFingerprint = toolgatev1alpha1.PinAwaitingReview, otherFP
	})
	if out.Verdict != gateproto.CallRejected || out.ArgumentsDigest != "" || !strings.Contains(out.Comment, "definition changed") {
		t.Fatalf("outcome of a call approved while its definition changed: %+v, want Rejected", out)
	}
	st := f.get(ctx, t).Status
	if r := lifecycle.ResolvedCall(&st, "changed"); r == nil || r.Verdict != toolgatev1alpha1.CallRejected {
		t.Fatalf("the record of the call: %+v, want Rejected", r)
	}
	// Each call's wait is observed once, under its outcome.
	if a, r := waited("approved")-approvedBefore, waited("rejected")-rejectedBefore; a != 1 || r != 1 {
		t.Errorf("waits observed: %v approved, %v rejected, want 1 and 1", a, r)
	}
}

// waiting reads the calls waiting now and the oldest one's age (-1 when
// the collector exports none).
func waiting(t *testing.T, w *waitingCalls) (n, age float64) {
	t.Helper()
	got := collect(t, w)
	age, ok := got["toolgate_operator_oldest_held_call_age_seconds"]
	if !ok {
		age = -1
	}
	return got["toolgate_operator_held_calls_waiting"], age
}

// collect gathers c alone: each series by name and outcome, a gauge's
// value or a histogram's count of observations.
func collect(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	r := prometheus.NewPedanticRegistry()
	r.MustRegister(c)
	families, err := r.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetValue() + "}"
			}
			switch {
			case m.GetHistogram() != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			default:
				got[key] = m.GetGauge().GetValue()
			}
		}
	}
	return got
}
