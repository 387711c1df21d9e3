package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Fixtures shared by the handler tests: identities, fingerprints, a pin's
// spec and status as raw JSON, and admission requests built from them the
// way the API server sends them.

const (
	fpNow  = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	fpOld  = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	fpCall = "sha256:3333333333333333333333333333333333333333333333333333333333333333"
	fpArgs = "sha256:4444444444444444444444444444444444444444444444444444444444444444"

	operatorName  = "system:serviceaccount:toolgate-system:toolgate"
	reviewBotName = "system:serviceaccount:reviewers:review-bot"
	// agentHelperName is configured as an approver, but lives in an agent
	// namespace: it must never decide.
	agentHelperName = "system:serviceaccount:agents:helper"
	// ciName is a service account nobody configured.
	ciName = "system:serviceaccount:default:ci"
	// strayBotName is configured, in a namespace that does not exist.
	strayBotName = "system:serviceaccount:gone:bot"
	// brokenName is configured, in a namespace whose lookup fails.
	brokenName = "system:serviceaccount:broken:bot"
)

// stampTime is the stamper's clock in these tests.
var stampTime = time.Date(2026, 11, 30, 12, 34, 56, 789, time.UTC)

var (
	operator  = authenticationv1.UserInfo{Username: operatorName, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	alice     = authenticationv1.UserInfo{Username: "alice", Groups: []string{"reviewers", "system:authenticated"}}
	reviewBot = authenticationv1.UserInfo{Username: reviewBotName, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:reviewers", "system:authenticated"}}
	agentBot  = authenticationv1.UserInfo{Username: agentHelperName, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:agents", "system:authenticated"}}
	ciBot     = authenticationv1.UserInfo{Username: ciName, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	strayBot  = authenticationv1.UserInfo{Username: strayBotName}
	brokenBot = authenticationv1.UserInfo{Username: brokenName}
)

// errLookup is what the namespace lookup of "broken" fails with.
var errLookup = errors.New("the API server is unavailable")

// testNamespaces is the cluster the tests' policy sees: one agent
// namespace, one ordinary one, one whose lookup fails; any other does not
// exist.
func testNamespaces(_ context.Context, name string) (map[string]string, error) {
	switch name {
	case "agents":
		return map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}, nil
	case "reviewers", "default", "toolgate-system":
		return map[string]string{"kubernetes.io/metadata.name": name}, nil
	case "broken":
		return nil, errLookup
	}
	return nil, nil
}

// errReview is what the access review of "flaky" fails with.
var errReview = errors.New("the authorizer timed out")

// testAccessReviews is the cluster's RBAC as the tests' policy sees it:
// the group "reviewers" and the configured approver service accounts hold
// the right to decide everywhere; "mallory" (who owns servers and may
// patch toolpins) holds it nowhere; "olivia" only in the namespace
// "other"; and the review of "flaky" fails.
func testAccessReviews(_ context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, string, error) {
	if attrs.Verb != DecideVerb || attrs.Group != "toolgate.dev" || attrs.Resource != DecideResource || attrs.Subresource != DecideSubresource {
		return false, "", fmt.Errorf("unexpected review of %+v", attrs)
	}
	switch {
	case user.Username == "flaky":
		return false, "", errReview
	case user.Username == "olivia":
		return attrs.Namespace == "other", "", nil
	case slices.Contains(user.Groups, "reviewers"), user.Username == reviewBotName, user.Username == strayBotName, user.Username == agentHelperName, user.Username == brokenName:
		return true, `RBAC: allowed by ClusterRoleBinding "approvers"`, nil
	}
	return false, "", nil
}

// Administrators in the tests' policy.
const (
	adminName  = "root-reviewer"
	adminGroup = "toolgate-admins"
)

// testPolicy is the policy the suite's manager is configured with, plus
// the service accounts of the fixtures' odd namespaces.
func testPolicy() *IdentityPolicy {
	return &IdentityPolicy{
		Operators:               []string{operatorName},
		AdminUsers:              []string{adminName},
		AdminGroups:             []string{adminGroup},
		ApproverServiceAccounts: []string{reviewBotName, agentHelperName, strayBotName, brokenName},
		Namespaces:              testNamespaces,
		AccessReviews:           testAccessReviews,
	}
}

func testDecoder(t *testing.T) admission.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := toolgatev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return admission.NewDecoder(scheme)
}

// specJSON is a pin's spec without an override.
const specJSON = `{"serverRef":{"name":"notes"},"toolName":"archive_note"}`

// pastDecision is the decision already in the log of statusJSON.
const pastDecision = `{"action":"Reject","fingerprint":"` + fpOld + `","comment":"not yet","user":"bob","groups":["reviewers"],"time":"2026-11-29T08:00:00Z"}`

// statusJSON is a pin awaiting review of fpNow, with one past decision and
// one call pending against fpCall.
const statusJSON = `{
	"observedGeneration": 3,
	"state": "AwaitingReview",
	"pinned": {"fingerprint": "` + fpOld + `", "approvers": ["bob"]},
	"observedFingerprint": "` + fpNow + `",
	"pendingCalls": [{"id": "call-1", "fingerprint": "` + fpCall + `", "agent": {"namespace": "agents", "pod": "agent-0"}, "argumentsDigest": "` + fpArgs + `", "requestedTime": "2026-11-30T12:30:00Z", "expiryTime": "2099-01-01T00:00:00Z"}, {"id": "call-late", "fingerprint": "` + fpCall + `", "agent": {"namespace": "agents", "pod": "agent-0"}, "argumentsDigest": "` + fpArgs + `", "requestedTime": "2026-11-30T12:00:00Z", "expiryTime": "2026-11-30T12:10:00Z"}],
	"callHistory": [{"id": "call-done", "verdict": "Withdrawn", "fingerprint": "` + fpCall + `", "argumentsDigest": "` + fpArgs + `", "agent": {"namespace": "agents", "pod": "agent-0"}, "requestedTime": "2026-11-30T12:00:00Z", "resolvedTime": "2026-11-30T12:01:00Z"}],
	"decisions": [` + pastDecision + `]
}`

// pinJSON is a whole ToolPin as the API server sends it.
func pinJSON(spec, status string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"toolgate.dev/v1alpha1","kind":"ToolPin",`+
		`"metadata":{"name":"notes-archive-note","namespace":"default","uid":"0b6c1f4e-0000-4000-8000-000000000001","resourceVersion":"42","generation":3},`+
		`"spec":%s,"status":%s}`, spec, status)
}

// edit returns the JSON object doc with f applied to its decoded form: the
// fixtures stay literal JSON, and each case says only what it changes.
func edit(t *testing.T, doc string, f func(map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("fixture %s: %v", doc, err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// object decodes one JSON object of a fixture.
func object(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("fixture %s: %v", doc, err)
	}
	return m
}

// appendDecisions returns status with decisions appended to its log, as
// "add /status/decisions/-" would.
func appendDecisions(t *testing.T, status string, decisions ...string) string {
	t.Helper()
	return edit(t, status, func(m map[string]any) {
		log, _ := m["decisions"].([]any)
		for _, d := range decisions {
			log = append(log, object(t, d))
		}
		m["decisions"] = log
	})
}

// decision is a decision as a requester types it.
func decision(action, fingerprint string) string {
	return `{"action":"` + action + `","fingerprint":"` + fingerprint + `"}`
}

// callDecision is a decision on a pending call.
func callDecision(callID, fingerprint string) string {
	return `{"action":"Approve","fingerprint":"` + fingerprint + `","callID":"` + callID + `"}`
}

// stampedBy returns d as the stamper leaves it for user: what the
// validator must accept.
func stampedBy(t *testing.T, user authenticationv1.UserInfo, d string) string {
	t.Helper()
	return edit(t, d, func(m map[string]any) {
		m["user"] = user.Username
		if groups := stampGroups(user.Groups); groups != nil {
			m["groups"] = groups
		} else {
			delete(m, "groups")
		}
		for k, v := range map[string]string{"uid": fitting(user.UID), "credentialID": credentialID(user)} {
			if v != "" {
				m[k] = v
			} else {
				delete(m, k)
			}
		}
		m["time"] = stampTime.Truncate(time.Second).Format(time.RFC3339)
	})
}

// statusUpdate is a request to update the pin's status from oldStatus to
// newStatus, made by user.
func statusUpdate(user authenticationv1.UserInfo, oldStatus, newStatus string) admission.Request {
	return request(admissionv1.Update, "status", user, pinJSON(specJSON, oldStatus), pinJSON(specJSON, newStatus))
}

// request is an admission request for a ToolPin; oldObject is nil for a
// create.
func request(op admissionv1.Operation, subResource string, user authenticationv1.UserInfo, oldObject, newObject []byte) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:         "7d3c5a8e-0000-4000-8000-000000000002",
		Kind:        metav1.GroupVersionKind{Group: "toolgate.dev", Version: "v1alpha1", Kind: "ToolPin"},
		Resource:    metav1.GroupVersionResource{Group: "toolgate.dev", Version: "v1alpha1", Resource: "toolpins"},
		SubResource: subResource,
		Name:        "notes-archive-note",
		Namespace:   "default",
		Operation:   op,
		UserInfo:    user,
		Object:      runtime.RawExtension{Raw: newObject},
		OldObject:   runtime.RawExtension{Raw: oldObject},
	}}
}

// verdict is what a case expects of a handler: allowed, or refused with a
// message containing refusal, or an error response with code.
type verdict struct {
	allowed bool
	refusal string
	code    int32
}

var allowed = verdict{allowed: true}

func refused(msg string) verdict { return verdict{refusal: msg} }

// badRequest is the error response to a request that does not decode.
var badRequest = verdict{code: http.StatusBadRequest}

// check fails t unless resp is what want says.
func (want verdict) check(t *testing.T, resp admission.Response) {
	t.Helper()
	msg, code := "", int32(0)
	if resp.Result != nil {
		msg, code = resp.Result.Message, resp.Result.Code
	}
	switch {
	case want.allowed:
		if !resp.Allowed {
			t.Fatalf("refused (%d): %s", code, msg)
		}
	case want.code != 0:
		if resp.Allowed || code != want.code {
			t.Fatalf("got allowed=%t, code %d (%s), want an error response with code %d", resp.Allowed, code, msg, want.code)
		}
	default:
		if resp.Allowed {
			t.Fatalf("allowed (%s), want a refusal containing %q", msg, want.refusal)
		}
		if code != 403 || !strings.Contains(msg, want.refusal) {
			t.Fatalf("refused with %d %q, want 403 and a message containing %q", code, msg, want.refusal)
		}
	}
}

// applyPatch applies the JSON patch of a mutating response to the request's
// object, as the API server does, and decodes the result.
func applyPatch(t *testing.T, req admission.Request, resp admission.Response) *toolgatev1alpha1.ToolPin {
	t.Helper()
	if len(resp.Patches) > 0 && (resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch) {
		t.Fatalf("patch type %v, want JSONPatch", resp.PatchType)
	}
	ops, err := json.Marshal(resp.Patches)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		t.Fatalf("decoding the patch %s: %v", ops, err)
	}
	patched, err := patch.Apply(req.Object.Raw)
	if err != nil {
		t.Fatalf("applying the patch %s: %v", ops, err)
	}
	var pin toolgatev1alpha1.ToolPin
	if err := json.Unmarshal(patched, &pin); err != nil {
		t.Fatal(err)
	}
	return &pin
}

// decodePin decodes a fixture's ToolPin.
func decodePin(t *testing.T, raw []byte) *toolgatev1alpha1.ToolPin {
	t.Helper()
	var pin toolgatev1alpha1.ToolPin
	if err := json.Unmarshal(raw, &pin); err != nil {
		t.Fatal(err)
	}
	return &pin
}
