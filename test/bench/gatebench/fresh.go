package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gate"
)

// The values of --sessions.
const (
	sessionsLong  = "long"
	sessionsFresh = "fresh"
)

// generation is a generation of the streamable HTTP protocol a fresh
// session is opened in.
type generation string

const (
	// genSession asks for 2025-11-25: initialize, a session id, the
	// standalone GET stream, and a DELETE on close.
	genSession generation = "session"
	// genStateless asks for the SDK's latest revision: server/discover
	// and no session at all.
	genStateless generation = "stateless"
)

// connReuse says which HTTP connections an agent's sessions use.
type connReuse string

const (
	// connAgent: one HTTP client per agent, kept across its sessions, as
	// an agent's process that keeps its client.
	connAgent connReuse = "agent"
	// connSession: new connections for every session, closed with it, as
	// an agent that starts afresh for every task.
	connSession connReuse = "session"
	// connShared: the SDK's default, http.DefaultClient, shared by every
	// agent of the process; it keeps two idle connections per host, so
	// under concurrency most requests open a connection of their own.
	connShared connReuse = "shared"
)

func (r connReuse) describe() string {
	switch r {
	case connSession:
		return "new for every session, closed with it"
	case connShared:
		return "the SDK's default client, shared by every agent"
	}
	return "one client per agent, kept across its sessions"
}

func parseConnections(s string) (connReuse, error) {
	switch c := connReuse(s); c {
	case connAgent, connSession, connShared:
		return c, nil
	}
	return "", fmt.Errorf("--connections %q: want %s, %s or %s", s, connAgent, connSession, connShared)
}

// client is the HTTP client of one agent's next session, and what to do
// once the session is closed; nil leaves the SDK its default.
func (r connReuse) client(kept *http.Client) (*http.Client, func()) {
	switch r {
	case connSession:
		hc := newHTTPClient()
		return hc, hc.CloseIdleConnections
	case connShared:
		return nil, func() {}
	}
	return kept, func() {}
}

// sessionVersion is the revision the session-based generation asks for.
const sessionVersion = "2025-11-25"

func (g generation) describe() string {
	if g == genStateless {
		return "the SDK's latest revision, stateless (server/discover, no session id, no GET stream)"
	}
	return sessionVersion + ", session-based (initialize, Mcp-Session-Id, the standalone GET stream, DELETE on close)"
}

// parseGenerations reads --generation as --sessions qualifies it. Long
// sessions are measured in the session-based generation alone, as they
// always were; fresh sessions default to both generations.
func parseGenerations(sessions, gen string) ([]generation, error) {
	switch sessions {
	case sessionsLong:
		if gen != "" && gen != string(genSession) {
			return nil, fmt.Errorf("--generation %s: long sessions are measured in the session generation alone; use --sessions fresh", gen)
		}
		return []generation{genSession}, nil
	case sessionsFresh:
		switch gen {
		case "", "both":
			return []generation{genSession, genStateless}, nil
		case string(genSession), string(genStateless):
			return []generation{generation(gen)}, nil
		}
		return nil, fmt.Errorf("--generation %q: want session, stateless or both", gen)
	}
	return nil, fmt.Errorf("--sessions %q: want %s or %s", sessions, sessionsLong, sessionsFresh)
}

