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
//     holds nothing a probe cannot rebuild, and a pin in a namespace being
//     deleted goes with everything else in it: deleting a namespace is
//     a right far above a server owner's, and refusing would leave the
//     namespace terminating for ever.
type RecordValidator struct {
	// Identities says who is the operator and who is an administrator.
	Identities *IdentityPolicy
	// Terminating tells whether a pin's namespace is being deleted.
	// Required: without it a pin with decisions is deleted only by an
	// administrator, even in a namespace being deleted.
	Terminating NamespaceTerminating
	// Decoder decodes the ToolPin being deleted.
	Decoder admission.Decoder
}

// Handle implements admission.Handler.
func (v *RecordValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
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
		if v.Terminating != nil {
			terminating, err := v.Terminating(ctx, req.Namespace)
			if err != nil {
				return admission.Denied(fmt.Sprintf("cannot tell whether namespace %s is being deleted: %v", req.Namespace, err))
			}
			if terminating {
				return admission.Allowed("the namespace is being deleted")
			}
		}
		return admission.Denied(fmt.Sprintf("ToolPin %s holds %d decisions on tool %q, its review record: "+
			"deleting it would trust the tool on first use again at the next probe; only a toolgate administrator may delete it",
			req.Name, n, pin.Spec.ToolName))
	}
	return admission.Allowed("neither a create nor a delete")
}
