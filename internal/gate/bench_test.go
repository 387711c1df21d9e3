package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
