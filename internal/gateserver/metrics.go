package gateserver

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the gate server's metrics.
type serverMetrics struct {
	connected    prometheus.Gauge
	pushes       prometheus.Counter
	authFailures *prometheus.CounterVec
	buildErrors  prometheus.Counter
	invalid      prometheus.Counter
	calls        *prometheus.CounterVec
	findings     *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *serverMetrics {
	m := &serverMetrics{
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_gate_streams", Help: "Gates holding a configuration stream to this replica now.",
		}),
		pushes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_gate_config_pushes_total", Help: "Configuration frames sent to gates, the first of each stream included.",
		}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_auth_failures_total", Help: "Gate connections refused, by reason.",
		}, []string{"reason"}),
		buildErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_gate_config_build_errors_total", Help: "Configurations that could not be built; the stream was closed and the gate kept its last one.",
		}),
		invalid: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_gate_config_invalid_total", Help: "Configurations built that fail the protocol's validation; the gate refuses them.",
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_calls_total", Help: "Pending calls, by what became of them: opened, refused, approved, rejected, expired, withdrawn.",
		}, []string{"outcome"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gate_finding_reports_total",
			Help: "Findings gates reported, by what became of the report: the action the gate took (record, redact, withhold), refused or dropped (over the rate).",
		}, []string{"outcome"}),
	}
	m.calls = register(reg, m.calls)
	m.findings = register(reg, m.findings)
	m.connected = register(reg, m.connected)
	m.pushes = register(reg, m.pushes)
	m.authFailures = register(reg, m.authFailures)
	m.buildErrors = register(reg, m.buildErrors)
	m.invalid = register(reg, m.invalid)
	return m
}

// register registers c, or returns the collector already registered under
// its name: a second server in one process (tests, a restart in place)
// shares the first one's series rather than failing. A collector that
// clashes with another kind of metric of its name still counts, unexported,
// rather than stopping the operator over a metric.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}
