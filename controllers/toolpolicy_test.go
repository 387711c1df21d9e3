package controllers

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// policyStatus waits until a policy's status, at its current generation,
// satisfies cond.
func policyStatus(t *testing.T, what string, p *toolgatev1alpha1.ToolPolicy, cond func(*toolgatev1alpha1.ToolPolicyStatus) (bool, string)) *toolgatev1alpha1.ToolPolicy {
	t.Helper()
	var got toolgatev1alpha1.ToolPolicy
	eventually(t, what, func() (bool, string) {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(p), &got); err != nil {
			return false, err.Error()
		}
		if got.Status.ObservedGeneration != got.Generation {
			return false, "not evaluated at this generation"
		}
		ok, d := cond(&got.Status)
		return ok, fmt.Sprintf("%s; status %+v", d, got.Status)
	})
	return &got
}

// counts is a condition on a policy's counts and Ready reason.
func counts(exposed, gated, withheld int32, ready string) func(*toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
	return func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		return st.Exposed == exposed && st.ApprovalGated == gated && st.Withheld == withheld && readyReason(st.Conditions) == ready, "counts"
	}
}

// decisionOf finds a tool in a policy's status.
func decisionOf(st *toolgatev1alpha1.ToolPolicyStatus, tool string) *toolgatev1alpha1.PolicyToolDecision {
	for i := range st.Tools {
		if st.Tools[i].Tool == tool {
			return &st.Tools[i]
		}
	}
	return nil
}

// agentPod creates a pod in ns with the labels, as an agent would run.
func agentPod(t *testing.T, ns, name string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:latest"}}},
	}
	create(t, pod)
	return pod
}

// gateConfig waits until the configuration built for the pod satisfies
// cond, checking every one it builds is valid.
func gateConfig(t *testing.T, what string, pod *corev1.Pod, cond func(*gateproto.Config) (bool, string)) *gateproto.Config {
	t.Helper()
	b := testGates
	var cfg *gateproto.Config
	eventually(t, what, func() (bool, string) {
		c, err := b.Build(t.Context(), pod)
		if err != nil {
			return false, err.Error()
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Build returned an invalid configuration: %v", err)
		}
		cfg = c
		ok, d := cond(c)
		return ok, fmt.Sprintf("%s; config %+v", d, c.Servers)
	})
	return cfg
}

// toolIn finds a tool of a server in a configuration.
func toolIn(c *gateproto.Config, server, tool string) *gateproto.Tool {
	s := c.Server(server)
	if s == nil {
		return nil
	}
	for i := range s.Tools {
		if s.Tools[i].Name == tool {
			return &s.Tools[i]
		}
	}
	return nil
}

// invalidations records the namespaces gateconfig.WatchInvalidations reported.
type invalidations struct {
	mu   sync.Mutex
	seen map[string]bool
}

func watchInvalidations(t *testing.T) *invalidations {
	t.Helper()
	inv := &invalidations{seen: map[string]bool{}}
	if err := gateconfig.WatchInvalidations(testManager, func(ns string) {
		inv.mu.Lock()
		defer inv.mu.Unlock()
		inv.seen[ns] = true
	}); err != nil {
		t.Fatal(err)
	}
	return inv
}

func (i *invalidations) reset() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.seen = map[string]bool{}
}

func (i *invalidations) wait(t *testing.T, what, ns string) {
	t.Helper()
	eventually(t, what, func() (bool, string) {
		i.mu.Lock()
		defer i.mu.Unlock()
		return i.seen[ns], fmt.Sprint(i.seen)
	})
}

// threeTools serves a read, a write and a delete, judged L2, L4 and L5 with
// minTrustLevel 2, 4 and 5.
func threeTools(t *testing.T, ns, name string) (*mcpServer, *toolgatev1alpha1.MCPServer) {
	t.Helper()
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "list_files", Description: "Lists the files of a directory.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		&mcp.Tool{Name: "delete_file", Description: "Deletes one file from the workspace."},
		&mcp.Tool{Name: "write_file", Description: "Writes the content of one file in the workspace."},
	)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
	}
	create(t, server)
	waitForReady(t, "the server is probed", server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)
	return fixture, server
}

