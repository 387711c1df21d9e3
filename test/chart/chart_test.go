package chart

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/inject"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// requireHelm names the variable that turns a missing helm into a failure.
const requireHelm = "TOOLGATE_REQUIRE_HELM"

// root is the repository's root.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// helmBinary returns the helm CLI: TOOLGATE_HELM, or the newest that
// hack/helm.sh left in its cache.
func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("TOOLGATE_HELM"); h != "" {
		return h
	}
	cache := os.Getenv("TOOLGATE_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "toolgate")
	}
	found, _ := filepath.Glob(filepath.Join(cache, "helm-*", "helm"))
	sort.Strings(found)
	if len(found) > 0 {
		return found[len(found)-1]
	}
	if os.Getenv(requireHelm) != "" {
		t.Fatalf("no helm CLI and %s is set: run make helm (hack/helm.sh) or set TOOLGATE_HELM", requireHelm)
	}
	t.Skip("no helm CLI: run make helm, or set TOOLGATE_HELM")
	return ""
}

// modes are the values files the chart is rendered with, by golden file.
// external marks the mode that renders no Deployment: the operator runs
// outside the cluster.
var modes = []struct {
	name, values string
	external     bool
}{
	{"default", "", false},
	{"cert-manager", "testdata/values-cert-manager.yaml", false},
	{"external-operator", "testdata/values-external-operator.yaml", true},
	{"monitoring", monitoringValues, false},
}

func helm(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(helmBinary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

func render(t *testing.T, values string) []byte {
	args := []string{"template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--namespace", "toolgate-system"}
	if values != "" {
		args = append(args, "--values", values)
	}
	return helm(t, args...)
}

// TestLint: helm lint --strict passes in both certificate modes.
func TestLint(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			args := []string{"lint", "--strict", filepath.Join(root(), "charts", "toolgate")}
			if m.values != "" {
				args = append(args, "--values", m.values)
			}
			helm(t, args...)
		})
	}
}

// TestGolden: helm template renders what the golden files hold.
func TestGolden(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			got := withoutCRDBodies(t, render(t, m.values))
			golden := filepath.Join("testdata", m.name+".golden.yaml")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./test/chart/ -update)", err)
			}
			if !bytes.Equal(got, want) {
				diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(string(want)), B: difflib.SplitLines(string(got)),
					FromFile: golden, ToFile: "helm template", Context: 2})
				t.Errorf("the chart renders differently (go test ./test/chart/ -update if intended):\n%s", diff)
			}
		})
	}
}

// withoutCRDBodies replaces each rendered CRD's spec by a line naming it:
// the CRDs change with every API change and are checked against
// config/crd/bases by TestGenerated, so the golden files hold only what the
// chart itself decides about them (labels, annotations).
func withoutCRDBodies(t *testing.T, rendered []byte) []byte {
	t.Helper()
	docs := regexp.MustCompile(`(?m)^---\s*$`).Split(string(rendered), -1)
	for i, doc := range docs {
		if !strings.Contains(doc, "\nkind: CustomResourceDefinition\n") {
			continue
		}
		head, _, ok := strings.Cut(doc, "\nspec:\n")
		if !ok {
			t.Fatalf("a CRD without a spec:\n%.300s", doc)
		}
		docs[i] = head + "\nspec: {} # as in config/crd/bases (TestGenerated)\n"
	}
	return []byte(strings.Join(docs, "---"))
}

