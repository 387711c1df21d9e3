package approval

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// testManager is a manager that is never started: Setup only registers
// handlers, so no API server is needed. Its webhook server serves on mux.
func testManager(t *testing.T, scheme *runtime.Scheme, mux *http.ServeMux) manager.Manager {
	t.Helper()
	mgr, err := manager.New(&rest.Config{Host: "https://127.0.0.1:1"}, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(webhook.Options{WebhookMux: mux}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := toolgatev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// TestSetupServesEachHandlerOnItsPath sends one request to each path, as
// the API server would, that only the handler meant for that path answers
// as it does.
func TestSetupServesEachHandlerOnItsPath(t *testing.T) {
	mux := http.NewServeMux()
	cfg := Config{OperatorUsers: []string{operatorName}, ApproverServiceAccounts: []string{reviewBotName}, Now: func() time.Time { return stampTime }}
	if err := Setup(testManager(t, testScheme(t), mux), cfg); err != nil {
		t.Fatal(err)
	}
	forged := `{"action":"Approve","fingerprint":"` + fpNow + `","user":"mallory"}`
	stampedByMallory := edit(t, stampedBy(t, alice, decision("Approve", fpNow)), func(d map[string]any) { d["user"] = "mallory" })
	override := `{"serverRef":{"name":"notes"},"toolName":"archive_note","override":{"level":"L1","reason":"trust me"}}`
	for _, tc := range []struct {
		path  string
		req   admissionv1.AdmissionRequest
		check func(*admissionv1.AdmissionResponse) bool
	}{
		// Only the stamper answers with a patch.
		{MutatePath, statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, forged)).AdmissionRequest,
			func(r *admissionv1.AdmissionResponse) bool {
				return r.Allowed && r.PatchType != nil && strings.Contains(string(r.Patch), `"alice"`)
			}},
		// Only the validator refuses a decision stamped with someone else.
		{ValidatePath, statusUpdate(alice, statusJSON, appendDecisions(t, statusJSON, stampedByMallory)).AdmissionRequest,
			func(r *admissionv1.AdmissionResponse) bool {
				return !r.Allowed && strings.Contains(r.Result.Message, "not stamped with the requester's identity")
			}},
		// Only the override validator judges a spec write.
		{ValidateSpecPath, request(admissionv1.Update, "", ciBot, pinJSON(specJSON, "{}"), pinJSON(override, "{}")).AdmissionRequest,
			func(r *admissionv1.AdmissionResponse) bool {
				return !r.Allowed && strings.Contains(r.Result.Message, "spec.override is a human classification")
			}},
		// Only the override stamper patches a spec write.
		{MutateSpecPath, request(admissionv1.Update, "", alice, pinJSON(specJSON, "{}"), pinJSON(override, "{}")).AdmissionRequest,
			func(r *admissionv1.AdmissionResponse) bool {
				return r.Allowed && r.PatchType != nil && strings.Contains(string(r.Patch), `"alice"`)
			}},
		// Only the record validator refuses a create.
		{ValidateRecordPath, request(admissionv1.Create, "", alice, nil, pinJSON(specJSON, "{}")).AdmissionRequest,
			func(r *admissionv1.AdmissionResponse) bool {
				return !r.Allowed && strings.Contains(r.Result.Message, "created by the toolgate operator only")
			}},
	} {
		body, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request:  &tc.req,
		})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		httpReq := httptest.NewRequest(http.MethodPost, tc.path, bytes.NewReader(body))
		httpReq.Header.Set("Content-Type", "application/json")
		mux.ServeHTTP(rec, httpReq)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
			t.Fatalf("%s: %d %s (%v)", tc.path, rec.Code, rec.Body, err)
		}
		if !tc.check(review.Response) {
			t.Errorf("%s answered %+v", tc.path, review.Response)
		}
	}
}

func TestSetupRefusesAConfigurationThatCannotWork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scheme *runtime.Scheme
		cfg    Config
		want   string
	}{
		{"no operator", testScheme(t), Config{}, "no operator user"},
		{"an approver that is not a service account", testScheme(t),
			Config{OperatorUsers: []string{operatorName}, ApproverServiceAccounts: []string{"alice"}}, `approver "alice" is not system:serviceaccount:NAMESPACE:NAME`},
		{"an empty administrator", testScheme(t),
			Config{OperatorUsers: []string{operatorName}, AdminGroups: []string{""}}, "an empty administrator"},
		{"a scheme without ToolPin", clientgoscheme.Scheme, Config{OperatorUsers: []string{operatorName}}, "does not know ToolPin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Setup(testManager(t, tc.scheme, http.NewServeMux()), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
