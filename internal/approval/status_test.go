package approval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// statusCase is one status update and what both status webhooks must say.
type statusCase struct {
	name string
	req  admission.Request
	want verdict
}

// statusRules are the rules the stamper and the validator share. Every
// appended decision that should pass is already stamped as the stamper
// would stamp it, so that the validator judges the case on the rule under
// test alone.
func statusRules(t *testing.T) []statusCase {
	approve := func(user authenticationv1.UserInfo) string { return stampedBy(t, user, decision("Approve", fpNow)) }
	unobserved := edit(t, statusJSON, func(m map[string]any) { delete(m, "observedFingerprint"); m["state"] = "Pending" })
	return []statusCase{
		// The operator writes the record.
		{"the operator rewrites the status", statusUpdate(operator, statusJSON, edit(t, statusJSON, func(m map[string]any) {
			m["state"] = "Trusted"
			m["decisions"] = []any{}
		})), allowed},
		{"the operator drops the decisions", statusUpdate(operator, statusJSON, edit(t, statusJSON, func(m map[string]any) { delete(m, "decisions") })), allowed},

		// Everyone else may only append to status.decisions.
		{"a person sets the state", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { m["state"] = "Trusted" })),
			refused("only the toolgate operator writes ToolPin status")},
		{"a person sets the state while appending", statusUpdate(alice, statusJSON, edit(t, appendDecisions(t, statusJSON, approve(alice)), func(m map[string]any) { m["state"] = "Trusted" })),
			refused("only the toolgate operator writes ToolPin status")},
		{"a person removes a pending call", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { delete(m, "pendingCalls") })),
			refused("only the toolgate operator writes ToolPin status")},
		{"a person changes a past decision", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) {
			m["decisions"].([]any)[0].(map[string]any)["action"] = "Approve"
		})), refused("append-only")},
		{"a person rewrites a past decision's author", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) {
			m["decisions"].([]any)[0].(map[string]any)["user"] = "alice"
		})), refused("append-only")},
		{"a person removes a past decision", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { m["decisions"] = []any{} })),
			refused("append-only")},
		{"a person replaces a past decision with two", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) {
			m["decisions"] = []any{object(t, approve(alice)), object(t, approve(alice))}
		})), refused("append-only")},
		{"a person drops the decisions list", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { delete(m, "decisions") })),
			refused("status.decisions cannot be removed")},
		{"a person drops an empty decisions list",
			statusUpdate(alice, edit(t, statusJSON, func(m map[string]any) { m["decisions"] = []any{} }), edit(t, statusJSON, func(m map[string]any) { delete(m, "decisions") })),
			refused("status.decisions cannot be removed")},
		{"a person appends nothing", statusUpdate(alice, statusJSON, statusJSON), allowed},
		{"a service account appends nothing", statusUpdate(ciBot, statusJSON, statusJSON), allowed},

		// Decisions name what is observed now.
		{"a person approves the observed definition", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, approve(alice))), allowed},
		{"a person approves twice at once", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, approve(alice), stampedBy(t, alice, decision("Reject", fpNow)))),
			refused("append one decision per request: this request appends 2")},
		{"a person approves the old definition", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, decision("Approve", fpOld)))),
			refused("but the definition observed now is " + fpNow)},
		{"a decision on the old definition after one on the observed one", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, approve(alice), stampedBy(t, alice, decision("Approve", fpOld)))),
			refused("append one decision per request")},
		{"a decision before anything is observed", statusUpdate(alice, unobserved, appendDecisions(t, unobserved, approve(alice))),
			refused("the tool has not been observed yet")},
		{"a decision on a pending call", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, callDecision("call-1", fpCall)))), allowed},
		{"a decision on a pending call, before the tool is observed", statusUpdate(alice, unobserved, appendDecisions(t, unobserved, stampedBy(t, alice, callDecision("call-1", fpCall)))), allowed},
		{"a decision on a pending call naming the observed definition", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, callDecision("call-1", fpNow)))),
			refused("but the call was made against " + fpCall)},
		{"a decision on an unknown call", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, callDecision("nope", fpCall)))),
			refused(`no pending call "nope"`)},
		{"a decision on a call its agent gave up on", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, callDecision("call-done", fpCall)))),
			refused("call call-done is no longer pending: it was resolved as Withdrawn at 2026-11-30T12:01:00Z")},
		{"a decision on an expired call", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, alice, callDecision("call-late", fpCall)))),
			refused("call call-late expired at 2026-11-30T12:10:00Z")},
		{"a person adds a pending call", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) {
			calls := m["pendingCalls"].([]any)
			forged := map[string]any{}
			for k, v := range calls[0].(map[string]any) {
				forged[k] = v
			}
			forged["id"] = "forged"
			m["pendingCalls"] = append(calls, forged)
		})), refused("only the toolgate operator writes ToolPin status")},
		{"a person rewrites the call history", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { delete(m, "callHistory") })),
			refused("only the toolgate operator writes ToolPin status")},

		// Who may decide.
		{"a configured approver service account", statusUpdate(reviewBot, statusJSON, appendDecisions(t, statusJSON, approve(reviewBot))), allowed},
		{"a configured approver in a namespace that does not exist", statusUpdate(strayBot, statusJSON, appendDecisions(t, statusJSON, approve(strayBot))), allowed},
		{"a service account nobody configured", statusUpdate(ciBot, statusJSON, appendDecisions(t, statusJSON, approve(ciBot))),
			refused(ciName + " is a service account and not a configured approver")},
		{"an agent's service account, although configured", statusUpdate(agentBot, statusJSON, appendDecisions(t, statusJSON, approve(agentBot))),
			refused(agentHelperName + " belongs to an agent namespace")},
		{"an agent's service account deciding on its own call", statusUpdate(agentBot, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, agentBot, callDecision("call-1", fpCall)))),
			refused("agents never decide on tools")},
		{"a service account whose namespace cannot be read", statusUpdate(brokenBot, statusJSON, appendDecisions(t, statusJSON, approve(brokenBot))),
			refused("cannot tell whether " + brokenName + " belongs to an agent namespace: " + errLookup.Error())},
		// Who decides is judged before what is decided on: an agent learns
		// nothing about fingerprints or calls.
		{"an agent's service account naming an unknown call", statusUpdate(agentBot, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, agentBot, callDecision("nope", fpCall)))),
			refused("agents never decide on tools")},

		// Requests the status webhooks do not judge, and broken ones.
		{"a spec update", request(admissionv1.Update, "", ciBot, pinJSON(specJSON, statusJSON), pinJSON(specJSON, edit(t, statusJSON, func(m map[string]any) { m["state"] = "Trusted" }))), allowed},
		{"a new object that is not JSON", request(admissionv1.Update, "status", alice, pinJSON(specJSON, statusJSON), []byte(`{"apiVersion":"toolgate.dev/v1alpha1","kind":"ToolPin","status":`)),
			badRequest},
		{"an old object that is not JSON", request(admissionv1.Update, "status", alice, []byte(`not json`), pinJSON(specJSON, statusJSON)),
			badRequest},
		{"no object at all", request(admissionv1.Update, "status", alice, pinJSON(specJSON, statusJSON), nil),
			badRequest},
		{"decisions that are not a list", statusUpdate(alice, statusJSON, edit(t, statusJSON, func(m map[string]any) { m["decisions"] = "approve" })),
			badRequest},
	}
}

