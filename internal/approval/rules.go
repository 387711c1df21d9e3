package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// The rules the webhooks share, as plain functions of the objects in the
// request: each handler calls the ones it enforces, so that the stamper and
// the validator cannot drift apart through a mode switch.

// isStatusUpdate reports whether req updates a ToolPin's status: the only
// request the status webhooks judge. The webhook configuration sends them
// nothing else; anything else is let through as none of their business.
func isStatusUpdate(req admission.Request) bool {
	return req.Operation == admissionv1.Update && req.SubResource == "status"
}

// decodeUpdate decodes the old and the new ToolPin of an update.
func decodeUpdate(dec admission.Decoder, req admission.Request) (oldPin, newPin *toolgatev1alpha1.ToolPin, err error) {
	oldPin, newPin = &toolgatev1alpha1.ToolPin{}, &toolgatev1alpha1.ToolPin{}
	if err := dec.DecodeRaw(req.OldObject, oldPin); err != nil {
		return nil, nil, fmt.Errorf("decoding the old ToolPin: %w", err)
	}
	if err := dec.DecodeRaw(req.Object, newPin); err != nil {
		return nil, nil, fmt.Errorf("decoding the new ToolPin: %w", err)
	}
	return oldPin, newPin, nil
}

// appendedDecisions checks that a status update by anyone but the operator
// only appends to status.decisions, and returns the index in
// newStatus.Decisions of the first appended decision (len(old) when none
// was). The error, if any, is the refusal to show the requester.
func appendedDecisions(oldStatus, newStatus *toolgatev1alpha1.ToolPinStatus) (int, error) {
	oldRest, newRest := oldStatus.DeepCopy(), newStatus.DeepCopy()
	oldRest.Decisions, newRest.Decisions = nil, nil
	if !equality.Semantic.DeepEqual(oldRest, newRest) {
		return 0, errors.New("only the toolgate operator writes ToolPin status; approvers may only append to status.decisions")
	}
	past := oldStatus.Decisions
	if past != nil && newStatus.Decisions == nil {
		// Dropping the (empty) list would break every approver's "add
		// /status/decisions/-" until the operator wrote the pin again.
		return 0, errors.New("status.decisions cannot be removed; append to it")
	}
	if len(newStatus.Decisions) < len(past) || !equality.Semantic.DeepEqual(past, newStatus.Decisions[:len(past)]) {
		return 0, errors.New("status.decisions is append-only: a past decision cannot be changed or removed")
	}
	return len(past), nil
}

// checkFingerprint refuses a decision on anything but what is observed now:
// for a call, the fingerprint the pending call was made against; for the
// definition, the one observed now. An approval therefore never carries
// over to a definition its approver did not see.
func checkFingerprint(pin *toolgatev1alpha1.ToolPin, d *toolgatev1alpha1.Decision, now time.Time) error {
	if d.CallID != "" {
		return checkCall(pin, d, now)
	}
	if pin.Status.ObservedFingerprint == "" {
		return errors.New("the tool has not been observed yet: there is nothing to decide on")
	}
	if d.Fingerprint != pin.Status.ObservedFingerprint {
		return fmt.Errorf("decision names fingerprint %s, but the definition observed now is %s: review the current definition", d.Fingerprint, pin.Status.ObservedFingerprint)
	}
	return nil
}

// checkCall refuses a decision on a call that is not pending now, saying
// why: a call already resolved (approved, rejected, expired or withdrawn by
// an agent that gave up) can never be decided again, so an approval can
// never reach a gate after its agent stopped waiting; and one on a pending
// call must name the fingerprint the call was made against.
func checkCall(pin *toolgatev1alpha1.ToolPin, d *toolgatev1alpha1.Decision, now time.Time) error {
	c := lifecycle.PendingCall(&pin.Status, d.CallID)
	if c == nil {
		if r := lifecycle.ResolvedCall(&pin.Status, d.CallID); r != nil {
			return fmt.Errorf("call %s is no longer pending: it was resolved as %s at %s, and a decision cannot change it",
				d.CallID, r.Verdict, r.ResolvedTime.UTC().Format(time.RFC3339))
		}
		return fmt.Errorf("no pending call %q on this tool: see status.pendingCalls for the calls awaiting a decision", d.CallID)
	}
	if !now.IsZero() && !now.Before(c.ExpiryTime.Time) {
		return fmt.Errorf("call %s expired at %s: the gate refuses it", d.CallID, c.ExpiryTime.UTC().Format(time.RFC3339))
	}
	if c.Fingerprint != d.Fingerprint {
		return fmt.Errorf("decision on call %s names fingerprint %s, but the call was made against %s", d.CallID, d.Fingerprint, c.Fingerprint)
	}
	return nil
}

