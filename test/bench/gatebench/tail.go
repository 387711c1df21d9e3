package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// agentTrace is the transport of one agent's HTTP client, which notes what
// the SDK's client does out of the benchmark's sight: the time the
// standalone GET of a session-based round waits for its headers (the SDK
// opens it inside Connect, after initialize), and the connections the
// agent had to open rather than reuse.
type agentTrace struct {
	base *http.Transport

	mu       sync.Mutex
	get      time.Duration
	newConns int
}

func (t *agentTrace) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if !i.Reused {
			t.mu.Lock()
			t.newConns++
			t.mu.Unlock()
		}
	}}
	resp, err := t.base.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	if err == nil && r.Method == http.MethodGet {
		d := time.Since(start)
		t.mu.Lock()
		t.get = d
		t.mu.Unlock()
	}
	return resp, err
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport underneath.
func (t *agentTrace) CloseIdleConnections() { t.base.CloseIdleConnections() }

// take returns what was noted since the last take, and forgets it.
func (t *agentTrace) take() (get time.Duration, newConns int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	get, newConns = t.get, t.newConns
	t.get, t.newConns = 0, 0
	return get, newConns
}

// traceOf is the trace of an agent's client, nil for the SDK's default.
func traceOf(hc *http.Client) *agentTrace {
	if hc == nil {
		return nil
	}
	t, _ := hc.Transport.(*agentTrace)
	return t
}

// phase names one part of a round, and how to read its latencies.
type phase struct {
	name string
	of   func(*roundTimes) []time.Duration
}

// roundPhases are the parts a round's latency is broken down into. "GET"
// is the standalone stream's wait for its headers, which lies inside
// connect; a stateless round has none.
var roundPhases = []phase{
	{"round", func(r *roundTimes) []time.Duration { return r.round }},
	{"connect", func(r *roundTimes) []time.Duration { return r.connect }},
	{"GET", func(r *roundTimes) []time.Duration { return r.get }},
	{"list", func(r *roundTimes) []time.Duration { return r.list }},
	{"call", func(r *roundTimes) []time.Duration { return r.call }},
	{"close", func(r *roundTimes) []time.Duration { return r.close }},
}

// phaseLine is one target's latency phase by phase, p50/p99, and the
// connections its agents opened per round.
func phaseLine(g generation, name string, c int, r *roundTimes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fresh %-9s %-6s c=%-3d phases p50/p99:", g, name, c)
	for _, ph := range roundPhases {
		lat := ph.of(r)
		if len(lat) == 0 {
			continue
		}
		fmt.Fprintf(&b, " %s %v/%v", ph.name, pct(lat, 50), pct(lat, 99))
	}
	if n := len(r.round) + r.errors; n > 0 {
		fmt.Fprintf(&b, "; new connections per round: the agents' %.2f, to the server %.2f", float64(r.newConns)/float64(n), float64(r.upstreamConns)/float64(n))
	}
	return b.String()
}

// addedByPhase is what the proxy and the gate add over the direct
// connection at p99, phase by phase: where the gate's tail lies.
func addedByPhase(g generation, c int, d, p, gt *roundTimes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fresh %-9s added p99 by phase c=%-3d:", g, c)
	for _, ph := range roundPhases[1:] {
		if len(ph.of(d)) == 0 {
			continue
		}
		dp := pct(ph.of(d), 99)
		fmt.Fprintf(&b, " %s proxy %+v gate %+v |", ph.name, pct(ph.of(p), 99)-dp, pct(ph.of(gt), 99)-dp)
	}
	return strings.TrimSuffix(b.String(), " |")
}

// ratios are, for one measure (a round or a call), the figures that set
// the gate beside the proxy.
type ratios struct {
	// addedP50 and addedP99 are the target's figures: what the gate adds
	// over the direct connection, divided by what the proxy adds. Their
	// divisor is a difference of two percentiles measured in different
	// windows, and at p99 it is often smaller than either's noise.
	addedP50, addedP99 float64
	// wholeP50 and wholeP99 are the gate's latency divided by the
	// proxy's: no difference in the divisor.
	wholeP50, wholeP99 float64
}

