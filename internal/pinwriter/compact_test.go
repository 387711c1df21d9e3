package pinwriter

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// The writer stores a pin compact; a pin an earlier release stored whole
// is not rewritten for that alone, and its next change leaves the copies
// out, as the API server then holds it.
func TestWriterStoresPinsCompact(t *testing.T) {
	env := controlPlane(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client
	w := Writer{Client: c}
	pin := storedTrustedPin(ctx, t, c)
	key := client.ObjectKeyFromObject(pin)
	stored := func() *toolgatev1alpha1.ToolPin {
		t.Helper()
		var p toolgatev1alpha1.ToolPin
		if err := c.Get(ctx, key, &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	if p := stored(); p.Status.ObservedDefinition != "" || p.Status.ComputedRisk != nil || p.Status.ObservedDefinitionOrPinned() != p.Status.Pinned.Definition || p.Status.ComputedRiskOrApplied() == nil {
		t.Fatalf("a pin trusted as it is was stored with its copies: observed %q, computed %+v", p.Status.ObservedDefinition, p.Status.ComputedRisk)
	}

	// As an earlier release stored it.
	whole := stored()
	orig := whole.DeepCopy()
	whole.Status = whole.Status.Expanded()
	if err := c.Status().Patch(ctx, whole, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctx, whole, pinrecord.Reviewed{FirstUse: toolgatev1alpha1.FirstUseTrust, RequiredApprovers: 2}, now); err != nil {
		t.Fatal(err)
	}
	if p := stored(); p.ResourceVersion != whole.ResourceVersion || p.Status.ObservedDefinition == "" {
		t.Fatalf("a pin stored whole was rewritten with nothing changed: version %s → %s", whole.ResourceVersion, p.ResourceVersion)
	}

	// Its next change stores it compact: the changed definition kept, the
	// computed judgement left out.
	changed, err := tooldef.ParseTool([]byte(`{"name":"delete_file","description":"Deletes one file, or a tree.","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	next := observed(t)
	next.Tool = changed
	if _, err := w.Write(ctx, whole, next, now); err != nil {
		t.Fatal(err)
	}
	p := stored()
	if p.Status.State != toolgatev1alpha1.PinAwaitingReview || p.Status.ObservedDefinition != string(changed.Canonical()) || p.Status.ComputedRisk != nil || p.Status.Risk == nil {
		t.Fatalf("after a change: state %s, observed %q, computed %+v, risk %+v", p.Status.State, p.Status.ObservedDefinition, p.Status.ComputedRisk, p.Status.Risk)
	}
}
