package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/clip"
)

// compactAbove is the length of the decision log above which the operator
// compacts it: the history is kept whole until room runs short.
const compactAbove = toolgatev1alpha1.MaxDecisions - toolgatev1alpha1.DecisionReserve/2

// writePin records a lifecycle decision: the status (with its Ready
// condition and any override) in one optimistic-locked patch, the level and
// state labels, and an Event for a transition.
func writePin(ctx context.Context, c client.Client, rec events.EventRecorder, related runtime.Object, pin *toolgatev1alpha1.ToolPin, out lifecycle.Output) error {
	orig := pin.DeepCopy()
	pin.Status = out.Status
	// A log that nears its bound is compacted to the decisions that can
	// still count (on the pinned and observed definitions, on pending
	// calls), so that a decision on what is observed now always fits.
	if len(pin.Status.Decisions) > compactAbove {
		pin.Status.Decisions = lifecycle.CompactDecisions(&pin.Status)
	}
	// The override is laid over the computed judgement each time, never over
	// an already overridden one, and disappears with spec.override.
	computed := pin.Status.ComputedRisk
	pin.Status.Risk = verdict.ApplyOverride(computed, pin.Spec.Override)
	pin.Status.ObservedGeneration = pin.Generation
	setPinReady(pin, out)
	if err := patchStatusIfChanged(ctx, c, orig, pin, orig.Status, pin.Status); err != nil {
		return err
	}
	// Trust on first use is the normal case of every new tool; the server
	// reports it once for all its tools instead of one event per pin.
	if out.Reason != "" && out.Reason != toolgatev1alpha1.ReasonPinnedOnFirstUse && rec != nil {
		kind := corev1.EventTypeNormal
		switch out.Reason {
		case toolgatev1alpha1.ReasonDefinitionChanged, toolgatev1alpha1.ReasonRejected, toolgatev1alpha1.ReasonRenamedFromUntrusted,
			toolgatev1alpha1.ReasonOriginChanged, toolgatev1alpha1.ReasonReplacesRemovedTool:
			kind = corev1.EventTypeWarning
		}
		rec.Eventf(pin, related, kind, out.Reason, "Review", "%s", out.Message)
	}
	if o := pin.Spec.Override; o != nil && o.Level != "" && computed != nil && o.Level < computed.Level && rec != nil &&
		(orig.Status.Risk == nil || !orig.Status.Risk.Overridden || orig.Status.Risk.Level != o.Level) {
		rec.Eventf(pin, related, corev1.EventTypeWarning, toolgatev1alpha1.ReasonOverrideLowersLevel, "Override",
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
		cond.Message = clip.String(out.Message, toolgatev1alpha1.MaxConditionMessageLength)
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
	// The server label is restored like the others: selectors by server
	// must keep finding every pin of it.
	if name := pin.Spec.ServerRef.Name; len(name) <= 63 {
		want[toolgatev1alpha1.LabelServer] = name
	}
	if pin.Status.Risk != nil {
		want[toolgatev1alpha1.LabelLevel] = string(pin.Status.Risk.Level)
	}
	changed := false
	for k, v := range want {
		if v != "" && pin.Labels[k] != v {
			changed = true
		}
	}
	// Pins made by earlier versions were owned by their server, so that
	// deleting it deleted their history; the reference goes.
	owners := withoutServerOwners(pin.OwnerReferences)
	if len(owners) != len(pin.OwnerReferences) {
		changed = true
	}
	if !changed {
		return nil
	}
	orig := pin.DeepCopy()
	pin.OwnerReferences = owners
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

// withoutServerOwners drops the references to an MCPServer.
func withoutServerOwners(refs []metav1.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, ref := range refs {
		if ref.Kind == "MCPServer" && strings.HasPrefix(ref.APIVersion, toolgatev1alpha1.GroupVersion.Group+"/") {
			continue
		}
		out = append(out, ref)
	}
	return out
}

// newPin builds the ToolPin of one tool of a server, under the given name.
func newPin(server *toolgatev1alpha1.MCPServer, tool, name string) *toolgatev1alpha1.ToolPin {
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: server.Namespace,
			Labels: map[string]string{},
		},
		Spec: toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: server.Name}, ToolName: tool},
	}
	if len(server.Name) <= 63 {
		pin.Labels[toolgatev1alpha1.LabelServer] = server.Name
	}
	// No owner reference: a pin's review record outlives its server, so
	// that a server deleted and created again meets it (the ToolPin
	// controller deletes the pins of a gone server that hold nothing).
	return pin
}

// errNameHeld says a pin's name is taken by a pin of another tool.
var errNameHeld = errors.New("the name is held by a pin of another tool")

// createPin creates the pin, or returns the one of the same tool that
// exists under its name; a name held by another tool's pin is errNameHeld.
func createPin(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) (*toolgatev1alpha1.ToolPin, error) {
	err := c.Create(ctx, pin)
	if apierrors.IsAlreadyExists(err) {
		var existing toolgatev1alpha1.ToolPin
		if err := c.Get(ctx, client.ObjectKeyFromObject(pin), &existing); err != nil {
			return nil, err
		}
		if existing.Spec.ServerRef != pin.Spec.ServerRef || existing.Spec.ToolName != pin.Spec.ToolName {
			return nil, fmt.Errorf("pin %s (%s/%s): %w", pin.Name, existing.Spec.ServerRef.Name, existing.Spec.ToolName, errNameHeld)
		}
		return &existing, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating pin %s: %w", pin.Name, err)
	}
	return pin, nil
}
