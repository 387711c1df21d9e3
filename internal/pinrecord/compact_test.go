package pinrecord

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// A pin stored compact decides exactly as the same pin stored whole, at
// every step of a history that trusts, changes, approves, overrides,
// loses and finds a tool again: the copies the stored form leaves out
// stand for their originals exactly, and for nothing else.
func TestCompactStoredDecidesAsWhole(t *testing.T) {
	rugFP := toolgatev1alpha1.Fingerprint(parse(t, rugPull).Fingerprint())
	origFP := toolgatev1alpha1.Fingerprint(parse(t, original).Fingerprint())
	at := func(minutes int) metav1.Time { return metav1.NewTime(now.Add(time.Duration(minutes) * time.Minute)) }
	observed := func(def string) Change {
		return Observed{Tool: parse(t, def), Risk: risk(), FirstUse: toolgatev1alpha1.FirstUseTrust, RequiredApprovers: 2}
	}
	reviewed := Reviewed{FirstUse: toolgatev1alpha1.FirstUseTrust, RequiredApprovers: 2}
	override := func(p *toolgatev1alpha1.ToolPin) {
		p.Spec.Override = &toolgatev1alpha1.ClassificationOverride{Level: toolgatev1alpha1.LevelLow, Reason: "scratch files only"}
	}
	steps := []struct {
		name   string
		edit   func(*toolgatev1alpha1.ToolPin) // a person's write before the change
		change Change
		// check asserts what the stored status must hold after the step.
		check func(t *testing.T, stored toolgatev1alpha1.ToolPinStatus)
	}{
		{name: "trusted on first use", change: observed(original), check: func(t *testing.T, st toolgatev1alpha1.ToolPinStatus) {
			if st.State != toolgatev1alpha1.PinTrusted || st.ObservedDefinition != "" || st.ComputedRisk != nil {
				t.Errorf("a tool trusted as it is keeps both copies: state %s, observed %q, computed %+v", st.State, st.ObservedDefinition, st.ComputedRisk)
			}
		}},
		{name: "reviewed with nothing new", change: reviewed},
		{name: "the definition changes", change: observed(rugPull), check: func(t *testing.T, st toolgatev1alpha1.ToolPinStatus) {
			if st.State != toolgatev1alpha1.PinAwaitingReview || st.ObservedDefinition == "" || st.ObservedFingerprint != rugFP {
				t.Errorf("a changed definition must be kept and reviewed: state %s, observed %s %q", st.State, st.ObservedFingerprint, st.ObservedDefinition)
			}
		}},
		{name: "an approval of the old definition does not count", edit: func(p *toolgatev1alpha1.ToolPin) {
			p.Status.Decisions = append(p.Status.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: origFP, User: "mallory", Time: &now})
		}, change: reviewed, check: func(t *testing.T, st toolgatev1alpha1.ToolPinStatus) {
			if st.State != toolgatev1alpha1.PinAwaitingReview {
				t.Errorf("an approval of the pinned definition let the changed one through: %s", st.State)
			}
		}},
		{name: "the change approved", edit: func(p *toolgatev1alpha1.ToolPin) {
			p.Status.Decisions = append(p.Status.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: rugFP, User: "alice", Time: &now})
		}, change: reviewed, check: func(t *testing.T, st toolgatev1alpha1.ToolPinStatus) {
			if st.State != toolgatev1alpha1.PinTrusted || st.Pinned.Fingerprint != rugFP || st.ObservedDefinition != "" {
				t.Errorf("approved: state %s, pinned %s, observed copy %q", st.State, st.Pinned.Fingerprint, st.ObservedDefinition)
			}
		}},
		{name: "overridden", edit: override, change: reviewed, check: func(t *testing.T, st toolgatev1alpha1.ToolPinStatus) {
			if st.Risk == nil || !st.Risk.Overridden || st.ComputedRisk == nil || st.ComputedRisk.Level != toolgatev1alpha1.LevelHigh {
				t.Errorf("an override must keep the computed judgement: risk %+v, computed %+v", st.Risk, st.ComputedRisk)
			}
		}},
		{name: "the old definition again, overridden", change: observed(original)},
		{name: "the override cleared", edit: func(p *toolgatev1alpha1.ToolPin) { p.Spec.Override = nil }, change: reviewed},
		{name: "gone", change: Gone{}},
		{name: "reviewed while gone", change: reviewed},
		{name: "back as approved", change: observed(rugPull)},
		{name: "a call opened", change: CallOpened{Call: pendingCall("c1", rugFP, "agents/agent-0", time.Hour)}},
		{name: "the call resolved", change: CallResolved{ID: "c1", Verdict: toolgatev1alpha1.CallApproved}},
	}

	compact, whole := newPin(), newPin()
	for i, s := range steps {
		when := at(i)
		if s.edit != nil {
			s.edit(compact)
			s.edit(whole)
		}
		rc, rw := Decide(compact, s.change, when), Decide(whole, s.change, when)
		label := fmt.Sprintf("step %d (%s)", i, s.name)
		if (rc.Refused == nil) != (rw.Refused == nil) || rc.Reason != rw.Reason || rc.Message != rw.Message || rc.Skip != rw.Skip || rc.Recorded != rw.Recorded {
			t.Fatalf("%s: compact decided %+v, whole %+v", label, rc, rw)
		}
		if !equality.Semantic.DeepEqual(rc.Events, rw.Events) || !equality.Semantic.DeepEqual(rc.Labels, rw.Labels) {
			t.Fatalf("%s: events or labels differ:\n compact %+v %v\n   whole %+v %v", label, rc.Events, rc.Labels, rw.Events, rw.Labels)
		}
		if c, w := timeless(rc.Status), timeless(rw.Status); !equality.Semantic.DeepEqual(c, w) {
			t.Fatalf("%s: statuses differ:\n compact %+v\n   whole %+v", label, c, w)
		}
		if rc.Refused != nil || rc.Skip {
			continue
		}
		compact = apply(compact, rc)
		// The whole form is what the operator stored before: the copies
		// kept, as a pin written by an earlier release holds them.
		whole = apply(whole, rw)
		whole.Status = whole.Status.Expanded()
		if s.check != nil {
			s.check(t, compact.Status)
		}
		// Deciding again on the stored form writes nothing more.
		if again := Decide(compact, reviewed, when); !again.Skip && !equality.Semantic.DeepEqual(again.Status, compact.Status) {
			t.Fatalf("%s: deciding again on the stored pin changes it:\n got %+v\nwant %+v", label, again.Status, compact.Status)
		}
	}
	if compact.Status.State != toolgatev1alpha1.PinTrusted || lifecycle.ResolvedCall(&compact.Status, "c1") == nil {
		t.Fatalf("the history did not end trusted with its call resolved: %+v", compact.Status)
	}
}

