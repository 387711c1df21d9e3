package approval

import (
	"encoding/json"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// stampedAt is the time of the stamps already on the fixtures' overrides.
const stampedAt = "2026-11-29T09:00:00Z"

// withOverride is a pin's spec with an override of level and reason,
// stamped by setBy at setTime when they are not empty.
func withOverride(t *testing.T, level, reason, setBy, setTime string) string {
	t.Helper()
	return edit(t, specJSON, func(m map[string]any) {
		o := map[string]any{"level": level, "reason": reason}
		if setBy != "" {
			o["setBy"] = setBy
		}
		if setTime != "" {
			o["setTime"] = setTime
		}
		m["override"] = o
	})
}

// overrideStampTime is the stamper's clock as the override records it.
var overrideStampTime = stampTime.Truncate(time.Second).Format(time.RFC3339)

// specUpdate is an update of the pin's spec from one to the other by user.
func specUpdate(user authenticationv1.UserInfo, from, to string) admission.Request {
	return request(admissionv1.Update, "", user, pinJSON(from, statusJSON), pinJSON(to, statusJSON))
}

// overrideCases are the spec writes the OverrideValidator judges, each as
// the OverrideStamper leaves it (or forged after it, where the case says).
func overrideCases(t *testing.T) []statusCase {
	mallory := authenticationv1.UserInfo{Username: "mallory", Groups: []string{"server-owners", "system:authenticated"}}
	flaky := authenticationv1.UserInfo{Username: "flaky"}
	bare := specJSON
	// byBob is an override bob set earlier.
	byBob := withOverride(t, "L1", "trust me", "bob", stampedAt)
	set := func(user authenticationv1.UserInfo, level, reason string) string {
		return withOverride(t, level, reason, user.Username, overrideStampTime)
	}
	const human = "spec.override is a human classification: "
	return []statusCase{
		// Setting, changing or clearing takes the right to decide, asked of
		// the API server: patch on toolpins is not enough.
		{"a server owner sets an override", specUpdate(mallory, bare, set(mallory, "L0", "mine")), refused(human + "mallory may not decide on this tool (patch toolpins/status in default)")},
		{"a server owner changes an override", specUpdate(mallory, byBob, set(mallory, "L0", "trust me")), refused(human + "mallory may not decide")},
		{"a server owner rewrites only the reason", specUpdate(mallory, byBob, set(mallory, "L1", "reviewed by nobody")), refused(human + "mallory may not decide")},
		{"a server owner clears an override", specUpdate(mallory, byBob, bare), refused(human + "mallory may not decide")},
		{"an access review that fails", specUpdate(flaky, bare, set(flaky, "L1", "x")), refused(human + "cannot tell whether flaky may decide on tools")},
		{"a service account nobody configured", specUpdate(ciBot, bare, set(ciBot, "L1", "x")), refused(human + ciName + " is a service account and not a configured approver")},
		{"an agent's service account, although configured", specUpdate(agentBot, bare, set(agentBot, "L1", "x")), refused(human + agentHelperName + " belongs to an agent namespace")},
		{"a service account whose namespace cannot be read", specUpdate(brokenBot, bare, set(brokenBot, "L1", "x")), refused(human + "cannot tell whether")},
		{"a node", specUpdate(authenticationv1.UserInfo{Username: "system:node:n1", Groups: []string{"system:nodes"}}, bare, withOverride(t, "L1", "x", "system:node:n1", overrideStampTime)), refused(human + "system:node:n1 is a node")},

		{"a reviewer sets an override", specUpdate(alice, bare, set(alice, "L1", "reviewed")), allowed},
		{"a reviewer changes an override", specUpdate(alice, byBob, set(alice, "L2", "reviewed")), allowed},
		{"a reviewer clears an override", specUpdate(alice, byBob, bare), allowed},
		{"a configured approver service account sets an override", specUpdate(reviewBot, bare, set(reviewBot, "L1", "x")), allowed},
		{"the operator sets an override", specUpdate(operator, bare, withOverride(t, "L1", "x", "", "")), allowed},

		// The stamp is the stamper's.
		{"an override stamped with someone else", specUpdate(alice, bare, withOverride(t, "L1", "x", "bob", overrideStampTime)), refused("spec.override is not stamped with the requester's identity (alice)")},
		{"an override without a time", specUpdate(alice, bare, withOverride(t, "L1", "x", "alice", "")), refused("not stamped")},
		{"a forged author of an unchanged override", specUpdate(mallory, byBob, withOverride(t, "L1", "trust me", "mallory", stampedAt)), refused("setBy and setTime record who set the override")},
		{"a forged time of an unchanged override", specUpdate(alice, byBob, withOverride(t, "L1", "trust me", "bob", overrideStampTime)), refused("setBy and setTime")},

		// What does not touch the override is not this webhook's business.
		{"a service account leaves an override as it is", specUpdate(ciBot, byBob, byBob), allowed},
		{"a server owner edits the rest of the spec", specUpdate(mallory, byBob, edit(t, byBob, func(m map[string]any) { m["serverRef"] = map[string]any{"name": "other"} })), allowed},
		{"a status update", request(admissionv1.Update, "status", ciBot, pinJSON(bare, "{}"), pinJSON(set(ciBot, "L1", "x"), "{}")), allowed},
		{"a delete", request(admissionv1.Delete, "", ciBot, pinJSON(byBob, "{}"), nil), allowed},

		// Broken requests are errors, not verdicts.
		{"a new object that is not JSON", specUpdate(alice, bare, `{`), badRequest},
		{"an old object that is not JSON", specUpdate(alice, `{`, byBob), badRequest},
		{"an override that is not an object", request(admissionv1.Create, "", alice, nil, pinJSON(`{"serverRef":{"name":"notes"},"toolName":"archive_note","override":"L1"}`, "{}")), badRequest},
	}
}

func TestOverrideValidator(t *testing.T) {
	v := &OverrideValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	for _, tc := range overrideCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, v.Handle(t.Context(), tc.req))
		})
	}
}

