package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

const (
	callFP     = toolgatev1alpha1.Fingerprint("sha256:1111111111111111111111111111111111111111111111111111111111111111")
	callDigest = toolgatev1alpha1.Fingerprint("sha256:2222222222222222222222222222222222222222222222222222222222222222")
	otherFP    = toolgatev1alpha1.Fingerprint("sha256:3333333333333333333333333333333333333333333333333333333333333333")
)

func callDecision(user string, action toolgatev1alpha1.DecisionAction, callID string, fp toolgatev1alpha1.Fingerprint) toolgatev1alpha1.Decision {
	return toolgatev1alpha1.Decision{Action: action, Fingerprint: fp, CallID: callID, User: user}
}

func TestDecideCall(t *testing.T) {
	c := toolgatev1alpha1.PendingCall{ID: "c1", Fingerprint: callFP, ArgumentsDigest: callDigest}
	approve, reject := toolgatev1alpha1.DecisionApprove, toolgatev1alpha1.DecisionReject
	multi := &toolgatev1alpha1.ToolRisk{ApprovalRecommendation: toolgatev1alpha1.ApprovalMulti}
	for _, tc := range []struct {
		name      string
		risk      *toolgatev1alpha1.ToolRisk
		decisions []toolgatev1alpha1.Decision
		want      toolgatev1alpha1.CallVerdict
	}{
		{"nothing yet", nil, nil, ""},
		{"one approval", nil, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", callFP)}, toolgatev1alpha1.CallApproved},
		{"another call's approval does not count", nil, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c2", callFP)}, ""},
		{"the definition's approval does not count", nil, []toolgatev1alpha1.Decision{callDecision("alice", approve, "", callFP)}, ""},
		{"another fingerprint does not count", nil, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", otherFP)}, ""},
		{"unstamped does not count", nil, []toolgatev1alpha1.Decision{callDecision("", approve, "c1", callFP)}, ""},
		{"a rejection wins", nil, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", callFP), callDecision("bob", reject, "c1", callFP)}, toolgatev1alpha1.CallRejected},
		{"the latest of a person counts", nil, []toolgatev1alpha1.Decision{callDecision("alice", reject, "c1", callFP), callDecision("alice", approve, "c1", callFP)}, toolgatev1alpha1.CallApproved},
		{"multi: one person is not enough", multi, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", callFP), callDecision("alice", approve, "c1", callFP)}, ""},
		{"multi: a service account does not count", multi, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", callFP), callDecision("system:serviceaccount:ops:bot", approve, "c1", callFP)}, ""},
		{"multi: two people", multi, []toolgatev1alpha1.Decision{callDecision("alice", approve, "c1", callFP), callDecision("bob", approve, "c1", callFP)}, toolgatev1alpha1.CallApproved},
		{"never a person", nil, []toolgatev1alpha1.Decision{callDecision("system:anonymous", approve, "c1", callFP)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := toolgatev1alpha1.ToolPinStatus{ComputedRisk: tc.risk, PendingCalls: []toolgatev1alpha1.PendingCall{c}, Decisions: tc.decisions}
			got, _, decided := DecideCall(&st, &st.PendingCalls[0], 2)
			if got != tc.want || decided != (tc.want != "") {
				t.Fatalf("verdict %q decided %v, want %q", got, decided, tc.want)
			}
		})
	}
}

// TestBusyToolKeepsEveryPinDecision resolves many more calls than either
// list holds, each decided on, and checks that every decision on the
// definition survives, that the history stays bounded and newest last,
// and that a resolved call's decisions travel with its record.
func TestBusyToolKeepsEveryPinDecision(t *testing.T) {
	now := metav1.NewTime(time.Unix(1_700_000_000, 0))
	st := toolgatev1alpha1.ToolPinStatus{ObservedFingerprint: callFP, Decisions: []toolgatev1alpha1.Decision{}}
	pinDecisions := 0
	for i := range 1000 {
		id := fmt.Sprintf("call-%d", i)
		st.PendingCalls = append(st.PendingCalls, toolgatev1alpha1.PendingCall{ID: id, Fingerprint: callFP, ArgumentsDigest: callDigest, RequestedTime: now, ExpiryTime: now})
		if i%50 == 0 {
			st.Decisions = append(st.Decisions, callDecision(fmt.Sprintf("reviewer-%d", i), toolgatev1alpha1.DecisionApprove, "", callFP))
			pinDecisions++
		}
		st.Decisions = append(st.Decisions, callDecision("alice", toolgatev1alpha1.DecisionApprove, id, callFP), callDecision("bob", toolgatev1alpha1.DecisionApprove, id, callFP))
		if !ResolveCall(&st, id, toolgatev1alpha1.CallApproved, now) {
			t.Fatalf("%s was not pending", id)
		}
		if len(st.Decisions) > toolgatev1alpha1.MaxDecisions || len(st.CallHistory) > toolgatev1alpha1.MaxCallHistory {
			t.Fatalf("after %d calls: %d decisions, %d records", i+1, len(st.Decisions), len(st.CallHistory))
		}
	}
	if len(st.Decisions) != pinDecisions {
		t.Fatalf("%d decisions left, want the %d on the definition", len(st.Decisions), pinDecisions)
	}
	for _, d := range st.Decisions {
		if d.CallID != "" {
			t.Fatalf("a call decision stayed: %+v", d)
		}
	}
	if len(st.PendingCalls) != 0 || st.Decisions == nil {
		t.Fatalf("pending %d, decisions nil %v", len(st.PendingCalls), st.Decisions == nil)
	}
	last := st.CallHistory[len(st.CallHistory)-1]
	if last.ID != "call-999" || len(last.Decisions) != 2 || last.Verdict != toolgatev1alpha1.CallApproved {
		t.Fatalf("newest record %+v", last)
	}
	if ResolveCall(&st, "call-999", toolgatev1alpha1.CallExpired, now) {
		t.Fatal("a resolved call was resolved again")
	}
	if ResolvedCall(&st, "call-999") == nil || PendingCall(&st, "call-999") != nil {
		t.Fatal("lookups disagree with the record")
	}
}

func TestCallShareRefusal(t *testing.T) {
	me := toolgatev1alpha1.AgentIdentity{Namespace: "team-a", Pod: "agent-0"}
	calls := func(ns, pod string, n int) []toolgatev1alpha1.PendingCall {
		out := make([]toolgatev1alpha1.PendingCall, n)
		for i := range out {
			out[i] = toolgatev1alpha1.PendingCall{ID: fmt.Sprintf("%s-%s-%d", ns, pod, i), Agent: toolgatev1alpha1.AgentIdentity{Namespace: ns, Pod: pod}}
		}
		return out
	}
	per, perNS, all := toolgatev1alpha1.MaxPendingCallsPerPod, toolgatev1alpha1.MaxPendingCallsPerNamespace, toolgatev1alpha1.MaxPendingCalls
	for _, tc := range []struct {
		name    string
		pending [][]toolgatev1alpha1.PendingCall
		want    string // a part of the refusal; "" when the call may open
	}{
		{"an empty pin", nil, ""},
		{"the pod's last slot", [][]toolgatev1alpha1.PendingCall{calls("team-a", "agent-0", per-1)}, ""},
		{"the pod's share is full", [][]toolgatev1alpha1.PendingCall{calls("team-a", "agent-0", per)}, "pod team-a/agent-0 already holds 8"},
		{"another pod's calls are not mine", [][]toolgatev1alpha1.PendingCall{calls("team-a", "agent-1", per)}, ""},
		{"a pod of the same name in another namespace is another pod", [][]toolgatev1alpha1.PendingCall{calls("team-b", "agent-0", per)}, ""},
		{"the namespace's last slot", [][]toolgatev1alpha1.PendingCall{calls("team-a", "agent-1", per), calls("team-a", "agent-2", per), calls("team-a", "agent-3", perNS-2*per-1)}, ""},
		{"the namespace's share is full", [][]toolgatev1alpha1.PendingCall{calls("team-a", "agent-1", per), calls("team-a", "agent-2", per), calls("team-a", "agent-3", per), calls("team-a", "agent-4", perNS-3*per)}, "namespace team-a already holds 32"},
		{"other namespaces fill the pin", [][]toolgatev1alpha1.PendingCall{calls("team-b", "x", perNS), calls("team-c", "y", all-perNS)}, "the tool already holds 64"},
		{"other namespaces leave one slot", [][]toolgatev1alpha1.PendingCall{calls("team-b", "x", perNS), calls("team-c", "y", all-perNS-1)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &toolgatev1alpha1.ToolPinStatus{}
			for _, c := range tc.pending {
				st.PendingCalls = append(st.PendingCalls, c...)
			}
			got := CallShareRefusal(st, me)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("CallShareRefusal = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpireCalls(t *testing.T) {
	now := metav1.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	call := func(id string, expiresIn time.Duration) toolgatev1alpha1.PendingCall {
		return toolgatev1alpha1.PendingCall{ID: id, Fingerprint: callFP, ArgumentsDigest: callDigest,
			RequestedTime: metav1.NewTime(now.Add(-time.Minute)), ExpiryTime: metav1.NewTime(now.Add(expiresIn))}
	}
	for _, tc := range []struct {
		name      string
		pending   []toolgatev1alpha1.PendingCall
		expired   []string
		remaining []string
		next      time.Duration // from now; 0 for none
	}{
		{name: "nothing pending"},
		{name: "a call still within its time", pending: []toolgatev1alpha1.PendingCall{call("a", time.Minute)},
			remaining: []string{"a"}, next: time.Minute + CallExpiryGrace},
		{name: "a call just expired, within the grace its replica has", pending: []toolgatev1alpha1.PendingCall{call("a", -CallExpiryGrace+time.Second)},
			remaining: []string{"a"}, next: time.Second},
		{name: "a call expired the grace ago", pending: []toolgatev1alpha1.PendingCall{call("a", -CallExpiryGrace)},
			expired: []string{"a"}},
		{name: "some expired, the earliest of the rest comes next",
			pending:   []toolgatev1alpha1.PendingCall{call("old", -time.Hour), call("late", time.Hour), call("soon", 10*time.Second), call("older", -2*time.Hour)},
			expired:   []string{"old", "older"},
			remaining: []string{"late", "soon"}, next: 10*time.Second + CallExpiryGrace},
		{name: "a call an hour past its expiry expires, one an hour from it stays",
			pending:   []toolgatev1alpha1.PendingCall{call("old", -time.Hour), call("live", time.Hour)},
			expired:   []string{"old"},
			remaining: []string{"live"}, next: time.Hour + CallExpiryGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &toolgatev1alpha1.ToolPinStatus{PendingCalls: tc.pending, Decisions: []toolgatev1alpha1.Decision{
				callDecision("alice", toolgatev1alpha1.DecisionApprove, "old", callFP),
				callDecision("alice", toolgatev1alpha1.DecisionApprove, "", callFP),
			}}
			expired, next := ExpireCalls(st, now)
			if fmt.Sprint(expired) != fmt.Sprint(tc.expired) {
				t.Errorf("expired %v, want %v", expired, tc.expired)
			}
			var remaining []string
			for _, c := range st.PendingCalls {
				remaining = append(remaining, c.ID)
			}
			if fmt.Sprint(remaining) != fmt.Sprint(tc.remaining) {
				t.Errorf("still pending %v, want %v", remaining, tc.remaining)
			}
			for _, id := range tc.expired {
				r := ResolvedCall(st, id)
				if r == nil || r.Verdict != toolgatev1alpha1.CallExpired || !r.ResolvedTime.Equal(&now) {
					t.Errorf("the record of %s: %+v, want Expired at %v", id, r, now)
				}
			}
			if want := now.Add(tc.next); (tc.next == 0) != next.IsZero() || (tc.next != 0 && !next.Equal(want)) {
				t.Errorf("next due %v, want %v", next, want)
			}
			// The call's decisions go with it to its record; the
			// definition's stay.
			for _, d := range st.Decisions {
				if slices.Contains(tc.expired, d.CallID) {
					t.Errorf("a decision on %s, no longer pending, stayed in the log", d.CallID)
				}
			}
			if r := ResolvedCall(st, "old"); r != nil && len(r.Decisions) != 1 {
				t.Errorf("the record of old holds %d decisions, want its one", len(r.Decisions))
			}
			if len(st.Decisions) == 0 {
				t.Error("the decision on the definition went")
			}
		})
	}
}
