package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// jsonCallServer answers the gate's own lists with the hostile server's
// clean catalogue and every tools/call with a JSON result of about size
// bytes: the answer the gate relays through its answer check.
func jsonCallServer(b *testing.B, size int) *upstream {
	b.Helper()
	text := strings.Repeat("x", size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if m.Method == "tools/list" {
			_, _ = io.WriteString(w, listAnswer(m.ID, cleanEcho, rmTool))
			return
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"`+text+`"}]}}`)
	}))
	b.Cleanup(srv.Close)
	return &upstream{srv: srv, gen: genSession}
}

// BenchmarkCallJSON is a tools/call answered with JSON, through a plain
// reverse proxy and through the gate: what the gate adds to an allowed
// call, small and large.
func BenchmarkCallJSON(b *testing.B) {
	for _, size := range []int{256, 1 << 20} {
		u := jsonCallServer(b, size)
		target, _ := url.Parse(u.srv.URL)
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.FlushInterval = -1
		rp.Transport = &http.Transport{MaxIdleConnsPerHost: 128, DisableCompression: true}
		proxy := httptest.NewServer(rp)
		b.Cleanup(proxy.Close)
		g := startGate(b, Options{})
		if err := g.Apply(hostileConfig(b, u)); err != nil {
			b.Fatal(err)
		}
		if size < 64<<10 {
			// In-process, the standard proxy breaks off large bodies now
			// and then; test/bench/gatebench runs it as a process of its own.
			b.Run(fmt.Sprintf("proxy/%dB", size), func(b *testing.B) { benchCall(b, proxy.URL, size) })
		}
		b.Run(fmt.Sprintf("gate/%dB", size), func(b *testing.B) { benchCall(b, g.url(), size) })
	}
}

func benchCall(b *testing.B, endpoint string, size int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"feature/login-form"}}}`
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		_, err = io.Copy(&out, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || out.Len() < size {
			b.Fatalf("status %d, %d bytes, %v: %.200s", resp.StatusCode, out.Len(), err, out.String())
		}
	}
}

// BenchmarkCallArgumentRules is a tools/call through the gate with 0, 1,
// 10 and 100 argument rules naming the tool, side by side in one run:
// what the rules add to an allowed call, whole (the floors are on in
// each). The rules are compiled when the configuration is applied; a call
// only evaluates them.
//
//	go test ./internal/gate -run '^$' -bench CallArgumentRules -benchmem -count 3
func BenchmarkCallArgumentRules(b *testing.B) {
	u := jsonCallServer(b, 256)
	for _, n := range []int{0, 1, 10, 100} {
		g := startGate(b, Options{})
		c := hostileConfig(b, u)
		for i := range n {
			name := fmt.Sprintf("p/rule-%d", i)
			c.ArgumentRules = append(c.ArgumentRules, gateproto.ArgumentRule{Name: name, Action: gateproto.RuleHold,
				Expression: []string{`has(args.text) && args.text == "main"`, `has(args.text) && args.text.startsWith("release/")`,
					`agent.namespace == "production"`, `tool.level >= "L4"`, `has(args.text) && args.text.matches("^(drop|truncate)\\b")`}[i%5]})
			for j := range c.Servers[0].Tools {
				if c.Servers[0].Tools[j].Name == "echo" {
					c.Servers[0].Tools[j].Rules = append(c.Servers[0].Tools[j].Rules, gateproto.ToolRule{Rule: name})
				}
			}
		}
		c.Revision = c.ComputeRevision()
		if err := g.Apply(c); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) { benchCall(b, g.url(), 256) })
	}
}

// BenchmarkFreshSession is one round of an agent that opens a session per
// task, through a plain reverse proxy and through the gate, in one process,
// against the Go SDK's server: initialize (2025-11-25), the initialized
// notification, the standalone GET stream, tools/list, one tools/call and
// DELETE, each read to its end, the GET stream closed by the DELETE. The
// client is a few plain HTTP requests, the same through both, so that the
// difference of the two allocation figures is what the gate allocates per
// round — what, under the gate's collector setting, decides how often the
// collector runs. test/bench/gatebench prices the same round with the Go
// SDK's client and the gate as a process of its own.
//
//	go test ./internal/gate -run '^$' -bench FreshSession -benchmem -count 3
func BenchmarkFreshSession(b *testing.B) {
	s := newMCPServer(map[string]string{"echo": "Echoes its text."})
	u := startUpstream(b, genSession, s)
	target, _ := url.Parse(u.srv.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 128}
	rp.ErrorLog = log.New(io.Discard, "", 0)
	proxy := httptest.NewServer(rp)
	b.Cleanup(proxy.Close)
	g := startGate(b, Options{})
	if err := g.Apply(config(b, gateproto.ModeEnforce, u, fingerprints(b, s), exposed("echo"))); err != nil {
		b.Fatal(err)
	}
	b.Run("proxy", func(b *testing.B) { benchFreshSession(b, proxy.URL) })
	b.Run("gate", func(b *testing.B) { benchFreshSession(b, g.url()) })
}

func benchFreshSession(b *testing.B, endpoint string) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	send := func(method, sid, body string) (*http.Response, string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, endpoint, rd)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if method == http.MethodGet {
			req.Header.Set("Accept", "text/event-stream")
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if method == http.MethodGet {
			return resp, ""
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode >= 300 {
			b.Fatalf("%s %.60s: %d %v: %.300s", method, body, resp.StatusCode, err, out)
		}
		return resp, string(out)
	}
	b.ReportAllocs()
	for b.Loop() {
		resp, _ := send(http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"v1"}}}`)
		sid := resp.Header.Get("Mcp-Session-Id")
		send(http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		stream, _ := send(http.MethodGet, sid, "")
		send(http.MethodPost, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
		if _, out := send(http.MethodPost, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`); !strings.Contains(out, "echo:hi") {
			b.Fatalf("tools/call answered %.300s", out)
		}
		send(http.MethodDelete, sid, "")
		_, _ = io.Copy(io.Discard, stream.Body)
		stream.Body.Close()
	}
}
