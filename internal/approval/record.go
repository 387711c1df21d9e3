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
//   - a pin that is part of a review is deleted only by an administrator
//     (or the operator): one that holds decisions, or whose state is not
//     Trusted (see reviewRecord). Deleting it forgets the review, and the
//     next probe would meet a brand-new tool and trust it on first use. A
//     Trusted pin without decisions holds nothing a probe cannot rebuild,
//     and a pin in a namespace being deleted goes with everything else in
//     it: deleting a namespace is a right far above a server owner's, and
//     refusing would leave the namespace terminating for ever.
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
		why := reviewRecord(req.Name, &pin)
		if why == "" {
			return admission.Allowed("no decisions and no review to lose")
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
		return admission.Denied(why + "; only a toolgate administrator may delete it")
	}
	return admission.Allowed("neither a create nor a delete")
}

// reviewRecord says what deleting a pin would forget, or "" when it would
// forget nothing. A pin is part of a review when it holds decisions, or
// when it records a definition in any state:
//
//   - Trusted: the definition agents are given, trusted on first use or
//     approved. A probe after the delete would trust on first use whatever
//     the server sends then, so a server's owner who may delete pins could
//     redefine a tool in the gap and have the change trusted silently: a
//     rug pull with the record erased first.
//   - AwaitingReview: a changed definition (a rug pull) or a new one under
//     Review mode waits for a human. It holds no decision yet, which is
//     exactly when deleting it would let the next probe trust the changed
//     definition on first use.
//   - Rejected: a human said no; the decision may have been compacted
//     away, the state has not.
//   - Removed: the tool left the catalogue, and the pin keeps the
//     definition last trusted or seen. Should the tool come back changed,
//     or under another name, it is compared with that; without the pin it
//     would come back as a brand-new tool and be trusted on first use: a
//     rug pull across a removal. The operator expires removed pins itself
//     (lifecycle.Expired), so nobody else needs to.
//   - empty: the operator has created the pin and not yet written what it
//     observed. Such a pin records nothing and goes freely; one that
//     records a pinned or observed definition all the same is not one the
//     operator writes, and is kept (fail closed).
func reviewRecord(name string, pin *toolgatev1alpha1.ToolPin) string {
	st := &pin.Status
	if n := len(st.Decisions); n > 0 {
		return fmt.Sprintf("ToolPin %s holds %d decisions on tool %q, its review record: "+
			"deleting it would trust the tool on first use again at the next probe", name, n, pin.Spec.ToolName)
	}
	switch st.State {
	case toolgatev1alpha1.PinTrusted:
		if st.Pinned == nil && st.ObservedFingerprint == "" {
			return ""
		}
		return fmt.Sprintf("ToolPin %s pins the definition of tool %q that agents are given: "+
			"deleting it would have the next probe trust on first use whatever the server sends then", name, pin.Spec.ToolName)
	case "":
		if st.Pinned == nil && st.ObservedFingerprint == "" {
			return ""
		}
		return fmt.Sprintf("ToolPin %s of tool %q records a definition and no state: "+
			"deleting it would trust the tool on first use at the next probe", name, pin.Spec.ToolName)
	case toolgatev1alpha1.PinAwaitingReview:
		return fmt.Sprintf("ToolPin %s is AwaitingReview: the definition of tool %q waits for a human, and "+
			"deleting the pin would trust it on first use at the next probe", name, pin.Spec.ToolName)
	case toolgatev1alpha1.PinRejected:
		return fmt.Sprintf("ToolPin %s is Rejected: a human rejected the definition of tool %q, and "+
			"deleting the pin would trust it on first use at the next probe", name, pin.Spec.ToolName)
	case toolgatev1alpha1.PinRemoved:
		return fmt.Sprintf("ToolPin %s is Removed and keeps the definition of tool %q last seen: "+
			"deleting it would trust the tool on first use should it come back changed", name, pin.Spec.ToolName)
	}
	// A state this operator does not know is not one it trusts.
	return fmt.Sprintf("ToolPin %s of tool %q is in state %q, not Trusted", name, pin.Spec.ToolName, st.State)
}
