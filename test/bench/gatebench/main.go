// Command gatebench measures what the gate costs: tools/call latency
// directly against a Go SDK server, through a plain reverse proxy that does
// no MCP work, and through the gate binary, at 1, 16 and 64 concurrent
// clients; tools/list of a 100-tool catalogue through the gate and the
// proxy; and the gate process's resident memory idle and under load.
//
// It needs nothing but the repository: the servers and clients are the Go
// SDK's, in this process; the gate is the real binary (--gate-bin), run
// with a configuration file. Run it with `make bench-gate`.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
)

func main() {
	bin := flag.String("gate-bin", "bin/gate", "the gate binary")
	dur := flag.Duration("duration", 3*time.Second, "measuring time per target and concurrency")
	proxyListen := flag.String("proxy-listen", "", "internal: run as the plain reverse proxy on this address")
	proxyTarget := flag.String("proxy-target", "", "internal: the proxy's upstream")
	flag.Parse()
	if *proxyListen != "" {
		// The plain proxy runs as a process of its own, as the gate does,
		// so that neither shares the clients' scheduler.
		u, _ := url.Parse(*proxyTarget)
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.FlushInterval = -1
		rp.Transport = &http.Transport{MaxIdleConnsPerHost: 128}
		// Sessions closing cut their streams; that is not news.
		rp.ErrorLog = log.New(io.Discard, "", 0)
		fmt.Fprintln(os.Stderr, http.ListenAndServe(*proxyListen, rp))
		os.Exit(1)
	}
	if err := run(*bin, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "gatebench:", err)
		os.Exit(1)
	}
}

type echoIn struct {
	Text string `json:"text"`
}

func newServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	for i := range n {
		name := "echo"
		if n > 1 {
			name = fmt.Sprintf("tool_%03d", i)
		}
		mcp.AddTool(s, &mcp.Tool{
			Name:        name,
			Description: fmt.Sprintf("Tool %d of the benchmark: echoes its text back, with a description about as long as a real server's.", i),
		}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	}
	return s
}

// upstream serves one SDK server, session-based, and a stateless JSON view
// of it for reading fingerprints.
func upstream(s *mcp.Server) (*httptest.Server, map[string]string, error) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	mux.Handle("/fp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	srv := httptest.NewServer(mux)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/fp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	_, res, err := rpcmsg.FilterList(nil, body, rpcmsg.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	fps := map[string]string{}
	for _, t := range res.Tools {
		fps[t.Name] = t.Fingerprint
	}
	return srv, fps, nil
}