// TestNotes: what helm prints after an install names only what the mode
// rendered, and carries its own example instead of pointing at files of the
// repository, which a user of the packaged chart does not have.
func TestNotes(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			args := []string{"install", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--namespace", "toolgate-system", "--dry-run=client"}
			if m.values != "" {
				args = append(args, "--values", m.values)
			}
			out := string(helm(t, args...))
			_, notes, ok := strings.Cut(out, "\nNOTES:\n")
			if !ok {
				t.Fatalf("helm printed no NOTES:\n%.600s", out)
			}
			objs := objects(t, render(t, m.values))
			for _, want := range []string{"kind: MCPServer", "kind: ToolPolicy", "kubectl get mcpservers,toolpins -A", "toolgate-approver"} {
				if !strings.Contains(notes, want) {
					t.Errorf("the notes lack %q:\n%s", want, notes)
				}
			}
			if strings.Contains(notes, "config/samples") {
				t.Errorf("the notes point at config/samples, which the packaged chart lacks:\n%s", notes)
			}
			// Every Deployment and Secret the notes name is one this mode renders.
			for _, ref := range regexp.MustCompile(`deployment/([a-z0-9-]+)`).FindAllStringSubmatch(notes, -1) {
				find(t, objs, "Deployment", ref[1])
			}
			for _, ref := range regexp.MustCompile(`Secret ([a-z0-9-]+)`).FindAllStringSubmatch(notes, -1) {
				find(t, objs, "Secret", ref[1])
			}
			if m.external {
				for _, want := range []string{"https://127.0.0.1:9443", "kubectl create token toolgate-operator -n toolgate-system",
					"--operator-user system:serviceaccount:toolgate-system:toolgate-operator", "--webhook-cert-dir"} {
					if !strings.Contains(notes, want) {
						t.Errorf("the notes of an external operator lack %q:\n%s", want, notes)
					}
				}
				if strings.Contains(notes, "rollout status") {
					t.Errorf("the notes of an external operator wait for a Deployment:\n%s", notes)
				}
			} else if !strings.Contains(notes, "rollout status deployment/toolgate-operator") {
				t.Errorf("the notes do not say how to wait for the operator:\n%s", notes)
			}
		})
	}
}