func TestStatusWebhooksShareTheRules(t *testing.T) {
	handlers := map[string]admission.Handler{
		"stamper":   &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: func() time.Time { return stampTime }},
		"validator": &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)},
	}
	for _, tc := range statusRules(t) {
		for name, h := range handlers {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				tc.want.check(t, h.Handle(t.Context(), tc.req))
			})
		}
	}
}

// TestValidatorAcceptsWhatTheStamperWrites runs every request the stamper
// allows through the validator as the API server would: with the
// stamper's patch applied. A stamp the validator does not recognise would
// refuse every decision.
func TestValidatorAcceptsWhatTheStamperWrites(t *testing.T) {
	stamper := &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: time.Now}
	validator := &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	forged := `{"action":"Approve","fingerprint":"` + fpNow + `","user":"mallory","groups":["system:masters"],"time":"2001-01-01T00:00:00Z"}`
	many := authenticationv1.UserInfo{Username: "carol", Groups: manyGroups()}
	cases := append(statusRules(t),
		statusCase{"a forged identity", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, forged)), allowed},
		statusCase{"a person in more groups than a decision holds", statusUpdate(many, statusJSON, appendDecisions(t, statusJSON, decision("Approve", fpNow))), allowed},
	)
	n := 0
	for _, tc := range cases {
		resp := stamper.Handle(t.Context(), tc.req)
		if !resp.Allowed {
			continue
		}
		n++
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			patched := applyPatch(t, req, resp)
			raw, err := json.Marshal(patched)
			if err != nil {
				t.Fatal(err)
			}
			req.Object.Raw = raw
			allowed.check(t, validator.Handle(t.Context(), req))
		})
	}
	if n < 10 {
		t.Fatalf("only %d requests allowed by the stamper: the table no longer exercises the validator", n)
	}
}

