package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// TestParamHeadersAgreeWithTheBody puts the gate binary before a real Go
// SDK server of the stateless revision whose tool repeats an argument in a
// header (x-mcp-header, SEP-2243): the server refuses a call whose header
// differs from the body, and may route on the header. An agent that sends
// a header of its own — naming another region than its arguments, or
// another tool — gets its call run with the body's arguments, because the
// gate writes those headers from the body it judged; and the Go SDK
// agent's own headers are written again the same way.
func TestParamHeadersAgreeWithTheBody(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gate binary")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-peer", Version: "1.0.0"}, nil)
	var mu sync.Mutex
	var ran []string
	s.AddTool(&mcp.Tool{Name: "route", Description: "Routes a request to a region.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			mu.Lock()
			ran = append(ran, in.Region)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "routed " + in.Region}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	// The fingerprint of route as the server lists it, as the probe pins it.
	direct := newRawClient(srv.URL, genStateless)
	if err := direct.open(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, msgs, err := direct.post(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":`+meta+`}}`), map[string]string{"Mcp-Method": "tools/list"})
	if err != nil || len(msgs) == 0 {
		t.Fatalf("listing route: %v", err)
	}
	var list struct {
		Result struct{ Tools []json.RawMessage } `json:"result"`
	}
	if err := json.Unmarshal(msgs[0], &list); err != nil || len(list.Result.Tools) != 1 {
		t.Fatalf("listing route: %v %s", err, msgs[0])
	}
	route, err := tooldef.ParseTool(list.Result.Tools[0])
	if err != nil {
		t.Fatal(err)
	}
	gp := startGate(t, newConfig(gateproto.Server{ID: "tools/route", Ready: true,
		Upstream: &gateproto.Upstream{URL: srv.URL, Transport: "StreamableHTTP"},
		Tools:    []gateproto.Tool{{Name: "route", Pin: "pin-route", Fingerprint: route.Fingerprint(), Level: "L1", Decision: gateproto.DecisionExposed}}}))
	url := gp.url("tools/route")

	c := newRawClient(url, genStateless)
	if err := c.open(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, forged := range []map[string]string{
		{"Mcp-Method": "tools/call", "Mcp-Param-Region": "us"},
		{"Mcp-Method": "tools/call", "Mcp-Param-Region": "eu", "Mcp-Name": "delete_repository"},
		{"Mcp-Method": "tools/call", "Mcp-Param-Other": "x"},
	} {
		body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},"_meta":` + meta + `}}`
		_, msgs, err = c.post(t.Context(), []byte(body), forged)
		if err != nil || !strings.Contains(joinMsgs(msgs), "routed eu") {
			t.Fatalf("a call with the headers %v: %v %s", forged, err, joinMsgs(msgs))
		}
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "route", Arguments: map[string]any{"region": "ap south"}})
	if err != nil || res.IsError {
		t.Fatalf("the Go SDK agent's call: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(ran, ",") != "eu,eu,eu,ap south" {
		t.Fatalf("the server ran %q", ran)
	}
}