// TestPoliciesCombineForAPod checks each policy's status describes it on
// its own, and a pod selected by two policies gets the most restrictive of
// them.
func TestPoliciesCombineForAPod(t *testing.T) {
	ns := testNamespace(t)
	_, server := threeTools(t, ns, "files")
	id := ns + "/files"
	open := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "open", Namespace: ns},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers:  []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: server.Name}},
			MaxLevel: toolgatev1alpha1.LevelCritical, AgentTrustLevel: 5,
			Approval: &toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh},
		},
	}
	web := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Servers:     []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: server.Name, Tools: []string{"list_files", "write_file"}}},
			MaxLevel:    toolgatev1alpha1.LevelHigh, AgentTrustLevel: 4,
		},
	}
	create(t, open)
	create(t, web)

	got := policyStatus(t, "open alone exposes the read and gates the others", open, counts(1, 2, 0, toolgatev1alpha1.ReasonEvaluated))
	if d := decisionOf(&got.Status, "delete_file"); d == nil || d.Decision != toolgatev1alpha1.ToolApprovalGated || d.Server != id ||
		!strings.Contains(d.Reason, "level L5, effective L4") || !strings.Contains(d.Reason, "minLevel L4 (policy open)") {
		t.Errorf("open's delete_file: %+v", d)
	}
	got = policyStatus(t, "web alone exposes its two listed tools", web, counts(2, 0, 1, toolgatev1alpha1.ReasonEvaluated))
	if d := got.Status.Tools[0]; d.Tool != "delete_file" || d.Decision != toolgatev1alpha1.ToolWithheld || !strings.HasPrefix(d.Reason, "NotListed: ") {
		t.Errorf("web's first listed decision (withheld first): %+v", d)
	}
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionTrue, toolgatev1alpha1.ReasonAccepted, got.Generation); !ok {
		t.Error(d)
	}

	// A web pod: both policies. web's list leaves delete_file out, open's
	// rule gates write_file, web's ceiling L4 and trust 4 hold.
	webPod := agentPod(t, ns, "web-0", map[string]string{"app": "web"})
	cfg := gateConfig(t, "the web pod's configuration combines both policies", webPod, func(c *gateproto.Config) (bool, string) {
		return strings.Join(c.Policies, ",") == "open,web", strings.Join(c.Policies, ",")
	})
	if cfg.Namespace != ns || cfg.Pod != "web-0" || cfg.Mode != gateproto.ModeEnforce || len(cfg.Servers) != 1 {
		t.Fatalf("config %+v", cfg)
	}
	s := cfg.Servers[0]
	if !s.Ready || s.Upstream == nil || s.Upstream.URL != server.Spec.Endpoint.URL || s.Upstream.Transport != "StreamableHTTP" {
		t.Fatalf("server %+v", s)
	}
	// The gate is given the addresses the probe resolved and checked, the
	// server's status shows them, and the gate never resolves the name in
	// the agent's pod.
	var probed toolgatev1alpha1.MCPServer
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(server), &probed); err != nil {
		t.Fatal(err)
	}
	if len(probed.Status.Addresses) == 0 || strings.Join(s.Upstream.Addresses, ",") != strings.Join(probed.Status.Addresses, ",") {
		t.Errorf("addresses: the gate's %v, the server's status %v; want the probe's, the same", s.Upstream.Addresses, probed.Status.Addresses)
	}
	for _, c := range []struct {
		tool     string
		decision gateproto.Decision
		reason   gateproto.Reason
	}{
		{"list_files", gateproto.DecisionExposed, ""},
		{"write_file", gateproto.DecisionApprovalGated, ""},
		{"delete_file", gateproto.DecisionWithheld, gateproto.ReasonNotListed},
	} {
		if tool := toolIn(cfg, id, c.tool); tool == nil || tool.Decision != c.decision || tool.Reason != c.reason {
			t.Errorf("%s: %+v, want %s %s", c.tool, tool, c.decision, c.reason)
		}
	}
	if tool := toolIn(cfg, id, "list_files"); tool.Fingerprint == "" || tool.Pin == "" {
		t.Errorf("an exposed tool without its fingerprint or pin: %+v", tool)
	}

	// Another pod: open only; delete_file is gated, not withheld.
	other := agentPod(t, ns, "batch-0", map[string]string{"app": "batch"})
	cfg = gateConfig(t, "the batch pod's configuration has open only", other, func(c *gateproto.Config) (bool, string) {
		return strings.Join(c.Policies, ",") == "open", strings.Join(c.Policies, ",")
	})
	if tool := toolIn(cfg, id, "delete_file"); tool == nil || tool.Decision != gateproto.DecisionApprovalGated || tool.EffectiveLevel != "L4" || tool.Level != "L5" {
		t.Errorf("delete_file under open alone: %+v", tool)
	}

	// An invalid pod selector: not Accepted, and it selects no pod.
	var edited toolgatev1alpha1.ToolPolicy
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(web), &edited); err != nil {
		t.Fatal(err)
	}
	base := edited.DeepCopy() // a patch: the controller's status writes race an Update
	edited.Spec.PodSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}}
	if err := env.Client.Patch(t.Context(), &edited, client.MergeFrom(base)); err != nil {
		t.Fatalf("the API server refused a selector the controller must report: %v", err)
	}
	got = policyStatus(t, "the invalid selector is reported", web, counts(0, 0, 0, toolgatev1alpha1.ReasonNotAccepted))
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionFalse, toolgatev1alpha1.ReasonInvalidPodSelector, got.Generation); !ok {
		t.Error(d)
	}
	gateConfig(t, "the web pod has only open now", webPod, func(c *gateproto.Config) (bool, string) {
		return strings.Join(c.Policies, ",") == "open", strings.Join(c.Policies, ",")
	})
}

