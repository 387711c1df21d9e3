package gate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// Each test here drives the gate into one of its bounds with real SDK
// servers and clients (a hand-written server only where misbehaving is the
// point), and checks three things: the bound stops what it should, it is
// reported (to the agent, in toolgate_gate_limits_hit_total or
// toolgate_gate_errors_total, and in the log), and the gate goes on
// serving once what hit it is gone.

// gateLog keeps the gate's diagnostics for a test to read.
type gateLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *gateLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// has reports whether a line holds every one of parts.
func (l *gateLog) has(parts ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.SplitSeq(l.buf.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all && line != "" {
			return true
		}
	}
	return false
}

// startLoggedGate is startGate with the gate's log kept.
func startLoggedGate(t *testing.T, o Options) (*testGate, *gateLog) {
	t.Helper()
	l := &gateLog{}
	o.Logger = slog.New(slog.NewJSONHandler(io.MultiWriter(l, &testWriter{t}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := &auditSink{}
	o.Audit = slog.New(slog.NewJSONHandler(a, nil))
	g := New(o)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return &testGate{Gate: g, srv: srv, audit: a}, l
}

func limitHits(g *testGate, limit string) float64 {
	return testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues(limit))
}

// connectErr connects an agent like connect, returning the error.
func connectErr(gen generation, endpoint string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
	var opts *mcp.ClientSessionOptions
	switch gen {
	case genSSE:
		// The SSE client holds its stream on Connect's context.
		ctx = context.Background()
		tr = &mcp.SSEClientTransport{Endpoint: endpoint}
	case genSession:
		opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	return c.Connect(ctx, tr, opts)
}

func TestSessionBound(t *testing.T) {
	for _, gen := range []generation{genSession, genSSE} {
		t.Run(string(gen), func(t *testing.T) {
			s := newMCPServer(catalogue)
			u := startUpstream(t, gen, s)
			g, log := startLoggedGate(t, Options{Limits: Limits{MaxSessions: 1}})
			if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
				t.Fatal(err)
			}
			first, err := connectErr(gen, g.url())
			if err != nil {
				t.Fatalf("the first agent: %v", err)
			}
			if _, err := connectErr(gen, g.url()); err == nil {
				t.Fatal("a second session was opened past the bound of one")
			} else if !strings.Contains(err.Error(), "Service Unavailable") && !strings.Contains(err.Error(), "more than 1 sessions") {
				t.Fatalf("the session bound was not reported: %v", err)
			}
			if n := limitHits(g, "sessions"); n < 1 {
				t.Fatalf("the session bound was counted %v times", n)
			}
			if n := testutil.ToFloat64(g.Metrics().Sessions); n != 1 {
				t.Fatalf("toolgate_gate_sessions = %v past the bound, want 1", n)
			}
			if !log.has(`"msg":"bound hit"`, `"why":"too many sessions"`, `"limit":"sessions"`) {
				t.Fatal("the session bound was not logged")
			}
			// The session in the bound is served throughout.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if res, err := first.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
				t.Fatalf("the first session's call: %v %v", res, err)
			}
			// Once it ends, its place is free.
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			var second *mcp.ClientSession
			eventually(t, "a new session is opened once the first has ended", func() bool {
				second, err = connectErr(gen, g.url())
				return err == nil
			})
			defer second.Close()
			if res, err := second.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
				t.Fatalf("the new session's call: %v %v", res, err)
			}
		})
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEventSizeBound(t *testing.T) {
	const maxEvent = 4 << 10
	s := newMCPServer(map[string]string{"echo": "Echoes its text."})
	mcp.AddTool(s, &mcp.Tool{Name: "dump", Description: "Returns a large result."},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 2*maxEvent)}}}, nil, nil
		})
	u := startUpstream(t, genSession, s)
	fps := fingerprints(t, s)
	g, log := startLoggedGate(t, Options{Limits: Limits{MaxEventBytes: maxEvent}})
	if err := g.Apply(config(t, gateproto.ModeEnforce, u, fps, exposed("echo"), exposed("dump"))); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genSession, g.url())
	if got := a.listNames(t); !slices.Equal(got, []string{"dump", "echo"}) {
		t.Fatalf("listed %v", got)
	}

	// A result in one event larger than the bound is not relayed.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dump", Arguments: map[string]any{"text": "hi"}})
	if err == nil && !res.IsError {
		t.Fatalf("a result of %d bytes crossed a bound of %d", 2*maxEvent, maxEvent)
	}
	t.Logf("the agent read: %v %v after %v", res, err, time.Since(start))
	// ... and the agent is told why, rather than left to its own timeout.
	if err == nil || !strings.Contains(err.Error(), "toolgate: the server sent an event over 4096 bytes") || ctx.Err() != nil {
		t.Fatalf("a result over the event bound: %v", err)
	}
	if n := limitHits(g, "event-bytes"); n != 1 {
		t.Fatalf("the event bound was counted %v times", n)
	}
	if !log.has(`"msg":"bound hit"`, `"why":"server-sent event too large"`, `"limit":"event-bytes"`, `"server":"agents/upstream"`) {
		t.Fatal("the event bound was not logged")
	}

	// A list answered in an event over the bound is answered with an
	// error that names it.
	mcp.AddTool(s, &mcp.Tool{Name: "verbose", Description: strings.Repeat("A long description. ", maxEvent/10)},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	waitChanged(t, a)
	if _, err := a.cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "toolgate: the server sent an event over 4096 bytes") {
		t.Fatalf("a list over the event bound: %v", err)
	}
	// The session is served again once the server's events fit.
	s.RemoveTools("verbose")
	waitChanged(t, a)
	if got := a.listNames(t); !slices.Equal(got, []string{"dump", "echo"}) {
		t.Fatalf("listed %v once the server's events fit", got)
	}
	if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
		t.Fatalf("a call after the bound: %q %v", out, err)
	}
}

