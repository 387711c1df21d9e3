package gatemetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// UnknownTool is the tool label of a call to a name the configuration does
// not hold: the label set stays bounded by the configuration, whatever
// names an agent sends.
const UnknownTool = "_unknown"

// Metrics are the gate's collectors.
type Metrics struct {
	// Registry holds every collector below.
	Registry *prometheus.Registry

	// Calls counts tools/call decisions by server, tool, level and decision.
	Calls *prometheus.CounterVec
	// AddedLatency is the time the gate adds to a request: its whole time
	// in the gate minus the time waiting on the server.
	AddedLatency *prometheus.HistogramVec
	// UpstreamLatency is the time spent waiting on the server.
	UpstreamLatency *prometheus.HistogramVec
	// Tools is how many tools of each server the gate exposes or withholds,
	// from the last list it saw.
	Tools *prometheus.GaugeVec
	// FingerprintMismatches counts tools withheld because the server sent a
	// definition other than the approved one.
	FingerprintMismatches *prometheus.CounterVec
	// LimitsHit counts requests stopped by a bound, by bound.
	LimitsHit *prometheus.CounterVec
	// Errors counts requests that failed in the gate or upstream, by kind.
	Errors *prometheus.CounterVec
	// InFlight is how many requests are open now, the agents' standalone
	// streams aside.
	InFlight prometheus.Gauge
	// Streams is how many standalone streams of the agents are open now.
	Streams prometheus.Gauge
	// Sessions is how many MCP sessions the gate tracks.
	Sessions prometheus.Gauge
	// ConfigApplied counts configurations applied and refused.
	ConfigApplied *prometheus.CounterVec
	// Findings counts what the scan of servers' answers found, by server,
	// signal, the action taken and the method of the message.
	Findings *prometheus.CounterVec
	// UnscannedBytes counts text of servers' answers past the scan's bound.
	UnscannedBytes *prometheus.CounterVec
	// ArgumentRules counts argument rules that matched a call, by server,
	// rule ("policy/rule") and outcome: matched, failed (the expression
	// could not be evaluated and counted as true) or unevaluable (the
	// operator found the rule does not fit the tool).
	ArgumentRules *prometheus.CounterVec
	// ArgumentFloors counts the built-in argument floors calls met, by
	// server and signal.
	ArgumentFloors *prometheus.CounterVec
}

// Sources are the values the gate reads from its connection to the
// operator; a nil function exports nothing.
type Sources struct {
	// ConfigApplied is when the configuration in force was applied, and
	// false before the first.
	ConfigApplied func() (time.Time, bool)
	// Connected reports whether the stream to the operator is up.
	Connected func() bool
	// RefusedFrames is how many frames from the operator the gate's
	// client refused, configurations that failed validation included:
	// those never reach the gate's own count of refused configurations.
	RefusedFrames func() uint64
}

// New registers the gate's metrics on a new registry.
func New(src Sources) *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Buckets from 50µs: the gate's own work is in the tens of microseconds,
	// and a regression there must be visible.
	added := []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3, 1}
	m := &Metrics{
		Registry: r,
		Calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_calls_total", Help: "tools/call requests by server, tool, level and decision.",
		}, []string{"server", "tool", "level", "decision"}),
		AddedLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolgate_gate_added_latency_seconds", Help: "Time a request spent in the gate, waiting on the server excluded.",
			Buckets: added,
		}, []string{"server", "method"}),
		UpstreamLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolgate_gate_upstream_latency_seconds", Help: "Time a request waited on the server.",
			Buckets: prometheus.DefBuckets,
		}, []string{"server", "method"}),
		Tools: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "toolgate_gate_tools", Help: "Tools of a server exposed or withheld, as of the last list the gate saw.",
		}, []string{"server", "state"}),
		FingerprintMismatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_fingerprint_mismatches_total", Help: "Tools withheld because the server sent a definition other than the approved one.",
		}, []string{"server", "tool"}),
		LimitsHit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_limits_hit_total", Help: "Requests stopped by a bound, by bound.",
		}, []string{"limit"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_errors_total", Help: "Requests that failed, by kind.",
		}, []string{"kind"}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_gate_in_flight_requests", Help: "Requests open now, the agents' standalone streams (GET) aside.",
		}),
		Streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_gate_open_streams", Help: "The agents' standalone streams (GET) open now.",
		}),
		Sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_gate_sessions", Help: "MCP sessions the gate tracks.",
		}),
		Findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_findings_total", Help: "Findings of the scan of what servers say, by server, signal, action and method.",
		}, []string{"server", "signal", "action", "method"}),
		UnscannedBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_unscanned_bytes_total", Help: "Bytes of text in servers' answers past the scan's bound, not examined.",
		}, []string{"server"}),
		ConfigApplied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_configs_total", Help: "Configurations applied or refused.",
		}, []string{"result"}),
		ArgumentRules: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_argument_rules_total", Help: "Argument rules that matched a call, by server, rule and outcome (matched, failed, unevaluable).",
		}, []string{"server", "rule", "outcome"}),
		ArgumentFloors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_argument_floors_total", Help: "Built-in argument floors calls met, by server and signal.",
		}, []string{"server", "signal"}),
	}
	r.MustRegister(m.Calls, m.AddedLatency, m.UpstreamLatency, m.Tools, m.FingerprintMismatches,
		m.LimitsHit, m.Errors, m.InFlight, m.Streams, m.Sessions, m.ConfigApplied, m.Findings, m.UnscannedBytes,
		m.ArgumentRules, m.ArgumentFloors)
	if src.ConfigApplied != nil {
		r.MustRegister(&configApplied{applied: src.ConfigApplied,
			at: prometheus.NewDesc("toolgate_gate_config_last_applied_timestamp_seconds",
				"When the configuration in force was applied, in seconds since the epoch; absent before the first.", nil, nil),
			current: prometheus.NewDesc("toolgate_gate_config_current",
				"1 once a configuration is in force, 0 before the first: until then the gate exposes no tool.", nil, nil),
		})
	}
	if src.Connected != nil {
		r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "toolgate_gate_operator_connected", Help: "1 while the configuration stream to the operator is up.",
		}, func() float64 {
			if src.Connected() {
				return 1
			}
			return 0
		}))
	}
	if src.RefusedFrames != nil {
		r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "toolgate_gate_frames_refused_total", Help: "Frames from the operator refused: malformed, of another protocol version, or a configuration refused.",
		}, func() float64 { return float64(src.RefusedFrames()) }))
	}
	return m
}

// configApplied exports when the configuration in force was applied, and
// whether there is one. The time is absent before the first rather than a
// sentinel, so that time() minus it is never a meaningless age.
type configApplied struct {
	applied     func() (time.Time, bool)
	at, current *prometheus.Desc
}

func (c *configApplied) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.at
	ch <- c.current
}

func (c *configApplied) Collect(ch chan<- prometheus.Metric) {
	t, ok := c.applied()
	if !ok {
		ch <- prometheus.MustNewConstMetric(c.current, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.current, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.at, prometheus.GaugeValue, float64(t.UnixNano())/1e9)
}