// manyGroups is more groups than a decision holds, one of them longer than
// a decision's group may be.
func manyGroups() []string {
	var groups []string
	for i := range toolgatev1alpha1.MaxDecisionGroups + 6 {
		groups = append(groups, "team-"+string(rune('a'+i%26))+strings.Repeat("x", i))
	}
	groups[1] = strings.Repeat("g", toolgatev1alpha1.MaxIdentityLength+1)
	return groups
}

func TestStamperOverwritesTheIdentity(t *testing.T) {
	stamper := &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: func() time.Time { return stampTime }}
	forged := `{"action":"Reject","fingerprint":"` + fpNow + `","comment":"not yet","user":"mallory","groups":["system:masters"],"time":"2001-01-01T00:00:00Z"}`
	wantTime := stampTime.Truncate(time.Second)
	many := authenticationv1.UserInfo{Username: "carol", Groups: manyGroups()}
	bounded := slices.Concat(many.Groups[:1], many.Groups[2:toolgatev1alpha1.MaxDecisionGroups+1])

	for _, tc := range []struct {
		name     string
		user     authenticationv1.UserInfo
		appended []string
		// want are the appended decisions as they must be stored.
		want []toolgatev1alpha1.Decision
	}{
		{"a forged user, groups and time", alice, []string{forged}, []toolgatev1alpha1.Decision{
			{Action: "Reject", Fingerprint: fpNow, Comment: "not yet", User: "alice", Groups: []string{"reviewers", "system:authenticated"}},
		}},
		{"nothing typed", alice, []string{decision("Approve", fpNow)}, []toolgatev1alpha1.Decision{
			{Action: "Approve", Fingerprint: fpNow, User: "alice", Groups: []string{"reviewers", "system:authenticated"}},
		}},
		{"a person in no groups, typing some", authenticationv1.UserInfo{Username: "dave"}, []string{forged}, []toolgatev1alpha1.Decision{
			{Action: "Reject", Fingerprint: fpNow, Comment: "not yet", User: "dave"},
		}},
		{"a decision on a call", alice, []string{callDecision("call-1", fpCall)}, []toolgatev1alpha1.Decision{
			{Action: "Approve", Fingerprint: fpCall, CallID: "call-1", User: "alice", Groups: []string{"reviewers", "system:authenticated"}},
		}},
		{"a configured approver service account", reviewBot, []string{forged}, []toolgatev1alpha1.Decision{
			{Action: "Reject", Fingerprint: fpNow, Comment: "not yet", User: reviewBotName, Groups: reviewBot.Groups},
		}},
		// The API bounds a decision's groups; a person in more (common
		// with OIDC) still decides, and the record keeps those that fit.
		{"more groups than a decision holds", many, []string{decision("Approve", fpNow)}, []toolgatev1alpha1.Decision{
			{Action: "Approve", Fingerprint: fpNow, User: "carol", Groups: bounded},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := statusUpdate(tc.user, statusJSON, appendDecisions(t, statusJSON, tc.appended...))
			resp := stamper.Handle(t.Context(), req)
			allowed.check(t, resp)
			got := applyPatch(t, req, resp)

			// Only the appended decisions change, and only in who and when.
			want := decodePin(t, req.Object.Raw)
			past := len(want.Status.Decisions) - len(tc.appended)
			for i := range tc.want {
				tc.want[i].Time = got.Status.Decisions[past+i].Time
				want.Status.Decisions[past+i] = tc.want[i]
			}
			if !equality.Semantic.DeepEqual(got, want) {
				t.Fatalf("stamped pin:\n%+v\nwant:\n%+v", got.Status.Decisions, want.Status.Decisions)
			}
			for i, d := range got.Status.Decisions[past:] {
				if d.Time == nil || !d.Time.Time.Equal(wantTime) {
					t.Errorf("decision %d stamped at %v, want %v", past+i, d.Time, wantTime)
				}
				if len(d.Groups) > toolgatev1alpha1.MaxDecisionGroups {
					t.Errorf("decision %d holds %d groups", past+i, len(d.Groups))
				}
				for _, g := range d.Groups {
					if len(g) > toolgatev1alpha1.MaxIdentityLength {
						t.Errorf("decision %d holds a group of %d bytes", past+i, len(g))
					}
				}
			}
		})
	}
}

