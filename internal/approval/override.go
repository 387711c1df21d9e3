package approval

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// OverrideStamper is the mutating webhook on creates and updates of
// toolpins. It records who set spec.override and when: an override whose
// classification (level, category, blastRadius, reason) is new is stamped
// with the requester's user name and the time, over whatever was typed in
// setBy and setTime; one left as it was keeps the stamp it had, so that an
// unrelated edit of the pin neither takes the override over nor forges its
// author. Whether the requester may override at all is the
// OverrideValidator's question, asked after every mutation.
type OverrideStamper struct {
	// Decoder decodes the ToolPins in the request.
	Decoder admission.Decoder
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Handle implements admission.Handler.
func (s *OverrideStamper) Handle(_ context.Context, req admission.Request) admission.Response {
	if !isSpecWrite(req) {
		return admission.Allowed("not a write of the spec")
	}
	oldPin, newPin, err := decodeSpecWrite(s.Decoder, req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	o := newPin.Spec.Override
	if o == nil {
		return admission.Allowed("no override")
	}
	setBy, setTime := req.UserInfo.Username, metav1.NewTime(s.now().UTC().Truncate(time.Second))
	if old := oldPin.Spec.Override; sameClassification(old, o) {
		setBy, setTime = old.SetBy, metav1.Time{}
		if old.SetTime != nil {
			setTime = *old.SetTime
		}
	}
	// Two operations on the override alone, rather than a diff of the
	// re-encoded object: nothing but the stamp can change here.
	var ops []jsonpatch.JsonPatchOperation
	switch {
	case setBy != "":
		ops = append(ops, jsonpatch.NewOperation("add", "/spec/override/setBy", setBy))
	case o.SetBy != "":
		ops = append(ops, jsonpatch.NewOperation("remove", "/spec/override/setBy", nil))
	}
	switch {
	case !setTime.IsZero():
		ops = append(ops, jsonpatch.NewOperation("add", "/spec/override/setTime", setTime.UTC().Format(time.RFC3339)))
	case o.SetTime != nil:
		ops = append(ops, jsonpatch.NewOperation("remove", "/spec/override/setTime", nil))
	}
	resp := admission.Patched("override stamped", ops...)
	if len(ops) > 0 {
		jsonPatch := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &jsonPatch
	}
	return resp
}

func (s *OverrideStamper) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// OverrideValidator is the validating webhook on creates and updates of
// toolpins. It guards spec.override, a human classification that can lower
// a tool's level: setting, changing or clearing it takes what deciding
// takes (IdentityPolicy.MayOverride: an identity that may decide, holding
// the right to decide on that pin, asked with a SubjectAccessReview), and
// the stamp must be the OverrideStamper's. The rest of the spec is left to
// the CRD's own validation.
type OverrideValidator struct {
	// Identities says who is the operator and who may override.
	Identities *IdentityPolicy
	// Decoder decodes the ToolPins in the request.
	Decoder admission.Decoder
}

// Handle implements admission.Handler.
func (v *OverrideValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if v.Identities.IsOperator(req.UserInfo) {
		return admission.Allowed("the operator writes the record")
	}
	if !isSpecWrite(req) {
		return admission.Allowed("not a write of the spec")
	}
	oldPin, newPin, err := decodeSpecWrite(v.Decoder, req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	before, after := oldPin.Spec.Override, newPin.Spec.Override
	if sameClassification(before, after) {
		if after != nil && (after.SetBy != before.SetBy || !sameTime(after.SetTime, before.SetTime)) {
			return admission.Denied("spec.override.setBy and setTime record who set the override and when; they change only with the override")
		}
		return admission.Allowed("spec.override unchanged")
	}
	if err := v.Identities.MayOverride(ctx, req.UserInfo, req.Namespace, req.Name); err != nil {
		return admission.Denied("spec.override is a human classification: " + err.Error())
	}
	if after != nil && (after.SetBy != req.UserInfo.Username || after.SetTime == nil) {
		return admission.Denied(fmt.Sprintf("spec.override is not stamped with the requester's identity (%s)", req.UserInfo.Username))
	}
	return admission.Allowed("override set by " + req.UserInfo.Username)
}

// isSpecWrite reports whether req creates or updates a ToolPin itself,
// not its status: the only requests the override webhooks judge.
func isSpecWrite(req admission.Request) bool {
	return req.SubResource == "" && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update)
}

// decodeSpecWrite decodes the ToolPin before and after a create or an
// update; before a create is an empty ToolPin.
func decodeSpecWrite(dec admission.Decoder, req admission.Request) (oldPin, newPin *toolgatev1alpha1.ToolPin, err error) {
	oldPin, newPin = &toolgatev1alpha1.ToolPin{}, &toolgatev1alpha1.ToolPin{}
	if err := dec.DecodeRaw(req.Object, newPin); err != nil {
		return nil, nil, fmt.Errorf("decoding the ToolPin: %w", err)
	}
	if req.Operation == admissionv1.Update {
		if err := dec.DecodeRaw(req.OldObject, oldPin); err != nil {
			return nil, nil, fmt.Errorf("decoding the old ToolPin: %w", err)
		}
	}
	return oldPin, newPin, nil
}

// sameClassification reports whether two overrides classify alike: the
// same level, category, blast radius and reason, whoever stamped them.
func sameClassification(a, b *toolgatev1alpha1.ClassificationOverride) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Level == b.Level && a.Category == b.Category && a.BlastRadius == b.BlastRadius && a.Reason == b.Reason
}

// sameTime compares two optional times at the second, as they are stored.
func sameTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Truncate(time.Second).Equal(b.Truncate(time.Second))
}
