package controllers

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/toolgate/toolgate/internal/serverstatus"
)

// operatorMetrics are exported on the manager's metrics endpoint.
type operatorMetrics struct {
	probeDuration *prometheus.HistogramVec
	probes        *prometheus.CounterVec
	tools         *prometheus.GaugeVec
	awaiting      *prometheus.GaugeVec
	oldest        *oldestPending
	// pinWriteFailures counts pin writes that failed, by server: each one
	// leaves the server not Ready.
	pinWriteFailures *prometheus.CounterVec
	// conditions mirrors each server's status conditions, one series per
	// condition and status (1 for the status it has, 0 for the others), so
	// that an alert on a server turning not Ready or GateBypassable reads a
	// series that exists before and after the change.
	conditions *prometheus.GaugeVec
}

var (
	metricsOnce sync.Once
	theMetrics  *operatorMetrics
)

// getMetrics registers the operator's metrics with controller-runtime's
// registry once per process and returns them.
func getMetrics() *operatorMetrics {
	metricsOnce.Do(func() {
		m := &operatorMetrics{
			probeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name: "toolgate_operator_probe_duration_seconds", Help: "Duration of MCP server probes, by result.",
				Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
			}, []string{"result"}),
			probes: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "toolgate_operator_probes_total", Help: "MCP server probes, by server and result (Probed or the failure reason).",
			}, []string{"namespace", "server", "result"}),
			tools: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "toolgate_operator_tools", Help: "Tools in each MCP server's catalogue, by risk level.",
			}, []string{"namespace", "server", "level"}),
			awaiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "toolgate_operator_pins_awaiting_review", Help: "ToolPins awaiting a human review, by server.",
			}, []string{"namespace", "server"}),
			pinWriteFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "toolgate_operator_pin_write_failures_total", Help: "ToolPin writes that failed, by server; the server is not Ready until they succeed.",
			}, []string{"namespace", "server"}),
			conditions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "toolgate_operator_server_condition",
				Help: "Each MCPServer's status conditions: 1 on the status the condition has (True, False or Unknown), 0 on the others.",
			}, []string{"namespace", "server", "condition", "status"}),
			oldest: &oldestPending{since: map[[2]string]time.Time{}, desc: prometheus.NewDesc(
				"toolgate_operator_oldest_pending_review_age_seconds", "Age of the oldest ToolPin awaiting review, by server.",
				[]string{"namespace", "server"}, nil)},
		}
		metrics.Registry.MustRegister(m.probeDuration, m.probes, m.tools, m.awaiting, m.oldest, m.pinWriteFailures, m.conditions)
		theMetrics = m
	})
	return theMetrics
}

// RegisterMetrics registers the reconcilers' metrics with
// controller-runtime's registry, once per process, as the reconcilers do
// when they first record: for a program or test that reads the registry
// without running them.
func RegisterMetrics() { getMetrics() }

// recordPins sets a server's per-level and review gauges from the tally of
// its pins.
func (m *operatorMetrics) recordPins(ns, server string, tally serverstatus.Tally) {
	m.tools.DeletePartialMatch(prometheus.Labels{"namespace": ns, "server": server})
	for level, n := range tally.Levels {
		m.tools.WithLabelValues(ns, server, string(level)).Set(float64(n))
	}
	m.awaiting.WithLabelValues(ns, server).Set(float64(tally.Awaiting()))
	m.oldest.set(ns, server, tally.OldestAwaiting)
}

// recordConditions sets a server's condition series from its status.
func (m *operatorMetrics) recordConditions(ns, server string, conditions []metav1.Condition) {
	m.conditions.DeletePartialMatch(prometheus.Labels{"namespace": ns, "server": server})
	for _, c := range conditions {
		for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
			v := 0.0
			if c.Status == s {
				v = 1
			}
			m.conditions.WithLabelValues(ns, server, c.Type, string(s)).Set(v)
		}
	}
}

// forget drops a deleted server's series.
func (m *operatorMetrics) forget(ns, server string) {
	labels := prometheus.Labels{"namespace": ns, "server": server}
	m.tools.DeletePartialMatch(labels)
	m.probes.DeletePartialMatch(labels)
	m.awaiting.DeletePartialMatch(labels)
	m.pinWriteFailures.DeletePartialMatch(labels)
	m.conditions.DeletePartialMatch(labels)
	m.oldest.set(ns, server, time.Time{})
}

// oldestPending reports, at scrape time, how long the oldest review of each
// server has been waiting: an age must grow between probes, which a gauge
// set at probe time would not.
type oldestPending struct {
	mu    sync.Mutex
	since map[[2]string]time.Time
	desc  *prometheus.Desc
}

func (o *oldestPending) set(ns, server string, since time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if since.IsZero() {
		delete(o.since, [2]string{ns, server})
		return
	}
	o.since[[2]string{ns, server}] = since
}

func (o *oldestPending) Describe(ch chan<- *prometheus.Desc) { ch <- o.desc }

func (o *oldestPending) Collect(ch chan<- prometheus.Metric) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	for k, since := range o.since {
		ch <- prometheus.MustNewConstMetric(o.desc, prometheus.GaugeValue, now.Sub(since).Seconds(), k[0], k[1])
	}
}