// parseClients reads --clients: positive numbers of concurrent clients,
// comma-separated, measured in the order given.
func parseClients(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--clients %q: %q is not a positive number of clients", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// runFresh measures, for each generation and concurrency, rounds that each
// open a session and close it, directly, through the plain proxy and
// through the gate.
func runFresh(o options, gens []generation) error {
	fmt.Printf("gatebench: %s, GOMAXPROCS=%d, %v per point, fresh sessions\n", time.Now().Format(time.RFC3339), runtimeProcs(), o.dur)
	fmt.Println(answerLine(o))
	fmt.Printf("fresh sessions: each client, each round, opens a session with the Go SDK's client, lists the tools, calls one and closes the session; "+
		"HTTP connections: %s; the gate (one server of one tool) and the proxy start anew for each concurrency\n", o.connections.describe())
	for _, g := range gens {
		seen := &methodCounts{}
		srv, fps, err := upstream(newServer(1, o.result), g == genStateless, o.jsonAnswers, seen)
		if err != nil {
			return err
		}
		fmt.Printf("fresh %s: %s\n", g, g.describe())
		for _, c := range o.clients {
			if err := freshPoint(o, g, c, srv.URL, fps, seen); err != nil {
				srv.Close()
				return fmt.Errorf("%s at %d: %w", g, c, err)
			}
		}
		srv.Close()
	}
	return nil
}

// freshPoint measures one generation at one concurrency against the three
// targets, with a gate and a proxy of their own.
func freshPoint(o options, g generation, c int, upstreamURL string, fps map[string]string, seen *methodCounts) error {
	proxy, proxyURL, err := startProxy(upstreamURL)
	if err != nil {
		return err
	}
	defer proxy.stop()
	args := o.gateArgs
	if o.profileDir != "" {
		args = append(slices.Clip(args), "--profiling")
	}
	gw, err := startGate(o.bin, o.action, args, o.gateEnv, []benchServer{{"bench/echo", upstreamURL + "/mcp", fps}})
	if err != nil {
		return err
	}
	defer gw.stop()
	time.Sleep(500 * time.Millisecond)
	idle, proxyIdle := rss(gw.pid()), rss(proxy.pid())
	idleSeries := scrape(gw.metrics)

	targets := []struct{ name, url string }{
		{"direct", upstreamURL + "/mcp"},
		{"proxy", proxyURL + "/mcp"},
		{"gate", gw.base + gate.ServerPath("bench/echo")},
	}
	// Each repetition measures the three targets again, in an order
	// rotated by one: the pooled figures come from every repetition, and
	// the ratios of each repetition show how far one window's figure can
	// be trusted.
	results := map[string]*roundTimes{"direct": {}, "proxy": {}, "gate": {}}
	reps := make([]map[string]*roundTimes, 0, o.repeat)
	var (
		gateCPU, proxyCPU time.Duration
		gateSys, proxySys int64
		gcs, allocs       int64
		gc0, alloc0       int64
		peaks             = map[string]int64{}
		stopSampling      func() map[string]int64
		profiled          func()
		upBefore, upThen  [4]int64
		connsBefore       int64
		profile           = true
	)
	for rep := range o.repeat {
		these := map[string]*roundTimes{}
		for _, tg := range rotated(targets, rep) {
			window := func(start bool) {
				if start {
					upBefore, connsBefore = seen.snapshot(), seen.conns.Load()
				} else {
					upThen = seen.snapshot()
					rt := results[tg.name]
					rt.upstreamConns += int(seen.conns.Load() - connsBefore)
				}
				switch tg.name {
				case "proxy":
					// The proxy's CPU over its rounds: beside the gate's,
					// a price of the gate's work that the machine's load
					// moves far less than it moves latency.
					if start {
						proxyCPU -= cpuTime(proxy.pid())
						proxySys -= syscalls(proxy.pid())
					} else {
						proxyCPU += cpuTime(proxy.pid())
						proxySys += syscalls(proxy.pid())
					}
					return
				case "gate":
				default:
					return
				}
				if start {
					gateCPU -= cpuTime(gw.pid())
					gateSys -= syscalls(gw.pid())
					gc0, alloc0 = gauge(gw.metrics, "go_gc_duration_seconds_count"), gauge(gw.metrics, allocated)
					stopSampling = samplePeaks(gw.metrics, gw.pid(), 200*time.Millisecond, sampled...)
					profiled = func() {}
					if profile {
						profiled = takeProfiles(gw, o.profileDir, fmt.Sprintf("%s-c%d", g, c), o.dur/2)
						profile = false
					}
					return
				}
				profiled()
				for k, v := range stopSampling() {
					peaks[k] = max(peaks[k], v)
				}
				gateCPU += cpuTime(gw.pid())
				gateSys += syscalls(gw.pid())
				gc1, alloc1 := gauge(gw.metrics, "go_gc_duration_seconds_count"), gauge(gw.metrics, allocated)
				if gc0 < 0 || gc1 < 0 {
					gcs = -1
				} else if gcs >= 0 {
					gcs += gc1 - gc0
				}
				allocs += alloc1 - alloc0
			}
			rt, err := measureRounds(tg.url, g, c, o.dur, o.result, o.connections, window)
			if err != nil {
				return fmt.Errorf("%s: %w", tg.name, err)
			}
			these[tg.name] = rt
			results[tg.name].merge(rt)
			repeat := ""
			if o.repeat > 1 {
				repeat = fmt.Sprintf(" (repetition %d)", rep+1)
			}
			fmt.Printf("fresh %-9s %-6s c=%-3d rounds=%-6d errors=%-4d round p50=%-9v p99=%-9v call p50=%-9v p99=%-9v (connect p50 %v, list p50 %v, close p50 %v; upstream per round: %s)%s\n",
				g, tg.name, c, len(rt.round), rt.errors, pct(rt.round, 50), pct(rt.round, 99), pct(rt.call, 50), pct(rt.call, 99),
				pct(rt.connect, 50), pct(rt.list, 50), pct(rt.close, 50), perRound(upBefore, upThen, len(rt.round)+rt.errors), repeat)
			for _, e := range rt.errorLines() {
				fmt.Printf("fresh %-9s %-6s c=%-3d error: %s\n", g, tg.name, c, e)
			}
		}
		reps = append(reps, these)
	}
	for _, tg := range targets {
		fmt.Println(phaseLine(g, tg.name, c, results[tg.name]))
	}
	// Per round tried: a refused round costs the gate work too.
	gateRounds := len(results["gate"].round) + results["gate"].errors
	if gateRounds > 0 && gcs >= 0 {
		// What the gate allocates a round drives how often its collector
		// runs, the largest part of its CPU beyond the proxy's.
		fmt.Printf("fresh %-9s gate   c=%-3d CPU %v per round tried, %.1f collections per 1000 rounds tried, %.1f KiB allocated per round tried, goroutines idle %d, at peak %d\n",
			g, c, (gateCPU / time.Duration(gateRounds)).Round(time.Microsecond), float64(gcs)*1000/float64(gateRounds),
			float64(allocs)/1024/float64(gateRounds), idleSeries[goroutines], peaks[goroutines])
	}
	if proxyRounds := len(results["proxy"].round) + results["proxy"].errors; proxyRounds > 0 && gateRounds > 0 {
		perGate := gateCPU / time.Duration(gateRounds)
		perProxy := proxyCPU / time.Duration(proxyRounds)
		fmt.Printf("fresh %-9s proxy  c=%-3d CPU %v per round tried; gate/proxy CPU per round %.2fx; read and write system calls per round: gate %.1f, proxy %.1f\n",
			g, c, perProxy.Round(time.Microsecond), ratio(perGate, perProxy), float64(gateSys)/float64(gateRounds), float64(proxySys)/float64(proxyRounds))
	}
	fmt.Println(perSession(g, c, idleSeries, peaks))
	// Every session was closed: one the gate still tracks once the
	// clients are gone is one it will count against its bound until it
	// is idle long enough to be forgotten.
	time.Sleep(time.Second)
	after := scrape(gw.metrics)
	// A gate from before streams had a bound of their own counts them in
	// flight, and has no series of them.
	fmt.Printf("fresh %-9s gate   c=%-3d the gate's own added latency, its server's time excluded (its histogram's buckets): %s\n", g, c, ownAdded(after))
	fmt.Printf("fresh %-9s gate   c=%-3d sessions tracked at peak %d, a second after the rounds %d; requests in flight at peak %d, streams open at peak %s; refused at a bound: in-flight %d, streams %s, sessions %d\n",
		g, c, peaks[sessionsTracked], after[sessionsTracked], peaks[inFlight], orNone(peaks, openStreams), after[inFlightRefused], refusedStreams(peaks, after), after[sessionsRefused])
	// The proxy is this program run again: its idle figure is what
	// everything linked into it costs, so its growth is the figure to
	// set beside the gate's.
	fmt.Printf("fresh %-9s RSS    c=%-3d gate idle %.1f MiB, peak (VmHWM) %.1f MiB (target <= 30 MiB; sampled peaks: own memory %.1f MiB, binary and library pages %.1f MiB) | proxy idle %.1f MiB, peak (VmHWM) %.1f MiB\n",
		g, c, mib(idle), mib(hwm(gw.pid())), mib(peaks[rssAnon]), mib(peaks[rssFile]), mib(proxyIdle), mib(hwm(proxy.pid())))
	d, p, gt := results["direct"], results["proxy"], results["gate"]
	fmt.Println(addedByPhase(g, c, d, p, gt))
	for _, m := range roundPhases {
		if m.name != "round" && m.name != "call" {
			continue
		}
		dp50, dp99 := pct(m.of(d), 50), pct(m.of(d), 99)
		pp50, pp99 := pct(m.of(p), 50)-dp50, pct(m.of(p), 99)-dp99
		gp50, gp99 := pct(m.of(gt), 50)-dp50, pct(m.of(gt), 99)-dp99
		rs := ratiosOf(m.of, d, p, gt)
		fmt.Printf("fresh %-9s added over direct c=%-3d %-5s: proxy p50 +%v p99 +%v | gate p50 +%v p99 +%v | gate/proxy added p50 %.2fx p99 %.2fx (target <= 1.5x); gate/proxy whole p50 %.2fx p99 %.2fx\n",
			g, c, m.name, pp50, pp99, gp50, gp99, rs.addedP50, rs.addedP99, rs.wholeP50, rs.wholeP99)
	}
	if len(reps) > 1 {
		for _, l := range repeatLines(g, c, reps) {
			fmt.Println(l)
		}
	}
	return nil
}

// orNone is a series' value, or "none" when the gate has no such series.
func orNone(m map[string]int64, name string) string {
	if v, ok := m[name]; ok {
		return strconv.FormatInt(v, 10)
	}
	return "none"
}

// refusedStreams is how many streams the gate refused at their bound,
// "none" for a gate without a bound of them (its counter of a bound
// appears once the bound is first hit; the gauge of streams at once).
func refusedStreams(peaks, after map[string]int64) string {
	if _, ok := peaks[openStreams]; !ok {
		return "none"
	}
	return strconv.FormatInt(after[streamsRefused], 10)
}

// perRound is the requests the upstream server received between two
// snapshots, by method, per round.
func perRound(before, after [4]int64, rounds int) string {
	if rounds == 0 {
		return "no rounds"
	}
	per := func(i int) float64 { return float64(after[i]-before[i]) / float64(rounds) }
	s := fmt.Sprintf("POST %.2f GET %.2f DELETE %.2f", per(0), per(1), per(2))
	if after[3] != before[3] {
		s += fmt.Sprintf(" other %.2f", per(3))
	}
	return s
}

// The gate's series this mode reads: the Go collector's goroutines, and
// the gate's own sessions, requests in flight and refusals at its bounds.
const (
	goroutines      = "go_goroutines"
	sessionsTracked = "toolgate_gate_sessions"
	inFlight        = "toolgate_gate_in_flight_requests"
	openStreams     = "toolgate_gate_open_streams"
	inFlightRefused = `toolgate_gate_limits_hit_total{limit="in-flight"}`
	streamsRefused  = `toolgate_gate_limits_hit_total{limit="streams"}`
	sessionsRefused = `toolgate_gate_limits_hit_total{limit="sessions"}`
)

// The Go runtime's memory the sessions occupy: spans of the heap in use
// and goroutine stacks.
const (
	heapInuse = "go_memstats_heap_inuse_bytes"
	// allocated is the bytes the gate has allocated since it started.
	allocated  = "go_memstats_alloc_bytes_total"
	stackInuse = "go_memstats_stack_inuse_bytes"
)

// sampled are the gauges read for their peak during the timed rounds.
var sampled = []string{goroutines, sessionsTracked, inFlight, openStreams, heapInuse, stackInuse}

// perSession says what each of c concurrent sessions costs the gate at the
// peak over idle: goroutines, and KiB of heap in use and of stacks. Peaks
// are each series' own, sampled every 200 ms, so the figure is an upper
// bound of one moment's cost, which is what the process's peak pays.
func perSession(g generation, c int, idle, peak map[string]int64) string {
	per := func(name string) float64 { return float64(peak[name]-idle[name]) / float64(c) }
	return fmt.Sprintf("fresh %-9s gate   c=%-3d per concurrent session at peak over idle: %.1f goroutines, %.1f KiB heap in use, %.1f KiB stacks (heap in use idle %.1f MiB, peak %.1f MiB; stacks idle %.0f KiB, peak %.0f KiB)",
		g, c, per(goroutines), per(heapInuse)/1024, per(stackInuse)/1024,
		mib(idle[heapInuse]), mib(peak[heapInuse]), float64(idle[stackInuse])/1024, float64(peak[stackInuse])/1024)
}

// takeProfiles, when dir is set, writes the gate's goroutine profile (as
// text, one entry per distinct stack with its count), heap, allocation,
// lock contention and blocking profiles to dir once after has passed, then
// a CPU profile of what is left of the rounds and an execution trace of
// its first second; the function it returns waits until they are written.
func takeProfiles(gw *gateProc, dir, prefix string, after time.Duration) func() {
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(after)
		get := func(path, file string) {
			if err := fetchTo(gw.debug+path, filepath.Join(dir, file)); err != nil {
				fmt.Fprintf(os.Stderr, "gatebench: profile %s: %v\n", path, err)
			}
		}
		for _, p := range []struct{ path, file string }{
			{"goroutine?debug=1", prefix + "-goroutine.txt"},
			{"heap", prefix + "-heap.pb.gz"},
			{"allocs", prefix + "-allocs.pb.gz"},
			{"mutex", prefix + "-mutex.pb.gz"},
			{"block", prefix + "-block.pb.gz"},
		} {
			get(p.path, p.file)
		}
		// An execution trace of a second, beside the CPU profile: where
		// requests waited (the scheduler, the collector's pauses and
		// assists, the network) rather than where the CPU went.
		rest := max(1, int(after/time.Second)-1)
		traced := make(chan struct{})
		go func() {
			defer close(traced)
			get("trace?seconds=1", prefix+"-trace.out")
		}()
		get(fmt.Sprintf("profile?seconds=%d", rest), prefix+"-cpu.pb.gz")
		<-traced
	}()
	return func() { <-done }
}

