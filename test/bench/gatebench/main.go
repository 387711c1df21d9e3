// Command gatebench measures what the gate costs: tools/call latency
// directly against a Go SDK server, through a plain reverse proxy that does
// no MCP work, and through the gate binary, at 1, 16 and 64 concurrent
// clients; tools/list of a 100-tool catalogue through the gate and the
// proxy; and the gate process's resident memory idle and under load.
//
// It needs nothing but the repository: the servers and clients are the Go
// SDK's, in this process; the gate is the real binary (--gate-bin), run
// with a configuration file. Run it with `make bench-gate`.
//
// By default the tool the load calls echoes a five-byte text and the
// configuration sets no action on findings. To price the scan of what
// servers say as a pod whose agent can reach an L4 tool pays it, give the
// tool a clean answer of a realistic size and the configuration the action
// the operator then chooses:
//
//	gatebench --gate-bin bin/gate --result-bytes 4096 --result-action Redact
//
// --json-answers makes the called server answer with a JSON body rather
// than an event stream: the gate reads such an answer whole, up to the
// scan's bound, before it is judged, where an event is whole already.
//
// A long session hides what every session costs the gate. An agent's
// client commonly opens a session for a task and closes it after, so
// --sessions fresh measures that instead: each client, each round, opens a
// session (initialize, the standalone GET stream of the session-based
// generation, tools/list, one tools/call) and closes it, in the protocol
// generations --generation names. It reports each round's and each call's
// latency, the peak resident memory of the gate and of the proxy, and the
// gate's goroutines at their peak; the gate and the proxy are started anew
// for each concurrency, so that each peak is that concurrency's own. It
// also reads, from the gate's metrics, the sessions it tracks (during the
// rounds and after every session was closed), its requests in flight and
// its refusals at its bounds. --connections says whether an agent keeps
// its HTTP connections across its sessions (the default), opens new ones
// for each, or shares the SDK's default client with every other agent.
// Run it with `make bench-gate-sessions`. --clients sets the concurrencies
// of either mode.
//
// What a session costs the gate is reported per concurrent session at the
// peak: goroutines, heap in use and stacks over the idle gate's, and the
// gate's resident memory split into its own and its binary's pages.
//
// Where a round's time goes is reported phase by phase (connect, the
// standalone GET's wait for its headers within it, list, call, close), with
// the connections the agents and the relay had to open, the read and write
// system calls of the gate and of the proxy, and the gate's own histogram
// of the time it adds to each request. The target's ratio divides what the
// gate adds over the direct connection by what the proxy adds, a
// difference of two percentiles measured in different windows; beside it
// stands the ratio of the gate's whole latency to the proxy's, and
// --repeat measures the three targets again, in a rotated order, and
// reports each repetition's ratios and their median.
// --profile-dir keeps the gate's goroutine, heap, allocation, lock
// contention, blocking and CPU profiles and an execution trace of each
// point; --gate-args and --gate-env run the gate with a
// flag or an environment variable of its runtime (GOGC, GODEBUG) to price
// a setting before it becomes a default.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/test/bench/cleantext"

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
	resultBytes := flag.Int("result-bytes", 0, "the called tool answers with this many bytes of clean text (prose, log lines, JSON records, links) instead of echoing its argument; 0 echoes")
	resultAction := flag.String("result-action", "", "the gate configuration's resultAction of every tool and messageAction of every server (Record, Redact, Withhold, Hold); empty sets none")
	jsonAnswers := flag.Bool("json-answers", false, "the called server answers each request with a JSON body instead of an event stream")
	sessions := flag.String("sessions", sessionsLong, "long: each client keeps one session and calls in it; fresh: each client opens a new session every round (initialize, the GET stream, tools/list, tools/call) and closes it")
	generations := flag.String("generation", "", "with --sessions fresh: session (2025-11-25, a session id and the GET stream), stateless (the SDK's latest revision) or both, the default; long sessions are of the session generation")
	clients := flag.String("clients", "1,16,64", "the numbers of concurrent clients measured, comma-separated")
	gateArgs := flag.String("gate-args", "", "more flags for the gate binary, space-separated (--memory-limit-bytes=0, --max-in-flight=512 …): to measure a setting before it becomes a default")
	gateEnv := flag.String("gate-env", "", "more environment of the gate binary, space-separated NAME=value (GOGC=50, GODEBUG=…): to measure a runtime setting before the gate makes it its own")
	profileDir := flag.String("profile-dir", "", "with --sessions fresh: run the gate with --profiling and write its goroutine, heap, allocation, contention and blocking profiles, taken halfway through each concurrency's timed rounds (the first repetition's), then a CPU profile and a second's execution trace, to this directory")
	connections := flag.String("connections", string(connAgent), "with --sessions fresh, the HTTP connections of an agent's sessions: agent (one client per agent, kept across its sessions), session (new connections for every session, closed with it) or shared (the SDK's default client, shared by every agent: two idle connections per host, so most requests under concurrency open one)")
	repeat := flag.Int("repeat", 1, "with --sessions fresh: measure the three targets this many times at each concurrency, in an order rotated each time, and report each repetition's ratios and their median beside the figures of all rounds pooled")
	flag.Parse()
	if *proxyListen != "" {
		fmt.Fprintln(os.Stderr, serveProxy(*proxyListen, *proxyTarget))
		os.Exit(1)
	}
	action := gateproto.FindingAction(*resultAction)
	if !action.Valid() {
		fmt.Fprintf(os.Stderr, "gatebench: --result-action %q: want %s, %s, %s or %s\n", action, gateproto.FindingRecord, gateproto.FindingRedact, gateproto.FindingWithhold, gateproto.FindingHold)
		os.Exit(2)
	}
	if *resultBytes < 0 {
		fmt.Fprintf(os.Stderr, "gatebench: --result-bytes %d: negative\n", *resultBytes)
		os.Exit(2)
	}
	gens, err := parseGenerations(*sessions, *generations)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatebench:", err)
		os.Exit(2)
	}
	if *repeat < 1 {
		fmt.Fprintf(os.Stderr, "gatebench: --repeat %d: want at least 1\n", *repeat)
		os.Exit(2)
	}
	conc, err := parseClients(*clients)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatebench:", err)
		os.Exit(2)
	}
	conns, err := parseConnections(*connections)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatebench:", err)
		os.Exit(2)
	}
	o := options{bin: *bin, dur: *dur, action: action, jsonAnswers: *jsonAnswers, clients: conc, connections: conns,
		gateArgs: strings.Fields(*gateArgs), gateEnv: strings.Fields(*gateEnv), profileDir: *profileDir, repeat: *repeat}
	if *resultBytes > 0 {
		o.result = cleantext.Of(*resultBytes)
	}
	if *sessions == sessionsFresh {
		err = runFresh(o, gens)
	} else {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatebench:", err)
		os.Exit(1)
	}
}

