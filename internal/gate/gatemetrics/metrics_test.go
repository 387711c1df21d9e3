package gatemetrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestConfigApplied: before the first configuration the gate says it has
// none and exports no time of one (no sentinel an age could be computed
// from); after, it says when.
func TestConfigApplied(t *testing.T) {
	var at time.Time
	m := New(Sources{ConfigApplied: func() (time.Time, bool) { return at, !at.IsZero() }})
	gauge := func(name string) (float64, bool) {
		families, err := m.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == name {
				return f.GetMetric()[0].GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	if v, ok := gauge("toolgate_gate_config_current"); !ok || v != 0 {
		t.Errorf("before the first configuration: current %v (exported %v), want 0", v, ok)
	}
	if v, ok := gauge("toolgate_gate_config_last_applied_timestamp_seconds"); ok {
		t.Errorf("before the first configuration the time of the last is exported: %v", v)
	}
	at = time.Unix(1_700_000_000, 500_000_000)
	if v, _ := gauge("toolgate_gate_config_current"); v != 1 {
		t.Errorf("with a configuration: current %v, want 1", v)
	}
	if v, _ := gauge("toolgate_gate_config_last_applied_timestamp_seconds"); v != 1_700_000_000.5 {
		t.Errorf("last applied %v, want 1700000000.5", v)
	}
	if n := testutil.CollectAndCount(m.Registry, "toolgate_gate_config_current"); n != 1 {
		t.Errorf("%d series of toolgate_gate_config_current, want 1", n)
	}
}