// fetchTo writes what u serves to the file path.
func fetchTo(u, path string) error {
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s (is the gate run with --profiling?)", u, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The parts of the gate's resident memory, from /proc/<pid>/status: its
// own memory (the Go runtime's heap, stacks and metadata) and the pages of
// its binary and libraries, which an idle gate has mostly touched already.
const (
	rssAnon = "RssAnon"
	rssFile = "RssFile"
)

// samplePeaks scrapes a Prometheus exposition every interval until the
// function it returns is called, which returns the highest value read of
// each series named (absent when none could be read), and of the parts of
// pid's resident memory.
func samplePeaks(u string, pid int, every time.Duration, names ...string) func() map[string]int64 {
	done := make(chan struct{})
	out := make(chan map[string]int64, 1)
	go func() {
		peaks := map[string]int64{}
		read := func() {
			got := scrape(u)
			for _, n := range names {
				if v, ok := got[n]; ok {
					peaks[n] = max(peaks[n], v)
				}
			}
			for _, f := range []string{rssAnon, rssFile} {
				peaks[f] = max(peaks[f], status(pid, f))
			}
		}
		read()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				read()
				out <- peaks
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() map[string]int64 {
		close(done)
		return <-out
	}
}

// scrape reads every sample of a Prometheus text exposition at u; empty
// when it cannot.
func scrape(u string) map[string]int64 {
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		return map[string]int64{}
	}
	defer resp.Body.Close()
	return samples(resp.Body)
}

// samples reads the samples of a Prometheus text exposition, keyed by
// their series as written (name and labels), values truncated to integers.
func samples(r io.Reader) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		var f float64
		if _, err := fmt.Sscan(line[i+1:], &f); err == nil {
			out[line[:i]] = int64(f)
		}
	}
	return out
}

