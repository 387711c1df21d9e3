package approval

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// RecordValidator is the validating webhook on creates and deletes of
// toolpins. A ToolPin is a review record, and its existence is part of it:
//
//   - only the operator creates ToolPins: a pin made by hand could carry an
//     override from birth, classifying a tool nobody has seen, or take the
//     name the operator will give a tool's pin;
//   - a pin that holds decisions is deleted only by an administrator (or
//     the operator): deleting it forgets its review, and the next probe
//     would trust the tool on first use again. A pin without decisions
//     holds nothing a probe cannot rebuild.
type RecordValidator struct {
	// Identities says who is the operator and who is an administrator.
	Identities *IdentityPolicy
	// Decoder decodes the ToolPin being deleted.
	Decoder admission.Decoder
}

// Handle implements admission.Handler.
func (v *RecordValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if v.Identities.IsOperator(req.UserInfo) {
		return admission.Allowed("the operator writes the record")
	}
	if req.SubResource != "" {
		return admission.Allowed("not a write of the ToolPin itself")
	}
	switch req.Operation {
	case admissionv1.Create:
		return admission.Denied("ToolPins are created by the toolgate operator only, when it first sees a tool: " +
			"a pin made by hand could classify a tool before anyone has seen it, or take the name of a tool's pin")
	case admissionv1.Delete:
		var pin toolgatev1alpha1.ToolPin
		if err := v.Decoder.DecodeRaw(req.OldObject, &pin); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the ToolPin being deleted: %w", err))
		}
		n := len(pin.Status.Decisions)
		if n == 0 {
			return admission.Allowed("no decisions to lose")
		}
		if v.Identities.IsAdmin(req.UserInfo) {
			return admission.Allowed("deleted by the administrator " + req.UserInfo.Username)
		}
		return admission.Denied(fmt.Sprintf("ToolPin %s holds %d decisions on tool %q, its review record: "+
			"deleting it would trust the tool on first use again at the next probe; only a toolgate administrator may delete it",
			req.Name, n, pin.Spec.ToolName))
	}
	return admission.Allowed("neither a create nor a delete")
}
