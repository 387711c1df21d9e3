package chart

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/certexpiry"
	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gateserver"
	"github.com/toolgate/toolgate/internal/inject"
)

const monitoringValues = "testdata/values-monitoring.yaml"

// TestAlertsAndDashboardReadExportedMetrics: every PromQL expression of the
// PrometheusRule and of the dashboard parses (the rules pass the checks of
// promtool check rules: Prometheus' own rule-file parser), and every metric
// they read is one the operator or a gate registers, so that a renamed
// metric cannot leave an alert that never fires or a panel that stays
// empty.
func TestAlertsAndDashboardReadExportedMetrics(t *testing.T) {
	objs := objects(t, render(t, monitoringValues))
	dir := t.TempDir()

	rule := find(t, objs, "PrometheusRule", "toolgate")
	rules, err := yaml.Marshal(rule["spec"])
	if err != nil {
		t.Fatal(err)
	}
	rulesFile := filepath.Join(dir, "rules.yaml")
	writeFile(t, rulesFile, rules)

	exprs := dashboardExprs(t, dashboardJSON(t, objs))
	raw, _ := json.Marshal(exprs)
	exprsFile := filepath.Join(dir, "exprs.json")
	writeFile(t, exprsFile, raw)

	out, err := exec.Command(promcheck(t), "-rules", rulesFile, "-exprs", exprsFile).CombinedOutput()
	if err != nil {
		t.Fatalf("the rules or the dashboard's expressions do not check: %v\n%s", err, out)
	}
	var read map[string][]string
	if err := json.Unmarshal(out, &read); err != nil {
		t.Fatalf("promcheck printed %v: %s", err, out)
	}
	if len(read) < len(exprs) {
		t.Errorf("promcheck checked %d expressions, fewer than the dashboard's %d", len(read), len(exprs))
	}
	exported := exportedMetrics(t)
	for expr, names := range read {
		if len(names) == 0 {
			t.Errorf("%q reads no metric", expr)
		}
		for _, n := range names {
			if !exported(n) {
				t.Errorf("%q reads %s, which neither the operator nor the gate registers", expr, n)
			}
			if owner := exportedBy(n); owner != "" && !registeredBy(t, owner)[n] && !registeredBy(t, owner)[histogramBase(n)] {
				t.Errorf("%q reads %s, which its prefix says the %s exports, but the %s does not register it", expr, n, owner, owner)
			}
		}
	}
}

// exportedBy is the process a metric's prefix names: a gate's metrics
// start toolgate_gate_, the operator's toolgate_operator_. A query that
// reads one under the other's prefix would find no series where it runs.
func exportedBy(name string) string {
	switch {
	case strings.HasPrefix(name, "toolgate_gate_"):
		return "gate"
	case strings.HasPrefix(name, "toolgate_operator_"):
		return "operator"
	}
	return ""
}

// histogramBase is a histogram series' metric name: name without its
// _bucket, _sum or _count.
func histogramBase(name string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			return base
		}
	}
	return name
}

// registeredBy are the names one process's registries describe.
func registeredBy(t *testing.T, process string) map[string]bool {
	t.Helper()
	registeredMetrics(t)
	return registeredByProcess[process]
}

// dashboardExprs are the PromQL expressions of the dashboard's panels and
// of its variables' label_values queries, Grafana's variables replaced by
// values PromQL parses.
func dashboardExprs(t *testing.T, raw []byte) []string {
	t.Helper()
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type       string `json:"type"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	grafana := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")
	var exprs []string
	for _, p := range d.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			exprs = append(exprs, grafana.Replace(target.Expr))
		}
	}
	labelValues := regexp.MustCompile(`^label_values\(([^,]+),\s*[a-z_]+\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("the variable query %q is not label_values(SELECTOR, LABEL)", v.Definition)
			continue
		}
		exprs = append(exprs, m[1])
	}
	if len(exprs) == 0 {
		t.Fatal("the dashboard has no query")
	}
	return exprs
}

// exportedMetrics returns whether a metric name is one the operator's or
// the gate's registry describes (a histogram's series by their suffixes),
// whether or not any series of it has been recorded yet.
func exportedMetrics(t *testing.T) func(string) bool {
	t.Helper()
	names := registeredMetrics(t)
	return func(name string) bool {
		if names[name] {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && names[base] {
				return true
			}
		}
		return false
	}
}

var (
	registeredOnce      sync.Once
	registeredNames     map[string]bool
	registeredByProcess = map[string]map[string]bool{}
)

// registeredMetrics are the names of every metric the operator's and the
// gate's registries describe, built once per process: the operator's
// collectors register on controller-runtime's global registry.
func registeredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	registeredOnce.Do(func() { registeredNames = describeRegistries(t) })
	return registeredNames
}

