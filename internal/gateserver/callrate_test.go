package gateserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestCallRates: a pod opens its burst of calls at once, then one a
// second; a namespace's pods together are bounded too; buckets of other
// pods and namespaces are their own.
func TestCallRates(t *testing.T) {
	c := newCallRates(DefaultCallsPerSecond, DefaultCallBurst)
	now := time.Unix(1_000_000, 0)
	for i := range DefaultCallBurst {
		if got := c.allow("agents", "pod-a", now); got != "" {
			t.Fatalf("call %d of the burst refused by the %s's rate", i, got)
		}
	}
	if got := c.allow("agents", "pod-a", now); got != "pod" {
		t.Fatalf("a call past the pod's burst: %q, want refused by the pod's rate", got)
	}
	if got := c.allow("agents", "pod-a", now.Add(time.Second)); got != "" {
		t.Fatalf("a call a second later refused by the %s's rate", got)
	}
	if got := c.allow("other", "pod-z", now); got != "" {
		t.Fatalf("another namespace's pod refused by the %s's rate", got)
	}

	// Many pods of one namespace: the namespace's bucket runs out, and a
	// pod refused by it keeps its own token.
	c = newCallRates(DefaultCallsPerSecond, DefaultCallBurst)
	refusedBy := ""
	for i := 0; refusedBy == "" && i < 1000; i++ {
		refusedBy = c.allow("agents", "pod-"+string(rune('a'+i%26))+string(rune('a'+i/26)), now)
	}
	if refusedBy != "namespace" {
		t.Fatalf("many pods of one namespace were refused by %q, want the namespace's rate", refusedBy)
	}
	if got := c.allow("elsewhere", "pod-aa", now); got != "" {
		t.Fatalf("a pod of another namespace refused by the %s's rate", got)
	}
}

// TestCallRatesPrune: idle buckets are dropped once there are many, so
// pods that come and go do not grow the map for ever.
func TestCallRatesPrune(t *testing.T) {
	c := newCallRates(DefaultCallsPerSecond, DefaultCallBurst)
	now := time.Unix(1_000_000, 0)
	for i := range callLimiterPruneAtSize {
		c.allow("ns", "pod-"+time.Duration(i).String(), now)
	}
	c.allow("ns", "late", now.Add(2*callLimiterIdle))
	if n := len(c.buckets); n > 3 {
		t.Fatalf("%d buckets kept after every other went idle", n)
	}
}

// TestCallsOpenedTooFast: through the server as the manager runs it, a
// pod that opens calls back to back past its burst is answered 429 before
// anything is read or written for the call.
func TestCallsOpenedTooFast(t *testing.T) {
	ctx := testContext(t)
	f := newCallFixture(ctx, t)
	f.srv = startServer(t, f.b, "127.0.0.1:0", func(o *Options) {
		o.Pins = operator
		// The default burst, refilled once an hour rather than once a
		// second: each call here is a TLS handshake and a token review, and
		// a loaded machine takes more than a second over the burst, which
		// at the default rate would earn the pod its next call back.
		o.CallsPerSecond, o.CallBurst = 1.0/3600, DefaultCallBurst
	})
	token := f.agent.token(ctx, t, f.agent.pod, gateproto.Audience)
	req := f.request("fast")
	req.Tool = "other" // refused at once, after the rate
	for i := range DefaultCallBurst {
		if code, body := f.refusal(ctx, t, token, req); code != http.StatusForbidden {
			t.Fatalf("call %d of the burst: %d %s", i, code, body)
		}
	}
	code, body := f.refusal(ctx, t, token, req)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "faster than a person can decide them") {
		t.Fatalf("a call past the burst: %d %s", code, body)
	}
}
