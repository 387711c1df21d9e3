package gateserver

import (
	"errors"
	"sync"
	"time"

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
	// waited is how long each held call waited for its outcome, by
	// outcome; waiting is the calls waiting now.
	waited  *prometheus.HistogramVec
	waiting *waitingCalls
}

// RegisterMetrics registers the gate server's metrics with reg, or finds
// those already registered there, as New does: for programs and tests that
// read the registry without serving gates.
func RegisterMetrics(reg prometheus.Registerer) { newMetrics(reg) }

func newMetrics(reg prometheus.Registerer) *serverMetrics {
	m := &serverMetrics{
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_operator_gate_streams", Help: "Gates holding a configuration stream to this replica now.",
		}),
		pushes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_operator_config_pushes_total", Help: "Configuration frames sent to gates, the first of each stream included.",
		}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_operator_gate_auth_failures_total", Help: "Gate connections refused, by reason.",
		}, []string{"reason"}),
		buildErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_operator_config_build_errors_total", Help: "Configurations that could not be built; the stream was closed and the gate kept its last one.",
		}),
		invalid: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_operator_config_invalid_total", Help: "Configurations built that fail the protocol's validation; the gate refuses them.",
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_operator_held_calls_total", Help: "Calls and results gates held for a person, by what became of them: opened, refused, approved, rejected, expired, withdrawn.",
		}, []string{"outcome"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_operator_finding_reports_total",
			Help: "Findings gates reported, by what became of the report: the action the gate took (record, redact, withhold), refused or dropped (over the rate).",
		}, []string{"outcome"}),
		// From a second to an hour and a half: a person answers in
		// seconds to minutes, and an approval timeout is at most an hour.
		waited: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_operator_held_call_wait_seconds",
			Help:    "How long held calls waited for a person, from opened to their outcome, by outcome: approved, rejected, expired, withdrawn.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 5400},
		}, []string{"outcome"}),
		waiting: newWaitingCalls(),
	}
	m.waited = register(reg, m.waited)
	m.waiting = register(reg, m.waiting)
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

// waitingCalls reports, at scrape time, how many held calls this replica
// holds open and how long the oldest has waited: an age must grow while
// the call waits, which a gauge set when it opened would not.
type waitingCalls struct {
	mu     sync.Mutex
	next   uint64
	opened map[uint64]time.Time
	count  *prometheus.Desc
	oldest *prometheus.Desc
}

func newWaitingCalls() *waitingCalls {
	return &waitingCalls{
		opened: map[uint64]time.Time{},
		count: prometheus.NewDesc("toolgate_operator_held_calls_waiting",
			"Held calls waiting for a person on this replica now.", nil, nil),
		oldest: prometheus.NewDesc("toolgate_operator_oldest_held_call_age_seconds",
			"How long the oldest held call waiting on this replica has waited; absent while none waits.", nil, nil),
	}
}

// open records a call opened at t and returns the function that records
// its end.
func (w *waitingCalls) open(t time.Time) (done func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next++
	id := w.next
	w.opened[id] = t
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.opened, id)
	}
}

func (w *waitingCalls) Describe(ch chan<- *prometheus.Desc) {
	ch <- w.count
	ch <- w.oldest
}

func (w *waitingCalls) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(w.count, prometheus.GaugeValue, float64(len(w.opened)))
	if len(w.opened) == 0 {
		return
	}
	var first time.Time
	for _, t := range w.opened {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	ch <- prometheus.MustNewConstMetric(w.oldest, prometheus.GaugeValue, time.Since(first).Seconds())
}