// options are what one run measures.
type options struct {
	bin string
	dur time.Duration
	// result is what the called tool answers; "" echoes its argument.
	result string
	// action is the configuration's action on findings; "" sets none.
	action      gateproto.FindingAction
	jsonAnswers bool
	// clients are the concurrencies measured, in order.
	clients []int
	// connections are the HTTP connections fresh sessions use.
	connections connReuse
	// gateArgs are flags the gate binary is run with besides the
	// benchmark's own.
	gateArgs []string
	// gateEnv is environment the gate is run with besides this
	// program's own.
	gateEnv []string
	// profileDir, when set, receives the gate's profiles at the middle of
	// each fresh-session point.
	profileDir string
	// repeat is how many times each fresh-session point measures its
	// three targets.
	repeat int
}

type echoIn struct {
	Text string `json:"text"`
}

// newServer serves n tools; each answers with result, or echoes its text
// when result is "".
func newServer(n int, result string) *mcp.Server {
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
			text := in.Text
			if result != "" {
				text = result
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	}
	return s
}

// upstream serves one SDK server on /mcp, session-based or stateless
// (answering with JSON bodies when jsonAnswers is set, else with event
// streams), and a stateless JSON view of it for reading fingerprints. Every
// request to /mcp is counted by method in seen, when seen is not nil.
func upstream(s *mcp.Server, stateless, jsonAnswers bool, seen *methodCounts) (*httptest.Server, map[string]string, error) {
	mux := http.NewServeMux()
	var opts *mcp.StreamableHTTPOptions
	if stateless || jsonAnswers {
		opts = &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: jsonAnswers}
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
	if seen != nil {
		counted := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.add(r.Method)
			counted.ServeHTTP(w, r)
		})
	}
	mux.Handle("/mcp", h)
	mux.Handle("/fp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	srv := httptest.NewUnstartedServer(mux)
	if seen != nil {
		// The connections the server accepts: a relay that cannot
		// reuse its connection to the server pays a handshake and a
		// connection's goroutines and buffers on both sides.
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				seen.conns.Add(1)
			}
		}
	}
	srv.Start()
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