// roundTimes are the latencies of one target's successful rounds, whole
// and phase by phase, and the rounds that failed.
type roundTimes struct {
	round, connect, list, call, close []time.Duration
	// get is the standalone GET's wait for its headers, within connect
	// (session-based rounds only).
	get []time.Duration
	// newConns counts the connections the agents opened rather than
	// reused; upstreamConns those the server accepted while the target
	// was measured.
	newConns, upstreamConns int
	errors                  int
	// byPhase counts the failed rounds by the phase that failed; first
	// keeps the first failure of each phase.
	byPhase map[string]int
	first   map[string]string
}

func (r *roundTimes) add(p phases) {
	r.round = append(r.round, p.round)
	r.connect = append(r.connect, p.connect)
	r.list = append(r.list, p.list)
	r.call = append(r.call, p.call)
	r.close = append(r.close, p.close)
	if p.get > 0 {
		r.get = append(r.get, p.get)
	}
	r.newConns += p.newConns
}

func (r *roundTimes) fail(err error) {
	r.errors++
	phase := "round"
	var pe *phaseError
	if errors.As(err, &pe) {
		phase = pe.phase
	}
	if r.byPhase == nil {
		r.byPhase, r.first = map[string]int{}, map[string]string{}
	}
	if r.byPhase[phase]++; r.byPhase[phase] == 1 {
		r.first[phase] = err.Error()
	}
}