// checkBounds refuses a decision that would exhaust the log. Each request
// appends one decision at most (appendedDecisions' caller checks); one
// identity appends at most MaxDecisionsPerIdentity on one fingerprint, or
// one call; a decision on a call leaves DecisionReserve places for the
// review of a definition; and a full log says so in words rather than as
// the schema's maxItems. Decisions on definitions neither pinned nor
// observed, and on calls no longer pending, are the operator's to drop.
func checkBounds(pin *toolgatev1alpha1.ToolPin, d *toolgatev1alpha1.Decision, user string) error {
	log := pin.Status.Decisions
	mine := 0
	for _, past := range log {
		if past.User == user && past.Fingerprint == d.Fingerprint && past.CallID == d.CallID {
			mine++
		}
	}
	on := "fingerprint " + string(d.Fingerprint)
	if d.CallID != "" {
		on = "call " + d.CallID
	}
	if mine >= toolgatev1alpha1.MaxDecisionsPerIdentity {
		return fmt.Errorf("%s has already decided %d times on %s, the most one identity may: only the latest counts", user, mine, on)
	}
	if d.CallID != "" && len(log) >= toolgatev1alpha1.MaxDecisions-toolgatev1alpha1.DecisionReserve {
		return fmt.Errorf("status.decisions holds %d decisions: the last %d places are kept for decisions on the definition; decide on the call once the operator has dropped decisions that no longer count",
			len(log), toolgatev1alpha1.DecisionReserve)
	}
	if len(log) >= toolgatev1alpha1.MaxDecisions {
		return fmt.Errorf("status.decisions is full (%d decisions on the definitions pinned and observed now); the operator drops those that no longer count when either changes", len(log))
	}
	if d.Comment != "" {
		size := encodedLength(d.Comment)
		for _, past := range log {
			size += encodedLength(past.Comment)
		}
		if size > toolgatev1alpha1.MaxCommentBytes {
			return fmt.Errorf("the comments of status.decisions would take %d bytes, over their budget of %d: decide without a comment, or with a shorter one",
				size, toolgatev1alpha1.MaxCommentBytes)
		}
	}
	return nil
}

// encodedLength is the length of s as a JSON string, as the pin is
// written to the API server.
func encodedLength(s string) int {
	if s == "" {
		return 0
	}
	b, err := json.Marshal(s)
	if err != nil {
		return len(s) * 6
	}
	return len(b)
}

// checkDecision applies the rules on one appended decision that do not
// depend on its stamp: it names what is observed now, and it fits the
// log's bounds.
func checkDecision(pin *toolgatev1alpha1.ToolPin, d *toolgatev1alpha1.Decision, user string, now time.Time) error {
	if err := checkFingerprint(pin, d, now); err != nil {
		return err
	}
	return checkBounds(pin, d, user)
}

// stamp writes who decided and when into d, from the admission request,
// over whatever the requester typed: the user name, the groups that fit,
// the UID and the credential ID when they fit.
func stamp(d *toolgatev1alpha1.Decision, user authenticationv1.UserInfo, now metav1.Time) {
	d.User = user.Username
	d.Groups = stampGroups(user.Groups)
	d.UID = fitting(user.UID)
	d.CredentialID = credentialID(user)
	d.Time = &now
}

// CredentialIDKey is the extra key under which the API server's
// authenticators name the credential of a request.
const CredentialIDKey = "authentication.kubernetes.io/credential-id"

// credentialID returns the request's credential ID when it has exactly
// one that fits a decision, and "" otherwise: a record keeps what it can
// show faithfully, never a cut or a choice among several.
func credentialID(user authenticationv1.UserInfo) string {
	if v := user.Extra[CredentialIDKey]; len(v) == 1 {
		return fitting(v[0])
	}
	return ""
}

// fitting returns s when it fits MaxIdentityLength, else "".
func fitting(s string) string {
	if len(s) > toolgatev1alpha1.MaxIdentityLength {
		return ""
	}
	return s
}

// checkStamp refuses a decision that does not carry the requester's
// identity exactly as stamp writes it: whatever ran between the mutating
// and the validating pass (another mutating webhook, a reinvocation) must
// not have changed who decided. index is the decision's place in the log,
// for the message.
func checkStamp(d *toolgatev1alpha1.Decision, user authenticationv1.UserInfo, index int) error {
	if d.User != user.Username || !slices.Equal(d.Groups, stampGroups(user.Groups)) || d.UID != fitting(user.UID) || d.CredentialID != credentialID(user) || d.Time == nil {
		return fmt.Errorf("decision %d is not stamped with the requester's identity (%s)", index, user.Username)
	}
	return nil
}

// stampGroups keeps at most MaxDecisionGroups groups of at most
// MaxIdentityLength bytes, as the API bounds a decision's groups: a person
// in many groups (common with OIDC) can still decide, and the record keeps
// the groups that fit rather than refusing the person.
func stampGroups(groups []string) []string {
	var out []string
	for _, g := range groups {
		if len(out) == toolgatev1alpha1.MaxDecisionGroups {
			break
		}
		if len(g) <= toolgatev1alpha1.MaxIdentityLength {
			out = append(out, g)
		}
	}
	return out
}
