package approval

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// generatedWebhooks reads the webhook configurations generated from the
// markers in setup.go: what the chart and the test control plane install.
func generatedWebhooks(t *testing.T) []admissionregistrationv1.ValidatingWebhook {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var all []admissionregistrationv1.ValidatingWebhook
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		// Both kinds share the fields read here: name, path, conditions.
		var c admissionregistrationv1.ValidatingWebhookConfiguration
		if err := dec.Decode(&c); err != nil {
			break
		}
		all = append(all, c.Webhooks...)
	}
	if len(all) != 5 {
		t.Fatalf("config/webhook holds %d webhooks, want the five of Setup", len(all))
	}
	return all
}

// TestMatchConditionsSkipOnlyWhatTheHandlersAllowUnchanged holds each match
// condition of the generated webhooks to what it claims: the API server
// skips a webhook only for requests its handler would have allowed without
// a patch. A condition the test does not know fails it, so no webhook can
// be skipped without a proof here.
func TestMatchConditionsSkipOnlyWhatTheHandlersAllowUnchanged(t *testing.T) {
	mux := http.NewServeMux()
	cfg := Config{OperatorUsers: []string{operatorName}, ApproverServiceAccounts: []string{reviewBotName}, Now: func() time.Time { return stampTime }}
	if err := Setup(testManager(t, testScheme(t), mux), cfg); err != nil {
		t.Fatal(err)
	}
	decided := appendDecisions(t, statusJSON, stampedBy(t, alice, decision("Approve", fpNow)))
	override := `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":{"level":"L1","reason":"trust me"}}`
	forged := `{"action":"Approve","fingerprint":"` + fpNow + `","user":"mallory"}`
	// What the operator may send, and what nobody else may: every handler
	// behind "not-the-operator" must allow each, unchanged.
	operatorWrites := map[string]admission.Request{
		"creates a pin":                  request(admissionv1.Create, "", operator, nil, pinJSON(specJSON, "{}")),
		"creates a pin with an override": request(admissionv1.Create, "", operator, nil, pinJSON(override, "{}")),
		"rewrites the whole status":      statusUpdate(operator, statusJSON, `{"state":"Trusted","decisions":[]}`),
		"appends an unstamped decision":  statusUpdate(operator, statusJSON, appendDecisions(t, statusJSON, forged)),
		"deletes a decided pin":          request(admissionv1.Delete, "", operator, pinJSON(specJSON, decided), nil),
		"sends what does not decode":     request(admissionv1.Update, "status", operator, []byte(`[1]`), []byte(`"not a pin"`)),
	}
	// What carries no override: every handler behind "sets-an-override"
	// must allow each, unchanged, whoever sends it.
	noOverride := map[string]admission.Request{
		"an approver updates a pin":      request(admissionv1.Update, "", alice, pinJSON(override, "{}"), pinJSON(specJSON, "{}")),
		"a stranger creates a pin":       request(admissionv1.Create, "", ciBot, nil, pinJSON(specJSON, "{}")),
		"the operator creates a pin":     request(admissionv1.Create, "", operator, nil, pinJSON(specJSON, "{}")),
		"a stranger clears the override": request(admissionv1.Update, "", ciBot, pinJSON(override, "{}"), pinJSON(specJSON, "{}")),
	}

	for _, wh := range generatedWebhooks(t) {
		for _, cond := range wh.MatchConditions {
			var cases map[string]admission.Request
			switch cond.Name {
			case OperatorMatchCondition:
				cases = operatorWrites
			case "sets-an-override":
				cases = noOverride
			default:
				t.Errorf("%s: match condition %q skips the webhook with no proof in this test", wh.Name, cond.Name)
				continue
			}
			for name, req := range cases {
				resp := serve(t, mux, *wh.ClientConfig.Service.Path, req)
				if !resp.Allowed || len(resp.Patch) > 0 {
					t.Errorf("%s (%s) skipped, but when %s its handler answers allowed=%v patch=%s (%v)",
						wh.Name, cond.Name, name, resp.Allowed, resp.Patch, resp.Result)
				}
			}
		}
	}
}

// TestOperatorMatchExpressionFailsForTheOperatorAlone evaluates the
// expression the chart and the test control plane install, as the API
// server's CEL would: false (skip) for the operator's exact user name and
// true (call) for every other, near names included.
func TestOperatorMatchExpressionFailsForTheOperatorAlone(t *testing.T) {
	env, err := cel.NewEnv(cel.Variable("request", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(OperatorMatchExpression(operatorName))
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	for user, want := range map[string]bool{
		operatorName:        false,
		operatorName + "-x": true,
		" " + operatorName:  true,
		"system:serviceaccount:toolgate-system:toolgate ": true,
		"alice":       true,
		"":            true,
		reviewBotName: true,
	} {
		out, _, err := prg.Eval(map[string]any{"request": map[string]any{"userInfo": map[string]any{"username": user}}})
		if err != nil {
			t.Fatalf("%q: %v", user, err)
		}
		if out.Value() != want {
			t.Errorf("%q: the condition says %v, want %v", user, out.Value(), want)
		}
	}
	// A user name the chart could be given must survive quoting.
	if got := OperatorMatchExpression(`a"b\c`); got != `request.userInfo.username != "a\"b\\c"` {
		t.Errorf("quoting: %s", got)
	}
}

// serve posts one admission review to path as the API server would and
// returns the response.
func serve(t *testing.T, mux *http.ServeMux, path string, req admission.Request) *admissionv1.AdmissionResponse {
	t.Helper()
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	httpReq := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	httpReq.Header.Set("Content-Type", "application/json")
	mux.ServeHTTP(rec, httpReq)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
		t.Fatalf("%s: %d %s (%v)", path, rec.Code, rec.Body, err)
	}
	return review.Response
}