// TestRejectsUnknownValues: the schema refuses a key it does not know and
// a value of the wrong shape, and the templates a value that would render
// something the cluster refuses or that never works, so a mistake fails the
// install. Each case names what the error must point at, so that a case
// refused for another reason (a typo in the case itself) does not pass.
func TestRejectsUnknownValues(t *testing.T) {
	h := helmBinary(t)
	for _, c := range []struct{ set, why string }{
		{"replica=3", "'replica' not allowed"},
		{"gate.resource.limits.cpu=1", "'resource' not allowed"},
		{"approval.serviceAccounts[0]=alice", "/approval/serviceAccounts/0"},
		{"approval.requiredApprovers=1", "/approval/requiredApprovers"},
		{"certificates.rotation=false", "the webhooks need a certificate"},
		{"resources.request.cpu=1", "'request' not allowed"},
		// Each schema rule's message says which rule the value breaks.
		{"leaderElection=false", "at '/leaderElection': value must be 'true, as more than one replica runs"},
		{"replicaCount=3,leaderElection=false", "at '/leaderElection': value must be 'true, as more than one replica runs"},
		{"replicas=3,replicaCount=1,leaderElection=false", "at '/leaderElection': value must be 'true, as more than one replica runs"},
		{"replicaCount=0", "at '/replicaCount': minimum: got 0, want 1"},
		{"replicas=0", "at '/replicas': value must be 'unset: replicas is deprecated, set replicaCount"},
		{"serviceAccount.create=false", "at '/serviceAccount/name': value must be 'the name of an existing ServiceAccount, as serviceAccount.create is false'"},
		{"gate.podMonitor.enabled=true", "at '/gate/openMetrics': value must be 'true, as gate.podMonitor.enabled scrapes the gates"},
		{"metrics.prometheusRule.heldCallWaitSeconds=0", "at '/metrics/prometheusRule/heldCallWaitSeconds': minimum: got 0, want 1"},
		{"metrics.prometheusRule.runbookURL=docs/operations.md", "at '/metrics/prometheusRule/runbookURL'"},
		{"podDisruptionBudget.minAvailable=most", "at '/podDisruptionBudget/minAvailable': 'most' does not match pattern '^[0-9]+%$'"},
		{"podDisruptionBudget.minAvailable=-1", "at '/podDisruptionBudget/minAvailable': minimum: got -1, want 0"},
		{"ceilings.defaultMaxLevel=L6", "/ceilings/defaultMaxLevel"},
		{"ceilings.maxLevelCap=high", "/ceilings/maxLevelCap"},
		{"gate.args={--config-file=/open.json}", "/gate/args/0"},
		{"gate.args={--operator-url=https://evil.example}", "/gate/args/0"},
		{"gate.logLevel=trace", "/gate/logLevel"},
		// A budget that keeps every replica blocks every drain (the
		// Deployment rolls with maxUnavailable 0).
		{"podDisruptionBudget.minAvailable=2", "podDisruptionBudget.minAvailable 2 keeps all 2 replicas"},
		{"replicaCount=3,podDisruptionBudget.minAvailable=5", "podDisruptionBudget.minAvailable 5 keeps all 3 replicas"},
		// The deprecated replicas, honoured for one release, overrides replicaCount.
		{"replicas=3,podDisruptionBudget.minAvailable=5", "podDisruptionBudget.minAvailable 5 keeps all 3 replicas"},
		{"podDisruptionBudget.minAvailable=100%", "podDisruptionBudget.minAvailable 100% keeps all 2 replicas"},
		{"replicaCount=3,podDisruptionBudget.minAvailable=67%", "podDisruptionBudget.minAvailable 67% keeps all 3 replicas"},
		// The API server refuses an empty quantity; only the gate's
		// resources take "" for none.
		{"resources.requests.cpu=", "/resources/requests/cpu"},
		{"resources.requests.memory=", "/resources/requests/memory"},
		{"resources.limits.cpu=", "/resources/limits/cpu"},
		{"resources.limits.memory=", "/resources/limits/memory"},
		// The container's other ports.
		{"metrics.port=9443", "at '/metrics/port': value must be 'any port but 9443, where the webhook server listens"},
		{"metrics.port=9444", "at '/metrics/port': value must be 'any port but 9444, where the gate server listens"},
		{"metrics.port=8081", "at '/metrics/port': value must be 'any port but 8081, where the health probes are served"},
		{"nameOverride=Tool_Gate", "/nameOverride"},
		{"nameOverride=toolgate-", "/nameOverride"},
		{"fullnameOverride=My.Gate", "/fullnameOverride"},
		{"fullnameOverride=-toolgate", "/fullnameOverride"},
		// Serving pods without the gate is for development only.
		{"extraArgs={--gate-serve-uninjected-pods}", "at '/extraArgs/0': value must be 'any flag but --gate-serve-uninjected-pods, which serves pods without the injected gate"},
		{"extraArgs={--zap-devel,--gate-serve-uninjected-pods=true}", "at '/extraArgs/1': value must be 'any flag but --gate-serve-uninjected-pods"},
	} {
		out, err := exec.Command(h, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--set", c.set).CombinedOutput()
		if err == nil {
			t.Errorf("--set %s rendered:\n%.300s", c.set, out)
		} else if !strings.Contains(string(out), c.why) {
			t.Errorf("--set %s was refused, but not for %q:\n%.600s", c.set, c.why, out)
		}
	}
	// The values next to those refused still render.
	for _, set := range []string{"podDisruptionBudget.minAvailable=1", "podDisruptionBudget.minAvailable=50%", "replicaCount=3,podDisruptionBudget.minAvailable=2",
		"replicaCount=1,podDisruptionBudget.minAvailable=1", "replicas=1,podDisruptionBudget.minAvailable=1", "gate.resources.requests.cpu=", "metrics.port=9090",
		"nameOverride=tg", "fullnameOverride=tg-prod", "extraArgs={--zap-devel}", "replicaCount=1,leaderElection=false", "replicas=1,leaderElection=false",
		"serviceAccount.create=false,serviceAccount.name=toolgate", "gate.openMetrics=true,gate.podMonitor.enabled=true"} {
		if out, err := exec.Command(h, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--set", set).CombinedOutput(); err != nil {
			t.Errorf("--set %s was refused:\n%.600s", set, out)
		}
	}
}

// object is one rendered object.
type object map[string]any

func objects(t *testing.T, rendered []byte) []object {
	t.Helper()
	var out []object
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(rendered), -1) {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, doc)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

func find(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == kind && get(o, "metadata", "name") == name {
			return o
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func has(objs []object, kind string) bool {
	return slices.ContainsFunc(objs, func(o object) bool { return o["kind"] == kind })
}

// get walks maps and, for an integer key, lists.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				if o, isObj := v.(object); isObj {
					m, ok = o, true
				}
			}
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func readYAML(t *testing.T, path string) []object {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(), path))
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, b)
}