func (r *roundTimes) merge(o *roundTimes) {
	r.round = append(r.round, o.round...)
	r.connect = append(r.connect, o.connect...)
	r.list = append(r.list, o.list...)
	r.call = append(r.call, o.call...)
	r.close = append(r.close, o.close...)
	r.get = append(r.get, o.get...)
	r.newConns += o.newConns
	for ph, n := range o.byPhase {
		if r.byPhase == nil {
			r.byPhase, r.first = map[string]int{}, map[string]string{}
		}
		if r.byPhase[ph] == 0 {
			r.first[ph] = o.first[ph]
		}
		r.byPhase[ph] += n
	}
	r.errors += o.errors
}

// errorLines says how many rounds failed in each phase and how the first
// of them failed.
func (r *roundTimes) errorLines() []string {
	var out []string
	for _, ph := range slices.Sorted(maps.Keys(r.byPhase)) {
		out = append(out, fmt.Sprintf("%d rounds failed in %s; the first: %.300s", r.byPhase[ph], ph, r.first[ph]))
	}
	return out
}

// phases are one round, whole, and its parts: opening the session (the
// handshake, and the GET stream of the session generation), tools/list,
// tools/call and closing it.
type phases struct {
	round, connect, list, call, close time.Duration
	// get is the standalone GET's wait for its headers, 0 when there was
	// none; newConns the connections the round opened.
	get      time.Duration
	newConns int
}

