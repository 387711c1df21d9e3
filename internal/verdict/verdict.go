package verdict

import (
	"slices"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/vet"
)

// ToolRisk is the API's record of the engine's verdict on one tool.
func ToolRisk(t vet.ToolReport) *toolgatev1alpha1.ToolRisk {
	reasons := append([]string{}, t.Reasons...)
	for _, d := range t.Disagreements {
		reasons = append(reasons, "disagreement: "+d)
	}
	return &toolgatev1alpha1.ToolRisk{
		Level:                  toolgatev1alpha1.Level(t.Level),
		EffectiveLevel:         toolgatev1alpha1.Level(t.EffectiveLevel),
		RiskLevel:              toolgatev1alpha1.RiskLevel(t.Risk.RiskLevel),
		Category:               toolgatev1alpha1.Category(t.Risk.Category),
		BlastRadius:            toolgatev1alpha1.BlastRadius(t.Risk.BlastRadius),
		Reversibility:          toolgatev1alpha1.Reversibility(t.Risk.Reversibility),
		SideEffects:            clip.Strings(t.Risk.SideEffects, toolgatev1alpha1.MaxSideEffects, toolgatev1alpha1.MaxSideEffectLength),
		ApprovalRecommendation: toolgatev1alpha1.ApprovalRecommendation(t.Risk.ApprovalRecommendation),
		MinTrustLevel:          int32(t.Risk.MinTrustLevel),
		Floors:                 clip.Strings(t.Floors, toolgatev1alpha1.MaxFloors, toolgatev1alpha1.MaxFloorLength),
		Reasons:                clip.Strings(reasons, toolgatev1alpha1.MaxToolReasons, toolgatev1alpha1.MaxReasonLength),
		Findings:               Findings(t.Findings, toolgatev1alpha1.MaxToolFindings),
	}
}

// ServerRisk is the API's record of the engine's verdict on a server's
// posture and instructions.
func ServerRisk(s vet.ServerReport) *toolgatev1alpha1.ServerRisk {
	return &toolgatev1alpha1.ServerRisk{
		Level:    toolgatev1alpha1.Level(s.Level),
		Reasons:  clip.Strings(s.Reasons, toolgatev1alpha1.MaxServerReasons, toolgatev1alpha1.MaxReasonLength),
		Findings: Findings(s.Findings, toolgatev1alpha1.MaxServerFindings),
	}
}

// Findings keeps at most n poisoning findings, each within the API's
// bounds.
func Findings(findings []risk.Finding, n int) []toolgatev1alpha1.Finding {
	var out []toolgatev1alpha1.Finding
	for i, f := range findings {
		if i == n {
			break
		}
		out = append(out, toolgatev1alpha1.Finding{
			Signal:  clip.String(f.Signal, toolgatev1alpha1.MaxSignalLength),
			Field:   clip.String(f.Field, toolgatev1alpha1.MaxFieldPathLength),
			Excerpt: clip.String(f.Excerpt, toolgatev1alpha1.MaxExcerptLength),
		})
	}
	return out
}

// ApplyOverride lays a human classification over a computed record. It is
// the one way a level falls without a new approval, and the result says
// so. A nil record or override returns the record unchanged.
func ApplyOverride(r *toolgatev1alpha1.ToolRisk, o *toolgatev1alpha1.ClassificationOverride) *toolgatev1alpha1.ToolRisk {
	if r == nil || o == nil {
		return r
	}
	r = r.DeepCopy()
	if o.Level != "" {
		// The gating level only: SEP-2793's riskLevel says what the tool
		// does, which a human's placement on the ladder does not change.
		r.Level, r.EffectiveLevel = o.Level, o.Level
	}
	if o.Category != "" {
		r.Category = o.Category
	}
	if o.BlastRadius != "" {
		r.BlastRadius = o.BlastRadius
	}
	r.Overridden = true
	// The override's reason is kept even when the list is full: who lowered
	// a level, and why, matters more than the engine's last reason.
	r.Reasons = clip.StringsWithLast(append(slices.Clone(r.Reasons), "human override: "+o.Reason), toolgatev1alpha1.MaxToolReasons, toolgatev1alpha1.MaxReasonLength)
	return r
}

// LevelOf is the level a pin counts at: its applied level, or the worst
// while it has not been judged yet, so that an unjudged tool is never
// counted, summarised or exposed as safer than it may be.
func LevelOf(r *toolgatev1alpha1.ToolRisk) toolgatev1alpha1.Level {
	if r == nil || r.Level == "" {
		return toolgatev1alpha1.LevelCritical
	}
	return r.Level
}