func TestValidatorRefusesAForgedStamp(t *testing.T) {
	validator := &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	many := authenticationv1.UserInfo{Username: "carol", Groups: manyGroups()}
	// with is alice's decision as the stamper leaves it, then changed by f.
	with := func(f func(map[string]any)) string {
		return edit(t, stampedBy(t, alice, decision("Approve", fpNow)), f)
	}
	for _, tc := range []struct {
		name     string
		user     authenticationv1.UserInfo
		appended []string
		want     verdict
	}{
		{"stamped as the request says", alice, []string{with(func(map[string]any) {})}, allowed},
		{"stamped at any time", alice, []string{with(func(d map[string]any) { d["time"] = "2001-01-01T00:00:00Z" })}, allowed},
		{"another user", alice, []string{with(func(d map[string]any) { d["user"] = "mallory" })},
			refused("decision 1 is not stamped with the requester's identity (alice)")},
		{"no user", alice, []string{with(func(d map[string]any) { delete(d, "user") })},
			refused("decision 1 is not stamped")},
		{"an added group", alice, []string{with(func(d map[string]any) { d["groups"] = []string{"reviewers", "system:authenticated", "system:masters"} })},
			refused("decision 1 is not stamped")},
		{"a missing group", alice, []string{with(func(d map[string]any) { d["groups"] = []string{"reviewers"} })},
			refused("decision 1 is not stamped")},
		{"groups in another order", alice, []string{with(func(d map[string]any) { d["groups"] = []string{"system:authenticated", "reviewers"} })},
			refused("decision 1 is not stamped")},
		{"no groups", alice, []string{with(func(d map[string]any) { delete(d, "groups") })},
			refused("decision 1 is not stamped")},
		{"no time", alice, []string{with(func(d map[string]any) { delete(d, "time") })},
			refused("decision 1 is not stamped")},
		{"a forged decision after a past one", alice, []string{with(func(d map[string]any) { d["user"] = "mallory" })},
			refused("decision 1 is not stamped")},
		{"groups bounded as the API bounds them", many, []string{stampedBy(t, many, decision("Approve", fpNow))}, allowed},
		{"every group of a person in too many", many, []string{edit(t, stampedBy(t, many, decision("Approve", fpNow)), func(d map[string]any) { d["groups"] = many.Groups })},
			refused("decision 1 is not stamped")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, validator.Handle(t.Context(), statusUpdate(tc.user, statusJSON, appendDecisions(t, statusJSON, tc.appended...))))
		})
	}
}