func TestListPageBound(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, &mcp.ServerOptions{PageSize: 1})
	tools := map[string]string{"alpha": "Tool alpha.", "beta": "Tool beta.", "echo": "Tool echo."}
	for n, d := range tools {
		addTool(s, n, d)
	}
	u := startUpstream(t, genStateless, s)
	// The same tools on one page: what a probe that follows cursors pins.
	fps := fingerprints(t, newMCPServer(tools))
	cfg := config(t, gateproto.ModeEnforce, u, fps, exposed("alpha"), exposed("beta"), exposed("echo"))

	// Three pages, a bound of two: the gate cannot see the whole catalogue
	// and refuses the call rather than forward a tool it has not checked.
	g, log := startLoggedGate(t, Options{Limits: Limits{MaxListPages: 2}})
	if err := g.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genStateless, g.url())
	mustContainRefusal(t, callErr(a, t, "echo"), "a call whose catalogue has more pages than the bound")
	if n := limitHits(g, "list-pages"); n < 1 {
		t.Fatalf("the page bound was counted %v times", n)
	}
	if !log.has(`"msg":"bound hit"`, `"why":"server's tools/list has too many pages"`, `"limit":"list-pages"`, `"max":2`) {
		t.Fatal("the page bound was not logged")
	}
	if l := g.audit.find("echo", decide.Refuse); l == nil || l["reason"] != string(decide.ReasonNotObserved) {
		t.Fatalf("audit line of the refused call: %v", l)
	}

	// The agent's own listing is not the gate's to bound: every page is
	// relayed, filtered, and what it showed the gate may then be called.
	var names []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for tl, err := range a.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("listing page by page: %v", err)
		}
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"alpha", "beta", "echo"}) {
		t.Fatalf("the agent listed %v", names)
	}
	if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
		t.Fatalf("a call after the agent listed every page: %q %v", out, err)
	}

	// Within the bound the gate lists every page itself.
	g2, _ := startLoggedGate(t, Options{Limits: Limits{MaxListPages: 3}})
	if err := g2.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	if out, err := connect(t, genStateless, g2.url()).call(t, "echo"); err != nil || out != "echo:hi" {
		t.Fatalf("a call with the catalogue within the bound: %q %v", out, err)
	}
	if n := limitHits(g2, "list-pages"); n != 0 {
		t.Fatalf("the page bound was counted %v times within it", n)
	}
}