func describeRegistries(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	process := "operator"
	describe := func(c prometheus.Collector) {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		fq := regexp.MustCompile(`fqName: "([^"]+)"`)
		for d := range ch {
			m := fq.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("cannot read the name of %s", d)
			}
			names[m[1]] = true
			if registeredByProcess[process] == nil {
				registeredByProcess[process] = map[string]bool{}
			}
			registeredByProcess[process][m[1]] = true
		}
	}
	// The operator: controller-runtime's registry (its own metrics, the Go
	// and process collectors), the reconcilers', the gate server's and the
	// certificate's.
	controllers.RegisterMetrics()
	gateserver.RegisterMetrics(crmetrics.Registry)
	operator := prometheus.NewRegistry()
	operator.MustRegister(certexpiry.New(filepath.Join(t.TempDir(), "tls.crt")))
	describe(crmetrics.Registry.(prometheus.Collector))
	describe(operator)
	// A gate with every source of its connection to the operator.
	process = "gate"
	gate := gatemetrics.New(gatemetrics.Sources{
		ConfigApplied: func() (time.Time, bool) { return time.Time{}, false },
		Connected:     func() bool { return true },
		RefusedFrames: func() uint64 { return 0 },
	})
	describe(gate.Registry)
	return names
}

// TestOperationsDocNamesEveryMetric: docs/operations.md names every metric
// toolgate registers, and every metric it names outside its changelog is
// one toolgate registers, so that the reference cannot fall behind a
// rename.
func TestOperationsDocNamesEveryMetric(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root(), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(raw), "\n## Changelog\n")
	names := registeredMetrics(t)
	exported := exportedMetrics(t)
	for name := range names {
		if strings.HasPrefix(name, "toolgate_") && !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/operations.md does not name %s", name)
		}
	}
	for _, m := range regexp.MustCompile("`(toolgate_[a-z_]*[a-z])[`{]").FindAllStringSubmatch(doc, -1) {
		if !exported(m[1]) {
			t.Errorf("docs/operations.md names %s, which neither the operator nor the gate registers", m[1])
		}
	}
}

// TestAlerts: every alert says what happened, why it matters and where
// its runbook is: a section of docs/operations.md that exists; and carries
// a severity.
func TestAlerts(t *testing.T) {
	objs := objects(t, render(t, monitoringValues))
	rule := find(t, objs, "PrometheusRule", "toolgate")
	if get(rule, "metadata", "labels", "release") != "prometheus" {
		t.Errorf("metrics.prometheusRule.labels are not on the PrometheusRule: %v", get(rule, "metadata", "labels"))
	}
	doc, err := os.ReadFile(filepath.Join(root(), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := markdownAnchors(string(doc))
	var alerts []string
	for g := 0; get(rule, "spec", "groups", g) != nil; g++ {
		for i := 0; get(rule, "spec", "groups", g, "rules", i) != nil; i++ {
			r := get(rule, "spec", "groups", g, "rules", i)
			name, _ := get(r, "alert").(string)
			if name == "" {
				continue
			}
			alerts = append(alerts, name)
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if v, _ := get(r, "annotations", a).(string); strings.TrimSpace(v) == "" {
					t.Errorf("alert %s has no %s", name, a)
				}
			}
			if !slices.Contains([]any{"info", "warning", "critical"}, get(r, "labels", "severity")) {
				t.Errorf("alert %s: severity %v", name, get(r, "labels", "severity"))
			}
			url, _ := get(r, "annotations", "runbook_url").(string)
			page, anchor, _ := strings.Cut(url, "#")
			if !strings.HasSuffix(page, "/docs/operations.md") || !anchors[anchor] {
				t.Errorf("alert %s: runbook_url %s is not a section of docs/operations.md", name, url)
			}
			if anchor != strings.ToLower(name) {
				t.Errorf("alert %s: runbook_url %s, want the section named after the alert", name, url)
			}
		}
	}
	// The alerts the chart promises, one per concern.
	for _, want := range []string{"ToolgateHeldCallWaiting", "ToolgatePinReviewWaiting", "ToolgateGateWithoutConfiguration",
		"ToolgateGateDisconnected", "ToolgateProbesFailing", "ToolgateServerNotReady", "ToolgateServerBypassable", "ToolgateCertificateExpiresSoon"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s among %v", want, alerts)
		}
	}
	// Thresholds come from the values.
	rendered := helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--values", monitoringValues, "--show-only", "templates/prometheusrule.yaml",
		"--set", "metrics.prometheusRule.heldCallWaitSeconds=45,metrics.prometheusRule.pinReviewWaitSeconds=3600,metrics.prometheusRule.certificateExpirySeconds=999")
	for _, want := range []string{"toolgate_operator_oldest_held_call_age_seconds) > 45", "toolgate_operator_oldest_pending_review_age_seconds) > 3600", "time() < 999"} {
		if !strings.Contains(string(rendered), want) {
			t.Errorf("the rules lack %q:\n%s", want, rendered)
		}
	}
}

// markdownAnchors are the anchors GitHub gives a document's headings.
func markdownAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		anchors[strings.ReplaceAll(drop.ReplaceAllString(title, ""), " ", "-")] = true
	}
	return anchors
}

