package v1alpha1

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// The stored form leaves out exactly the copies that repeat their
// originals, and the whole form comes back from it: nothing the lifecycle
// decides on is lost, and a definition that differs from the pinned one is
// never taken for it.
func TestCompactedAndExpanded(t *testing.T) {
	const def, other = `{"name":"a"}`, `{"name":"b"}`
	judged := &ToolRisk{Level: LevelHigh, ApprovalRecommendation: ApprovalMulti, Reasons: []string{"deletes"}}
	overridden := &ToolRisk{Level: LevelLow, ApprovalRecommendation: ApprovalMulti, Reasons: []string{"deletes", "human override: sandbox"}, Overridden: true}
	pinned := func(fp Fingerprint, d string) *PinnedDefinition {
		return &PinnedDefinition{Fingerprint: fp, Definition: d, Source: PinnedOnFirstUse}
	}
	for _, tc := range []struct {
		name string
		// whole is the status as the lifecycle decides it.
		whole ToolPinStatus
		// leavesDefinition and leavesRisk say which copies the stored
		// form leaves out.
		leavesDefinition, leavesRisk bool
	}{
		{
			name:             "trusted as it is, judged by toolgate alone",
			whole:            ToolPinStatus{Pinned: pinned("sha256:a", def), ObservedFingerprint: "sha256:a", ObservedDefinition: def, Risk: judged, ComputedRisk: judged.DeepCopy()},
			leavesDefinition: true, leavesRisk: true,
		},
		{
			name:  "a changed definition is kept beside the pinned one",
			whole: ToolPinStatus{Pinned: pinned("sha256:a", def), ObservedFingerprint: "sha256:b", ObservedDefinition: other, Risk: judged, ComputedRisk: judged.DeepCopy()},
			// Only the risk repeats.
			leavesRisk: true,
		},
		{
			name:  "an override keeps the computed judgement",
			whole: ToolPinStatus{Pinned: pinned("sha256:a", def), ObservedFingerprint: "sha256:a", ObservedDefinition: def, Risk: overridden, ComputedRisk: judged.DeepCopy()},
			// Only the definition repeats.
			leavesDefinition: true,
		},
		{
			name:  "an override that changes nothing is still an override",
			whole: ToolPinStatus{Risk: &ToolRisk{Level: LevelHigh, Overridden: true}, ComputedRisk: &ToolRisk{Level: LevelHigh, Overridden: true}},
		},
		{
			name:  "never pinned: the observed definition is the only one",
			whole: ToolPinStatus{State: PinAwaitingReview, ObservedFingerprint: "sha256:a", ObservedDefinition: def},
		},
		{
			name:             "a pinned definition too large to keep: neither is kept",
			whole:            ToolPinStatus{Pinned: pinned("sha256:a", ""), ObservedFingerprint: "sha256:a"},
			leavesDefinition: false,
		},
		{
			name:  "never observed",
			whole: ToolPinStatus{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := tc.whole.Compacted()
			if left := stored.ObservedDefinition == "" && tc.whole.ObservedDefinition != ""; left != tc.leavesDefinition {
				t.Errorf("observedDefinition left out: %v, want %v", left, tc.leavesDefinition)
			}
			if left := stored.ComputedRisk == nil && tc.whole.ComputedRisk != nil; left != tc.leavesRisk {
				t.Errorf("computedRisk left out: %v, want %v", left, tc.leavesRisk)
			}
			if back := stored.Expanded(); !equality.Semantic.DeepEqual(back, tc.whole) {
				t.Errorf("expanded again:\n got %+v\nwant %+v", back, tc.whole)
			}
			if again := stored.Compacted(); !equality.Semantic.DeepEqual(again, stored) {
				t.Errorf("compacting twice changed it:\n got %+v\nwant %+v", again, stored)
			}
			if got, want := stored.ObservedDefinitionOrPinned(), tc.whole.ObservedDefinition; got != want {
				t.Errorf("ObservedDefinitionOrPinned = %q, want %q", got, want)
			}
			if got, want := stored.ComputedRiskOrApplied(), tc.whole.ComputedRisk; !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("ComputedRiskOrApplied = %+v, want %+v", got, want)
			}
		})
	}
}

// An observed definition that is absent stands for the pinned one only
// while the observed fingerprint is the pinned fingerprint: a changed
// definition never takes the pinned one's place, and a computed risk that
// is absent stands for the applied one only while no override applies.
func TestAbsentCopiesFallBackOnlyWhereTheyRepeat(t *testing.T) {
	pin := &PinnedDefinition{Fingerprint: "sha256:a", Definition: `{"name":"a"}`}
	for _, tc := range []struct {
		name string
		st   ToolPinStatus
		want string
	}{
		{"the pinned fingerprint observed", ToolPinStatus{Pinned: pin, ObservedFingerprint: "sha256:a"}, `{"name":"a"}`},
		{"another fingerprint observed, its definition not kept", ToolPinStatus{Pinned: pin, ObservedFingerprint: "sha256:b"}, ""},
		{"nothing observed", ToolPinStatus{Pinned: pin}, ""},
		{"nothing pinned", ToolPinStatus{ObservedFingerprint: "sha256:a"}, ""},
	} {
		if got := tc.st.ObservedDefinitionOrPinned(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	st := ToolPinStatus{Risk: &ToolRisk{Level: LevelLow, Overridden: true}}
	if got := st.ComputedRiskOrApplied(); got != nil {
		t.Errorf("an overridden risk was taken for the computed one: %+v", got)
	}
}
