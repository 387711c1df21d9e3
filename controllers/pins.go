package controllers

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/pkg/vet"
)

// serverRefIndex indexes ToolPins by the MCPServer they belong to.
const serverRefIndex = "spec.serverRef.name"

func indexPinServer(o client.Object) []string {
	return []string{o.(*toolgatev1alpha1.ToolPin).Spec.ServerRef.Name}
}

// toolRisk turns a vet report into the API's risk record.
func toolRisk(t vet.ToolReport) *toolgatev1alpha1.ToolRisk {
	r := &toolgatev1alpha1.ToolRisk{
		Level: toolgatev1alpha1.Level(t.Level), EffectiveLevel: toolgatev1alpha1.Level(t.EffectiveLevel),
		RiskLevel: toolgatev1alpha1.RiskLevel(t.Risk.RiskLevel), Category: toolgatev1alpha1.Category(t.Risk.Category),
		BlastRadius: toolgatev1alpha1.BlastRadius(t.Risk.BlastRadius), Reversibility: toolgatev1alpha1.Reversibility(t.Risk.Reversibility),
		SideEffects:            bound(t.Risk.SideEffects, 16, 64),
		ApprovalRecommendation: toolgatev1alpha1.ApprovalRecommendation(t.Risk.ApprovalRecommendation),
		MinTrustLevel:          int32(t.Risk.MinTrustLevel),
		Floors:                 bound(t.Floors, 16, 256),
		Reasons:                bound(append(append([]string{}, t.Reasons...), prefixed("disagreement: ", t.Disagreements)...), 32, 512),
	}
	for i, f := range t.Findings {
		if i == 32 {
			break
		}
		r.Findings = append(r.Findings, toolgatev1alpha1.Finding{Signal: clip(f.Signal, 64), Field: clip(f.Field, 512), Excerpt: clip(f.Excerpt, 256)})
	}
	return r
}

// applyOverride lays a human classification over the computed risk. It is
// the one way a level falls without a new approval, and it is marked.
func applyOverride(r *toolgatev1alpha1.ToolRisk, o *toolgatev1alpha1.ClassificationOverride) *toolgatev1alpha1.ToolRisk {
	if r == nil || o == nil {
		return r
	}
	r = r.DeepCopy()
	if o.Level != "" {
		r.Level, r.EffectiveLevel = o.Level, o.Level
		r.RiskLevel = riskLevelOf(o.Level)
	}
	if o.Category != "" {
		r.Category = o.Category
	}
	if o.BlastRadius != "" {
		r.BlastRadius = o.BlastRadius
	}
	r.Overridden = true
	r.Reasons = bound(append(r.Reasons, "human override: "+o.Reason), 32, 512)
	return r
}

func riskLevelOf(l toolgatev1alpha1.Level) toolgatev1alpha1.RiskLevel {
	switch l {
	case toolgatev1alpha1.LevelCritical:
		return toolgatev1alpha1.RiskCritical
	case toolgatev1alpha1.LevelHigh:
		return toolgatev1alpha1.RiskHigh
	case toolgatev1alpha1.LevelModerate:
		return toolgatev1alpha1.RiskMedium
	}
	return toolgatev1alpha1.RiskLow
}

// writePin records a lifecycle decision: the status (with its Ready
// condition and any override) in one optimistic-locked patch, the level and
// state labels, and an Event for a transition.
func writePin(ctx context.Context, c client.Client, rec events.EventRecorder, related runtime.Object, pin *toolgatev1alpha1.ToolPin, out lifecycle.Output) error {
	orig := pin.DeepCopy()
	pin.Status = out.Status
	// The override is laid over the computed judgement each time, never over
	// an already overridden one, and disappears with spec.override.
	computed := pin.Status.ComputedRisk
	pin.Status.Risk = applyOverride(computed, pin.Spec.Override)
	pin.Status.ObservedGeneration = pin.Generation
	setPinReady(pin, out)
	if err := patchStatusIfChanged(ctx, c, orig, pin, orig.Status, pin.Status); err != nil {
		return err
	}
	// Trust on first use is the normal case of every new tool; the server
	// reports it once for all its tools instead of one event per pin.
	if out.Reason != "" && out.Reason != toolgatev1alpha1.ReasonPinnedOnFirstUse && rec != nil {
		kind := "Normal"
		switch out.Reason {
		case toolgatev1alpha1.ReasonDefinitionChanged, toolgatev1alpha1.ReasonRejected, toolgatev1alpha1.ReasonRenamedFromUntrusted:
			kind = "Warning"
		}
		rec.Eventf(pin, related, kind, out.Reason, "Review", "%s", out.Message)
	}
	if o := pin.Spec.Override; o != nil && o.Level != "" && computed != nil && o.Level < computed.Level && rec != nil &&
		(orig.Status.Risk == nil || !orig.Status.Risk.Overridden || orig.Status.Risk.Level != o.Level) {
		rec.Eventf(pin, related, "Warning", toolgatev1alpha1.ReasonOverrideLowersLevel, "Override",
			"a human override lowers the level from %s to %s: %s", computed.Level, o.Level, o.Reason)
	}
	return syncPinLabels(ctx, c, pin)
}