func run(o options) error {
	bin, dur := o.bin, o.dur
	echoSrv, echoFP, err := upstream(newServer(1, o.result), false, o.jsonAnswers, nil)
	if err != nil {
		return err
	}
	defer echoSrv.Close()
	catSrv, catFP, err := upstream(newServer(100, ""), false, false, nil)
	if err != nil {
		return err
	}
	defer catSrv.Close()

	echoProxy, echoProxyURL, err := startProxy(echoSrv.URL)
	if err != nil {
		return err
	}
	defer echoProxy.stop()
	catProxy, catProxyURL, err := startProxy(catSrv.URL)
	if err != nil {
		return err
	}
	defer catProxy.stop()

	gw, err := startGate(bin, o.action, o.gateArgs, o.gateEnv, []benchServer{
		{"bench/echo", echoSrv.URL + "/mcp", echoFP}, {"bench/catalogue", catSrv.URL + "/mcp", catFP},
	})
	if err != nil {
		return err
	}
	defer gw.stop()
	metrics := gw.metrics
	gateBase := gw.base
	time.Sleep(500 * time.Millisecond)
	idle := rss(gw.pid())
	// Read after the RSS: serving the scrape allocates in the gate.
	idleHeap := gauge(metrics, "go_memstats_heap_inuse_bytes")

	fmt.Printf("gatebench: %s, GOMAXPROCS=%d, %v per point\n", time.Now().Format(time.RFC3339), runtimeProcs(), dur)
	fmt.Println(answerLine(o))
	targets := []struct{ name, url string }{
		{"direct", echoSrv.URL + "/mcp"},
		{"proxy", echoProxyURL + "/mcp"},
		{"gate", gateBase + gate.ServerPath("bench/echo")},
	}
	type point struct{ p50, p99 time.Duration }
	results := map[string]map[int]point{}
	peak := idle
	for _, c := range o.clients {
		for _, tg := range targets {
			// What the gate spends on the timed calls: its CPU time and
			// its collections, read when the calls start and stop.
			var cpu0, cpu1 time.Duration
			var gc0, gc1 int64
			window := func(start bool) {
				if tg.name != "gate" {
					return
				}
				cpu, gcs := cpuTime(gw.pid()), gauge(metrics, "go_gc_duration_seconds_count")
				if start {
					cpu0, gc0 = cpu, gcs
				} else {
					cpu1, gc1 = cpu, gcs
				}
			}
			lat, err := measureCalls(tg.url, c, dur, o.result, window)
			if err != nil {
				return fmt.Errorf("%s at %d: %w", tg.name, c, err)
			}
			if results[tg.name] == nil {
				results[tg.name] = map[int]point{}
			}
			results[tg.name][c] = point{pct(lat, 50), pct(lat, 99)}
			if tg.name == "gate" {
				peak = max(peak, rss(gw.pid()))
			}
			fmt.Printf("tools/call %-6s c=%-2d n=%-6d p50=%-9v p99=%v\n", tg.name, c, len(lat), pct(lat, 50), pct(lat, 99))
			if tg.name == "gate" && len(lat) > 0 && gc0 >= 0 && gc1 >= 0 {
				fmt.Printf("tools/call gate   c=%-2d CPU %v per call, %.1f collections per 1000 calls\n",
					c, ((cpu1 - cpu0) / time.Duration(len(lat))).Round(time.Microsecond), float64(gc1-gc0)*1000/float64(len(lat)))
			}
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
			peak = max(peak, rss(gw.pid()))
		}
		fmt.Printf("tools/list 100 tools %-6s n=%-5d tools=%d p50=%-9v p99=%v\n", tg.name, len(lat), n, pct(lat, 50), pct(lat, 99))
	}
	hwm := hwm(gw.pid())
	fmt.Printf("gate RSS: idle %.1f MiB, under load (sampled) %.1f MiB, peak (VmHWM) %.1f MiB (target <= 30 MiB)\n",
		mib(idle), mib(peak), mib(hwm))
	if idleHeap >= 0 {
		fmt.Printf("gate heap in use, idle: %.1f MiB\n", mib(idleHeap))
	}
	return nil
}

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
// a loop for d, and returns every call's latency. Every answer is checked
// to be the one the server sent (result, or the echo when result is ""):
// a gate that altered a clean answer would be measuring something else.
// window is called with true as the timed calls start, after the
// sessions are set up, and with false when the last has returned.
func measureCalls(endpoint string, c int, d time.Duration, result string, window func(start bool)) ([]time.Duration, error) {
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
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "warm"}})
		if err != nil {
			return nil, err
		}
		if err := sameAnswer(res, result, "warm"); err != nil {
			return nil, err
		}
	}
	var (
		mu  sync.Mutex
		all []time.Duration
		wg  sync.WaitGroup
		bad error
	)
	window(true)
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
				if err := sameAnswer(res, result, "hello"); err != nil {
					mu.Lock()
					bad = err
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	window(false)
	return all, bad
}

// sameAnswer checks that a call's result is the text the server sent:
// result, or echo when result is "".
func sameAnswer(res *mcp.CallToolResult, result, echo string) error {
	want := result
	if want == "" {
		want = echo
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("call: %d content blocks (tool error: %v), want one text", len(res.Content), res.IsError)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("call: content of type %T, want text", res.Content[0])
	}
	if tc.Text != want {
		return fmt.Errorf("call: the answer came back altered (%d bytes, want %d): %.120q", len(tc.Text), len(want), tc.Text)
	}
	return nil
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

// gauge reads one unlabelled gauge from a Prometheus text exposition, or
// -1 when it cannot.
func gauge(u, name string) int64 {
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return int64(f)
			}
		}
	}
	return -1
}

// cpuTime is the user and system CPU time a process has used, from
// /proc/<pid>/stat; 0 when it cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted are those after it (state is field 3; utime and stime are
	// fields 14 and 15).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	_, _ = fmt.Sscan(f[11], &utime)
	_, _ = fmt.Sscan(f[12], &stime)
	// Linux reports both in clock ticks of USER_HZ, 100 on every
	// architecture Go supports.
	return time.Duration(utime+stime) * (time.Second / 100)
}

func rss(pid int) int64 { return status(pid, "VmRSS") }
func hwm(pid int) int64 { return status(pid, "VmHWM") }

func mib(b int64) float64 { return float64(b) / (1 << 20) }
