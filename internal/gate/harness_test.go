package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// Generations of the protocol a test runs in.
type generation string

const (
	genSession   generation = "session"   // streamable HTTP, 2025-11-25, Mcp-Session-Id
	genStateless generation = "stateless" // streamable HTTP, 2026-07-28
	genSSE       generation = "sse"       // HTTP+SSE, 2024-11-05
)

var generations = []generation{genSession, genStateless, genSSE}

type echoIn struct {
	Text string `json:"text"`
}

func addTool(s *mcp.Server, name, description string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: description},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + in.Text}}}, nil, nil
		})
}

// newMCPServer is a real SDK server offering the named tools.
func newMCPServer(tools map[string]string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		addTool(s, n, tools[n])
	}
	return s
}

// upstream serves an SDK server over HTTP in one generation.
type upstream struct {
	srv  *httptest.Server
	gen  generation
	mcp  *mcp.Server
	seen chan http.Header // headers of every request, when set
}

func startUpstream(t testing.TB, gen generation, s *mcp.Server) *upstream {
	t.Helper()
	return startUpstreamFunc(t, gen, func(*http.Request) *mcp.Server { return s }, s)
}

func startUpstreamFunc(t testing.TB, gen generation, get func(*http.Request) *mcp.Server, s *mcp.Server) *upstream {
	t.Helper()
	u := &upstream{gen: gen, mcp: s}
	var h http.Handler
	switch gen {
	case genSSE:
		h = mcp.NewSSEHandler(get, nil)
	case genStateless:
		h = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	default:
		h = mcp.NewStreamableHTTPHandler(get, nil)
	}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u.seen != nil {
			select {
			case u.seen <- r.Header.Clone():
			default:
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) transport() string {
	if u.gen == genSSE {
		return "SSE"
	}
	return "StreamableHTTP"
}

// fingerprints lists an SDK server over a stateless JSON handler of its own
// and returns each tool's fingerprint as the gate will compute it: what a
// probe would pin.
func fingerprints(t testing.TB, s *mcp.Server) map[string]string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, raw := postMessage(t, srv.URL, listMessage, withProtocol)
	body := []byte(raw)
	_, res, err := rpcmsg.FilterList(nil, body, rpcmsg.ListOptions{})
	if err != nil {
		t.Fatalf("listing for fingerprints: %v: %s", err, body)
	}
	out := map[string]string{}
	for _, l := range res.Tools {
		out[l.Name] = l.Fingerprint
	}
	return out
}

// toolSpec is a tool of a test configuration.
type toolSpec struct {
	name        string
	decision    gateproto.Decision
	reason      gateproto.Reason
	forwardable bool
	fingerprint string // overrides the live fingerprint when set
}

func exposed(name string) toolSpec { return toolSpec{name: name, decision: gateproto.DecisionExposed} }

// gated is the approval-gated tool of the approval tests, deploy.
func gated() toolSpec {
	return toolSpec{name: "deploy", decision: gateproto.DecisionApprovalGated}
}
func withheld(name string, r gateproto.Reason, forwardable bool) toolSpec {
	return toolSpec{name: name, decision: gateproto.DecisionWithheld, reason: r, forwardable: forwardable}
}

const testServerID = "agents/upstream"

// config builds a valid configuration of one server.
func config(t testing.TB, mode gateproto.Mode, u *upstream, fps map[string]string, tools ...toolSpec) *gateproto.Config {
	t.Helper()
	s := gateproto.Server{ID: testServerID, Ready: true, Upstream: &gateproto.Upstream{
		URL: u.srv.URL, Transport: u.transport(), Headers: map[string]string{"Authorization": "Bearer upstream-secret"},
	}}
	for _, ts := range tools {
		tl := gateproto.Tool{Name: ts.name, Decision: ts.decision, Pin: "pin-" + strings.ReplaceAll(ts.name, "_", "-"), Fingerprint: fps[ts.name], Level: "L2"}
		if ts.fingerprint != "" {
			tl.Fingerprint = ts.fingerprint
		}
		switch ts.decision {
		case gateproto.DecisionApprovalGated:
			tl.ApprovalRule = "minLevel L2"
		case gateproto.DecisionWithheld:
			tl.Reason, tl.AuditForwardable = ts.reason, ts.forwardable
			if !ts.forwardable && ts.reason != gateproto.ReasonAboveCeiling {
				tl.Fingerprint = ""
			}
		}
		s.Tools = append(s.Tools, tl)
	}
	c := &gateproto.Config{Version: gateproto.Version, Namespace: "agents", Pod: "agent-0", Policies: []string{"p"}, Mode: mode, Servers: []gateproto.Server{s}}
	c.Revision = c.ComputeRevision()
	if err := c.Validate(); err != nil {
		t.Fatalf("test config invalid: %v", err)
	}
	return c
}

// auditSink collects the audit lines.
type auditSink struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []map[string]any
}

func (a *auditSink) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var m map[string]any
	if json.Unmarshal(p, &m) == nil {
		a.lines = append(a.lines, m)
	}
	return a.buf.Write(p)
}

// find returns the first audit line of a tool and decision, waiting a
// little: a forwarded call's line is written when the server's answer has
// been relayed, which the agent may see first (on the SSE transport the
// answer travels on another request).
func (a *auditSink) find(tool string, decision decide.Verdict) map[string]any {
	deadline := time.Now().Add(2 * time.Second)
	for {
		a.mu.Lock()
		for _, l := range a.lines {
			if l["tool"] == tool && l["decision"] == string(decision) {
				a.mu.Unlock()
				return l
			}
		}
		a.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type testGate struct {
	*Gate
	srv   *httptest.Server
	audit *auditSink
}

func startGate(t testing.TB, o Options) *testGate {
	t.Helper()
	a := &auditSink{}
	o.Audit = slog.New(slog.NewJSONHandler(a, nil))
	if testing.Verbose() {
		o.Logger = slog.New(slog.NewTextHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	g := New(o)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return &testGate{Gate: g, srv: srv, audit: a}
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (tg *testGate) url() string { return tg.srv.URL + ServerPath(testServerID) }

// agent is a real SDK client of the given generation connected through the
// gate; changed receives a value on every tools/list_changed.
type agent struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

func connect(t *testing.T, gen generation, endpoint string) *agent {
	t.Helper()
	a := &agent{changed: make(chan struct{}, 16)}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case a.changed <- struct{}{}:
			default:
			}
		},
	})
	// The SSE transport holds its stream on the context given to Connect:
	// it must outlive the test's call, not a timeout.
	ctx := context.Background()
	var tr mcp.Transport
	var opts *mcp.ClientSessionOptions
	switch gen {
	case genSSE:
		tr = &mcp.SSEClientTransport{Endpoint: endpoint}
	case genStateless:
		tr = &mcp.StreamableClientTransport{Endpoint: endpoint}
	default:
		tr = &mcp.StreamableClientTransport{Endpoint: endpoint}
		opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := c.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("%s agent: connect: %v", gen, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	a.cs = cs
	return a
}

func (a *agent) listNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// call calls a tool and returns its text, or the error.
func (a *agent) call(t *testing.T, name string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", nil
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text, nil
	}
	return "", nil
}

func waitChanged(t *testing.T, a *agent) {
	t.Helper()
	select {
	case <-a.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the agent was not told its tool list changed")
	}
}
