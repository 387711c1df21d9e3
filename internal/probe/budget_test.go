package probe

import (
	"context"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testenv/hostile"
)

func serveHostile(tb testing.TB, c *hostile.Catalogue, events bool) string {
	tb.Helper()
	ts := httptest.NewServer(hostile.Handler(c, events))
	tb.Cleanup(ts.Close)
	return ts.URL
}

// TestMemoryBudget: a catalogue at the documented bounds whose
// decoded form would exceed the per-probe budget fails with TooLarge
// instead of being allocated; probes that together exceed the global
// budget fail the same way; a catalogue within both passes; and every
// probe gives its share back when it returns.
func TestMemoryBudget(t *testing.T) {
	for _, events := range []bool{false, true} {
		framing := map[bool]string{false: "json", true: "event-stream"}[events]
		for _, shape := range []hostile.Shape{hostile.SmallValues, hostile.LongStrings} {
			name := map[hostile.Shape]string{hostile.SmallValues: "small values", hostile.LongStrings: "long strings"}[shape]
			t.Run(framing+"/"+name+"/per-probe budget", func(t *testing.T) {
				global := NewBudget(DefaultGlobalBudget)
				_, err := probe(t, Config{URL: serveHostile(t, hostile.AtTheBounds(shape), events), Budget: global})
				wantReason(t, err, TooLarge, "per-probe budget")
				if global.Used() != 0 {
					t.Errorf("the probe kept %d bytes of the global budget", global.Used())
				}
				t.Log(err)
			})
		}
	}

	t.Run("global budget", func(t *testing.T) {
		// Three probes of 1 MB catalogues of long strings, each within its
		// own 8 MB budget; the global budget holds about one of them.
		c := hostile.NewCatalogue(hostile.LongStrings, 2, 20, 25_000)
		url := serveHostile(t, c, false)
		limits := DefaultLimits
		limits.MaxDecodedBytes = 8 << 20
		alone := NewBudget(64 << 20)
		if _, err := probe(t, Config{URL: url, Budget: alone, Limits: limits}); err != nil {
			t.Fatalf("alone, the catalogue fits: %v", err)
		}
		global := NewBudget(3 << 20)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() { _, errs[i] = probe(t, Config{URL: url, Budget: global, Limits: limits}) })
		}
		wg.Wait()
		refused := 0
		for _, err := range errs {
			if err != nil {
				wantReason(t, err, TooLarge, "shared by every probe running")
				refused++
			}
		}
		if refused == 0 {
			t.Error("six probes of a 1 MB catalogue passed a 3 MB global budget")
		}
		if global.Used() != 0 {
			t.Errorf("the probes kept %d bytes of the global budget", global.Used())
		}
	})

	t.Run("within the budgets", func(t *testing.T) {
		global := NewBudget(DefaultGlobalBudget)
		for _, events := range []bool{false, true} {
			res, err := probe(t, Config{URL: serveHostile(t, hostile.NewCatalogue(hostile.LongStrings, 3, 50, 20_000), events), Budget: global})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Catalogue.Tools) != 150 || res.Pages != 3 {
				t.Errorf("%d tools on %d pages", len(res.Catalogue.Tools), res.Pages)
			}
		}
		if global.Used() != 0 {
			t.Errorf("the probes kept %d bytes of the global budget", global.Used())
		}
	})
}

// heapPeak samples the live heap while f runs and returns its peak above
// the heap before f, after a GC.
func heapPeak(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return max(peak, base) - base
}

// BenchmarkProbeAtTheBounds probes the catalogue of the third finding (four
// pages of 7.6 MB, 500 tools) with the per-probe budget off, so the whole
// catalogue is decoded, and with the default budget. It reports the bytes
// allocated per probe and the peak of the heap above what it was before
// the probe (the heap-peak-MB metric: objects, live or not yet collected,
// sampled every millisecond).
func BenchmarkProbeAtTheBounds(b *testing.B) {
	for _, shape := range []hostile.Shape{hostile.SmallValues, hostile.LongStrings} {
		c := hostile.AtTheBounds(shape)
		for _, events := range []bool{false, true} {
			url := serveHostile(b, c, events)
			for _, budget := range []int64{0, DefaultMaxDecodedBytes} {
				name := map[hostile.Shape]string{hostile.SmallValues: "small-values", hostile.LongStrings: "long-strings"}[shape] +
					map[bool]string{false: "/json", true: "/event-stream"}[events] +
					map[bool]string{true: "/no-budget", false: "/default-budget"}[budget == 0]
				b.Run(name, func(b *testing.B) {
					limits := DefaultLimits
					limits.MaxDecodedBytes = budget
					b.ReportAllocs()
					var peak uint64
					for b.Loop() {
						peak = max(peak, heapPeak(func() {
							_, err := Probe(context.Background(), Config{URL: url, Limits: limits, Timeout: time.Minute})
							if budget == 0 && err != nil {
								b.Fatal(err)
							}
						}))
					}
					b.ReportMetric(float64(peak)/(1<<20), "heap-peak-MB")
				})
			}
		}
	}
}