// phaseError is a failed round and the phase it failed in.
type phaseError struct {
	phase string
	err   error
}

func (e *phaseError) Error() string { return e.phase + ": " + e.err.Error() }
func (e *phaseError) Unwrap() error { return e.err }

// roundTimeout bounds one round: a target that stops answering fails
// rounds rather than hanging the benchmark.
const roundTimeout = 30 * time.Second

// measureRounds runs c clients, each opening and closing sessions in a
// loop for d, after one round that warms the target up (the gate lists
// the server on its first call). A failed round is counted and the client
// goes on: a target that fails some rounds under load is a finding, not
// the end of the run. window is called with true as the timed rounds start
// and with false when the last has ended.
func measureRounds(endpoint string, gen generation, c int, d time.Duration, result string, conns connReuse, window func(start bool)) (*roundTimes, error) {
	kept := newHTTPClient()
	hc, done := conns.client(kept)
	_, err := oneRound(hc, endpoint, gen, result)
	done()
	kept.CloseIdleConnections()
	if err != nil {
		return nil, fmt.Errorf("the round that warms up: %w", err)
	}
	var (
		mu  sync.Mutex
		all = &roundTimes{}
		wg  sync.WaitGroup
	)
	window(true)
	stop := time.Now().Add(d)
	for range c {
		wg.Go(func() {
			kept := newHTTPClient()
			defer kept.CloseIdleConnections()
			mine := &roundTimes{}
			for time.Now().Before(stop) {
				hc, done := conns.client(kept)
				p, err := oneRound(hc, endpoint, gen, result)
				done()
				if err != nil {
					mine.fail(err)
					continue
				}
				mine.add(p)
			}
			mu.Lock()
			all.merge(mine)
			mu.Unlock()
		})
	}
	wg.Wait()
	window(false)
	return all, nil
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &agentTrace{base: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// oneRound opens a session of gen at endpoint, lists its tools, calls echo
// and closes the session, checking each answer.
func oneRound(hc *http.Client, endpoint string, gen generation, result string) (phases, error) {
	var p phases
	ctx, cancel := context.WithTimeout(context.Background(), roundTimeout)
	defer cancel()
	trace := traceOf(hc)
	if trace != nil {
		_, _ = trace.take() // what the last round left after it was timed
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	var opts *mcp.ClientSessionOptions
	if gen == genSession {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: sessionVersion}
	}
	t0 := time.Now()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, opts)
	if err != nil {
		return p, &phaseError{"connect", err}
	}
	p.connect = time.Since(t0)
	closed := false
	defer func() {
		if !closed {
			_ = cs.Close()
		}
	}()
	if err := sameGeneration(cs, gen); err != nil {
		return p, &phaseError{"connect", err}
	}
	t1 := time.Now()
	lr, err := cs.ListTools(ctx, nil)
	if err != nil {
		return p, &phaseError{"tools/list", err}
	}
	if len(lr.Tools) != 1 || lr.Tools[0].Name != "echo" {
		return p, &phaseError{"tools/list", fmt.Errorf("%d tools, want echo alone", len(lr.Tools))}
	}
	t2 := time.Now()
	p.list = t2.Sub(t1)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		return p, &phaseError{"tools/call", err}
	}
	p.call = time.Since(t2)
	if err := sameAnswer(res, result, "hello"); err != nil {
		return p, &phaseError{"tools/call", err}
	}
	t3 := time.Now()
	closed = true
	if err := cs.Close(); err != nil {
		return p, &phaseError{"close", err}
	}
	p.close = time.Since(t3)
	p.round = time.Since(t0)
	if trace != nil {
		p.get, p.newConns = trace.take()
	}
	return p, nil
}

// sameGeneration checks that a session is of the generation it was opened
// in: a client that fell back to another revision would be measuring that.
func sameGeneration(cs *mcp.ClientSession, gen generation) error {
	v := cs.InitializeResult().ProtocolVersion
	switch gen {
	case genSession:
		if v != sessionVersion || cs.ID() == "" {
			return fmt.Errorf("protocol %s, session id %q: want %s with a session id", v, cs.ID(), sessionVersion)
		}
	case genStateless:
		// Revisions are dates: the stateless ones are those after the
		// last session-based one.
		if v <= sessionVersion || cs.ID() != "" {
			return fmt.Errorf("protocol %s, session id %q: want a revision after %s and no session", v, cs.ID(), sessionVersion)
		}
	}
	return nil
}