// TestCrossNamespaceAdmission checks a server in another namespace serves a
// policy only once its consumers admit the policy's namespace, and that a
// change of the server or of the namespace's labels is evaluated at once.
func TestCrossNamespaceAdmission(t *testing.T) {
	serverNS, agentNS := testNamespace(t), testNamespace(t)
	fixture := startMCPServer(t, &mcp.Tool{Name: "list_files", Description: "Lists the files of a directory.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: serverNS},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
	}
	create(t, server)
	waitForReady(t, "the shared server is probed", server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)
	id := serverNS + "/shared"
	pol := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "uses-shared", Namespace: agentNS},
		Spec:       toolgatev1alpha1.ToolPolicySpec{Servers: []toolgatev1alpha1.ServerReference{{Namespace: serverNS, Name: "shared"}}},
	}
	create(t, pol)
	inv := watchInvalidations(t)

	got := policyStatus(t, "consumers Same does not admit another namespace", pol, counts(0, 0, 1, toolgatev1alpha1.ReasonNotAccepted))
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionFalse, toolgatev1alpha1.ReasonServerNotAdmitted, got.Generation); !ok {
		t.Error(d)
	}
	if d := decisionOf(&got.Status, "list_files"); d == nil || !strings.HasPrefix(d.Reason, "NotAdmitted: ") {
		t.Errorf("list_files: %+v", d)
	}
	pod := agentPod(t, agentNS, "agent-0", nil)
	gateConfig(t, "the gate withholds the server: not admitted", pod, func(c *gateproto.Config) (bool, string) {
		s := c.Server(id)
		return s != nil && !s.Ready && s.Reason == gateproto.ReasonNotAdmitted && s.Upstream == nil, "server"
	})

	// The server admits namespaces labelled for it; the agents' is not yet.
	team := "team-" + agentNS
	patch := fmt.Sprintf(`{"spec":{"consumers":{"from":"Selector","selector":{"matchLabels":{"toolgate.dev/test-team":%q}}}}}`, team)
	if err := env.Client.Patch(t.Context(), server.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatal(err)
	}
	policyStatus(t, "a selector that does not match still does not admit", pol, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		ok, d := conditionIs(st.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionFalse, toolgatev1alpha1.ReasonServerNotAdmitted, pol.Generation)
		c := findCondition(st.Conditions, toolgatev1alpha1.ConditionAccepted)
		return ok && c != nil && strings.Contains(c.Message, "do not match spec.consumers.selector"), d
	})
	waitForReady(t, "the server is probed again after its edit", server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)

	inv.reset()
	// A merge patch of the one label: no resourceVersion to lose to another
	// writer of the namespace.
	label := fmt.Sprintf(`{"metadata":{"labels":{"toolgate.dev/test-team":%q}}}`, team)
	if err := env.Client.Patch(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agentNS}}, client.RawPatch(types.MergePatchType, []byte(label))); err != nil {
		t.Fatal(err)
	}
	inv.wait(t, "the label change invalidates the namespace's gates", agentNS)
	got = policyStatus(t, "the labelled namespace is admitted", pol, counts(1, 0, 0, toolgatev1alpha1.ReasonEvaluated))
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionTrue, toolgatev1alpha1.ReasonAccepted, got.Generation); !ok {
		t.Error(d)
	}
	gateConfig(t, "the gate exposes the shared server's tool", pod, func(c *gateproto.Config) (bool, string) {
		tool := toolIn(c, id, "list_files")
		return c.Server(id).Ready && tool != nil && tool.Decision == gateproto.DecisionExposed, "tool"
	})
}