// TestDecisionLogCannotBeExhausted: one decision per request; one
// identity decides at most MaxDecisionsPerIdentity times on one
// fingerprint or one call; calls leave DecisionReserve places for the
// definition; a full log is refused in words. None of it blocks a new
// person from deciding on the observed definition while there is room.
func TestDecisionLogCannotBeExhausted(t *testing.T) {
	handlers := map[string]admission.Handler{
		"stamper":   &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: func() time.Time { return stampTime }},
		"validator": &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)},
	}
	// logOf is statusJSON whose log holds n decisions by user on fp
	// (callID when set), after the past one.
	logOf := func(n int, user authenticationv1.UserInfo, d string) string {
		past := make([]string, n)
		for i := range past {
			past[i] = stampedBy(t, user, d)
		}
		return appendDecisions(t, statusJSON, past...)
	}
	carol := authenticationv1.UserInfo{Username: "carol", Groups: []string{"reviewers"}}
	approve := func(user authenticationv1.UserInfo) string { return stampedBy(t, user, decision("Approve", fpNow)) }
	onCall := func(user authenticationv1.UserInfo) string { return stampedBy(t, user, callDecision("call-1", fpCall)) }
	limit := toolgatev1alpha1.MaxDecisionsPerIdentity
	full := toolgatev1alpha1.MaxDecisions - 1 // the past decision of statusJSON is one
	callsFull := toolgatev1alpha1.MaxDecisions - toolgatev1alpha1.DecisionReserve - 1
	many := make([]string, toolgatev1alpha1.MaxDecisions)
	for i := range many {
		many[i] = approve(alice)
	}
	for _, tc := range []statusCase{
		{"the whole log in one request", statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, many...)),
			refused(fmt.Sprintf("append one decision per request: this request appends %d", len(many)))},
		{"a decision below the per-identity bound", statusUpdate(alice, logOf(limit-1, alice, decision("Reject", fpNow)), appendDecisions(t, logOf(limit-1, alice, decision("Reject", fpNow)), approve(alice))), allowed},
		{"a decision beyond the per-identity bound", statusUpdate(alice, logOf(limit, alice, decision("Reject", fpNow)), appendDecisions(t, logOf(limit, alice, decision("Reject", fpNow)), approve(alice))),
			refused(fmt.Sprintf("alice has already decided %d times on fingerprint %s, the most one identity may: only the latest counts", limit, fpNow))},
		{"another person, when one has reached the bound", statusUpdate(carol, logOf(limit, alice, decision("Reject", fpNow)), appendDecisions(t, logOf(limit, alice, decision("Reject", fpNow)), approve(carol))), allowed},
		{"a call, when one has reached the bound on the definition", statusUpdate(alice, logOf(limit, alice, decision("Reject", fpNow)), appendDecisions(t, logOf(limit, alice, decision("Reject", fpNow)), onCall(alice))), allowed},
		{"a call beyond the per-identity bound", statusUpdate(alice, logOf(limit, alice, callDecision("call-1", fpCall)), appendDecisions(t, logOf(limit, alice, callDecision("call-1", fpCall)), onCall(alice))),
			refused("alice has already decided 4 times on call call-1")},
		// Calls leave room for the definition.
		{"a call when the reserve is reached", statusUpdate(alice, logOf(callsFull, carol, callDecision("call-1", fpCall)), appendDecisions(t, logOf(callsFull, carol, callDecision("call-1", fpCall)), onCall(alice))),
			refused(fmt.Sprintf("the last %d places are kept for decisions on the definition", toolgatev1alpha1.DecisionReserve))},
		{"the definition when the reserve is reached", statusUpdate(alice, logOf(callsFull, carol, callDecision("call-1", fpCall)), appendDecisions(t, logOf(callsFull, carol, callDecision("call-1", fpCall)), approve(alice))), allowed},
		{"the last place", statusUpdate(alice, logOf(full-1, carol, decision("Reject", fpOld)), appendDecisions(t, logOf(full-1, carol, decision("Reject", fpOld)), approve(alice))), allowed},
		{"a full log", statusUpdate(alice, logOf(full, carol, decision("Reject", fpOld)), appendDecisions(t, logOf(full, carol, decision("Reject", fpOld)), approve(alice))),
			refused(fmt.Sprintf("status.decisions is full (%d decisions", toolgatev1alpha1.MaxDecisions))},
	} {
		for name, h := range handlers {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				tc.want.check(t, h.Handle(t.Context(), tc.req))
			})
		}
	}
}

