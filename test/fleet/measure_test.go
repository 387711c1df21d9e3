package fleet

import (
	"testing"
	"time"
)

// The figures the benchmark reports are read by these: a rank off by one
// or a series counted twice would misstate what the fleet saw.
func TestSpreadOf(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100..1, unsorted
	}
	for _, tc := range []struct {
		name          string
		in            []time.Duration
		p50, p99, max time.Duration
	}{
		{"none", nil, 0, 0, 0},
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond},
		{"two", ms(9, 1), 1 * time.Millisecond, 9 * time.Millisecond, 9 * time.Millisecond},
		{"a hundred", ms(hundred...), 50 * time.Millisecond, 99 * time.Millisecond, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spreadOf(tc.in)
			if s.p50 != tc.p50 || s.p99 != tc.p99 || s.max != tc.max || s.n != len(tc.in) {
				t.Errorf("spreadOf = %+v, want p50 %v p99 %v max %v", s, tc.p50, tc.p99, tc.max)
			}
		})
	}
}

func TestSumSeries(t *testing.T) {
	const text = `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",group="authentication.k8s.io",resource="tokenreviews",subresource="",verb="POST",version="v1"} 2000
apiserver_request_total{code="201",component="apiserver",group="authentication.k8s.io",resource="tokenreviews",subresource="",verb="POST",version="v1beta1"} 3
apiserver_request_total{code="200",component="apiserver",group="",resource="pods",subresource="",verb="GET",version="v1"} 40
apiserver_request_total{code="404",component="apiserver",group="",resource="pods",subresource="",verb="GET",version="v1"} 2
apiserver_request_total{code="201",component="apiserver",group="",resource="pods",subresource="",verb="POST",version="v1"} 7
apiserver_request_total{code="201",component="apiserver",group="",resource="serviceaccounts",subresource="token",verb="POST",version="v1"} 11
apiserver_request_total_other{resource="pods",verb="GET"} 1000
go_memstats_heap_inuse_bytes 1.5e+07
`
	for _, tc := range []struct {
		name   string
		metric string
		labels []string
		want   float64
	}{
		{"every review", "apiserver_request_total", []string{`resource="tokenreviews"`, `verb="POST"`}, 2003},
		{"pod reads, whatever the answer, not the creates nor another metric", "apiserver_request_total", []string{`resource="pods"`, `verb="GET"`, `subresource=""`}, 42},
		{"a label that is only a suffix of another", "apiserver_request_total", []string{`resource="token"`}, 0},
		{"no labels", "go_memstats_heap_inuse_bytes", nil, 1.5e7},
		{"absent", "nothing_total", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sumSeries(text, tc.metric, tc.labels...); got != tc.want {
				t.Errorf("sumSeries = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLastLiveHeap(t *testing.T) {
	const log = `{"level":"error","msg":"something"}
gc 1 @0.012s 2%: 0.010+1.2+0.003 ms clock, 0.020+0.4/1.1/0+0.007 ms cpu, 3->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P
gc 2 @5.3s 1%: 0.05+12+0.02 ms clock, 0.1+2/10/0+0.04 ms cpu, 120->131->64 MB, 140 MB goal, 1 MB stacks, 0 MB globals, 2 P
scvg: something else -> 3 MB
`
	if got, want := lastLiveHeap(log), 64.0*(1<<20); got != want {
		t.Errorf("lastLiveHeap = %v, want %v (the last collection's live heap)", got, want)
	}
	if got := lastLiveHeap("no collections\n"); got != -1 {
		t.Errorf("lastLiveHeap of a log without collections = %v, want -1", got)
	}
}
