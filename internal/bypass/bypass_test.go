package bypass

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
)

func TestDecide(t *testing.T) {
	unreachable := &probe.Error{Reason: probe.Unreachable, Msg: "initialize: dial tcp 10.0.0.1:80: connect: connection refused"}
	for _, tc := range []struct {
		name   string
		in     Input
		status metav1.ConditionStatus
		reason string
		// says are fragments the message must hold.
		says []string
	}{
		{
			name:   "no credentials configured: bypassable without probing",
			in:     Input{Generation: 3},
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonNoCredentials,
			says: []string{"spec.auth gives the gate no credentials", "NetworkPolicy", "docs/install.md"},
		},
		{
			name: "no credentials configured: a result is not looked at",
			in:   Input{Generation: 3, Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", HTTPStatus: 401}}},
			// A server that refuses everyone is refused to the gate too;
			// with nothing configured, there is nothing to keep from agents.
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonNoCredentials,
		},
		{
			name:   "answered initialize and tools/list without credentials",
			in:     Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{Initialized: true, Listed: true, Tools: 13}},
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonReachableWithoutCredentials,
			says: []string{"answered MCP initialize and listed 13 tool(s)", "around the gate", "spec.auth", "NetworkPolicy", "docs/install.md"},
		},
		{
			name:   "answered initialize, tools/list not read",
			in:     Input{Generation: 3, Credentials: 2, Result: &probe.AnonymousResult{Initialized: true}},
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonReachableWithoutCredentials,
			says: []string{"answered MCP initialize to a probe"},
		},
		{
			name:   "refused with HTTP 401",
			in:     Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", HTTPStatus: 401}}},
			status: metav1.ConditionFalse, reason: toolgatev1alpha1.ReasonCredentialsRequired,
			says: []string{"refused initialize with HTTP 401 Unauthorized"},
		},
		{
			name:   "refused with HTTP 403",
			in:     Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", HTTPStatus: 403}}},
			status: metav1.ConditionFalse, reason: toolgatev1alpha1.ReasonCredentialsRequired,
			says: []string{"HTTP 403 Forbidden"},
		},
		{
			// Answering initialize to anyone and refusing tools/list says
			// nothing of tools/call: assume the worst.
			name: "refused tools/list with an MCP error after initialize",
			in: Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{Initialized: true,
				Refusal: &probe.Refusal{Step: "tools/list", RPCCode: -32001}}},
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonReachableWithoutCredentials,
			says: []string{"answered MCP initialize (and then refused tools/list with JSON-RPC error -32001", "says nothing of tools/call"},
		},
		{
			// A version mismatch or a rate limit answers with an MCP error
			// too: it is no proof the server demands credentials.
			name:   "an MCP error on initialize: cannot tell",
			in:     Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", RPCCode: -32600}}},
			status: metav1.ConditionUnknown, reason: toolgatev1alpha1.ReasonBypassCheckFailed,
			says: []string{"not HTTP 401 or 403", "assume agents can call it around the gate"},
		},
		{
			name:   "credentials beside the agents",
			in:     Input{Generation: 3, Credentials: 1, AgentNamespace: "agents", Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", HTTPStatus: 401}}},
			status: metav1.ConditionTrue, reason: toolgatev1alpha1.ReasonCredentialsReadableByAgents,
			says: []string{"Secret in namespace agents, where agents run", "spec.consumers"},
		},
		{
			name:   "network error: cannot tell",
			in:     Input{Generation: 3, Credentials: 1, Err: unreachable},
			status: metav1.ConditionUnknown, reason: toolgatev1alpha1.ReasonBypassCheckFailed,
			says: []string{"could not tell", "Unreachable: initialize: dial tcp", "next probe", "NetworkPolicy"},
		},
		{
			name:   "timeout: cannot tell",
			in:     Input{Generation: 3, Credentials: 1, Err: &probe.Error{Reason: probe.Timeout, Msg: "initialize: no answer within the probe's deadline of 10s"}},
			status: metav1.ConditionUnknown, reason: toolgatev1alpha1.ReasonBypassCheckFailed,
			says: []string{"Timeout"},
		},
		{
			name:   "no outcome at all: cannot tell",
			in:     Input{Generation: 3, Credentials: 1},
			status: metav1.ConditionUnknown, reason: toolgatev1alpha1.ReasonBypassCheckFailed,
		},
		{
			name:   "an outcome that is neither in nor refused: cannot tell",
			in:     Input{Generation: 3, Credentials: 1, Result: &probe.AnonymousResult{}},
			status: metav1.ConditionUnknown, reason: toolgatev1alpha1.ReasonBypassCheckFailed,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Decide(tc.in)
			if c.Type != toolgatev1alpha1.ConditionGateBypassable || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != tc.in.Generation {
				t.Errorf("got %s=%s (%s) at generation %d, want %s (%s) at %d", c.Type, c.Status, c.Reason, c.ObservedGeneration, tc.status, tc.reason, tc.in.Generation)
			}
			for _, s := range tc.says {
				if !strings.Contains(c.Message, s) {
					t.Errorf("the message lacks %q: %s", s, c.Message)
				}
			}
			if len(c.Message) > toolgatev1alpha1.MaxConditionMessageLength {
				t.Errorf("the message is %d bytes, over the cap", len(c.Message))
			}
		})
	}
}

// TestDecideNeverQuotesTheServer: a failure's message is the probe's own
// words (probe.Error never prints its cause), so nothing the server sent
// reaches the condition.
func TestDecideNeverQuotesTheServer(t *testing.T) {
	err := &probe.Error{Reason: probe.InvalidResponse, Msg: "initialize: the server answered HTTP 500", Err: errors.New("internal URL http://10.1.2.3/admin leaked")}
	c := Decide(Input{Credentials: 1, Err: err})
	if strings.Contains(c.Message, "10.1.2.3") {
		t.Errorf("the message quotes the server: %s", c.Message)
	}
}

func TestNotChecked(t *testing.T) {
	c := NotChecked(4, "secret token not found")
	if c.Status != metav1.ConditionUnknown || c.Reason != toolgatev1alpha1.ReasonBypassNotChecked || c.ObservedGeneration != 4 || !strings.Contains(c.Message, "secret token not found") {
		t.Errorf("got %+v", c)
	}
}

func TestDue(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		last *Mark
		want bool
	}{
		{"never checked since the operator started", nil, true},
		{"checked with this configuration a minute ago", &Mark{Digest: "a", At: now.Add(-time.Minute), Concluded: true}, false},
		{"checked with another configuration (a rotated Secret, a spec edit)", &Mark{Digest: "b", At: now.Add(-time.Minute), Concluded: true}, true},
		{"last check could not tell", &Mark{Digest: "a", At: now.Add(-time.Minute), Concluded: false}, true},
		{"checked just under Recheck ago", &Mark{Digest: "a", At: now.Add(-Recheck + time.Second), Concluded: true}, false},
		{"checked Recheck ago", &Mark{Digest: "a", At: now.Add(-Recheck), Concluded: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Due(tc.last, "a", now); got != tc.want {
				t.Errorf("Due = %v, want %v", got, tc.want)
			}
		})
	}
	if !Concluded(Decide(Input{Credentials: 1, Result: &probe.AnonymousResult{Refusal: &probe.Refusal{Step: "initialize", HTTPStatus: 401}}})) ||
		Concluded(Decide(Input{Credentials: 1, Err: errors.New("x")})) {
		t.Error("Concluded must hold for True and False and not for Unknown")
	}
}