// timeless is the whole form of a status with the conditions' times,
// which meta.SetStatusCondition takes from the clock, left out.
func timeless(st toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus {
	out := st.Expanded()
	out.Conditions = slices.Clone(out.Conditions)
	for i := range out.Conditions {
		out.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return out
}

// A changed definition too large to keep leaves observedDefinition empty
// while the observed fingerprint moves on: a review then must not take the
// pinned definition for the observed one, which would trust the pin again
// on the old definition's record.
func TestAChangedDefinitionTooLargeToKeepIsNotThePinnedOne(t *testing.T) {
	large := fmt.Sprintf(`{"name":"delete_file","description":%q,"inputSchema":{"type":"object"}}`, strings.Repeat("Deletes one file. ", toolgatev1alpha1.MaxDefinitionLength/16))
	pin := observe(t, trustedPin(t), large, now)
	if pin.Status.State != toolgatev1alpha1.PinAwaitingReview || pin.Status.ObservedDefinition != "" || pin.Status.Pinned.Definition == "" {
		t.Fatalf("want a changed definition awaiting review with no copy kept: state %s, observed %d bytes", pin.Status.State, len(pin.Status.ObservedDefinition))
	}
	if got := pin.Status.ObservedDefinitionOrPinned(); got != "" {
		t.Fatalf("the pinned definition stands for a changed one: %.80q", got)
	}
	res := Decide(pin, Reviewed{FirstUse: toolgatev1alpha1.FirstUseTrust, RequiredApprovers: 2}, now)
	if res.Status.State != toolgatev1alpha1.PinAwaitingReview || res.Status.ObservedFingerprint != pin.Status.ObservedFingerprint {
		t.Fatalf("a review of a changed definition too large to keep made it %s at %s", res.Status.State, res.Status.ObservedFingerprint)
	}
}
