package lifecycle

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func TestCompactDecisions(t *testing.T) {
	const (
		pinned   = toolgatev1alpha1.Fingerprint("sha256:1111111111111111111111111111111111111111111111111111111111111111")
		observed = toolgatev1alpha1.Fingerprint("sha256:2222222222222222222222222222222222222222222222222222222222222222")
		stale    = toolgatev1alpha1.Fingerprint("sha256:3333333333333333333333333333333333333333333333333333333333333333")
	)
	d := func(user string, fp toolgatev1alpha1.Fingerprint, callID string) toolgatev1alpha1.Decision {
		return toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, User: user, Fingerprint: fp, CallID: callID}
	}
	log := []toolgatev1alpha1.Decision{
		d("a", stale, ""), d("b", pinned, ""), d("c", observed, ""), d("d", stale, ""),
		d("e", pinned, "call-1"), d("f", pinned, "call-gone"), d("g", observed, ""), d("h", stale, "call-1"),
	}
	pending := []toolgatev1alpha1.PendingCall{{ID: "call-1", Fingerprint: pinned}}
	for _, tc := range []struct {
		name string
		st   toolgatev1alpha1.ToolPinStatus
		want []string
	}{
		{"pinned, observed and pending calls are kept, in order",
			toolgatev1alpha1.ToolPinStatus{Pinned: &toolgatev1alpha1.PinnedDefinition{Fingerprint: pinned}, ObservedFingerprint: observed, PendingCalls: pending, Decisions: log},
			[]string{"b", "c", "e", "g", "h"}},
		{"nothing pinned",
			toolgatev1alpha1.ToolPinStatus{ObservedFingerprint: observed, Decisions: log},
			[]string{"c", "g"}},
		{"nothing observed: a removed tool keeps its pinned record",
			toolgatev1alpha1.ToolPinStatus{Pinned: &toolgatev1alpha1.PinnedDefinition{Fingerprint: pinned}, Decisions: log},
			[]string{"b"}},
		{"an empty log stays a list", toolgatev1alpha1.ToolPinStatus{ObservedFingerprint: observed}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.st.Decisions)
			got := CompactDecisions(&tc.st)
			if got == nil {
				t.Fatal("nil: the list must stay present")
			}
			users := []string{}
			for _, x := range got {
				users = append(users, x.User)
			}
			if !slices.Equal(users, tc.want) {
				t.Fatalf("kept %q, want %q", users, tc.want)
			}
			if !slices.EqualFunc(before, tc.st.Decisions, func(a, b toolgatev1alpha1.Decision) bool { return a.User == b.User }) {
				t.Fatal("the input was changed")
			}
			// Idempotent.
			again := tc.st
			again.Decisions = got
			if n := len(CompactDecisions(&again)); n != len(got) {
				t.Fatalf("a second compaction kept %d of %d", n, len(got))
			}
			// Whatever the operator counts on the observed fingerprint is
			// the same before and after.
			a1, h1, r1 := tally(tc.st.Decisions, tc.st.ObservedFingerprint, metav1.Time{})
			a2, h2, r2 := tally(got, tc.st.ObservedFingerprint, metav1.Time{})
			if !slices.Equal(a1, a2) || h1 != h2 || r1 != r2 {
				t.Fatalf("the tally changed: %v %d %q → %v %d %q", a1, h1, r1, a2, h2, r2)
			}
		})
	}
}

// TestCompactionKeepsWhatTrustRestsOn: however full the log of a pin
// trusted by approval, compaction keeps the approvals its trust rests on,
// and the pin stays Trusted on them.
func TestCompactionKeepsWhatTrustRestsOn(t *testing.T) {
	multi := risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalMulti)
	st := trusted(t)
	originalFP := st.Pinned.Fingerprint
	changed := tool(t, rugPull)
	fp := toolgatev1alpha1.Fingerprint(changed.Fingerprint())
	st = Next(Input{Status: st, Tool: changed, Risk: multi, RequiredApprovers: 2, Now: t1}).Status
	// The approvals come first, then a long history of decisions on
	// definitions since superseded, which fills the log.
	st = decide(decide(st, "alice", toolgatev1alpha1.DecisionApprove, string(fp)), "bob", toolgatev1alpha1.DecisionApprove, string(fp))
	st = decide(st, "carol", toolgatev1alpha1.DecisionReject, string(originalFP))
	for i := range toolgatev1alpha1.MaxDecisions - 4 {
		st = decide(st, "reviewer"+string(rune('a'+i%26)), toolgatev1alpha1.DecisionApprove, "sha256:"+strings.Repeat(string("0123456789abcdef"[i%16]), 64))
	}
	out := Next(Input{Status: st, Tool: changed, Risk: multi, RequiredApprovers: 2, Now: t1})
	if out.Status.State != toolgatev1alpha1.PinTrusted || out.Status.Pinned.Fingerprint != fp {
		t.Fatalf("before compaction: %s at %s", out.Status.State, out.Status.Pinned.Fingerprint)
	}
	st = out.Status
	st.Decisions = CompactDecisions(&st)
	var kept []string
	for _, d := range st.Decisions {
		kept = append(kept, d.User+" "+string(d.Action)+" "+d.Fingerprint.Short())
	}
	want := []string{"alice Approve " + fp.Short(), "bob Approve " + fp.Short()}
	if !slices.Equal(kept, want) {
		t.Fatalf("compaction kept %q, want the approvals trust rests on, %q", kept, want)
	}
	again := Next(Input{Status: st, Tool: changed, Risk: multi, RequiredApprovers: 2, Now: t1})
	if again.Status.State != toolgatev1alpha1.PinTrusted || !slices.Equal(again.Status.Pinned.Approvers, []string{"alice", "bob"}) || again.Reason != "" {
		t.Fatalf("after compaction the pin is %s (%s), pinned by %v", again.Status.State, again.Reason, again.Status.Pinned.Approvers)
	}
	// The superseded original, back, is withheld whether or not carol's
	// rejection of it was kept: it is reviewed afresh.
	back := Next(Input{Status: st, Tool: tool(t, original), Risk: multi, RequiredApprovers: 2, Now: t1})
	if back.Status.State == toolgatev1alpha1.PinTrusted {
		t.Fatal("a superseded definition whose decisions were compacted away came back trusted")
	}
}
