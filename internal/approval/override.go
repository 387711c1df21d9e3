package approval

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// OverrideValidator is the validating webhook on creates and updates of
// toolpins. It guards spec.override, a human classification that can lower
// a tool's level: setting, changing or clearing it takes an identity that
// may override (today: one that may decide), never an agent's. The rest of
// the spec is left to the CRD's own validation.
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
	if req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return admission.Allowed("not a write of the spec")
	}
	oldOverride, newOverride, err := overrides(v.Decoder, req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if equality.Semantic.DeepEqual(oldOverride, newOverride) {
		return admission.Allowed("spec.override unchanged")
	}
	if err := v.Identities.MayOverride(ctx, req.UserInfo); err != nil {
		return admission.Denied("spec.override is a human classification: " + err.Error())
	}
	return admission.Allowed("override set by " + req.UserInfo.Username)
}

// overrides returns spec.override before and after a create or an update;
// a create has none before.
func overrides(dec admission.Decoder, req admission.Request) (before, after *toolgatev1alpha1.ClassificationOverride, err error) {
	var newPin toolgatev1alpha1.ToolPin
	if err := dec.DecodeRaw(req.Object, &newPin); err != nil {
		return nil, nil, fmt.Errorf("decoding the ToolPin: %w", err)
	}
	if req.Operation == admissionv1.Update {
		var oldPin toolgatev1alpha1.ToolPin
		if err := dec.DecodeRaw(req.OldObject, &oldPin); err != nil {
			return nil, nil, fmt.Errorf("decoding the old ToolPin: %w", err)
		}
		before = oldPin.Spec.Override
	}
	return before, newPin.Spec.Override, nil
}
