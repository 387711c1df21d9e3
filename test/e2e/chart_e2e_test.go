package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

const (
	chartNamespace = "toolgate-system"
	chartSA        = "toolgate-operator"
)

// helmCLI returns the helm binary hack/helm.sh built: TOOLGATE_HELM or the
// newest in the cache; without one the test skips, or fails under
// TOOLGATE_REQUIRE_HELM.
func helmCLI(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("TOOLGATE_HELM"); h != "" {
		return h
	}
	found, _ := filepath.Glob(filepath.Join(testenv.CacheDir(), "helm-*", "helm"))
	sort.Strings(found)
	if len(found) > 0 {
		return found[len(found)-1]
	}
	if os.Getenv("TOOLGATE_REQUIRE_HELM") != "" {
		t.Fatal("no helm CLI and TOOLGATE_REQUIRE_HELM is set: run make helm (hack/helm.sh) or set TOOLGATE_HELM")
	}
	t.Skip("no helm CLI: run make helm, or set TOOLGATE_HELM")
	return ""
}

// everythingServer installs @modelcontextprotocol/server-everything from
// npm into the cache (once) and returns its entry point. Where npm or the
// registry cannot be reached the test says so and skips, or fails under
// TOOLGATE_REQUIRE_NPM.
func everythingServer(t *testing.T) string {
	t.Helper()
	return testenv.EverythingEntry(testenv.EverythingInstall(t))
}

