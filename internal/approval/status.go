package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// StatusStamper is the mutating webhook on updates of toolpins/status. It
// stamps every appended decision with the requester's user name, groups and
// the time, taken from the admission request, over whatever the requester
// typed. It also refuses what the StatusValidator would refuse, so that it
// never stamps, and no later mutating webhook ever sees, a decision that
// cannot stand.
type StatusStamper struct {
	// Identities says who is the operator and who may decide.
	Identities *IdentityPolicy
	// Decoder decodes the ToolPins in the request.
	Decoder admission.Decoder
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Handle implements admission.Handler.
func (s *StatusStamper) Handle(ctx context.Context, req admission.Request) admission.Response {
	u, verdict := reviewAppend(ctx, s.Identities, s.Decoder, req)
	if u == nil {
		return verdict
	}
	appended := u.newPin.Status.Decisions[u.first:]
	// Whole seconds, in UTC: what metav1.Time serialises anyway, so the
	// validator and every later reader see the same value.
	now := metav1.NewTime(s.now().UTC().Truncate(time.Second))
	for i := range appended {
		if err := checkDecision(u.oldPin, &appended[i], req.UserInfo.Username, s.now()); err != nil {
			return admission.Denied(err.Error())
		}
		stamp(&appended[i], req.UserInfo, now)
	}
	marshaled, err := json.Marshal(u.newPin)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, marshaled)
}

func (s *StatusStamper) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// StatusValidator is the validating webhook on updates of toolpins/status.
// It runs after every mutating webhook, so it sees the object that would be
// stored: it refuses anything but appended decisions from someone who may
// decide, on the fingerprint observed now, stamped exactly as the request's
// identity says.
type StatusValidator struct {
	// Identities says who is the operator and who may decide.
	Identities *IdentityPolicy
	// Decoder decodes the ToolPins in the request.
	Decoder admission.Decoder
}

// Handle implements admission.Handler.
func (v *StatusValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	u, verdict := reviewAppend(ctx, v.Identities, v.Decoder, req)
	if u == nil {
		return verdict
	}
	appended := u.newPin.Status.Decisions[u.first:]
	for i := range appended {
		// The stamp's time is the stamper's clock: the validator judges
		// expiry by the same instant, so the two cannot disagree.
		if err := checkDecision(u.oldPin, &appended[i], req.UserInfo.Username, decisionTime(&appended[i])); err != nil {
			return admission.Denied(err.Error())
		}
		if err := checkStamp(&appended[i], req.UserInfo, u.first+i); err != nil {
			return admission.Denied(err.Error())
		}
	}
	return admission.Allowed("decisions appended and stamped")
}

// appendUpdate is a status update that passed the checks both status
// webhooks make before they look at each appended decision.
type appendUpdate struct {
	oldPin, newPin *toolgatev1alpha1.ToolPin
	// first is the index in newPin.Status.Decisions of the first appended
	// decision.
	first int
}

// reviewAppend applies, in this order, the rules both status webhooks
// share: the operator writes freely; only status updates are judged; both
// objects must decode; the update may only append decisions; and, if it
// appends any, the requester must be someone who may decide, appending
// exactly one. It returns the
// update when each appended decision remains to be judged, and otherwise
// nil and the verdict. Both webhooks go through it so that they cannot come
// to disagree on the order of the checks or their messages.
func reviewAppend(ctx context.Context, ids *IdentityPolicy, dec admission.Decoder, req admission.Request) (*appendUpdate, admission.Response) {
	if ids.IsOperator(req.UserInfo) {
		return nil, admission.Allowed("the operator writes the record")
	}
	if !isStatusUpdate(req) {
		return nil, admission.Allowed("not a status update")
	}
	oldPin, newPin, err := decodeUpdate(dec, req)
	if err != nil {
		return nil, admission.Errored(http.StatusBadRequest, err)
	}
	first, err := appendedDecisions(&oldPin.Status, &newPin.Status)
	if err != nil {
		return nil, admission.Denied(err.Error())
	}
	if first == len(newPin.Status.Decisions) {
		return nil, admission.Allowed("no decision appended")
	}
	if err := ids.MayDecide(ctx, req.UserInfo); err != nil {
		return nil, admission.Denied(err.Error())
	}
	if n := len(newPin.Status.Decisions) - first; n > 1 {
		// One at a time: a batch would let one request fill the log, and
		// each decision is judged against the log as it stands.
		return nil, admission.Denied(fmt.Sprintf("append one decision per request: this request appends %d", n))
	}
	return &appendUpdate{oldPin: oldPin, newPin: newPin, first: first}, admission.Response{}
}

// decisionTime is the time a decision was stamped with, zero when unstamped
// (checkStamp then refuses it).
func decisionTime(d *toolgatev1alpha1.Decision) time.Time {
	if d.Time == nil {
		return time.Time{}
	}
	return d.Time.Time
}
