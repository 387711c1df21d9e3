package controllers

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// TestNoSSRFReadBackInStatusOrEvents: whoever creates an MCPServer
// chooses its URL and transport; a URL that answers with something other
// than MCP — a metadata service's credentials, say — must not be read back
// to them. Servers on both transports answer with a body that carries a
// secret, on every path that used to be quoted (the first line of a body,
// an SSE data payload, a JSON-RPC error message); each MCPServer ends not
// Ready and the secret appears nowhere in its status nor in any event.
func TestNoSSRFReadBackInStatusOrEvents(t *testing.T) {
	ns := testNamespace(t)
	const secret = "aws-secret-access-key-wJalrXUtnFEMI"
	rpcError := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"` + secret + `"}}`
	serve := func(h http.HandlerFunc) string {
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	plain := func(status int, contentType, body string) string {
		return serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
	events := func(stream string) string {
		return serve(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, stream)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
	}
	listError := startMCPServer(t, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."})
	listError.setRewrite(func([]byte) []byte { return []byte(strings.Replace(rpcError, `"id":1`, `"id":2`, 1)) })
	notJSON := startMCPServer(t, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."})
	notJSON.setRewrite(func([]byte) []byte { return []byte(secret + "\n") })

	cases := []struct {
		name      string
		transport toolgatev1alpha1.Transport
		url       string
	}{
		{"http-text", "", plain(200, "text/plain", secret+"\nsecond line\n")},
		{"http-json", "", plain(200, "application/json", `{"AccessKeyId":"`+secret+`"}`)},
		{"http-rpc-error", "", plain(200, "application/json", rpcError)},
		{"http-500", "", plain(500, "text/plain", secret)},
		{"http-list-error", "", listError.URL},
		{"http-list-not-json", "", notJSON.URL},
		{"sse-text", toolgatev1alpha1.TransportSSE, plain(200, "text/plain", secret+"\n")},
		{"sse-first-line", toolgatev1alpha1.TransportSSE, events(secret + "\n\n")},
		{"sse-data", toolgatev1alpha1.TransportSSE, events("event: message\ndata: " + secret + "\n\n")},
		{"sse-endpoint", toolgatev1alpha1.TransportSSE, events("event: endpoint\ndata: http://[" + secret + "\n\n")},
		{"sse-rpc-error", toolgatev1alpha1.TransportSSE, events("event: endpoint\ndata: /post\n\nevent: message\ndata: " + rpcError + "\n\n")},
	}
	for _, tc := range cases {
		create(t, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: tc.name, Namespace: ns},
			Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: tc.url}, Transport: tc.transport,
				Probe: toolgatev1alpha1.ProbeSpec{Timeout: &metav1.Duration{Duration: 2 * time.Second}, Interval: &metav1.Duration{Duration: time.Minute}}},
		})
	}
	for _, tc := range cases {
		var s toolgatev1alpha1.MCPServer
		eventually(t, tc.name+" is not Ready", func() (bool, string) {
			if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: tc.name}, &s); err != nil {
				return false, err.Error()
			}
			c := meta.FindStatusCondition(s.Status.Conditions, toolgatev1alpha1.ConditionReady)
			return c != nil && c.Status == metav1.ConditionFalse && c.ObservedGeneration == s.Generation, "no Ready=False yet"
		})
		status, _ := json.Marshal(s.Status)
		if strings.Contains(string(status), secret) {
			t.Errorf("%s: the status reads the answer back: %s", tc.name, status)
		}
		t.Logf("%s: %s", tc.name, meta.FindStatusCondition(s.Status.Conditions, toolgatev1alpha1.ConditionReady).Message)
	}
	// Events are written asynchronously; give them a moment, then check
	// both APIs they can be read through.
	eventually(t, "events for every server", func() (bool, string) {
		var recorded eventsv1.EventList
		if err := env.Client.List(t.Context(), &recorded, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		seen := map[string]bool{}
		for _, e := range recorded.Items {
			seen[e.Regarding.Name] = true
		}
		return len(seen) >= len(cases), "events so far for " + strings.Join(keys(seen), ",")
	})
	var recorded eventsv1.EventList
	if err := env.Client.List(t.Context(), &recorded, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var core corev1.EventList
	if err := env.Client.List(t.Context(), &core, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, list := range []any{recorded, core} {
		b, _ := json.Marshal(list)
		if strings.Contains(string(b), secret) {
			t.Errorf("an event reads the answer back: %s", b)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
