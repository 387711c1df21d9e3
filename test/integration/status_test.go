package integration

import (
	"encoding/json"
	"strings"
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

// TestHeldResultSchema checks what the schema says of a held result in
// status.pendingCalls: one that names its digest and findings is stored
// with them; one missing either, or of an unknown kind, is refused with a
// message that names what is missing.
func TestHeldResultSchema(t *testing.T) {
	ctx := testContext(t)
	pin := newPin(t, "held-result-schema", "fetch_url")
	now := metav1.Now()
	held := toolgatev1alpha1.PendingCall{
		ID: "r-1", Kind: toolgatev1alpha1.CallKindResult, ResultDigest: fingerprintB, Fingerprint: fingerprintA,
		Agent:           toolgatev1alpha1.AgentIdentity{Namespace: "agents", Pod: "agent-0"},
		ArgumentsDigest: fingerprintB, RequestedTime: now, ExpiryTime: now,
		Findings: []toolgatev1alpha1.Finding{{Signal: "model-instruction", Field: "content[0].text", Excerpt: `ignore previous instructions\u200b`}},
	}
	write := func(c toolgatev1alpha1.PendingCall) error {
		t.Helper()
		var cur toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &cur); err != nil {
			t.Fatal(err)
		}
		cur.Status = trustedStatus()
		cur.Status.PendingCalls = []toolgatev1alpha1.PendingCall{c}
		return env.Client.Status().Update(ctx, &cur)
	}
	if err := write(held); err != nil {
		t.Fatalf("a held result is refused: %v", err)
	}
	var got toolgatev1alpha1.ToolPin
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &got); err != nil {
		t.Fatal(err)
	}
	if p := got.Status.PendingCalls; len(p) != 1 || p[0].Kind != toolgatev1alpha1.CallKindResult || p[0].ResultDigest != fingerprintB ||
		len(p[0].Findings) != 1 || p[0].Findings[0].Signal != "model-instruction" {
		t.Fatalf("the held result was not stored whole: %+v", p)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*toolgatev1alpha1.PendingCall)
		want   string
	}{
		{"no digest", func(c *toolgatev1alpha1.PendingCall) { c.ResultDigest = "" }, "a held Result names its resultDigest and its findings"},
		{"no findings", func(c *toolgatev1alpha1.PendingCall) { c.Findings = nil }, "a held Result names its resultDigest and its findings"},
		{"unknown kind", func(c *toolgatev1alpha1.PendingCall) { c.Kind = "Answer" }, `Unsupported value: "Answer": supported values: "Call", "Result"`},
		{"too many findings", func(c *toolgatev1alpha1.PendingCall) {
			for len(c.Findings) <= toolgatev1alpha1.MaxHeldResultFindings {
				c.Findings = append(c.Findings, c.Findings[0])
			}
		}, "must have at most 8 items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *held.DeepCopy()
			tc.mutate(&c)
			err := write(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("write = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