func run(bin string, dur time.Duration) error {
	echoSrv, echoFP, err := upstream(newServer(1))
	if err != nil {
		return err
	}
	defer echoSrv.Close()
	catSrv, catFP, err := upstream(newServer(100))
	if err != nil {
		return err
	}
	defer catSrv.Close()

	// The plain proxy: the standard library's, flushing as it copies, in a
	// process of its own (this program, run again).
	self, err := os.Executable()
	if err != nil {
		return err
	}
	proxy := func(target string) (string, error) {
		addr := freeAddr()
		cmd := exec.Command(self, "--proxy-listen", addr, "--proxy-target", target)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return "", err
		}
		stopProxies = append(stopProxies, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return "http://" + addr, nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		return "", fmt.Errorf("the proxy did not start on %s", addr)
	}
	defer func() {
		for _, f := range stopProxies {
			f()
		}
	}()
	echoProxyURL, err := proxy(echoSrv.URL)
	if err != nil {
		return err
	}
	catProxyURL, err := proxy(catSrv.URL)
	if err != nil {
		return err
	}

	cfg := &gateproto.Config{Version: gateproto.Version, Namespace: "bench", Pod: "bench-0", Policies: []string{"p"}, Mode: gateproto.ModeEnforce}
	for _, s := range []struct {
		id, url string
		fps     map[string]string
	}{{"bench/echo", echoSrv.URL + "/mcp", echoFP}, {"bench/catalogue", catSrv.URL + "/mcp", catFP}} {
		srv := gateproto.Server{ID: s.id, Ready: true, Upstream: &gateproto.Upstream{URL: s.url, Transport: "StreamableHTTP"}}
		names := make([]string, 0, len(s.fps))
		for n := range s.fps {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			srv.Tools = append(srv.Tools, gateproto.Tool{Name: n, Decision: gateproto.DecisionExposed, Fingerprint: s.fps[n], Level: "L1", Pin: strings.ReplaceAll(n, "_", "-")})
		}
		cfg.Servers = append(cfg.Servers, srv)
	}
	cfg.Revision = cfg.ComputeRevision()
	dir, err := os.MkdirTemp("", "gatebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfgPath := dir + "/config.json"
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		return err
	}
	listen, metrics := freeAddr(), freeAddr()
	cmd := exec.Command(bin, "--config-file", cfgPath, "--listen", listen, "--metrics-addr", metrics, "--log-level", "warn")
	// The audit lines: written, as in production, to a file that keeps
	// nothing (a pipe would charge this process for copying them).
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	cmd.Stdout = devNull
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the gate: %w", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := waitReady("http://" + metrics + "/readyz"); err != nil {
		return err
	}
	gateBase := "http://" + listen
	time.Sleep(500 * time.Millisecond)
	idle := rss(cmd.Process.Pid)

	fmt.Printf("gatebench: %s, GOMAXPROCS=%d, %v per point\n", time.Now().Format(time.RFC3339), runtimeProcs(), dur)
	targets := []struct{ name, url string }{
		{"direct", echoSrv.URL + "/mcp"},
		{"proxy", echoProxyURL + "/mcp"},
		{"gate", gateBase + gate.ServerPath("bench/echo")},
	}
	type point struct{ p50, p99 time.Duration }
	results := map[string]map[int]point{}
	peak := idle
	for _, c := range []int{1, 16, 64} {
		for _, tg := range targets {
			lat, err := measureCalls(tg.url, c, dur)
			if err != nil {
				return fmt.Errorf("%s at %d: %w", tg.name, c, err)
			}
			if results[tg.name] == nil {
				results[tg.name] = map[int]point{}
			}
			results[tg.name][c] = point{pct(lat, 50), pct(lat, 99)}
			if tg.name == "gate" {
				peak = max(peak, rss(cmd.Process.Pid))
			}
			fmt.Printf("tools/call %-6s c=%-2d n=%-6d p50=%-9v p99=%v\n", tg.name, c, len(lat), pct(lat, 50), pct(lat, 99))
		}
		d, p, g := results["direct"][c], results["proxy"][c], results["gate"][c]
		fmt.Printf("tools/call added over direct c=%-2d: proxy p50 +%v p99 +%v | gate p50 +%v p99 +%v | gate/proxy added p50 %.2fx p99 %.2fx (target <= 1.5x)\n",
			c, p.p50-d.p50, p.p99-d.p99, g.p50-d.p50, g.p99-d.p99, ratio(g.p50-d.p50, p.p50-d.p50), ratio(g.p99-d.p99, p.p99-d.p99))
	}

	for _, tg := range []struct{ name, url string }{
		{"direct", catSrv.URL + "/mcp"}, {"proxy", catProxyURL + "/mcp"}, {"gate", gateBase + gate.ServerPath("bench/catalogue")},
	} {
		lat, n, err := measureLists(tg.url, dur)
		if err != nil {
			return fmt.Errorf("list %s: %w", tg.name, err)
		}
		if tg.name == "gate" {
			peak = max(peak, rss(cmd.Process.Pid))
		}
		fmt.Printf("tools/list 100 tools %-6s n=%-5d tools=%d p50=%-9v p99=%v\n", tg.name, len(lat), n, pct(lat, 50), pct(lat, 99))
	}
	hwm := hwm(cmd.Process.Pid)
	fmt.Printf("gate RSS: idle %.1f MiB, under load (sampled) %.1f MiB, peak (VmHWM) %.1f MiB (target <= 30 MiB)\n",
		mib(idle), mib(peak), mib(hwm))
	return nil
}

var stopProxies []func()

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitReady(u string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the gate was not ready at %s", u)
}

func connect(ctx context.Context, endpoint string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// measureCalls runs c clients, each with its own session, calling echo in
// a loop for d, and returns every call's latency.
func measureCalls(endpoint string, c int, d time.Duration) ([]time.Duration, error) {
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, 0, c)
	defer func() {
		for _, cs := range sessions {
			_ = cs.Close()
		}
	}()
	for range c {
		cs, err := connect(ctx, endpoint)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, cs)
		// Warm up: the gate's first call lists the server.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "warm"}}); err != nil {
			return nil, err
		}
	}
	var (
		mu  sync.Mutex
		all []time.Duration
		wg  sync.WaitGroup
		bad error
	)
	stop := time.Now().Add(d)
	for _, cs := range sessions {
		wg.Go(func() {
			var lat []time.Duration
			for time.Now().Before(stop) {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
				if err != nil || res.IsError {
					mu.Lock()
					bad = fmt.Errorf("call: %w (tool error: %v)", err, res != nil && res.IsError)
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all, bad
}

func measureLists(endpoint string, d time.Duration) ([]time.Duration, int, error) {
	ctx := context.Background()
	cs, err := connect(ctx, endpoint)
	if err != nil {
		return nil, 0, err
	}
	defer cs.Close()
	var lat []time.Duration
	n, failed := 0, 0
	stop := time.Now().Add(d)
	for time.Now().Before(stop) {
		t0 := time.Now()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			// Counted, not fatal: a shared machine drops the odd request.
			if failed++; failed > 10 {
				return nil, 0, err
			}
			continue
		}
		lat = append(lat, time.Since(t0))
		n = len(res.Tools)
	}
	return lat, n, nil
}

func pct(lat []time.Duration, p int) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	i := len(s) * p / 100
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i].Round(time.Microsecond)
}

func status(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte(field+":")); ok {
			var kb int64
			_, _ = fmt.Sscan(string(v), &kb)
			return kb << 10
		}
	}
	return 0
}

func rss(pid int) int64 { return status(pid, "VmRSS") }
func hwm(pid int) int64 { return status(pid, "VmHWM") }

func mib(b int64) float64 { return float64(b) / (1 << 20) }
