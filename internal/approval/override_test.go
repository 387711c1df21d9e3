package approval

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestOverrideValidator(t *testing.T) {
	v := &OverrideValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	lower := `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":{"level":"L1","reason":"trust me"}}`
	other := `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":{"level":"L2","category":"write","reason":"reviewed"}}`
	const bare = specJSON

	const human = "spec.override is a human classification: "
	for _, tc := range []struct {
		name string
		user authenticationv1.UserInfo
		// from is the spec before, or "" for a create; to the spec after.
		from, to string
		want     verdict
	}{
		// A service account that may not decide may not classify.
		{"a service account creates a pin with an override", ciBot, "", lower, refused(human + ciName + " is a service account and not a configured approver")},
		{"a service account sets an override", ciBot, bare, lower, refused(human)},
		{"a service account changes an override", ciBot, lower, other, refused(human)},
		{"a service account clears an override", ciBot, lower, bare, refused(human)},
		{"a service account rewrites only the reason", ciBot, lower, `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":{"level":"L1","reason":"reviewed by nobody"}}`, refused(human)},
		{"an agent's service account sets an override, although configured", agentBot, bare, lower, refused(human + agentHelperName + " belongs to an agent namespace")},
		{"a service account whose namespace cannot be read", brokenBot, bare, lower, refused(human + "cannot tell whether")},

		// People may.
		{"a person creates a pin with an override", alice, "", lower, allowed},
		{"a person sets an override", alice, bare, lower, allowed},
		{"a person changes an override", alice, lower, other, allowed},
		{"a person clears an override", alice, lower, bare, allowed},
		{"a configured approver service account sets an override", reviewBot, bare, lower, allowed},
		{"the operator sets an override", operator, bare, lower, allowed},

		// What does not touch the override is not this webhook's business.
		{"a service account creates a pin without an override", ciBot, "", bare, allowed},
		{"a service account leaves an override as it is", ciBot, lower, lower, allowed},
		{"a service account edits the rest of the spec", ciBot, lower, `{"serverRef":{"name":"other"},"toolName":"archive_note","override":{"level":"L1","reason":"trust me"}}`, allowed},
		{"an agent's service account leaves an override as it is", agentBot, lower, lower, allowed},

		// Broken requests are errors, not verdicts.
		{"a new object that is not JSON", alice, bare, `{`, badRequest},
		{"an old object that is not JSON", alice, `{`, lower, badRequest},
		{"an override that is not an object", alice, "", `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":"L1"}`, badRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request(admissionv1.Create, "", tc.user, nil, pinJSON(tc.to, "{}"))
			if tc.from != "" {
				req = request(admissionv1.Update, "", tc.user, pinJSON(tc.from, statusJSON), pinJSON(tc.to, statusJSON))
			}
			tc.want.check(t, v.Handle(t.Context(), req))
		})
	}

	// Requests the webhook configuration never sends it are let through:
	// the status webhooks judge status updates, and a delete needs no
	// classification.
	for name, req := range map[string]struct {
		op  admissionv1.Operation
		sub string
	}{
		"a status update": {admissionv1.Update, "status"},
		"a delete":        {admissionv1.Delete, ""},
	} {
		t.Run(name, func(t *testing.T) {
			allowed.check(t, v.Handle(t.Context(), request(req.op, req.sub, ciBot, pinJSON(bare, "{}"), pinJSON(lower, "{}"))))
		})
	}
}
