package approval

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestDeletingAPinWithDecisionsTakesAnAdministrator: deleting a
// pin that holds decisions forgets its review (the next probe would trust
// the tool on first use), so only a configured administrator, or the
// operator, may; a pin that never recorded a definition holds nothing to
// lose.
func TestDeletingAPinWithDecisionsTakesAnAdministrator(t *testing.T) {
	v := &RecordValidator{Identities: testPolicy(), Terminating: testTerminating, Decoder: testDecoder(t)}
	decided := pinJSON(specJSON, statusJSON)
	undecided := pinJSON(specJSON, edit(t, statusJSON, func(m map[string]any) {
		m["decisions"] = []any{}
		m["state"] = "Trusted"
	}))
	never := pinJSON(specJSON, "{}")
	for _, tc := range []struct {
		name string
		user authenticationv1.UserInfo
		pin  []byte
		want verdict
	}{
		{"a server owner deletes a pin with decisions", authenticationv1.UserInfo{Username: "mallory"}, decided,
			refused(`ToolPin notes-archive-note holds 1 decisions on tool "archive_note", its review record: deleting it would trust the tool on first use again at the next probe; only a toolgate administrator may delete it`)},
		{"an approver deletes a pin with decisions", alice, decided, refused("only a toolgate administrator may delete it")},
		{"a cluster administrator who is not a toolgate administrator", authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}, decided, refused("only a toolgate administrator")},
		{"a service account", ciBot, decided, refused("only a toolgate administrator")},
		{"an administrator by name", authenticationv1.UserInfo{Username: adminName}, decided, allowed},
		{"an administrator by group", authenticationv1.UserInfo{Username: "zoe", Groups: []string{adminGroup}}, decided, allowed},
		{"the operator", operator, decided, allowed},
		{"a server owner deletes a trusted pin without decisions", authenticationv1.UserInfo{Username: "mallory"}, undecided, refused("pins the definition of tool")},
		{"a server owner deletes a pin never observed", authenticationv1.UserInfo{Username: "mallory"}, never, allowed},
		{"a delete whose object does not decode", authenticationv1.UserInfo{Username: "mallory"}, []byte(`{`), badRequest},
		// An API server that sends no old object: refused, not guessed.
		{"a delete without the object", authenticationv1.UserInfo{Username: "mallory"}, nil, badRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, v.Handle(t.Context(), request(admissionv1.Delete, "", tc.user, tc.pin, nil)))
		})
	}

	// Deleting a namespace takes far more than a server owner holds, and a
	// refusal would leave it terminating for ever.
	nsController := authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:namespace-controller"}
	inNamespace := func(ns string) admission.Request {
		req := request(admissionv1.Delete, "", nsController, decided, nil)
		req.Namespace = ns
		return req
	}
	allowed.check(t, v.Handle(t.Context(), inNamespace("leaving")))
	refused("cannot tell whether namespace broken is being deleted: "+errLookup.Error()).check(t, v.Handle(t.Context(), inNamespace("broken")))
	// Without a way to tell, a pin with decisions stays.
	v.Terminating = nil
	refused("only a toolgate administrator").check(t, v.Handle(t.Context(), inNamespace("leaving")))
}

// testTerminating: "leaving" is being deleted, the lookup of "broken"
// fails, every other namespace stays.
func testTerminating(_ context.Context, name string) (bool, error) {
	switch name {
	case "leaving":
		return true, nil
	case "broken":
		return false, errLookup
	}
	return false, nil
}