// TestOverrideRecordsWhoSetIt: the stamper writes who set an
// override and when from the request, over anything typed, and an
// unchanged override keeps the stamp it had.
func TestOverrideRecordsWhoSetIt(t *testing.T) {
	s := &OverrideStamper{Decoder: testDecoder(t), Now: func() time.Time { return stampTime }}
	byBob := withOverride(t, "L1", "trust me", "bob", stampedAt)
	for _, tc := range []struct {
		name string
		req  admission.Request
		// setBy and setTime are the stamp the stored override must carry;
		// noOverride that there is none.
		setBy, setTime string
		noOverride     bool
	}{
		{"a forged author and time", specUpdate(alice, specJSON, withOverride(t, "L1", "x", "bob", "2001-01-01T00:00:00Z")), "alice", overrideStampTime, false},
		{"nothing typed", specUpdate(alice, specJSON, withOverride(t, "L1", "x", "", "")), "alice", overrideStampTime, false},
		{"a changed reason is set anew", specUpdate(alice, byBob, withOverride(t, "L1", "reviewed again", "bob", stampedAt)), "alice", overrideStampTime, false},
		{"a changed level is set anew", specUpdate(alice, byBob, withOverride(t, "L2", "trust me", "", "")), "alice", overrideStampTime, false},
		{"an unchanged override keeps its stamp", specUpdate(alice, byBob, byBob), "bob", stampedAt, false},
		{"an unchanged override keeps its stamp against a forgery", specUpdate(alice, byBob, withOverride(t, "L1", "trust me", "alice", "2030-01-01T00:00:00Z")), "bob", stampedAt, false},
		{"an unchanged override whose stamp was dropped", specUpdate(alice, byBob, withOverride(t, "L1", "trust me", "", "")), "bob", stampedAt, false},
		{"an unchanged override from before stamps", specUpdate(alice, withOverride(t, "L1", "trust me", "", ""), withOverride(t, "L1", "trust me", "alice", stampedAt)), "", "", false},
		{"a create", request(admissionv1.Create, "", operator, nil, pinJSON(withOverride(t, "L3", "x", "bob", ""), "{}")), operatorName, overrideStampTime, false},
		{"a cleared override", specUpdate(alice, byBob, specJSON), "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.Handle(t.Context(), tc.req)
			allowed.check(t, resp)
			got := applyPatch(t, tc.req, resp)
			o := got.Spec.Override
			if tc.noOverride {
				if o != nil {
					t.Fatalf("an override appeared: %+v", o)
				}
				return
			}
			gotTime := ""
			if o.SetTime != nil {
				gotTime = o.SetTime.UTC().Format(time.RFC3339)
			}
			if o.SetBy != tc.setBy || gotTime != tc.setTime {
				t.Fatalf("stamped %q at %q, want %q at %q", o.SetBy, gotTime, tc.setBy, tc.setTime)
			}
			// Nothing else changes.
			want := decodePin(t, tc.req.Object.Raw)
			want.Spec.Override.SetBy, want.Spec.Override.SetTime = o.SetBy, o.SetTime
			if raw, _ := json.Marshal(want); string(raw) != string(mustJSON(t, got)) {
				t.Fatalf("stamped pin %s, want %s", mustJSON(t, got), raw)
			}
		})
	}
	for name, req := range map[string]admission.Request{
		"a status update": request(admissionv1.Update, "status", alice, pinJSON(specJSON, statusJSON), pinJSON(byBob, statusJSON)),
		"a delete":        request(admissionv1.Delete, "", alice, pinJSON(byBob, statusJSON), nil),
	} {
		t.Run(name, func(t *testing.T) {
			resp := s.Handle(t.Context(), req)
			if !resp.Allowed || len(resp.Patches) > 0 {
				t.Fatalf("got %+v, want allowed untouched", resp)
			}
		})
	}
}

// TestOverrideValidatorAcceptsWhatTheStamperWrites runs every request of
// the validator's table through the stamper first, as the API server
// does: whatever the stamper lets through and the validator refuses must
// be refused for who asked, never for the stamp.
func TestOverrideValidatorAcceptsWhatTheStamperWrites(t *testing.T) {
	s := &OverrideStamper{Decoder: testDecoder(t), Now: func() time.Time { return stampTime.Add(time.Hour) }}
	v := &OverrideValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	n := 0
	for _, tc := range overrideCases(t) {
		resp := s.Handle(t.Context(), tc.req)
		if !resp.Allowed || !tc.want.allowed {
			continue
		}
		n++
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if len(resp.Patches) > 0 {
				req.Object.Raw = mustJSON(t, applyPatch(t, req, resp))
			}
			allowed.check(t, v.Handle(t.Context(), req))
		})
	}
	if n < 6 {
		t.Fatalf("only %d allowed cases: the table no longer exercises the pair", n)
	}
}

func mustJSON(t *testing.T, pin *toolgatev1alpha1.ToolPin) []byte {
	t.Helper()
	raw, err := json.Marshal(pin)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
