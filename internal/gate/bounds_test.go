package gate

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/toolgate/toolgate/internal/gateproto"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, b := postMessage(t, url, body, withProtocol)
	return resp.StatusCode, b
}

// listMessage is a client's first tools/list.
const listMessage = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// withProtocol names a session-based protocol version on a request.
func withProtocol(r *http.Request) { r.Header.Set("Mcp-Protocol-Version", "2025-06-18") }

// postMessage posts one JSON-RPC message as an MCP client sends it, after
// mod (when given) adjusts the request, and returns the response, its
// body read and closed.
func postMessage(t testing.TB, url, body string, mod func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if mod != nil {
		mod(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestBounds(t *testing.T) {
	big := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		big[n] = strings.Repeat("A long description. ", 100)
	}
	s := newMCPServer(big)
	u := startUpstream(t, genStateless, s)
	g := startGate(t, Options{Limits: Limits{MaxRequestBytes: 1024, MaxListBytes: 4096}})
	if err := g.Apply(config(t, gateproto.ModeEnforce, u, fingerprints(t, s), exposed("a"))); err != nil {
		t.Fatal(err)
	}

	code, body := post(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"text":"`+strings.Repeat("x", 2048)+`"}}}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "exceeds 1024 bytes") {
		t.Fatalf("large request: %d %s", code, body)
	}
	code, body = post(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if !strings.Contains(body, `"error":{"code":-32001,"message":"toolgate: the server's tools/list response exceeds 4096 bytes"}`) {
		t.Fatalf("large list: %d %s", code, body)
	}
	code, body = post(t, g.url(), `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`)
	if code != http.StatusBadRequest || !strings.Contains(body, "batches") {
		t.Fatalf("batch: %d %s", code, body)
	}
	code, _ = post(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`)
	if code != http.StatusBadRequest {
		t.Fatalf("duplicate names: %d", code)
	}
	for _, l := range []string{"request-bytes", "list-bytes"} {
		if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues(l)); n != 1 {
			t.Errorf("limit %s counted %v times", l, n)
		}
	}
}

func TestSlowServerTimesOut(t *testing.T) {
	s := newMCPServer(catalogue)
	release := make(chan struct{})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	u := startUpstream(t, genStateless, s)
	// Registered after the server, so it runs before the server's Close,
	// which waits for the held handlers.
	t.Cleanup(func() { close(release) })
	u.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		h.ServeHTTP(w, r)
	})
	g := startGate(t, Options{Limits: Limits{ResponseHeaderTimeout: 200 * time.Millisecond}})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, body := post(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if code != http.StatusBadGateway || !strings.Contains(body, "did not answer in time") || time.Since(start) > 5*time.Second {
		t.Fatalf("slow server: %d %s after %v", code, body, time.Since(start))
	}
	if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues("response-header-timeout")); n != 1 {
		t.Fatalf("timeout counted %v times", n)
	}
}

func TestInFlightBound(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genSession, s)
	g := startGate(t, Options{Limits: Limits{MaxInFlight: 1}})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	// One request in flight at most: a request whose body has not all come
	// takes the slot, and the next request is told why it fails.
	holdRequest(t, g, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url(), MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("the in-flight bound was not reported: %v", err)
	}
	if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues("in-flight")); n < 1 {
		t.Fatalf("in-flight counted %v times", n)
	}
}

// TestStreamBound: the agents' standalone streams have a bound of their
// own, and streams at it leave the requests of their sessions room.
func TestStreamBound(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genSession, s)
	g := startGate(t, Options{Limits: Limits{MaxStreams: 1, MaxInFlight: 1}})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	init, _ := postMessage(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, withProtocol)
	sid := init.Header.Get("Mcp-Session-Id")
	openStream := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, g.url(), nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		withProtocol(req)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if resp := openStream(); resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("the first stream: %d, session %q", resp.StatusCode, sid)
	}
	if resp := openStream(); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream past the bound: %d, Retry-After %q; want 503 and when to retry", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues("streams")); n != 1 {
		t.Fatalf("the stream bound counted %v times, want 1", n)
	}
	// The one request slot is free with the stream open.
	resp, body := postMessage(t, g.url(), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, func(r *http.Request) {
		withProtocol(r)
		r.Header.Set("Mcp-Session-Id", sid)
	})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"tools"`) {
		t.Fatalf("a request with the stream open: %d %s", resp.StatusCode, body)
	}
	if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues("in-flight")); n != 0 {
		t.Fatalf("the in-flight bound counted %v times with one stream and one request", n)
	}
}

// holdRequest sends the gate a POST whose body does not end until the test
// does, and waits until it holds a slot of the in-flight bound, the
// inFlight-th.
func holdRequest(t *testing.T, g *testGate, inFlight float64) {
	t.Helper()
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, g.url(), pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	client := &http.Client{Transport: &http.Transport{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	t.Cleanup(func() {
		pw.Close()
		<-done
		client.CloseIdleConnections()
	})
	if _, err := pw.Write([]byte(`{"jsonrpc":"2.0",`)); err != nil {
		t.Fatal(err)
	}
	waitInFlight(t, g, inFlight)
}

// waitInFlight waits until the gate has want requests in flight: a
// handler gives its slot back just after its answer is sent.
func waitInFlight(t *testing.T, g *testGate, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(g.Metrics().InFlight) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%v requests in flight, want %v", testutil.ToFloat64(g.Metrics().InFlight), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionEndedAtTheInFlightBound: an agent that ends its session while
// the gate is at its in-flight bound gets a 503, and the gate forgets the
// session all the same, so that sessions nobody uses never fill the table.
func TestSessionEndedAtTheInFlightBound(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genSession, s)
	const bound = 3
	g := startGate(t, Options{Limits: Limits{MaxInFlight: bound}})
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fingerprints(t, s))); err != nil {
		t.Fatal(err)
	}
	// A client of its own, so that no connection of another test's is
	// reused or left behind.
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	// A session of a real agent, with its GET stream, and others opened
	// by hand.
	a := connect(t, genSession, g.url())
	sid := a.cs.ID()
	for i := 2; i <= bound; i++ {
		init, _ := postMessage(t, g.url(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, withProtocol)
		if init.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session %d opened without an id", i)
		}
	}
	if n := testutil.ToFloat64(g.Metrics().Sessions); n != bound || sid == "" {
		t.Fatalf("%v sessions tracked, the agent's id %q; want %d", n, sid, bound)
	}
	// Every request slot taken by a request whose body has not all come,
	// once the agent's own have ended.
	waitInFlight(t, g, 0)
	for i := 1; i <= bound; i++ {
		holdRequest(t, g, float64(i))
	}
	del, _ := http.NewRequest(http.MethodDelete, g.url(), nil)
	del.Header.Set("Mcp-Session-Id", sid)
	resp, err := client.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("DELETE at the bound: %d, want 503", resp.StatusCode)
	}
	if n := testutil.ToFloat64(g.Metrics().Sessions); n != bound-1 {
		t.Fatalf("%v sessions tracked after an agent ended its own at the bound; want it forgotten, the others kept", n)
	}
}
