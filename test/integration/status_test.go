package integration

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

const (
	fingerprintA = toolgatev1alpha1.Fingerprint("sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	fingerprintB = toolgatev1alpha1.Fingerprint("sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
)

// newPin creates a ToolPin and removes it when the test ends.
func newPin(t *testing.T, name, tool string) *toolgatev1alpha1.ToolPin {
	t.Helper()
	ctx := testContext(t)
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: toolgatev1alpha1.ToolPinSpec{
			ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "github"},
			ToolName:  tool,
		},
	}
	if err := env.Client.Create(ctx, pin); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, pin)
	return pin
}

// trustedStatus is a status as the controller would write it.
func trustedStatus() toolgatev1alpha1.ToolPinStatus {
	now := metav1.Now()
	return toolgatev1alpha1.ToolPinStatus{
		State:               toolgatev1alpha1.PinTrusted,
		ObservedFingerprint: fingerprintA,
		Pinned: &toolgatev1alpha1.PinnedDefinition{
			Fingerprint: fingerprintA, Time: now, Source: toolgatev1alpha1.PinnedOnFirstUse,
		},
		Risk: &toolgatev1alpha1.ToolRisk{
			Level: toolgatev1alpha1.LevelCritical, RiskLevel: toolgatev1alpha1.RiskCritical,
			Category: toolgatev1alpha1.CategoryDestroy, BlastRadius: toolgatev1alpha1.BlastOrganization,
			Reversibility: toolgatev1alpha1.ReversibilityNone, ApprovalRecommendation: toolgatev1alpha1.ApprovalMulti,
			MinTrustLevel: 5, Floors: []string{"irreversible verb \"delete\" in name"},
		},
		Decisions: []toolgatev1alpha1.Decision{},
	}
}

// TestStatusIsASubresource checks the split that every later guarantee rests
// on: status is written only through /status, and spec changes never touch it.
func TestStatusIsASubresource(t *testing.T) {
	ctx := testContext(t)

	// Status sent with a create is dropped.
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: "status-on-create", Namespace: "default"},
		Spec: toolgatev1alpha1.ToolPinSpec{
			ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "github"}, ToolName: "delete_repository",
		},
		Status: trustedStatus(),
	}
	if err := env.Client.Create(ctx, pin); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, pin)
	if pin.Status.State != "" || pin.Status.Pinned != nil {
		t.Fatalf("status sent with create was stored: %+v", pin.Status)
	}

	// Status written through the subresource sticks and does not bump the
	// generation.
	pin.Status = trustedStatus()
	if err := env.Client.Status().Update(ctx, pin); err != nil {
		t.Fatalf("updating status: %v", err)
	}
	if pin.Generation != 1 {
		t.Errorf("status update changed generation to %d", pin.Generation)
	}

	// A spec update bumps the generation and leaves status alone, even when
	// the request carries a different status.
	pin.Spec.Override = &toolgatev1alpha1.ClassificationOverride{
		Level: toolgatev1alpha1.LevelHigh, Reason: "reviewed: deletes one repository the agent created",
	}
	pin.Status.State = toolgatev1alpha1.PinRejected
	if err := env.Client.Update(ctx, pin); err != nil {
		t.Fatalf("updating spec: %v", err)
	}
	var got toolgatev1alpha1.ToolPin
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &got); err != nil {
		t.Fatal(err)
	}
	if got.Generation != 2 {
		t.Errorf("spec update: generation %d, want 2", got.Generation)
	}
	if got.Status.State != toolgatev1alpha1.PinTrusted || got.Status.Pinned == nil || got.Status.Pinned.Fingerprint != fingerprintA {
		t.Errorf("spec update touched status: %+v", got.Status)
	}
	if got.Spec.Override == nil || got.Spec.Override.Level != toolgatev1alpha1.LevelHigh {
		t.Errorf("spec update lost the override: %+v", got.Spec)
	}

	// A status update cannot change spec.
	got.Spec.Override = nil
	got.Status.State = toolgatev1alpha1.PinAwaitingReview
	if err := env.Client.Status().Update(ctx, &got); err != nil {
		t.Fatal(err)
	}
	var again toolgatev1alpha1.ToolPin
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &again); err != nil {
		t.Fatal(err)
	}
	if again.Spec.Override == nil {
		t.Error("a status update removed spec.override")
	}
	if again.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Errorf("status update lost: state %q", again.Status.State)
	}
}

// TestDecisionAppendByJSONPatch checks the approval path at the API level: a
// JSON patch that appends to /status/decisions keeps what was there, and two
// appends made without reading first are both kept.
func TestDecisionAppendByJSONPatch(t *testing.T) {
	ctx := testContext(t)
	pin := newPin(t, "append-decisions", "delete_repository")
	pin.Status = trustedStatus()
	if err := env.Client.Status().Update(ctx, pin); err != nil {
		t.Fatal(err)
	}

	appendDecision := func(action toolgatev1alpha1.DecisionAction, comment string) {
		t.Helper()
		ops := []map[string]any{{
			"op": "add", "path": "/status/decisions/-",
			"value": toolgatev1alpha1.Decision{Action: action, Fingerprint: fingerprintA, Comment: comment},
		}}
		body, err := json.Marshal(ops)
		if err != nil {
			t.Fatal(err)
		}
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Name: pin.Name, Namespace: pin.Namespace}}
		if err := env.Client.Status().Patch(ctx, target, client.RawPatch(types.JSONPatchType, body)); err != nil {
			t.Fatalf("appending a decision: %v", err)
		}
	}
	appendDecision(toolgatev1alpha1.DecisionApprove, "first")
	appendDecision(toolgatev1alpha1.DecisionApprove, "second")

	var got toolgatev1alpha1.ToolPin
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Status.Decisions); n != 2 {
		t.Fatalf("got %d decisions, want 2: %+v", n, got.Status.Decisions)
	}
	if got.Status.Decisions[0].Comment != "first" || got.Status.Decisions[1].Comment != "second" {
		t.Errorf("decisions out of order: %+v", got.Status.Decisions)
	}
	if got.Status.State != toolgatev1alpha1.PinTrusted {
		t.Errorf("appending a decision changed the state to %q", got.Status.State)
	}

	// A decision that breaks the schema is refused as a whole.
	body := []byte(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":"md5:1234"}}]`)
	target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Name: pin.Name, Namespace: pin.Namespace}}
	err := env.Client.Status().Patch(ctx, target, client.RawPatch(types.JSONPatchType, body))
	if err == nil {
		t.Fatal("a decision with a malformed fingerprint was accepted")
	}
	t.Logf("malformed decision rejected: %v", err)
}