// stallingUpstream serves an SDK server, except that a call of the tool
// "stall" is answered with the headers of an event stream and then
// nothing: a server that hangs within its response. cut receives a value
// when the gate gives up on such a response.
func stallingUpstream(t *testing.T, s *mcp.Server, cut chan<- struct{}) *upstream {
	t.Helper()
	u := startUpstream(t, genStateless, s)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	u.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"method":"tools/call"`)) && bytes.Contains(body, []byte(`"name":"stall"`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				cut <- struct{}{}
			case <-release:
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
	return u
}

func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	s := newMCPServer(map[string]string{"echo": "Echoes its text.", "stall": "Never finishes."})
	cut := make(chan struct{}, 1)
	u := stallingUpstream(t, s, cut)
	g, glog := startLoggedGate(t, Options{Limits: Limits{IdleTimeout: idle}})
	if err := g.Apply(config(t, gateproto.ModeEnforce, u, fingerprints(t, s), exposed("echo"), exposed("stall"))); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genStateless, g.url())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "stall", Arguments: map[string]any{"text": "hi"}})
	took := time.Since(start)
	t.Logf("the agent read: %v %v after %v", res, err, took)
	if err == nil && !res.IsError {
		t.Fatal("a response the server never finished came back as a result")
	}
	if ctx.Err() != nil || took < idle || took > 10*time.Second {
		t.Fatalf("the silent response was not cut at the idle bound of %v: %v after %v", idle, err, took)
	}
	// The gate let go of the server too: its request was cancelled, not
	// left holding a connection.
	select {
	case <-cut:
	case <-time.After(5 * time.Second):
		t.Fatal("the gate did not cancel the request to the silent server")
	}
	if n := limitHits(g, "upstream-idle-timeout"); n != 1 || !glog.has(`"msg":"bound hit"`, `"why":"the server went silent within its answer"`) {
		t.Errorf("the idle bound was hit %v times, or not logged", n)
	}
	if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
		t.Fatalf("a call after the idle bound: %q %v", out, err)
	}
}

func TestHostMustBeLoopback(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genStateless, s)
	g, _ := startLoggedGate(t, Options{})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(g.srv.URL, "http://"), ":")
	list := func(host string) (int, string) {
		t.Helper()
		resp, b := postMessage(t, g.url(), listMessage, func(r *http.Request) { r.Host = host })
		return resp.StatusCode, b
	}
	// A page the agent's browser opens on a name it controls, rebound to
	// 127.0.0.1, reaches the gate with its own name as Host.
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "localhost.attacker.example:" + port, "127.0.0.1.nip.io:" + port, "10.0.0.1:" + port, "0.0.0.0:" + port} {
		if code, body := list(host); code != http.StatusForbidden || !strings.Contains(body, "Host must be a loopback name") {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "127.0.0.2:" + port, "localhost", "[::1]:" + port} {
		if code, body := list(host); code != http.StatusOK || !strings.Contains(body, `"echo"`) {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
	if got := connect(t, genStateless, g.url()).listNames(t); !slices.Equal(got, []string{"deploy", "echo"}) {
		t.Fatalf("a real agent after the refusals listed %v", got)
	}
	if n := testutil.ToFloat64(g.Metrics().Errors.WithLabelValues("host-refused")); n != 6 {
		t.Errorf("%v refused Hosts counted, want 6", n)
	}
}

// panickingApprover stands for a bug anywhere on a request's path.
type panickingApprover struct{}

func (panickingApprover) Approve(context.Context, gateproto.CallRequest) (gateproto.CallOutcome, error) {
	panic("approver bug")
}

func TestPanicIsRecovered(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genStateless, s)
	// A keep-alive every few milliseconds: one left running by the panic
	// would write to a response whose handler has returned.
	g, log := startLoggedGate(t, Options{Approver: panickingApprover{}, Limits: Limits{ApprovalKeepAlive: 5 * time.Millisecond}})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genStateless, g.url())
	if got := a.listNames(t); !slices.Equal(got, []string{"deploy", "echo"}) {
		t.Fatalf("listed %v", got)
	}

	// A client that reads JSON only is answered with a JSON-RPC error.
	req, _ := http.NewRequest(http.MethodPost, g.url(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{"text":"hi"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the request that panicked was not answered: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `"id":null`) && !strings.Contains(string(body), "toolgate: internal error") {
		t.Fatalf("the panic was answered %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(string(body), "toolgate: internal error") || strings.Contains(string(body), "approver bug") {
		t.Fatalf("the answer %s must say the gate failed, and not what the panic said", body)
	}
	if n := testutil.ToFloat64(g.Metrics().Errors.WithLabelValues("panic")); n != 1 {
		t.Fatalf("the panic was counted %v times", n)
	}
	if !log.has("panic serving a request; refused", "approver bug") {
		t.Fatal("the panic was not logged")
	}

	// The real agent's call of the same tool, whose response is already an
	// event stream when the panic comes, ends with an error, not a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"text": "hi"}})
	t.Logf("the agent read: %v %v after %v", res, err, time.Since(start))
	if err == nil && !res.IsError {
		t.Fatal("a call whose approval panicked went through")
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("a call whose approval panicked hung")
	}
	// Nothing of the call outlives it: no keep-alive, no held call.
	var stacks bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
	if strings.Contains(stacks.String(), "(*Gate).keepAlive") {
		t.Fatalf("a keep-alive outlived the call whose approval panicked:\n%s", stacks.String())
	}
	if held := g.held.len(); held != 0 {
		t.Fatalf("%d calls still held after their approval panicked", held)
	}

	// The gate goes on serving.
	if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
		t.Fatalf("a call after the panic: %q %v", out, err)
	}
	if got := connect(t, genSession, g.url()).listNames(t); !slices.Equal(got, []string{"deploy", "echo"}) {
		t.Fatalf("a new agent after the panic listed %v", got)
	}
}