func ratiosOf(lat func(*roundTimes) []time.Duration, d, p, g *roundTimes) ratios {
	dp50, dp99 := pct(lat(d), 50), pct(lat(d), 99)
	pp50, pp99 := pct(lat(p), 50), pct(lat(p), 99)
	gp50, gp99 := pct(lat(g), 50), pct(lat(g), 99)
	return ratios{
		addedP50: ratio(gp50-dp50, pp50-dp50), addedP99: ratio(gp99-dp99, pp99-dp99),
		wholeP50: ratio(gp50, pp50), wholeP99: ratio(gp99, pp99),
	}
}

// median is the middle of xs (the mean of the two middle ones when even);
// 0 for none. A ratio that could not be formed (0) counts as a figure,
// the lowest: dropping it would bias the median upwards.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// repeatLines sum up the repetitions of one point: each repetition's
// ratios and their medians, for the round and for the call.
func repeatLines(g generation, c int, reps []map[string]*roundTimes) []string {
	var out []string
	for _, m := range roundPhases {
		if m.name != "round" && m.name != "call" {
			continue
		}
		var added50, added99, whole50, whole99 []float64
		for _, r := range reps {
			rs := ratiosOf(m.of, r["direct"], r["proxy"], r["gate"])
			added50, added99 = append(added50, rs.addedP50), append(added99, rs.addedP99)
			whole50, whole99 = append(whole50, rs.wholeP50), append(whole99, rs.wholeP99)
		}
		out = append(out, fmt.Sprintf("fresh %-9s %d repetitions c=%-3d %-5s: gate/proxy added p50 %s median %.2fx, p99 %s median %.2fx | gate/proxy whole p50 median %.2fx, p99 %s median %.2fx",
			g, len(reps), c, m.name, list(added50), median(added50), list(added99), median(added99), median(whole50), list(whole99), median(whole99)))
	}
	return out
}

// list writes ratios as [1.02 0.97 …].
func list(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// rotated is the order the targets are measured in at a repetition: each
// repetition starts one further along, so that no target is always the
// one measured first after a fresh start, or last, when the machine has
// been busiest longest.
func rotated[T any](xs []T, rep int) []T {
	k := rep % len(xs)
	return append(slices.Clone(xs[k:]), xs[:k]...)
}

// ownAdded reads the gate's own histogram of the time it adds to each
// request, the server's time excluded, and says, by method, within which
// bucket its p50 and p99 lie: the part of the tail spent in the gate's
// handlers, apart from the time a request waits to be read or for a CPU.
func ownAdded(series map[string]int64) string {
	const prefix = "toolgate_gate_added_latency_seconds_bucket{"
	type bucket struct {
		le    float64
		count int64
	}
	byMethod := map[string][]bucket{}
	for k, v := range series {
		labels, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		method, le := label(labels, "method"), label(labels, "le")
		var b bucket
		if le == "+Inf" {
			b.le = math.Inf(1)
		} else if _, err := fmt.Sscan(le, &b.le); err != nil {
			continue
		}
		b.count = v
		byMethod[method] = append(byMethod[method], b)
	}
	if len(byMethod) == 0 {
		return "none recorded"
	}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(byMethod)) {
		bs := byMethod[m]
		slices.SortFunc(bs, func(a, b bucket) int { return cmp.Compare(a.le, b.le) })
		total := bs[len(bs)-1].count
		within := func(q float64) string {
			for _, b := range bs {
				if float64(b.count) >= q*float64(total) {
					if math.IsInf(b.le, 1) {
						return "over 1s"
					}
					return "<= " + time.Duration(b.le*float64(time.Second)).String()
				}
			}
			return "?"
		}
		parts = append(parts, fmt.Sprintf("%s n=%d p50 %s p99 %s", m, total, within(0.5), within(0.99)))
	}
	return strings.Join(parts, "; ")
}

// label is the value of one label in a series' labels as written
// (name="value",…), "" when absent.
func label(labels, name string) string {
	_, rest, ok := strings.Cut(labels, name+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// syscalls is how many read and write system calls the process pid has
// made (/proc/<pid>/io; 0 when it cannot be read): beside its CPU time, a
// count of what a relay costs per message that the machine's load does
// not move.
func syscalls(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	var n int64
	for line := range strings.SplitSeq(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok || name != "syscr" && name != "syscw" {
			continue
		}
		var c int64
		if _, err := fmt.Sscan(strings.TrimSpace(v), &c); err == nil {
			n += c
		}
	}
	return n
}
