package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseGenerations(t *testing.T) {
	for _, tc := range []struct {
		sessions, gen string
		want          []generation
		wantErr       bool
	}{
		{sessions: "long", want: []generation{genSession}},
		{sessions: "long", gen: "session", want: []generation{genSession}},
		{sessions: "long", gen: "stateless", wantErr: true},
		{sessions: "long", gen: "both", wantErr: true},
		{sessions: "fresh", want: []generation{genSession, genStateless}},
		{sessions: "fresh", gen: "both", want: []generation{genSession, genStateless}},
		{sessions: "fresh", gen: "session", want: []generation{genSession}},
		{sessions: "fresh", gen: "stateless", want: []generation{genStateless}},
		{sessions: "fresh", gen: "sse", wantErr: true},
		{sessions: "short", wantErr: true},
	} {
		got, err := parseGenerations(tc.sessions, tc.gen)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("parseGenerations(%q, %q) = %v, %v; want %v, error %v", tc.sessions, tc.gen, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseClients(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "1,16,64", want: []int{1, 16, 64}},
		{in: "1, 16, 64, 256", want: []int{1, 16, 64, 256}},
		{in: "256", want: []int{256}},
		{in: "", wantErr: true},
		{in: "1,,16", wantErr: true},
		{in: "0", wantErr: true},
		{in: "-4", wantErr: true},
		{in: "sixteen", wantErr: true},
	} {
		got, err := parseClients(tc.in)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("parseClients(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestPerRound(t *testing.T) {
	for _, tc := range []struct {
		before, after [4]int64
		rounds        int
		want          string
	}{
		{after: [4]int64{40, 10, 10, 0}, rounds: 10, want: "POST 4.00 GET 1.00 DELETE 1.00"},
		{before: [4]int64{5, 0, 0, 0}, after: [4]int64{35, 0, 0, 0}, rounds: 10, want: "POST 3.00 GET 0.00 DELETE 0.00"},
		{after: [4]int64{30, 0, 0, 5}, rounds: 10, want: "POST 3.00 GET 0.00 DELETE 0.00 other 0.50"},
		{after: [4]int64{30, 0, 0, 0}, rounds: 0, want: "no rounds"},
	} {
		if got := perRound(tc.before, tc.after, tc.rounds); got != tc.want {
			t.Errorf("perRound(%v, %v, %d) = %q, want %q", tc.before, tc.after, tc.rounds, got, tc.want)
		}
	}
}

func TestSamples(t *testing.T) {
	exposition := `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 525
toolgate_gate_sessions 3
toolgate_gate_limits_hit_total{limit="in-flight"} 1598
toolgate_gate_limits_hit_total{limit="sessions"} 1.058e+03
go_memstats_heap_inuse_bytes 4.194304e+06
not a sample
`
	got := samples(strings.NewReader(exposition))
	for series, want := range map[string]int64{
		goroutines:                     525,
		sessionsTracked:                3,
		inFlightRefused:                1598,
		sessionsRefused:                1058,
		"go_memstats_heap_inuse_bytes": 4 << 20,
	} {
		if got[series] != want {
			t.Errorf("samples()[%s] = %d, want %d", series, got[series], want)
		}
	}
	if _, ok := got[inFlight]; ok {
		t.Errorf("samples() has %s, which the exposition lacks", inFlight)
	}
	if len(got) != 5 {
		t.Errorf("samples() read %d series, want 5: %v", len(got), got)
	}
}

func TestParseConnections(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    connReuse
		wantErr bool
	}{
		{in: "agent", want: connAgent},
		{in: "session", want: connSession},
		{in: "shared", want: connShared},
		{in: "", wantErr: true},
		{in: "pooled", wantErr: true},
	} {
		got, err := parseConnections(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseConnections(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{2.2}, 2.2},
		{[]float64{8.2, 0.9, 1.1}, 1.1},
		{[]float64{0, 1.3, 0.7, 1.1}, 0.9},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRotated(t *testing.T) {
	xs := []string{"direct", "proxy", "gate"}
	for rep, want := range [][]string{{"direct", "proxy", "gate"}, {"proxy", "gate", "direct"}, {"gate", "direct", "proxy"}, {"direct", "proxy", "gate"}} {
		if got := rotated(xs, rep); !slices.Equal(got, want) {
			t.Errorf("rotated(%v, %d) = %v, want %v", xs, rep, got, want)
		}
	}
	if !slices.Equal(xs, []string{"direct", "proxy", "gate"}) {
		t.Errorf("rotated changed its argument: %v", xs)
	}
}

func TestOwnAdded(t *testing.T) {
	exposition := `toolgate_gate_added_latency_seconds_bucket{method="tools/call",server="bench/echo",le="5e-05"} 10
toolgate_gate_added_latency_seconds_bucket{method="tools/call",server="bench/echo",le="0.0001"} 60
toolgate_gate_added_latency_seconds_bucket{method="tools/call",server="bench/echo",le="0.001"} 98
toolgate_gate_added_latency_seconds_bucket{method="tools/call",server="bench/echo",le="0.01"} 100
toolgate_gate_added_latency_seconds_bucket{method="tools/call",server="bench/echo",le="+Inf"} 100
toolgate_gate_added_latency_seconds_bucket{method="tools/list",server="bench/echo",le="5e-05"} 0
toolgate_gate_added_latency_seconds_bucket{method="tools/list",server="bench/echo",le="1"} 0
toolgate_gate_added_latency_seconds_bucket{method="tools/list",server="bench/echo",le="+Inf"} 4
toolgate_gate_added_latency_seconds_count{method="tools/call",server="bench/echo"} 100
`
	got := ownAdded(samples(strings.NewReader(exposition)))
	want := "tools/call n=100 p50 <= 100µs p99 <= 10ms; tools/list n=4 p50 over 1s p99 over 1s"
	if got != want {
		t.Errorf("ownAdded() = %q, want %q", got, want)
	}
	if got := ownAdded(map[string]int64{}); got != "none recorded" {
		t.Errorf("ownAdded(nothing) = %q", got)
	}
}

func TestRatiosOf(t *testing.T) {
	ms := func(ds ...int) *roundTimes {
		r := &roundTimes{}
		for _, d := range ds {
			r.round = append(r.round, time.Duration(d)*time.Millisecond)
		}
		return r
	}
	round := func(r *roundTimes) []time.Duration { return r.round }
	// A direct p99 that moved past the proxy's leaves no added ratio to
	// form at p99, while the whole ratio is still a figure.
	got := ratiosOf(round, ms(100, 100, 300), ms(150, 150, 250), ms(160, 160, 275))
	if got.addedP50 != 1.2 || got.addedP99 != 0 || got.wholeP99 != 1.1 {
		t.Errorf("ratiosOf() = %+v, want added p50 1.2, added p99 0 (not formed), whole p99 1.1", got)
	}
}
