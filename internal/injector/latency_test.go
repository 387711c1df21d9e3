package injector

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// latencyEnv runs TestAdmissionLatency; it creates 440 pods, so it is
// kept out of the ordinary run.
const latencyEnv = "TOOLGATE_BENCH_INJECT"

// TestAdmissionLatency measures what the injection webhook (and the
// opt-out guard, which matches the same namespaces) adds to a pod's
// creation: 200 pods in an opted-in namespace against 200 in a plain one,
// created one at a time and interleaved so that both see the same API
// server, after 20 of each to warm caches and connections. It reports p50
// and p99 and fails when the webhook adds more than 10 ms at p99.
func TestAdmissionLatency(t *testing.T) {
	if os.Getenv(latencyEnv) == "" {
		t.Skipf("set %s=1 to measure admission latency", latencyEnv)
	}
	const n, warm = 200, 20
	injected := namespace(t, "latency-injected", enabledLabels())
	plain := namespace(t, "latency-plain", nil)
	policyFor(t, injected, toolgatev1alpha1.ServerReference{Namespace: "tools", Name: "github"},
		toolgatev1alpha1.ServerReference{Namespace: "tools", Name: "kubernetes-tools"})
	create := func(ns string, i int) time.Duration {
		p := agentPod(ns, fmt.Sprintf("pod-%d", i))
		start := time.Now()
		if err := env.Client.Create(t.Context(), p); err != nil {
			t.Fatalf("creating pod %d in %s: %v", i, ns, err)
		}
		d := time.Since(start)
		if ns == injected && gateOf(p) == nil {
			t.Fatalf("pod %d in %s was not injected", i, ns)
		}
		return d
	}
	var with, without []time.Duration
	for i := range n + warm {
		w, wo := create(injected, i), create(plain, i)
		if i >= warm {
			with, without = append(with, w), append(without, wo)
		}
	}
	p := func(ds []time.Duration, q float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[int(q*float64(len(s)-1)+0.5)]
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	t.Logf("admission: %d pods each; without webhook p50 %s p99 %s; with webhook p50 %s p99 %s; added p50 %s p99 %s",
		n, ms(p(without, .5)), ms(p(without, .99)), ms(p(with, .5)), ms(p(with, .99)),
		ms(p(with, .5)-p(without, .5)), ms(p(with, .99)-p(without, .99)))
	if added := p(with, .99) - p(without, .99); added > 10*time.Millisecond {
		t.Errorf("the injection webhook adds %s at p99, over the 10 ms target", ms(added))
	}
}