// TestDecisionsRecordUIDAndCredential: beyond name and groups, a
// decision records what the admission request says about the requester
// when it fits: the UID and the credential ID (an extra the API server's
// authenticators set). Under impersonation these are what the impersonator
// asked for, like the name; the record is still the request's, never the
// body's.
func TestDecisionsRecordUIDAndCredential(t *testing.T) {
	stamper := &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: func() time.Time { return stampTime }}
	validator := &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)}
	withCred := func(uid string, creds ...string) authenticationv1.UserInfo {
		u := authenticationv1.UserInfo{Username: "alice", UID: uid, Groups: []string{"reviewers"}}
		if creds != nil {
			u.Extra = map[string]authenticationv1.ExtraValue{CredentialIDKey: creds, "example.com/other": {"x"}}
		}
		return u
	}
	long := strings.Repeat("u", toolgatev1alpha1.MaxIdentityLength+1)
	forged := `{"action":"Approve","fingerprint":"` + fpNow + `","uid":"forged","credentialID":"forged"}`
	for _, tc := range []struct {
		name        string
		user        authenticationv1.UserInfo
		uid, credID string
	}{
		{"a certificate", withCred("", "X509SHA256=5f1e"), "", "X509SHA256=5f1e"},
		{"a service account token", withCred("8d2b-uid", "JTI=7c41"), "8d2b-uid", "JTI=7c41"},
		{"no extra", withCred("oidc-sub-1"), "oidc-sub-1", ""},
		{"two credential IDs", withCred("u", "JTI=1", "JTI=2"), "u", ""},
		{"values too long to record", withCred(long, long), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := statusUpdate(tc.user, statusJSON, appendDecisions(t, statusJSON, forged))
			resp := stamper.Handle(t.Context(), req)
			allowed.check(t, resp)
			got := applyPatch(t, req, resp)
			d := got.Status.Decisions[len(got.Status.Decisions)-1]
			if d.UID != tc.uid || d.CredentialID != tc.credID {
				t.Fatalf("recorded uid %q, credential %q; want %q, %q", d.UID, d.CredentialID, tc.uid, tc.credID)
			}
			req.Object.Raw = mustJSON(t, got)
			allowed.check(t, validator.Handle(t.Context(), req))
			// The validator refuses a record that says otherwise.
			for field, value := range map[string]string{"uid": "forged", "credentialID": "forged"} {
				bad := edit(t, stampedBy(t, tc.user, decision("Approve", fpNow)), func(m map[string]any) { m[field] = value })
				refused("not stamped with the requester's identity").check(t, validator.Handle(t.Context(), statusUpdate(tc.user, statusJSON, appendDecisions(t, statusJSON, bad))))
			}
		})
	}
}

// TestCommentsCannotBloatAPin: approvers grew a pin towards the API
// server's size limit with long comments (each "<" is six bytes on the
// wire), until no rug pull of the tool could be recorded. The comments of a
// log have a budget; a decision without a comment always fits it.
func TestCommentsCannotBloatAPin(t *testing.T) {
	handlers := map[string]admission.Handler{
		"stamper":   &StatusStamper{Identities: testPolicy(), Decoder: testDecoder(t), Now: func() time.Time { return stampTime }},
		"validator": &StatusValidator{Identities: testPolicy(), Decoder: testDecoder(t)},
	}
	withComment := func(d, comment string) string {
		return edit(t, d, func(m map[string]any) { m["comment"] = comment })
	}
	bloat := strings.Repeat("<", 1000) // 6,000 bytes as JSON
	carol := authenticationv1.UserInfo{Username: "carol", Groups: []string{"reviewers"}}
	var past []string
	for i := 0; len(past)*6000 < toolgatev1alpha1.MaxCommentBytes-6000; i++ {
		who := authenticationv1.UserInfo{Username: fmt.Sprintf("reviewer-%d", i), Groups: []string{"reviewers"}}
		past = append(past, stampedBy(t, who, withComment(decision("Reject", fpOld), bloat)))
	}
	nearlyFull := appendDecisions(t, statusJSON, past...)
	for _, tc := range []statusCase{
		{"a long comment past the budget", statusUpdate(carol, nearlyFull, appendDecisions(t, nearlyFull,
			stampedBy(t, carol, withComment(decision("Approve", fpNow), bloat)))), refused("over their budget")},
		{"a short comment within it", statusUpdate(carol, nearlyFull, appendDecisions(t, nearlyFull,
			stampedBy(t, carol, withComment(decision("Approve", fpNow), "reviewed")))), allowed},
		{"no comment, always", statusUpdate(carol, nearlyFull, appendDecisions(t, nearlyFull,
			stampedBy(t, carol, decision("Approve", fpNow)))), allowed},
	} {
		for name, h := range handlers {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				tc.want.check(t, h.Handle(t.Context(), tc.req))
			})
		}
	}
}
