package gate

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
)

func TestStatelessProtocol(t *testing.T) {
	for v, want := range map[string]bool{
		"":             false,
		"2024-11-05":   false,
		"2025-11-25":   false,
		"2026-07-27":   false,
		"2026-07-28":   true,
		"2027-01-01":   true,
		"2026-7-28":    true, // not a date the gate knows: the newest
		"2025-11-25 ":  true,
		"draft":        true,
		"2025-11-25.1": true,
		"１０２５-11-25":   true,
	} {
		if got := statelessProtocol(v); got != want {
			t.Errorf("statelessProtocol(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestDisguisedMethod(t *testing.T) {
	for m, want := range map[string]bool{
		"tools/call":                       false,
		"tools/list":                       false,
		"resources/read":                   false,
		"Tools/Call":                       true,
		"TOOLS/LIST":                       true,
		"tools/call ":                      true,
		"\ttools/list":                     true,
		"tools/call\x00":                   true,
		"Initialize":                       true,
		"Subscriptions/Listen":             true,
		"notifications/Cancelled":          true,
		"Notifications/Tools/List_Changed": true,
		"Resources/Read":                   false, // not judged: passes as any other
		"tools/calls":                      false,
		"tools/\u212aall":                  false, // Kelvin sign: EqualFold folds it to k, not c
	} {
		if got := disguisedMethod(m); got != want {
			t.Errorf("disguisedMethod(%q) = %v, want %v", m, got, want)
		}
	}
}

func TestSetStandardHeaders(t *testing.T) {
	for _, tc := range []struct {
		name       string
		msg        *rpcmsg.Message
		protocol   string
		method, nm string
	}{
		{"call", &rpcmsg.Message{Method: "tools/call", Name: "echo"}, "2026-07-28", "tools/call", "echo"},
		{"list", &rpcmsg.Message{Method: "tools/list"}, "2026-07-28", "tools/list", ""},
		{"prompt", &rpcmsg.Message{Method: "prompts/get", Name: "p"}, "2026-07-28", "prompts/get", "p"},
		{"resource", &rpcmsg.Message{Method: "resources/read", URI: "file:///a b"}, "2026-07-28", "resources/read", "file:///a b"},
		{"control character", &rpcmsg.Message{Method: "tools/call", Name: "a\nb"}, "2026-07-28", "tools/call", "=?base64?YQpi?="},
		{"older revision", &rpcmsg.Message{Method: "tools/call", Name: "echo"}, "2025-11-25", "", ""},
		{"no message", nil, "2026-07-28", "", ""},
		{"response", &rpcmsg.Message{ID: []byte("1")}, "2026-07-28", "", ""},
	} {
		h := http.Header{}
		h.Set(headerMethod, "tools/list")
		h.Set(headerName, "delete_all")
		h.Set("Mcp-Param-Region", "eu")
		setStandardHeaders(h, tc.msg, tc.protocol)
		if h.Get(headerMethod) != tc.method || h.Get(headerName) != tc.nm || h.Get("Mcp-Param-Region") != "eu" {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q, Mcp-Param-Region %q", tc.name, h.Get(headerMethod), h.Get(headerName), h.Get("Mcp-Param-Region"))
		}
	}
}

// A judged method written in another case is refused, never forwarded;
// the server sees the Mcp-Method and Mcp-Name of the message the gate
// judged, not the agent's.
func TestMethodsAndRoutingHeaders(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genStateless, s)
	u.seen = make(chan http.Header, 64)
	g := startGate(t, Options{})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"Tools/Call","params":{"name":"delete_all","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"TOOLS/LIST"}`,
	} {
		code, out := post(t, g.url(), body)
		if code != http.StatusOK || !strings.Contains(out, `"code":-32601`) || !strings.Contains(out, "method not available through the gate") {
			t.Fatalf("%s: %d %s", body, code, out)
		}
	}
	select {
	case h := <-u.seen:
		t.Fatalf("a disguised method reached the server: %v", h)
	default:
	}
	if n := testutil.ToFloat64(g.Metrics().Errors.WithLabelValues("disguised-method")); n != 2 {
		t.Fatalf("disguised methods counted %v times", n)
	}

	// A real stateless agent's call, with the agent's routing headers
	// replaced on the way.
	a := connect(t, genStateless, g.url())
	drainHeaders(u.seen)
	req, _ := http.NewRequest(http.MethodPost, g.url(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set(headerMethod, "tools/list")
	req.Header.Set(headerName, "delete_all")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	found := false
	for len(u.seen) > 0 {
		h := <-u.seen
		if h.Get(headerName) == "delete_all" || (h.Get(headerMethod) == "tools/call" && h.Get(headerName) != "echo") {
			t.Fatalf("the agent's routing headers reached the server: %v", h)
		}
		found = found || (h.Get(headerMethod) == "tools/call" && h.Get(headerName) == "echo")
	}
	if !found {
		t.Fatal("the server never saw the call's own Mcp-Method and Mcp-Name")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
		t.Fatalf("a stateless agent's call: %v %v", res, err)
	}
}

func drainHeaders(c chan http.Header) {
	for len(c) > 0 {
		<-c
	}
}
