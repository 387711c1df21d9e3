package cli

import (
	"errors"
	"strings"
	"testing"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// TestRevokePatch: a rejection of a Trusted pin's definition is a
// revocation, tested against the state read; revoke refuses what is not
// trusted, and says when nothing would change.
func TestRevokePatch(t *testing.T) {
	pins := fixturePins(t)
	trusted, rug := &pins[2], &pins[0]
	for _, req := range []DecisionRequest{{Action: toolgatev1alpha1.DecisionReject}, {Action: toolgatev1alpha1.DecisionReject, Revoke: true}} {
		patch, fp, err := BuildDecisionPatch(trusted, req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		want := `[{"op":"test","path":"/status/observedFingerprint","value":"` + string(fp) + `"},` +
			`{"op":"test","path":"/status/state","value":"Trusted"},` +
			`{"op":"add","path":"/status/decisions/-","value":{"action":"Reject","fingerprint":"` + string(fp) + `"}}]`
		if fp != trusted.Status.Pinned.Fingerprint || string(patch) != want {
			t.Errorf("%+v: patch\n got %s\nwant %s", req, patch, want)
		}
	}
	rejected := trusted.DeepCopy()
	rejected.Status.State = toolgatev1alpha1.PinRejected
	for name, tc := range map[string]struct {
		pin       *toolgatev1alpha1.ToolPin
		req       DecisionRequest
		unchanged bool
		want      string
	}{
		"revoke under review":  {rug, DecisionRequest{Action: toolgatev1alpha1.DecisionReject, Revoke: true}, false, "status.state is AwaitingReview, not Trusted: nothing is trusted to revoke"},
		"revoke rejected":      {rejected, DecisionRequest{Action: toolgatev1alpha1.DecisionReject, Revoke: true}, true, "status.state is Rejected"},
		"approve trusted":      {trusted, DecisionRequest{Action: toolgatev1alpha1.DecisionApprove}, true, "status.state is Trusted (sha256:"},
		"approve trusted hint": {trusted, DecisionRequest{Action: toolgatev1alpha1.DecisionApprove}, true, "name one with --call"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := BuildDecisionPatch(tc.pin, tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrUnchanged) != tc.unchanged {
				t.Errorf("err = %v, want %q (unchanged %v)", err, tc.want, tc.unchanged)
			}
		})
	}
}

// TestUnchanged: a decision that would change nothing is named before it
// is sent — by the state, by the reviewer's own latest decision, or by
// another reviewer's rejection, which stands until they withdraw it.
func TestUnchanged(t *testing.T) {
	pins := fixturePins(t)
	rug, multi, trusted := &pins[0], &pins[1], &pins[2]
	fp := rug.Status.ObservedFingerprint
	decided := func(pin *toolgatev1alpha1.ToolPin, state toolgatev1alpha1.PinState, ds ...toolgatev1alpha1.Decision) *toolgatev1alpha1.ToolPin {
		p := pin.DeepCopy()
		p.Status.State = state
		p.Status.Decisions = append(p.Status.Decisions, ds...)
		return p
	}
	bobRejects := toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionReject, Fingerprint: fp, User: "bob"}
	aliceApproves := toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: fp, User: "alice"}
	approve, reject := DecisionRequest{Action: toolgatev1alpha1.DecisionApprove}, DecisionRequest{Action: toolgatev1alpha1.DecisionReject}
	for name, tc := range map[string]struct {
		pin  *toolgatev1alpha1.ToolPin
		req  DecisionRequest
		user string
		want string // "" when the decision changes something
	}{
		"first approval":                   {rug, approve, "alice", ""},
		"first approval, identity unknown": {rug, approve, "", ""},
		"approve after another's rejection": {decided(rug, toolgatev1alpha1.PinRejected, bobRejects), approve, "alice",
			"bob rejected " + fp.Short() + ", and a rejection stands until whoever made it approves: an approval by alice would leave the pin Rejected"},
		// The rejecter's own approval withdraws the rejection.
		"the rejecter approves":    {decided(rug, toolgatev1alpha1.PinRejected, bobRejects), approve, "bob", ""},
		"reject a rejected pin":    {decided(rug, toolgatev1alpha1.PinRejected, bobRejects), reject, "alice", "status.state is Rejected already (bob rejected " + fp.Short() + ")"},
		"reject, identity unknown": {decided(rug, toolgatev1alpha1.PinRejected, bobRejects), reject, "", "status.state is Rejected already"},
		// Rejecting a pin alice approved withdraws her approval: a change.
		"reject after approving": {decided(rug, toolgatev1alpha1.PinAwaitingReview, aliceApproves), reject, "alice", ""},
		"approve twice, multi":   {multi, approve, "alice", "alice approved " + multi.Status.ObservedFingerprint.Short() + " already (1 of 2 approvals)"},
		"a second person, multi": {multi, approve, "bob", ""},
		"approve a call twice": {decided(trusted, toolgatev1alpha1.PinTrusted, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove,
			Fingerprint: trusted.Status.PendingCalls[0].Fingerprint, CallID: "c-7f3a", User: "alice"}), DecisionRequest{Action: toolgatev1alpha1.DecisionApprove, CallID: "c-7f3a"}, "alice",
			"alice approved call c-7f3a already"},
		"approve a call": {trusted, DecisionRequest{Action: toolgatev1alpha1.DecisionApprove, CallID: "c-7f3a"}, "alice", ""},
		// A decision by an identity that is never a person does not count,
		// so it does not make a later one redundant.
		"after a break-glass identity": {decided(rug, toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: fp, User: "system:admin"}),
			approve, "system:admin", ""},
	} {
		t.Run(name, func(t *testing.T) {
			got := Unchanged(tc.pin, tc.req, tc.user)
			if tc.want == "" && got != "" || tc.want != "" && (!strings.Contains(got, tc.want) || !strings.Contains(got, "toolpin "+tc.pin.Namespace+"/"+tc.pin.Name)) {
				t.Errorf("Unchanged = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	pins := fixturePins(t)
	rug, multi, trusted := &pins[0], &pins[1], &pins[2]
	approve := DecisionRequest{Action: toolgatev1alpha1.DecisionApprove}
	for _, tc := range []struct {
		pin  *toolgatev1alpha1.ToolPin
		req  DecisionRequest
		user string
		want string
	}{
		{rug, approve, "alice", "marks the pin Trusted"},
		{multi, approve, "bob", "marks the pin Trusted"},
		{multi, approve, "system:serviceaccount:reviewers:bot2", "1 of 2 approvals by distinct people"},
		{trusted, DecisionRequest{Action: toolgatev1alpha1.DecisionReject, Revoke: true}, "alice", "withhold the tool from agents"},
		{trusted, DecisionRequest{Action: toolgatev1alpha1.DecisionApprove, CallID: "c-7f3a"}, "alice", ""},
	} {
		if got := Outcome(tc.pin, tc.req, tc.user); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Outcome(%s, %+v, %s) = %q, want %q", tc.pin.Name, tc.req, tc.user, got, tc.want)
		}
	}
}
