package v1alpha1

import "k8s.io/apimachinery/pkg/api/equality"

// A pin's status is stored compact: observedDefinition is left out while
// it is pinned.definition, and computedRisk while it is risk with no
// override. Every write of a pin makes the API server decode, patch,
// validate, track, store and send the whole object, and in the common
// case — a tool trusted as it is, judged by toolgate alone — each copy
// was as large as its original. The lifecycle decides on the whole
// record (Expanded) and writes it compact (Compacted).

// ObservedDefinitionOrPinned is the canonical definition the server sent
// last: observedDefinition, or, where it was left out because the server
// sends the pinned definition, pinned.definition. It is "" when neither
// says: never observed, or too large to keep.
func (s *ToolPinStatus) ObservedDefinitionOrPinned() string {
	if s.ObservedDefinition == "" && s.observesPinned() {
		return s.Pinned.Definition
	}
	return s.ObservedDefinition
}

// ComputedRiskOrApplied is toolgate's own judgement: computedRisk, or,
// where it was left out because no override applies, risk. It is nil
// while the tool has not been judged.
func (s *ToolPinStatus) ComputedRiskOrApplied() *ToolRisk {
	if s.ComputedRisk == nil && s.Risk != nil && !s.Risk.Overridden {
		return s.Risk
	}
	return s.ComputedRisk
}

// observesPinned reports whether the server sends the pinned definition.
func (s *ToolPinStatus) observesPinned() bool {
	return s.Pinned != nil && s.ObservedFingerprint != "" && s.ObservedFingerprint == s.Pinned.Fingerprint
}

// Expanded is the status with observedDefinition and computedRisk filled
// in where they were left out (ObservedDefinitionOrPinned,
// ComputedRiskOrApplied): the form the lifecycle decides on. It shares
// nothing that Compacted or the lifecycle write to with s.
func (s *ToolPinStatus) Expanded() ToolPinStatus {
	out := *s
	out.ObservedDefinition = s.ObservedDefinitionOrPinned()
	if s.ComputedRisk == nil {
		out.ComputedRisk = s.ComputedRiskOrApplied().DeepCopy()
	}
	return out
}

// Compacted is the status as it is stored: observedDefinition left out
// while it is pinned.definition, and computedRisk while it is risk,
// unoverridden. Every write of a pin decodes, validates, encodes and
// sends the whole object, so each copy left out is work saved on every
// write; Expanded restores them exactly.
func (s *ToolPinStatus) Compacted() ToolPinStatus {
	out := *s
	if s.observesPinned() && s.ObservedDefinition == s.Pinned.Definition {
		out.ObservedDefinition = ""
	}
	if s.Risk != nil && !s.Risk.Overridden && equality.Semantic.DeepEqual(s.Risk, s.ComputedRisk) {
		out.ComputedRisk = nil
	}
	return out
}