func setPinReady(pin *toolgatev1alpha1.ToolPin, out lifecycle.Output) {
	cond := metav1.Condition{Type: toolgatev1alpha1.ConditionReady, ObservedGeneration: pin.Generation}
	switch pin.Status.State {
	case toolgatev1alpha1.PinTrusted:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, toolgatev1alpha1.ReasonTrusted, "the observed definition is the pinned one"
	case "":
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, toolgatev1alpha1.ReasonAwaitingProbe, "the tool has not been observed on its server yet; it is withheld until it is"
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, string(pin.Status.State)
		cond.Message = "withheld: " + stateMessage(pin.Status.State)
	}
	if out.Message != "" {
		cond.Message = clip(out.Message, 1024)
	} else if old := meta.FindStatusCondition(pin.Status.Conditions, toolgatev1alpha1.ConditionReady); old != nil && old.Reason == cond.Reason {
		cond.Message = old.Message // keep the explanation of the last transition
	}
	meta.SetStatusCondition(&pin.Status.Conditions, cond)
}

func stateMessage(s toolgatev1alpha1.PinState) string {
	switch s {
	case toolgatev1alpha1.PinAwaitingReview:
		return "the definition awaits a human review"
	case toolgatev1alpha1.PinRejected:
		return "a human rejected the observed definition"
	case toolgatev1alpha1.PinRemoved:
		return "the tool is gone from the server's catalogue"
	}
	return string(s)
}

// syncPinLabels keeps the level and state labels current, so pins can be
// selected by them.
func syncPinLabels(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) error {
	want := map[string]string{toolgatev1alpha1.LabelState: string(pin.Status.State)}
	if pin.Status.Risk != nil {
		want[toolgatev1alpha1.LabelLevel] = string(pin.Status.Risk.Level)
	}
	changed := false
	for k, v := range want {
		if v != "" && pin.Labels[k] != v {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	orig := pin.DeepCopy()
	if pin.Labels == nil {
		pin.Labels = map[string]string{}
	}
	for k, v := range want {
		if v != "" {
			pin.Labels[k] = v
		}
	}
	if err := c.Patch(ctx, pin, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("labelling %s: %w", client.ObjectKeyFromObject(pin), err)
	}
	return nil
}

// newPin builds the ToolPin of one tool of a server.
func newPin(server *toolgatev1alpha1.MCPServer, tool string, scheme *runtime.Scheme) (*toolgatev1alpha1.ToolPin, error) {
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{
			Name: lifecycle.PinName(server.Name, tool), Namespace: server.Namespace,
			Labels: map[string]string{},
		},
		Spec: toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: server.Name}, ToolName: tool},
	}
	if len(server.Name) <= 63 {
		pin.Labels[toolgatev1alpha1.LabelServer] = server.Name
	}
	// The server controls its pins: deleting the server deletes them, and
	// the ToolPin controller leaves a pin's first observation to it.
	if err := controllerutil.SetControllerReference(server, pin, scheme); err != nil {
		return nil, err
	}
	return pin, nil
}

// createPin creates the pin, or returns the one that exists under its name.
func createPin(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) (*toolgatev1alpha1.ToolPin, error) {
	err := c.Create(ctx, pin)
	if apierrors.IsAlreadyExists(err) {
		var existing toolgatev1alpha1.ToolPin
		if err := c.Get(ctx, client.ObjectKeyFromObject(pin), &existing); err != nil {
			return nil, err
		}
		if existing.Spec.ServerRef != pin.Spec.ServerRef || existing.Spec.ToolName != pin.Spec.ToolName {
			return nil, fmt.Errorf("pin %s exists for another tool (%s/%s)", pin.Name, existing.Spec.ServerRef.Name, existing.Spec.ToolName)
		}
		return &existing, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating pin %s: %w", pin.Name, err)
	}
	return pin, nil
}

// summaries lists a server's pins for its status, highest level first.
func summaries(pins []toolgatev1alpha1.ToolPin) []toolgatev1alpha1.ToolSummary {
	out := make([]toolgatev1alpha1.ToolSummary, 0, len(pins))
	for _, p := range pins {
		if p.Status.State == toolgatev1alpha1.PinRemoved {
			continue
		}
		// A pin not judged yet counts as the worst until it is.
		s := toolgatev1alpha1.ToolSummary{Name: clip(p.Spec.ToolName, 128), State: p.Status.State, Pin: p.Name, Level: toolgatev1alpha1.LevelCritical}
		if p.Status.Risk != nil {
			s.Level, s.Category = p.Status.Risk.Level, p.Status.Risk.Category
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Level != out[j].Level {
			return out[i].Level > out[j].Level
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > 100 {
		out = out[:100]
	}
	return out
}

func bound(list []string, n, size int) []string {
	var out []string
	for i, s := range list {
		if i == n {
			break
		}
		out = append(out, clip(s, size))
	}
	return out
}

func prefixed(p string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = p + s
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s[:n-3])
	for len(string(r))+3 > n && len(r) > 0 {
		r = r[:len(r)-1]
	}
	return string(r) + "..."
}