// TestDashboard: the dashboard ConfigMap carries the label Grafana's
// sidecar loads by, and the dashboard file as it is; the gates'
// PodMonitor scrapes the port the injector opens.
func TestDashboard(t *testing.T) {
	objs := objects(t, render(t, monitoringValues))
	cm := find(t, objs, "ConfigMap", "toolgate-dashboard")
	if get(cm, "metadata", "labels", "grafana_dashboard") != "1" || get(cm, "metadata", "annotations", "grafana_folder") != "toolgate" {
		t.Errorf("the dashboard ConfigMap's labels %v, annotations %v", get(cm, "metadata", "labels"), get(cm, "metadata", "annotations"))
	}
	file, err := os.ReadFile(filepath.Join(root(), "charts", "toolgate", "files", "dashboards", "toolgate.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := dashboardJSON(t, objs); strings.TrimSpace(string(got)) != strings.TrimSpace(string(file)) {
		t.Error("the ConfigMap does not hold files/dashboards/toolgate.json as it is")
	}
	elsewhere := objects(t, helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--namespace", "toolgate-system",
		"--set", "metrics.dashboard.enabled=true,metrics.dashboard.namespace=grafana"))
	if ns := get(find(t, elsewhere, "ConfigMap", "toolgate-dashboard"), "metadata", "namespace"); ns != "grafana" {
		t.Errorf("metrics.dashboard.namespace grafana: the ConfigMap is in %v", ns)
	}

	pm := find(t, objs, "PodMonitor", "toolgate-gates")
	pod, err := inject.Mutate(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "agents"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent"}}}},
		inject.Template{Image: "gate", OperatorURL: "https://toolgate-operator.toolgate-system.svc:9444",
			// Only its shape is checked.
			CAPEM: "-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n", OpenMetrics: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ports []any
	for _, c := range pod.Spec.InitContainers {
		for _, p := range c.Ports {
			ports = append(ports, p.Name)
		}
	}
	if port := get(pm, "spec", "podMetricsEndpoints", 0, "port"); !slices.Contains(ports, port) {
		t.Errorf("the PodMonitor scrapes port %v; the injected gate opens %v", port, ports)
	}
	if get(pm, "spec", "namespaceSelector", "any") != true {
		t.Errorf("the PodMonitor does not look in every namespace: %v", get(pm, "spec", "namespaceSelector"))
	}
}

// TestComponentLabels: app.kubernetes.io/component says which part of the
// architecture an object belongs to: operator on the operator's own
// objects, none on the CRDs and on the roles people are bound to, which
// are no one component's; the Deployment's selector keeps it, being
// immutable.
func TestComponentLabels(t *testing.T) {
	objs := objects(t, render(t, monitoringValues))
	component := func(o object) any { return get(o, "metadata", "labels", "app.kubernetes.io/component") }
	for _, c := range []struct {
		kind, name string
		want       any
	}{
		{"Deployment", "toolgate-operator", "operator"},
		{"ServiceAccount", "toolgate-operator", "operator"},
		{"Service", "toolgate-operator", "operator"},
		{"ClusterRole", "toolgate-manager", "operator"},
		{"MutatingWebhookConfiguration", "toolgate-injection", "operator"},
		{"CustomResourceDefinition", "toolpins.toolgate.dev", nil},
		{"ClusterRole", "toolgate-approver", nil},
		{"ClusterRole", "toolgate-metrics-reader", nil},
		{"ValidatingAdmissionPolicy", "toolgate-inject-opt-out", nil},
		{"PrometheusRule", "toolgate", "monitoring"},
		{"PodMonitor", "toolgate-gates", "monitoring"},
	} {
		if got := component(find(t, objs, c.kind, c.name)); got != c.want {
			t.Errorf("%s %s: component %v, want %v", c.kind, c.name, got, c.want)
		}
	}
	d := find(t, objs, "Deployment", "toolgate-operator")
	if get(d, "spec", "selector", "matchLabels", "app.kubernetes.io/component") != "operator" {
		t.Errorf("the Deployment's selector changed: %v", get(d, "spec", "selector"))
	}
}

// dashboardJSON is the dashboard the rendered ConfigMap holds.
func dashboardJSON(t *testing.T, objs []object) []byte {
	t.Helper()
	s, _ := get(find(t, objs, "ConfigMap", "toolgate-dashboard"), "data", "toolgate.json").(string)
	if s == "" {
		t.Fatal("the dashboard ConfigMap holds no toolgate.json")
	}
	return []byte(s)
}

var (
	promcheckOnce sync.Once
	promcheckPath string
	promcheckErr  error
)

// promcheck builds hack/tools/promcheck, a module of its own so that
// Prometheus' dependencies stay out of the project's, once per run.
func promcheck(t *testing.T) string {
	t.Helper()
	promcheckOnce.Do(func() {
		dir, err := os.MkdirTemp("", "promcheck")
		if err != nil {
			promcheckErr = err
			return
		}
		promcheckPath = filepath.Join(dir, "promcheck")
		cmd := exec.Command("go", "build", "-o", promcheckPath, ".")
		cmd.Dir = filepath.Join(root(), "hack", "tools", "promcheck")
		// The project's GOFLAGS (a -modfile, say) are not this module's.
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			promcheckErr = fmt.Errorf("building hack/tools/promcheck: %w\n%s", err, out)
		}
	})
	if promcheckErr != nil {
		t.Fatal(promcheckErr)
	}
	return promcheckPath
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
