package scale

import (
	"strings"
	"testing"
	"time"
)

// The line make scale prints claims every pin only when the poll saw every
// pin trusted and scored; a run that gave up says how far it got.
func TestSummaryClaimsConvergenceOnlyWhenConverged(t *testing.T) {
	run := fleetRun{servers: 200, toolsPerServer: 50, target: time.Minute, limit: 3 * time.Minute, peakKiB: 200 << 10}
	for _, tc := range []struct {
		name     string
		run      func(fleetRun) fleetRun
		want     []string
		wantNone []string
	}{
		{
			name: "converged",
			run: func(r fleetRun) fleetRun {
				r.elapsed, r.created, r.scored, r.converged = 42*time.Second, 10000, 10000, true
				return r
			},
			want:     []string{"scale: 200 MCPServers x 50 tools: all 10000 pins created and scored in 42s (target 1m0s); operator peak RSS 200 MiB"},
			wantNone: []string{"NOT CONVERGED"},
		},
		{
			name: "timed out part of the way",
			run: func(r fleetRun) fleetRun {
				r.elapsed, r.created, r.scored = 3*time.Minute+400*time.Millisecond, 9950, 7311
				return r
			},
			want:     []string{"NOT CONVERGED within 3m0s: 9950 of 10000 pins created, 7311 trusted and scored after 3m0.4s (target 1m0s)", "operator peak RSS 200 MiB"},
			wantNone: []string{"all 10000", "all "},
		},
		{
			name: "nothing created",
			run: func(r fleetRun) fleetRun {
				r.elapsed = 3 * time.Minute
				return r
			},
			want:     []string{"NOT CONVERGED", "0 of 10000 pins created, 0 trusted and scored"},
			wantNone: []string{"all "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.run(run).summary()
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("the summary lacks %q:\n%s", w, line)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(line, w) {
					t.Errorf("the summary says %q:\n%s", w, line)
				}
			}
		})
	}
}

// While it waits, make scale says how far the fleet got, and never that it
// converged.
func TestProgressSaysHowFar(t *testing.T) {
	r := fleetRun{servers: 200, toolsPerServer: 50, target: time.Minute, limit: 3 * time.Minute, peakKiB: 150 << 10,
		elapsed: 15*time.Second + 300*time.Millisecond, created: 3400, scored: 2100}
	line := r.progress()
	want := "scale: 15s of at most 3m0s: 3400 of 10000 pins created, 2100 trusted and scored; operator peak RSS 150 MiB so far"
	if line != want {
		t.Errorf("progress:\n got %s\nwant %s", line, want)
	}
}

// The CPU line reads /proc's stat format, whose command name may hold
// spaces and parentheses.
func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line string
		want procCPU
		ok   bool
	}{
		{"4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 1000 0 0 0 6512 843 0 0 20 0 12 0 100 0 0", procCPU{"kube-apiserver", 73550 * time.Millisecond}, true},
		{"7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0 1 0 0", procCPU{"a (b) c", 1500 * time.Millisecond}, true},
		{"7 (short) R 1 7", procCPU{}, false},
		{"no parentheses", procCPU{}, false},
	} {
		got, ok := parseStat(tc.line)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
	line := cpuLine(procCPU{"manager", 20 * time.Second}, 5*time.Second, []procCPU{{"kube-apiserver", 60 * time.Second}, {"etcd", 10 * time.Second}}, 10000)
	want := "scale: CPU in all 95.0 s (9.50 ms a pin): operator 20.0 s (2.00 ms a pin), kube-apiserver 60.0 s (6.00 ms a pin), " +
		"etcd 10.0 s (1.00 ms a pin), the test's MCP servers and watch 5.0 s (0.50 ms a pin)"
	if line != want {
		t.Errorf("cpuLine:\n got %s\nwant %s", line, want)
	}
}

// The requests line counts the API server's ToolPin requests by verb and
// subresource, and the watches still open, from its metrics; other
// resources' requests are not counted.
func TestToolPinRequests(t *testing.T) {
	metrics := `# HELP apiserver_request_total Counter of apiserver requests.
apiserver_request_total{code="201",component="apiserver",dry_run="",group="toolgate.dev",resource="toolpins",scope="resource",subresource="",verb="POST",version="v1alpha1"} 9999
apiserver_request_total{code="409",component="apiserver",dry_run="",group="toolgate.dev",resource="toolpins",scope="resource",subresource="",verb="POST",version="v1alpha1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="toolgate.dev",resource="toolpins",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 12500
apiserver_request_total{code="201",component="apiserver",dry_run="",group="toolgate.dev",resource="mcpservers",scope="resource",subresource="",verb="POST",version="v1alpha1"} 200
apiserver_longrunning_requests{component="apiserver",group="toolgate.dev",resource="toolpins",scope="namespace",subresource="",verb="WATCH",version="v1alpha1"} 2
`
	got := requestsLine(toolPinRequests(metrics), 10000)
	want := "scale: ToolPin requests: PATCH status 12500 (1.25 a pin), POST 10000 (1.00 a pin), WATCH open 2 (0.00 a pin)"
	if got != want {
		t.Errorf("requests:\n got %s\nwant %s", got, want)
	}
}