// TestGenerated: the rules of the operator's and the approver's
// ClusterRoles, the webhooks and the CRDs are those config/ holds, as
// controller-gen generated them.
func TestGenerated(t *testing.T) {
	objs := objects(t, render(t, ""))
	for _, c := range []struct{ file, chartName string }{
		{"config/rbac/role.yaml", "toolgate-manager"},
		{"config/rbac/approver_role.yaml", "toolgate-approver"},
	} {
		want := readYAML(t, c.file)[0]["rules"]
		if got := find(t, objs, "ClusterRole", c.chartName)["rules"]; !reflect.DeepEqual(got, want) {
			t.Errorf("ClusterRole %s rules differ from %s:\n got %v\nwant %v", c.chartName, c.file, got, want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(root(), "config", "crd", "bases", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no CRDs in config/crd/bases")
	}
	for _, f := range files {
		want := readYAML(t, strings.TrimPrefix(f, root()+string(filepath.Separator)))[0]
		name := get(want, "metadata", "name").(string)
		got := find(t, objs, "CustomResourceDefinition", name)
		if !reflect.DeepEqual(got["spec"], want["spec"]) {
			t.Errorf("CRD %s differs from %s", name, f)
		}
		if get(got, "metadata", "annotations", "helm.sh/resource-policy") != "keep" {
			t.Errorf("CRD %s is not kept on uninstall by default", name)
		}
	}
	for _, want := range readYAML(t, "config/webhook/manifests.yaml") {
		name := map[any]string{"MutatingWebhookConfiguration": "toolgate-mutating", "ValidatingWebhookConfiguration": "toolgate-validating"}[want["kind"]]
		got := find(t, objs, want["kind"].(string), name)
		gw, ww := got["webhooks"].([]any), want["webhooks"].([]any)
		if len(gw) != len(ww) {
			t.Fatalf("%s: %d webhooks, config/webhook has %d", name, len(gw), len(ww))
		}
		for i := range ww {
			if get(gw[i], "name") != get(ww[i], "name") || !reflect.DeepEqual(get(gw[i], "rules"), get(ww[i], "rules")) ||
				get(gw[i], "clientConfig", "service", "path") != get(ww[i], "clientConfig", "service", "path") ||
				get(gw[i], "failurePolicy") != "Fail" {
				t.Errorf("%s webhook %d differs from config/webhook: %v", name, i, gw[i])
			}
			if get(gw[i], "clientConfig", "service", "name") != "toolgate-operator" || get(gw[i], "clientConfig", "service", "namespace") != "toolgate-system" {
				t.Errorf("%s webhook %d does not point at the chart's Service: %v", name, i, get(gw[i], "clientConfig"))
			}
			// The operator's match condition names the chart's service
			// account, the identity its RBAC is bound to; every other
			// condition is as generated.
			wantConds, _ := get(ww[i], "matchConditions").([]any)
			gotConds, _ := get(gw[i], "matchConditions").([]any)
			if len(gotConds) != len(wantConds) {
				t.Errorf("%s webhook %d: match conditions %v, generated %v", name, i, gotConds, wantConds)
				continue
			}
			for j := range wantConds {
				want := get(wantConds[j], "expression")
				if get(wantConds[j], "name") == approval.OperatorMatchCondition {
					want = approval.OperatorMatchExpression("system:serviceaccount:toolgate-system:toolgate-operator")
				}
				if get(gotConds[j], "name") != get(wantConds[j], "name") || get(gotConds[j], "expression") != want {
					t.Errorf("%s webhook %d: match condition %v, want %v", name, i, gotConds[j], want)
				}
			}
		}
	}

	off := objects(t, helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--set", "crds.install=false"))
	if has(off, "CustomResourceDefinition") {
		t.Error("crds.install=false rendered CRDs")
	}
	unkept := objects(t, helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--set", "crds.keep=false"))
	if get(find(t, unkept, "CustomResourceDefinition", "toolpins.toolgate.dev"), "metadata", "annotations", "helm.sh/resource-policy") != nil {
		t.Error("crds.keep=false still keeps the CRDs")
	}
}

func args(t *testing.T, objs []object) []string {
	t.Helper()
	var out []string
	for _, a := range get(find(t, objs, "Deployment", "toolgate-operator"), "spec", "template", "spec", "containers", 0, "args").([]any) {
		out = append(out, a.(string))
	}
	return out
}

// flagValue returns the value of --name=value in args, or "".
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// TestOperator: the Deployment runs restricted, elects a leader among two
// replicas, and takes its certificate and CA from the one Secret mount in
// both modes; the rotation's flags and rights come only with rotation.
func TestOperator(t *testing.T) {
	for _, m := range modes {
		if m.external {
			continue // TestExternalOperator
		}
		t.Run(m.name, func(t *testing.T) {
			objs := objects(t, render(t, m.values))
			d := find(t, objs, "Deployment", "toolgate-operator")
			pod := get(d, "spec", "template", "spec")
			c := get(pod, "containers", 0)
			if get(d, "spec", "replicas") != float64(2) {
				t.Errorf("replicas %v", get(d, "spec", "replicas"))
			}
			for path, want := range map[string]any{
				"runAsNonRoot": true, "seccompProfile.type": "RuntimeDefault",
			} {
				if got := get(pod, append([]any{"securityContext"}, anys(strings.Split(path, "."))...)...); got != want {
					t.Errorf("pod securityContext.%s = %v, want %v", path, got, want)
				}
			}
			if get(c, "securityContext", "allowPrivilegeEscalation") != false || get(c, "securityContext", "readOnlyRootFilesystem") != true ||
				!reflect.DeepEqual(get(c, "securityContext", "capabilities", "drop"), []any{"ALL"}) {
				t.Errorf("container securityContext %v", get(c, "securityContext"))
			}
			if get(c, "readinessProbe", "httpGet", "path") != "/readyz" || get(c, "livenessProbe", "httpGet", "path") != "/healthz" {
				t.Errorf("probes %v %v", get(c, "readinessProbe"), get(c, "livenessProbe"))
			}
			if get(c, "env", 0, "name") != "POD_NAMESPACE" || get(c, "env", 0, "valueFrom", "fieldRef", "fieldPath") != "metadata.namespace" {
				t.Errorf("env %v", get(c, "env"))
			}
			a := args(t, objs)
			if v := flagValue(a, "leader-elect"); v != "true" {
				t.Errorf("--leader-elect=%q", v)
			}
			certDir := flagValue(a, "webhook-cert-dir")
			if ca := flagValue(a, "operator-ca-file"); ca != certDir+"/ca.crt" {
				t.Errorf("--operator-ca-file=%q is not ca.crt of --webhook-cert-dir %q", ca, certDir)
			}
			if get(c, "volumeMounts", 0, "mountPath") != certDir || get(pod, "volumes", 0, "secret", "secretName") != "toolgate-webhook-cert" {
				t.Errorf("the certificate is not mounted at %s: %v %v", certDir, get(c, "volumeMounts"), get(pod, "volumes"))
			}
			svc := find(t, objs, "Service", "toolgate-operator")
			var gatePort any
			for i := 0; get(svc, "spec", "ports", i) != nil; i++ {
				if get(svc, "spec", "ports", i, "name") == "gate" {
					gatePort = get(svc, "spec", "ports", i, "port")
				}
			}
			if want := fmt.Sprintf("https://toolgate-operator.toolgate-system.svc:%v", gatePort); flagValue(a, "gate-operator-url") != want {
				t.Errorf("--gate-operator-url=%q: injected gates would not reach the Service's gate port (%s)", flagValue(a, "gate-operator-url"), want)
			}
			if flagValue(a, "default-max-level") != "L3" || flagValue(a, "max-level-cap") != "L5" {
				t.Errorf("ceilings: --default-max-level=%q --max-level-cap=%q", flagValue(a, "default-max-level"), flagValue(a, "max-level-cap"))
			}
			find(t, objs, "PodDisruptionBudget", "toolgate")
			find(t, objs, "Role", "toolgate-leader-election")
			find(t, objs, "Service", "toolgate-operator")
			find(t, objs, "ValidatingAdmissionPolicy", "toolgate-inject-opt-out")
			find(t, objs, "ConfigMap", "toolgate-inject-trust")

			rotating := m.name != "cert-manager" // the other modes rotate
			if v := flagValue(a, "cert-rotation"); (v == "true") != rotating {
				t.Errorf("--cert-rotation=%q in mode %s", v, m.name)
			}
			if v := flagValue(a, "cert-mutating-webhooks"); rotating && v != "toolgate-mutating,toolgate-injection" {
				t.Errorf("--cert-mutating-webhooks=%q", v)
			}
			if v := flagValue(a, "cert-validating-webhooks"); rotating && v != "toolgate-validating,toolgate-gate-access" {
				t.Errorf("--cert-validating-webhooks=%q", v)
			}
			if rotating {
				requireRotationMayUpdate(t, objs, "mutatingwebhookconfigurations", flagValue(a, "cert-mutating-webhooks"))
				requireRotationMayUpdate(t, objs, "validatingwebhookconfigurations", flagValue(a, "cert-validating-webhooks"))
			}
			if has(objs, "Certificate") == rotating {
				t.Errorf("cert-manager Certificates rendered: %v, in mode %s", has(objs, "Certificate"), m.name)
			}
			if optional := get(pod, "volumes", 0, "secret", "optional"); (optional == true) != rotating {
				t.Errorf("the certificate Secret optional=%v in mode %s", optional, m.name)
			}
			for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
				for _, o := range objs {
					if o["kind"] != kind {
						continue
					}
					inject := get(o, "metadata", "annotations", "cert-manager.io/inject-ca-from")
					if rotating && inject != nil || !rotating && inject != "toolgate-system/toolgate-serving" {
						t.Errorf("%s %v: inject-ca-from %v in mode %s", kind, get(o, "metadata", "name"), inject, m.name)
					}
				}
			}
			hasRotationRole := slices.ContainsFunc(objs, func(o object) bool { return get(o, "metadata", "name") == "toolgate-cert-rotation" })
			if hasRotationRole != rotating {
				t.Errorf("rotation rights rendered: %v, in mode %s", hasRotationRole, m.name)
			}
		})
	}
}

// TestDeprecatedReplicas: replicas, replicaCount's name before, is still
// honoured for one release, over replicaCount, and the install notes say
// which name to use instead.
func TestDeprecatedReplicas(t *testing.T) {
	chart := filepath.Join(root(), "charts", "toolgate")
	for _, c := range []struct {
		sets     []string
		replicas float64
		warned   bool
	}{
		{nil, 2, false},
		{[]string{"replicaCount=3"}, 3, false},
		{[]string{"replicas=4"}, 4, true},
		{[]string{"replicas=1", "replicaCount=3"}, 1, true},
	} {
		args := []string{"template", "toolgate", chart, "--namespace", "toolgate-system"}
		for _, set := range c.sets {
			args = append(args, "--set", set)
		}
		objs := objects(t, helm(t, args...))
		if got := get(find(t, objs, "Deployment", "toolgate-operator"), "spec", "replicas"); got != c.replicas {
			t.Errorf("%v: %v replicas, want %v", c.sets, got, c.replicas)
		}
		if hasPDB := has(objs, "PodDisruptionBudget"); hasPDB != (c.replicas > 1) {
			t.Errorf("%v: a PodDisruptionBudget %v with %v replicas", c.sets, hasPDB, c.replicas)
		}
		args[0] = "install"
		out := string(helm(t, append(args, "--dry-run=client")...))
		if warned := strings.Contains(out, "the value replicas is deprecated; use replicaCount"); warned != c.warned {
			t.Errorf("%v: the notes warn of replicas: %v, want %v", c.sets, warned, c.warned)
		}
	}
}

// requireRotationMayUpdate fails unless the certificate rotation's
// ClusterRole lets the operator update each of the comma-separated
// configurations of resource: the CA is written into every one the flags
// name, and a name without the right stays without a CA, failing closed.
func requireRotationMayUpdate(t *testing.T, objs []object, resource, names string) {
	t.Helper()
	role := find(t, objs, "ClusterRole", "toolgate-cert-rotation")
	for _, name := range strings.Split(names, ",") {
		granted := false
		for i := 0; get(role, "rules", i) != nil; i++ {
			r := get(role, "rules", i)
			res, _ := get(r, "resources").([]any)
			verbs, _ := get(r, "verbs").([]any)
			rn, _ := get(r, "resourceNames").([]any)
			granted = granted || slices.Contains(res, any(resource)) && slices.Contains(verbs, any("update")) && slices.Contains(rn, any(name))
		}
		if !granted {
			t.Errorf("the certificate rotation may not update %s %s, whose CA it is told to write", resource, name)
		}
	}
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

// TestExternalOperator: with externalOperator the chart renders nothing
// that needs a kubelet or issues a certificate, points every webhook at the
// process's URL (each webhook's own path appended) with the user's CA, and
// refuses to render without them or beside cert-manager.
func TestExternalOperator(t *testing.T) {
	values := "testdata/values-external-operator.yaml"
	objs := objects(t, render(t, values))
	for _, kind := range []string{"Deployment", "PodDisruptionBudget", "Service", "Secret", "Certificate", "Issuer"} {
		if has(objs, kind) {
			t.Errorf("a %s is rendered for an operator outside the cluster", kind)
		}
	}
	defaults := objects(t, render(t, ""))
	hooks := 0
	for _, o := range objs {
		if o["kind"] != "MutatingWebhookConfiguration" && o["kind"] != "ValidatingWebhookConfiguration" {
			continue
		}
		inCluster := find(t, defaults, o["kind"].(string), get(o, "metadata", "name").(string))
		for i, wh := range o["webhooks"].([]any) {
			hooks++
			path := get(inCluster, "webhooks", i, "clientConfig", "service", "path")
			if get(wh, "clientConfig", "url") != "https://127.0.0.1:9443"+path.(string) || get(wh, "clientConfig", "service") != nil {
				t.Errorf("%s webhook %d: clientConfig %v, want the URL with path %v", get(o, "metadata", "name"), i, get(wh, "clientConfig"), path)
			}
			if get(wh, "clientConfig", "caBundle") == "" || get(wh, "clientConfig", "caBundle") == nil {
				t.Errorf("%s webhook %d has no caBundle", get(o, "metadata", "name"), i)
			}
		}
	}
	if hooks < 5 {
		t.Errorf("only %d webhooks rendered", hooks)
	}
	h := helmBinary(t)
	for _, sets := range [][]string{
		{"externalOperator.enabled=true"},
		{"externalOperator.enabled=true", "externalOperator.webhookURL=https://127.0.0.1:9443"},
		{"externalOperator.enabled=true", "externalOperator.webhookURL=http://127.0.0.1:9443", "externalOperator.caBundle=Zm9v"},
		{"externalOperator.enabled=true", "externalOperator.webhookURL=https://127.0.0.1:9443/x", "externalOperator.caBundle=Zm9v"},
		{"externalOperator.enabled=true", "externalOperator.webhookURL=https://127.0.0.1:9443", "externalOperator.caBundle=Zm9v", "certManager.enabled=true"},
	} {
		args := []string{"template", "toolgate", filepath.Join(root(), "charts", "toolgate")}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if out, err := exec.Command(h, args...).CombinedOutput(); err == nil {
			t.Errorf("--set %v rendered:\n%.300s", sets, out)
		}
	}
}

// TestGatePortFollowsTheService: a non-default Service port reaches the
// injected gates' operator URL, not only the Service.
func TestGatePortFollowsTheService(t *testing.T) {
	out, err := exec.Command(helmBinary(t), "template", "toolgate", filepath.Join(root(), "charts", "toolgate"),
		"--namespace", "toolgate-system", "--set", "service.gatePort=8444", "--set", "ceilings.defaultMaxLevel=L2").CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	a := args(t, objects(t, out))
	if v := flagValue(a, "gate-operator-url"); v != "https://toolgate-operator.toolgate-system.svc:8444" {
		t.Errorf("--gate-operator-url=%q with service.gatePort=8444", v)
	}
	if v := flagValue(a, "default-max-level"); v != "L2" {
		t.Errorf("--default-max-level=%q with ceilings.defaultMaxLevel=L2", v)
	}
}

// TestServiceMonitorAuthorization: the ServiceMonitor scrapes with the
// token Secret given, in the Prometheus Operator's current field, and
// falls back to Prometheus' own token file.
func TestServiceMonitorAuthorization(t *testing.T) {
	for _, c := range []struct {
		set      []string
		wantFile bool
	}{
		{[]string{"metrics.serviceMonitor.enabled=true"}, true},
		{[]string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.tokenSecret.name=prom-token"}, false},
	} {
		args := []string{"template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--namespace", "toolgate-system"}
		for _, s := range c.set {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(helmBinary(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("helm template %v: %v\n%s", c.set, err, out)
		}
		ep := get(find(t, objects(t, out), "ServiceMonitor", "toolgate"), "spec", "endpoints", 0)
		file, secret := get(ep, "bearerTokenFile"), get(ep, "authorization", "credentials", "name")
		if c.wantFile && (file == nil || secret != nil) || !c.wantFile && (file != nil || secret != "prom-token" || get(ep, "authorization", "type") != "Bearer") {
			t.Errorf("%v: bearerTokenFile %v, authorization %v", c.set, file, get(ep, "authorization"))
		}
	}
}

// TestGateArgsSchemaFollowsTheInjector: the schema's pattern for gate.args
// names exactly the flags the injector lets a template add, so that the
// chart refuses at install what the operator would refuse at start.
func TestGateArgsSchemaFollowsTheInjector(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root(), "charts", "toolgate", "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	pattern, _ := get(schema, "properties", "gate", "properties", "args", "items", "pattern").(string)
	inner, prefixed := strings.CutPrefix(pattern, "^--(")
	inner, suffixed := strings.CutSuffix(inner, ")=[^,]+$")
	if !prefixed || !suffixed {
		t.Fatalf("gate.args pattern %q is not ^--(a|b|...)=[^,]+$", pattern)
	}
	if got, want := strings.Split(inner, "|"), inject.TunableGateFlags; !slices.Equal(got, want) {
		t.Errorf("gate.args allows %v; the injector allows %v", got, want)
	}
}

// TestGateAccessWebhook: the guard on exec, attach and port-forward into
// gated pods is rendered with injection, as config/webhook/injection has
// it (its rules, path and failurePolicy Fail), pointed at the chart's
// Service, with the injection webhook's timeout and never selecting the
// release namespace or the excluded ones; without injection it is not
// rendered, nor named to the certificate's rotation.
func TestGateAccessWebhook(t *testing.T) {
	want := readYAML(t, "config/webhook/injection/gate-access.yaml")[0]
	out := helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--namespace", "toolgate-system",
		"--set", "injection.timeoutSeconds=7", "--set", "injection.excludedNamespaces={ci}")
	got := find(t, objects(t, out), "ValidatingWebhookConfiguration", "toolgate-gate-access")
	gw, ww := get(got, "webhooks", 0), get(want, "webhooks", 0)
	if get(got, "webhooks", 1) != nil {
		t.Errorf("more webhooks than config/webhook/injection/gate-access.yaml has: %v", get(got, "webhooks"))
	}
	for _, field := range []string{"name", "rules", "failurePolicy", "sideEffects", "matchPolicy", "admissionReviewVersions"} {
		if !reflect.DeepEqual(get(gw, field), get(ww, field)) {
			t.Errorf("%s: %v, config has %v", field, get(gw, field), get(ww, field))
		}
	}
	if get(gw, "failurePolicy") != "Fail" || !reflect.DeepEqual(get(gw, "rules", 0, "operations"), []any{"CONNECT"}) {
		t.Errorf("the guard does not fail closed on CONNECT: %v", gw)
	}
	if get(gw, "clientConfig", "service", "name") != "toolgate-operator" || get(gw, "clientConfig", "service", "namespace") != "toolgate-system" ||
		get(gw, "clientConfig", "service", "path") != get(ww, "clientConfig", "service", "path") {
		t.Errorf("clientConfig %v", get(gw, "clientConfig"))
	}
	if get(gw, "timeoutSeconds") != float64(7) {
		t.Errorf("timeoutSeconds %v, want injection.timeoutSeconds", get(gw, "timeoutSeconds"))
	}
	if get(gw, "namespaceSelector", "matchExpressions", 0, "key") != "toolgate.dev/injection" {
		t.Errorf("the guard does not select the opted-in namespaces: %v", get(gw, "namespaceSelector"))
	}
	excluded := get(gw, "namespaceSelector", "matchExpressions", 1, "values")
	for _, ns := range []any{"kube-system", "toolgate-system", "ci"} {
		if l, _ := excluded.([]any); !slices.Contains(l, ns) {
			t.Errorf("the guard selects namespace %s: excluded %v", ns, excluded)
		}
	}

	off := objects(t, helm(t, "template", "toolgate", filepath.Join(root(), "charts", "toolgate"), "--set", "injection.enabled=false"))
	for _, o := range off {
		if get(o, "metadata", "name") == "toolgate-gate-access" {
			t.Error("the guard is rendered without injection")
		}
	}
	if v := flagValue(args(t, off), "cert-validating-webhooks"); v != "toolgate-validating" {
		t.Errorf("--cert-validating-webhooks=%q without injection", v)
	}
}