// TestOnlyTheOperatorCreatesPins: a hand-made pin could classify
// a tool not yet seen (an override from birth) or squat the name the
// operator will give a tool's pin; nobody but the operator creates one,
// not even an administrator.
func TestOnlyTheOperatorCreatesPins(t *testing.T) {
	v := &RecordValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	preclassified := pinJSON(withOverride(t, "L0", "harmless", "mallory", overrideStampTime), "{}")
	plain := pinJSON(specJSON, "{}")
	for _, tc := range []struct {
		name string
		user authenticationv1.UserInfo
		pin  []byte
		want verdict
	}{
		{"a server owner pre-classifies a tool", authenticationv1.UserInfo{Username: "mallory"}, preclassified, refused("ToolPins are created by the toolgate operator only")},
		{"a server owner squats a pin's name", authenticationv1.UserInfo{Username: "mallory"}, plain, refused("ToolPins are created by the toolgate operator only")},
		{"an approver", alice, plain, refused("created by the toolgate operator only")},
		{"an administrator", authenticationv1.UserInfo{Username: adminName}, plain, refused("created by the toolgate operator only")},
		{"a cluster administrator", authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}, plain, refused("created by the toolgate operator only")},
		{"an agent", agentBot, plain, refused("created by the toolgate operator only")},
		{"the operator", operator, plain, allowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, v.Handle(t.Context(), request(admissionv1.Create, "", tc.user, nil, tc.pin)))
		})
	}
	// Updates are the override webhooks' business, status the status
	// webhooks'.
	allowed.check(t, v.Handle(t.Context(), request(admissionv1.Update, "", ciBot, plain, plain)))
	allowed.check(t, v.Handle(t.Context(), request(admissionv1.Update, "status", ciBot, plain, plain)))
}

// TestAPinNotTrustedIsARecordToo: a pin whose state is not Trusted is part
// of a review even before anyone decided on it — after a rug pull it holds
// no decision, and deleting it would have the next probe trust the changed
// definition on first use. It is deleted only as a pin with decisions is:
// by an administrator, the operator, or with its namespace. So is a
// Trusted pin without decisions: deleted, the next probe would trust on
// first use whatever the server sends then. Only a pin that records no
// definition yet holds nothing to lose.
func TestAPinNotTrustedIsARecordToo(t *testing.T) {
	v := &RecordValidator{Identities: testPolicy(), Terminating: testTerminating, Decoder: testDecoder(t)}
	mallory := authenticationv1.UserInfo{Username: "mallory"}
	without := func(state string, more func(map[string]any)) []byte {
		return pinJSON(specJSON, edit(t, statusJSON, func(m map[string]any) {
			m["decisions"] = []any{}
			m["state"] = state
			if more != nil {
				more(m)
			}
		}))
	}
	unwritten := func(m map[string]any) {
		for _, k := range []string{"state", "pinned", "observedFingerprint", "pendingCalls", "callHistory", "decisions"} {
			delete(m, k)
		}
	}
	for _, tc := range []struct {
		name string
		pin  []byte
		want verdict
	}{
		{"awaiting review after a rug pull", without("AwaitingReview", nil),
			refused(`ToolPin notes-archive-note is AwaitingReview: the definition of tool "archive_note" waits for a human, and deleting the pin would trust it on first use at the next probe; only a toolgate administrator may delete it`)},
		{"awaiting its first review", without("AwaitingReview", func(m map[string]any) { delete(m, "pinned") }), refused("is AwaitingReview")},
		{"rejected, the decision compacted away", without("Rejected", nil), refused(`is Rejected: a human rejected the definition of tool "archive_note"`)},
		{"removed", without("Removed", nil), refused(`is Removed and keeps the definition of tool "archive_note" last seen`)},
		{"removed after being trusted", without("Removed", func(m map[string]any) { m["observedFingerprint"] = fpOld }), refused("is Removed")},
		{"no state, but a pinned definition", without("", nil), refused("records a definition and no state")},
		{"no state, but an observed definition", without("", func(m map[string]any) { delete(m, "pinned") }), refused("records a definition and no state")},
		{"trusted, no decisions", without("Trusted", nil), refused(`ToolPin notes-archive-note pins the definition of tool "archive_note" that agents are given`)},
		{"no state, nothing recorded yet", without("", unwritten), allowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, v.Handle(t.Context(), request(admissionv1.Delete, "", mallory, tc.pin, nil)))
			if tc.want.allowed {
				return
			}
			// Who may still delete it: as for a pin with decisions.
			allowed.check(t, v.Handle(t.Context(), request(admissionv1.Delete, "", authenticationv1.UserInfo{Username: adminName}, tc.pin, nil)))
			allowed.check(t, v.Handle(t.Context(), request(admissionv1.Delete, "", operator, tc.pin, nil)))
			inLeaving := request(admissionv1.Delete, "", mallory, tc.pin, nil)
			inLeaving.Namespace = "leaving"
			allowed.check(t, v.Handle(t.Context(), inLeaving))
			refused("only a toolgate administrator").check(t, v.Handle(t.Context(), request(admissionv1.Delete, "", alice, tc.pin, nil)))
		})
	}
}