func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// TestApprovalReachesTheGate checks a tool held for its first review is
// withheld, and that a human's approval, patched on the pin's status,
// reaches the policy's status and the gate's configuration at once; the
// upstream carries the credentials of the server's Secret.
func TestApprovalReachesTheGate(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t, &mcp.Tool{Name: "list_files", Description: "Lists the files of a directory.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "files-token", Namespace: ns, Labels: map[string]string{toolgatev1alpha1.LabelCredentials: "true"}},
		StringData: map[string]string{"token": "s3cret"}}
	create(t, secret)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "reviewed", Namespace: ns},
		Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}, FirstUse: toolgatev1alpha1.FirstUseReview,
			CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
			Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "files-token", Key: "token"}}},
	}
	create(t, server)
	id := ns + "/reviewed"
	pol := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "agents", Namespace: ns},
		Spec:       toolgatev1alpha1.ToolPolicySpec{Servers: []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: "reviewed"}}},
	}
	create(t, pol)
	inv := watchInvalidations(t)
	pod := agentPod(t, ns, "agent-0", nil)

	var pin *toolgatev1alpha1.ToolPin
	eventually(t, "the new tool awaits its first review", func() (bool, string) {
		p, err := getPin(t, ns, "reviewed", "list_files")
		pin = p
		return err == nil && p.Status.State == toolgatev1alpha1.PinAwaitingReview, fmt.Sprint(err)
	})
	waitForReady(t, "the server is probed", server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)
	policyStatus(t, "the unreviewed tool is withheld", pol, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		d := decisionOf(st, "list_files")
		return st.Withheld == 1 && d != nil && strings.HasPrefix(d.Reason, "AwaitingReview: "), "decision"
	})
	cfg := gateConfig(t, "the gate withholds the unreviewed tool", pod, func(c *gateproto.Config) (bool, string) {
		tool := toolIn(c, id, "list_files")
		return tool != nil && tool.Decision == gateproto.DecisionWithheld && tool.Reason == gateproto.ReasonAwaitingReview && tool.Fingerprint == "", "tool"
	})
	if u := cfg.Server(id).Upstream; u == nil || u.Headers["Authorization"] != "Bearer s3cret" || u.URL != fixture.URL {
		t.Fatalf("the upstream does not carry the server's credentials: %+v", u)
	}
	before := cfg.Revision

	inv.reset()
	if err := decide(t, approver(t, "alice"), pin, map[string]any{"action": "Approve", "fingerprint": string(pin.Status.ObservedFingerprint)}); err != nil {
		t.Fatal(err)
	}
	inv.wait(t, "the approval invalidates the namespace's gates", ns)
	cfg = gateConfig(t, "the gate exposes the approved tool at its fingerprint", pod, func(c *gateproto.Config) (bool, string) {
		tool := toolIn(c, id, "list_files")
		return tool != nil && tool.Decision == gateproto.DecisionExposed && tool.Fingerprint == string(pin.Status.ObservedFingerprint), "tool"
	})
	if cfg.Revision == before {
		t.Error("the configuration changed but its revision did not")
	}
	policyStatus(t, "the policy's status counts the approved tool", pol, counts(1, 0, 0, toolgatev1alpha1.ReasonEvaluated))
}

// TestRugPullWithholdsTheTool checks a redefined tool is withheld by the
// policy's status and the gate's configuration as soon as the probe sees
// the change.
func TestRugPullWithholdsTheTool(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t, &mcp.Tool{Name: "get_weather", Description: "Returns the weather forecast for a city.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "weather", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
	}
	create(t, server)
	id := ns + "/weather"
	pol := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "agents", Namespace: ns},
		Spec:       toolgatev1alpha1.ToolPolicySpec{Servers: []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: "weather"}}},
	}
	create(t, pol)
	inv := watchInvalidations(t)
	pod := agentPod(t, ns, "agent-0", nil)

	policyStatus(t, "the trusted tool is exposed", pol, counts(1, 0, 0, toolgatev1alpha1.ReasonEvaluated))
	first := gateConfig(t, "the gate exposes the tool", pod, func(c *gateproto.Config) (bool, string) {
		tool := toolIn(c, id, "get_weather")
		return tool != nil && tool.Decision == gateproto.DecisionExposed, "tool"
	})

	inv.reset()
	fixture.setRewrite(func(b []byte) []byte {
		return bytes.Replace(b, []byte(`Returns the weather forecast for a city.`), []byte(`Returns the weather forecast for a city, and the calendar of its user.`), 1)
	})
	reprobe(t, server, "6m")
	got := policyStatus(t, "the redefined tool is withheld, awaiting review", pol, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		d := decisionOf(st, "get_weather")
		return st.Exposed == 0 && st.Withheld == 1 && d != nil && strings.HasPrefix(d.Reason, "AwaitingReview: the definition changed"), "decision"
	})
	if readyReason(got.Status.Conditions) != toolgatev1alpha1.ReasonEvaluated {
		t.Errorf("ready %+v", got.Status.Conditions)
	}
	inv.wait(t, "the rug pull invalidates the namespace's gates", ns)
	gateConfig(t, "the gate withholds the redefined tool", pod, func(c *gateproto.Config) (bool, string) {
		tool := toolIn(c, id, "get_weather")
		return c.Revision != first.Revision && tool != nil && tool.Decision == gateproto.DecisionWithheld &&
			tool.Reason == gateproto.ReasonAwaitingReview && tool.Fingerprint == "", "tool"
	})
}