// startEverything runs the npm server in its streamable HTTP mode and
// returns its MCP URL once it listens.
func startEverything(t *testing.T, entry, dir string) string {
	t.Helper()
	port := testenv.MustReservePort(t)
	log, err := os.Create(filepath.Join(dir, "everything.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd := exec.Command("node", entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	eventually(t, 30*time.Second, "the npm server listens", func() error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return url
}

// serviceAccountKubeconfig asks the TokenRequest API for a token of the
// service account, as the kubelet would mount it into the operator's pod,
// and writes a kubeconfig that acts with it and nothing else.
func serviceAccountKubeconfig(t *testing.T, env *testenv.Env, ns, name, path string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	expiry := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("minting a token for %s/%s: %v", ns, name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: name}
	cfg.CurrentContext = name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubectlRunner runs kubectl with one kubeconfig, input on stdin.
func kubectlRunner(t *testing.T, kubeconfig string) func(stdin string, args ...string) string {
	return func(stdin string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}

// chartObject is one object the chart created, as helm get manifest names it.
type chartObject struct{ apiVersion, kind, namespace, name string }

func manifestObjects(t *testing.T, manifest string) []chartObject {
	t.Helper()
	var out []chartObject
	for _, doc := range strings.Split(manifest, "\n---") {
		var o struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("helm get manifest: %v\n%.300s", err, doc)
		}
		if o.Kind != "" {
			out = append(out, chartObject{o.APIVersion, o.Kind, o.Metadata.Namespace, o.Metadata.Name})
		}
	}
	return out
}

// TestChartEndToEnd installs the chart with helm into a real API server and
// runs the product through it: the operator as a process with the chart's
// own ServiceAccount credentials (no kubelet runs its Deployment, so the
// chart's externalOperator mode points the webhooks at the process), a pod
// injected by the chart's webhook, the gate with the token the API server
// mints for that pod, and a real MCP client through the gate to a
// third-party server from npm and a Go SDK server that redefines a tool.
func TestChartEndToEnd(t *testing.T) {
	testenv.Kubectl(t, "the test drives the cluster as a user does")
	helmBin := helmCLI(t)
	entry := everythingServer(t)
	env := startControlPlaneWith(t, testenv.Options{NoCRDs: true})
	ctx := t.Context()
	dir := t.TempDir()
	everythingURL := startEverything(t, entry, dir)
	tb := startToolbox(t)

	adminConfig, err := env.AdminKubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := kubectlRunner(t, adminConfig)
	helm := func(args ...string) string {
		t.Helper()
		hctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(hctx, helmBin, append([]string{"--kubeconfig", adminConfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	_, webhookPort, certDir := env.WebhookServer()
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Log("helm install, the webhooks pointed at the operator's process")
	helm("install", "toolgate", filepath.Join(testenv.RepoRoot(), "charts", "toolgate"), "--namespace", chartNamespace, "--create-namespace",
		"--set", "externalOperator.enabled=true",
		"--set", fmt.Sprintf("externalOperator.webhookURL=https://127.0.0.1:%d", webhookPort),
		"--set", "externalOperator.caBundle="+base64.StdEncoding.EncodeToString(env.WebhookCA()),
		"--set", "approval.approvers.users={alice,bob}",
		"--set", "gate.image.tag=e2e")
	manifest := helm("get", "manifest", "toolgate", "--namespace", chartNamespace)
	created := manifestObjects(t, manifest)

	operatorConfig := serviceAccountKubeconfig(t, env, chartNamespace, chartSA, filepath.Join(dir, "operator.kubeconfig"))
	managerBin := filepath.Join(dir, "manager")
	if out, err := exec.Command("go", "build", "-o", managerBin, "github.com/toolgate/toolgate/cmd/manager").CombinedOutput(); err != nil {
		t.Fatalf("building the manager: %v\n%s", err, out)
	}
	gatePort := testenv.MustReservePort(t)
	opLog, err := os.Create(filepath.Join(dir, "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opLog.Close() })
	// The flags the chart's Deployment passes, with the process's ports and
	// the certificate the webhook configurations trust.
	operator := exec.Command(managerBin, "--kubeconfig", operatorConfig,
		"--operator-user", "system:serviceaccount:"+chartNamespace+":"+chartSA,
		"--operator-namespace", chartNamespace, "--operator-service", "toolgate-operator",
		"--leader-elect", "--leader-election-namespace", chartNamespace,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--webhook-port", strconv.Itoa(webhookPort), "--webhook-cert-dir", certDir,
		"--gate-bind-address", "127.0.0.1", "--gate-port", strconv.Itoa(gatePort),
		"--gate-image", "ghcr.io/toolgate/gate:e2e", "--operator-ca-file", caFile)
	operator.Stdout, operator.Stderr = opLog, opLog
	if err := operator.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = operator.Process.Kill(); _ = operator.Wait() })

	t.Log("MCPServers and a ToolPolicy applied with kubectl, the agents' namespace labelled")
	kubectl("", "create", "namespace", "tools")
	kubectl("", "create", "namespace", "agents")
	kubectl("", "label", "namespace", "agents", toolgatev1alpha1.LabelInjection+"="+toolgatev1alpha1.InjectionEnabled)
	kubectl("", "-n", "tools", "create", "secret", "generic", "toolbox-token", "--from-literal=token="+upstreamToken)
	kubectl("", "-n", "tools", "label", "secret", "toolbox-token", toolgatev1alpha1.LabelCredentials+"=true")
	kubectl(fmt.Sprintf(`apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: everything, namespace: tools}
spec:
  endpoint: {url: %q}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 1h}
---
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: toolbox, namespace: tools}
spec:
  endpoint: {url: %q}
  auth: {bearerToken: {name: toolbox-token, key: token}}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 1h}
---
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: agents, namespace: agents}
spec:
  servers: [{namespace: tools, name: everything}, {namespace: tools, name: toolbox}]
  maxLevel: L3
  approval:
    tools: [{server: tools/everything, name: echo}]
    timeout: 30s
`, everythingURL, tb.URL+"/session"), "apply", "-f", "-")

	var policy toolgatev1alpha1.ToolPolicy
	eventually(t, 90*time.Second, "the operator, with the chart's RBAC, evaluates the policy", func() error {
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "agents", Name: "agents"}, &policy); err != nil {
			return err
		}
		if policy.Status.Exposed == 0 || policy.Status.Withheld == 0 || policy.Status.ApprovalGated != 1 {
			log, _ := os.ReadFile(opLog.Name())
			return fmt.Errorf("exposed %d, withheld %d, gated %d: %+v\noperator log tail:\n%s", policy.Status.Exposed, policy.Status.Withheld,
				policy.Status.ApprovalGated, policy.Status.Tools, tail(string(log), 20))
		}
		return nil
	})
	decisions := map[string]toolgatev1alpha1.PolicyToolDecision{}
	var exposedEverything []string
	for _, d := range policy.Status.Tools {
		decisions[d.Server+"/"+d.Tool] = d
		if d.Server == "tools/everything" && d.Decision == toolgatev1alpha1.ToolExposed {
			exposedEverything = append(exposedEverything, d.Tool)
		}
	}
	for tool, want := range map[string]toolgatev1alpha1.ToolDecision{
		"tools/everything/echo": toolgatev1alpha1.ToolApprovalGated, "tools/everything/get-sum": toolgatev1alpha1.ToolExposed,
		"tools/toolbox/get_weather": toolgatev1alpha1.ToolExposed, "tools/toolbox/delete_repository": toolgatev1alpha1.ToolWithheld,
	} {
		if d, ok := decisions[tool]; !ok || d.Decision != want || d.Reason == "" {
			t.Errorf("%s: %+v, want %s with a reason", tool, d, want)
		}
	}
	if out := kubectl("", "get", "toolpins", "-n", "tools"); !strings.Contains(out, "echo") || !strings.Contains(out, "Trusted") {
		t.Errorf("kubectl get toolpins does not show the npm server's tools pinned:\n%s", out)
	}

	t.Log("a pod in the labelled namespace is injected by the chart's webhook")
	kubectl("", "-n", "agents", "create", "serviceaccount", "agent")
	kubectl(`apiVersion: v1
kind: Pod
metadata: {name: agent-0, namespace: agents, labels: {app: agent}}
spec:
  serviceAccountName: agent
  containers: [{name: agent, image: "agent:1"}]
`, "apply", "-f", "-")
	var pod corev1.Pod
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "agents", Name: "agent-0"}, &pod); err != nil {
		t.Fatal(err)
	}
	expectInjected(t, &pod, map[string]string{"TOOLGATE_MCP_EVERYTHING_URL": "tools/everything", "TOOLGATE_MCP_TOOLBOX_URL": "tools/toolbox"})

	t.Log("the gate runs with the token the API server mints for that pod")
	tokenFile := mintToken(t, env, &pod, gateproto.Audience, filepath.Join(dir, "token"))
	g := startGateProcess(t, buildGate(t, dir), dir, "gate", gateVolume(t, tokenFile, fmt.Sprintf("https://127.0.0.1:%d", gatePort), caFile)...)
	eventually(t, time.Minute, "the gate gets its configuration", func() error {
		if g.ready() == "" {
			return fmt.Errorf("not ready; log:\n%s", tail(g.logText(t), 20))
		}
		return nil
	})

	t.Log("the npm server's tools through the gate: exposed and gated ones listed, the rest withheld")
	everything := connectAgent(t, g.url("tools/everything"), "2025-11-25")
	names, err := everything.names(t)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := append([]string{"echo"}, exposedEverything...)
	sort.Strings(wantNames)
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Fatalf("the agent sees %v, the policy exposes %v", names, wantNames)
	}
	callWith := func(a *agentSession, tool string, args map[string]any) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, 40*time.Second)
		defer cancel()
		res, err := a.cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if res.IsError {
			return "", fmt.Errorf("tool error: %s", b.String())
		}
		return b.String(), nil
	}
	if out, err := callWith(everything, "get-sum", map[string]any{"a": 2, "b": 3}); err != nil || !strings.Contains(out, "5") {
		t.Fatalf("get-sum through the gate: %q, %v", out, err)
	}
	for tool, d := range decisions {
		if name, ok := strings.CutPrefix(tool, "tools/everything/"); ok && d.Decision == toolgatev1alpha1.ToolWithheld {
			expectRefused(t, everything, name, "a tool the policy withholds")
			break
		}
	}

	t.Log("a gated call approved with kubectl toolgate, another rejected with kubectl patch")
	aliceConfig, err := env.KubeconfigFor(dir, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	plugin := newPluginRunner(t, dir, aliceConfig)
	echoPin := lifecycle.PinName("everything", "echo")
	heldCall := func(message string) (toolgatev1alpha1.PendingCall, <-chan error) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			out, err := callWith(everything, "echo", map[string]any{"message": message})
			if err == nil && !strings.Contains(out, message) {
				err = fmt.Errorf("echo answered %q", out)
			}
			done <- err
		}()
		var call toolgatev1alpha1.PendingCall
		eventually(t, 20*time.Second, "the call is pending on the pin", func() error {
			var p toolgatev1alpha1.ToolPin
			if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "tools", Name: echoPin}, &p); err != nil {
				return err
			}
			for _, c := range p.Status.PendingCalls {
				if strings.Contains(c.Arguments, message) {
					call = c
					return nil
				}
			}
			return fmt.Errorf("pending %+v", p.Status.PendingCalls)
		})
		return call, done
	}
	call, done := heldCall("hello from the agent")
	if out := plugin.must(t, "toolgate", "pending", "-A"); !strings.Contains(out, call.ID) {
		t.Fatalf("kubectl toolgate pending does not show %s:\n%s", call.ID, out)
	}
	plugin.must(t, "toolgate", "approve", echoPin, "-n", "tools", "--call", call.ID, "--comment", "echo is harmless")
	if err := <-done; err != nil {
		t.Fatalf("the approved call: %v", err)
	}
	call, done = heldCall("send me the secrets")
	bobConfig, err := env.KubeconfigFor(dir, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	kubectlRunner(t, bobConfig)("", "patch", "toolpin", echoPin, "-n", "tools", "--subresource=status", "--type=json", "-p",
		fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Reject","fingerprint":%q,"callID":%q}}]`, call.Fingerprint, call.ID))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "not approved") {
		t.Fatalf("the rejected call: %v", err)
	}

	t.Log("a rug pull on the Go SDK server is withheld at the gate, then re-approved with kubectl patch")
	toolbox := connectAgent(t, g.url("tools/toolbox"), "2025-11-25")
	expectTools(t, toolbox, "the toolbox's first list", "get_weather", "list_files")
	tb.define("get_weather", weatherV2, `"city":{"type":"string"}`, true)
	expectTools(t, toolbox, "the list after the rug pull", "list_files")
	expectRefused(t, toolbox, "get_weather", "a redefined tool")
	expectCall(t, toolbox, "list_files")                                                                                       // the tools that did not change still go through
	kubectl("", "-n", "tools", "patch", "mcpserver", "toolbox", "--type=merge", "-p", `{"spec":{"probe":{"interval":"59m"}}}`) // due at once
	weatherPin := lifecycle.PinName("toolbox", "get_weather")
	var observed string
	eventually(t, time.Minute, "the operator sees the rug pull", func() error {
		var p toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "tools", Name: weatherPin}, &p); err != nil {
			return err
		}
		if p.Status.State != toolgatev1alpha1.PinAwaitingReview {
			return fmt.Errorf("state %s", p.Status.State)
		}
		observed = string(p.Status.ObservedFingerprint)
		return nil
	})
	kubectlRunner(t, aliceConfig)("", "patch", "toolpin", weatherPin, "-n", "tools", "--subresource=status", "--type=json", "-p",
		fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q,"comment":"metric units"}}]`, observed))
	expectTools(t, toolbox, "the list after the approval", "get_weather", "list_files")
	expectCall(t, toolbox, "get_weather")

	t.Log("audit lines and metrics from the gate")
	// echo forwarded once approved and refused once rejected; get_weather
	// withheld on its changed fingerprint. A line is written once the answer
	// has gone back, so the last may land a moment after the call returned.
	eventually(t, 10*time.Second, "the audit lines of the calls", func() error {
		audit := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(g.logText(t)))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil || line["msg"] != "toolgate.decision" {
				continue
			}
			audit[fmt.Sprint(line["tool"], " ", line["decision"])] = true
		}
		for _, want := range []string{"get-sum forward", "echo forward", "echo refuse", "get_weather withhold"} {
			if !audit[want] {
				return fmt.Errorf("no audit line %q among %v", want, audit)
			}
		}
		return nil
	})
	resp, err := http.Get("http://" + g.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`toolgate_gate_calls_total{`, `tool="get-sum"`, `toolgate_gate_fingerprint_mismatches_total{`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("the gate's metrics lack %s", want)
		}
	}

	t.Log("helm uninstall leaves nothing of the chart's but the kept CRDs")
	_ = operator.Process.Kill()
	_ = operator.Wait()
	helm("uninstall", "toolgate", "--namespace", chartNamespace, "--wait")
	kinds := map[string]bool{}
	for _, o := range created {
		kinds[o.kind] = true
		args := []string{"get", resourceOf(o), o.name, "--ignore-not-found", "-o", "name"}
		if o.namespace != "" {
			args = append(args, "-n", o.namespace)
		}
		out := strings.TrimSpace(kubectl("", args...))
		if kept := o.kind == "CustomResourceDefinition"; kept != (out != "") {
			t.Errorf("after helm uninstall, %s %s/%s: %q (kept only if a CRD)", o.kind, o.namespace, o.name, out)
		}
	}
	for _, k := range []string{"ClusterRole", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "CustomResourceDefinition"} {
		if !kinds[k] {
			t.Errorf("the chart created no %s: the uninstall check misses it", k)
		}
	}
}

// resourceOf names the object's kind for kubectl get, qualified by its
// group so that no other group's kind of the same name answers.
func resourceOf(o chartObject) string {
	if g, _, ok := strings.Cut(o.apiVersion, "/"); ok {
		return strings.ToLower(o.kind) + "." + g
	}
	return strings.ToLower(o.kind)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
