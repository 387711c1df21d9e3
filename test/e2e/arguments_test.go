package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// The argument rules of the policy TestArgumentRulesEndToEnd adds once the
// agents have listed their tools, all on list_files, whose one argument is
// a path. The gate knows each as "policy/rule".
const (
	ruleSystemConfig  = "no-system-config" // Refuse: under /etc
	ruleHomeDirs      = "home-directories" // Hold: under /home/
	ruleSuperuser     = "superuser-files"  // RaiseLevel L5: under /root
	msgSystemConfig   = "the system's configuration is off limits"
	msgHomeDirs       = "home directories hold people's own files"
	argumentsPolicy   = "agents"
	refusedSystemPath = "/etc/passwd"
)

// TestArgumentRulesEndToEnd puts argument rules and the built-in argument
// floors between real Go SDK agents of both protocol generations and a real
// Go SDK server, in the gate binary, configured by the operator binary
// against a real API server, and decides the calls they hold as people do,
// with kubectl: rules never change tools/list; a Refuse rule answers with a
// JSON-RPC error naming it and the server never sees the call; a Hold rule
// holds a call of an exposed tool on its ToolPin until a person approves or
// rejects it; a RaiseLevel rule above the ceiling refuses, naming the level
// and the ceiling; a wildcard raises a call of a tool below
// approval.minLevel to it, where it waits; and the gate's audit line and
// metrics name the rule.
func TestArgumentRulesEndToEnd(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()
	admin := env.Client
	dir := t.TempDir()
	tb := startToolbox(t)
	// A tool that changes state and acts on the issues it names: pinned
	// below approval.minLevel, so only a call's arguments can hold it.
	tb.define("close_issues", "Closes issues in the tracker.", `"ids":{"type":"array","items":{"type":"string"}}`, false)

	createToolboxNamespaces(t, admin)
	// One server for each generation of the agents, on the same toolbox:
	// the rules name tools, not servers, so they apply to both.
	servers := map[string]string{"toolbox": "/session", "toolbox-next": "/stateless"}
	for name, path := range servers {
		if err := admin.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: name},
			Spec: toolgatev1alpha1.MCPServerSpec{
				Endpoint:     toolgatev1alpha1.MCPEndpoint{URL: tb.URL + path},
				Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "toolbox-token", Key: "token"}},
				CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
				Consumers:    toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll},
				Probe:        toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}},
			},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Calls at L4 wait for a person, and L4 is the ceiling: no tool is
	// gated by its level alone below it, and the L5 tool is withheld. The
	// approval timeout is the API's default: nothing here waits for it.
	policy := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: argumentsPolicy},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers:         []toolgatev1alpha1.ServerReference{{Namespace: "tools", Name: "toolbox"}, {Namespace: "tools", Name: "toolbox-next"}},
			MaxLevel:        toolgatev1alpha1.LevelHigh,
			AgentTrustLevel: 5,
			Approval:        &toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh},
		},
	}
	if err := admin.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}

	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The agent pod is created without the injection webhook; the operator
	// is told to serve its hand-run gate.
	startOperator(t, op, dir, "operator", "--gate-serve-uninjected-pods")
	approverRole := filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml")
	kubeconfigs := map[string]string{}
	for _, who := range []string{"alice", "bob"} {
		if kubeconfigs[who], err = env.KubeconfigFor(dir, who, approverRole); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 2*time.Minute, "the policy exposes the three tools below the ceiling of both servers, ungated", func() error {
		var p toolgatev1alpha1.ToolPolicy
		if err := admin.Get(ctx, client.ObjectKeyFromObject(policy), &p); err != nil {
			return err
		}
		got := map[string]toolgatev1alpha1.ToolDecision{}
		for _, d := range p.Status.Tools {
			got[d.Server+" "+d.Tool] = d.Decision
		}
		for name := range servers {
			for tool, want := range map[string]toolgatev1alpha1.ToolDecision{
				"get_weather": toolgatev1alpha1.ToolExposed, "list_files": toolgatev1alpha1.ToolExposed,
				"close_issues": toolgatev1alpha1.ToolExposed, "delete_repository": toolgatev1alpha1.ToolWithheld,
			} {
				if d := got["tools/"+name+" "+tool]; d != want {
					return fmt.Errorf("%s of %s is %q, want %s; status.tools %+v", tool, name, d, want, p.Status.Tools)
				}
			}
		}
		return nil
	})

	if err := admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agent"}}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agent-0", Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{ServiceAccountName: "agent", Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
	}
	if err := admin.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	tokenFile := mintToken(t, env, pod, gateproto.Audience, filepath.Join(dir, "token"))
	caFile := filepath.Join(dir, "operator-ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		t.Fatal(err)
	}
	g := startAuditedGate(t, buildGate(t, dir), dir, "gate", gateVolume(t, tokenFile, fmt.Sprintf("https://127.0.0.1:%d", op.GatePort), caFile)...)

	agents := []struct {
		gen, server string
		a           *agentSession
	}{
		{"session", "tools/toolbox", connectAgent(t, g.url("tools/toolbox"), "2025-11-25")},
		{"stateless", "tools/toolbox-next", connectAgent(t, g.url("tools/toolbox-next"), "")},
	}
	listed := map[string]string{}
	for _, ag := range agents {
		expectTools(t, ag.a, ag.gen+" agent's first list", "close_issues", "get_weather", "list_files")
		listed[ag.gen] = toolsJSON(t, ag.a)
	}

	t.Log("the policy gains its argument rules with a patch; the gate applies the new revision")
	pathRule := func(name, expr string, action toolgatev1alpha1.ArgumentRuleAction, level toolgatev1alpha1.Level, message string) toolgatev1alpha1.ArgumentRule {
		return toolgatev1alpha1.ArgumentRule{Name: name, Tools: []toolgatev1alpha1.ToolReference{{Name: "list_files"}},
			Expression: expr, Action: action, Level: level, Message: message}
	}
	rules := []toolgatev1alpha1.ArgumentRule{
		pathRule(ruleSystemConfig, `has(args.path) && args.path.startsWith("/etc")`, toolgatev1alpha1.ArgumentRuleRefuse, "", msgSystemConfig),
		pathRule(ruleHomeDirs, `has(args.path) && args.path.startsWith("/home/")`, toolgatev1alpha1.ArgumentRuleHold, "", msgHomeDirs),
		pathRule(ruleSuperuser, `has(args.path) && args.path.startsWith("/root")`, toolgatev1alpha1.ArgumentRuleRaiseLevel, toolgatev1alpha1.LevelCritical, "the superuser's files"),
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"argumentRules": rules}})
	if err != nil {
		t.Fatal(err)
	}
	revision := g.ready()
	if err := admin.Patch(ctx, policy, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the operator accepts the rules", func() error {
		var p toolgatev1alpha1.ToolPolicy
		if err := admin.Get(ctx, client.ObjectKeyFromObject(policy), &p); err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, toolgatev1alpha1.ConditionArgumentRules)
		if p.Status.ObservedGeneration != p.Generation || c == nil || c.Status != metav1.ConditionTrue || len(p.Status.ArgumentRules) != 0 {
			return fmt.Errorf("generation %d, observed %d, condition %+v, problems %+v", p.Generation, p.Status.ObservedGeneration, c, p.Status.ArgumentRules)
		}
		return nil
	})
	eventually(t, time.Minute, "the gate applies the configuration with the rules", func() error {
		if now := g.ready(); now == "" || now == revision {
			return fmt.Errorf("the gate enforces %q, as before the rules (%q)", now, revision)
		}
		return nil
	})
	for _, ag := range agents {
		if now := toolsJSON(t, ag.a); now != listed[ag.gen] {
			t.Fatalf("the %s agent's tools/list changed with the argument rules:\nbefore %s\nafter  %s", ag.gen, listed[ag.gen], now)
		}
	}

	t.Log("an ordinary call goes through: no rule matches, no floor")
	for _, ag := range agents {
		if out, err := callArgs(ctx, ag.a, "list_files", map[string]any{"path": "/work"}); err != nil || out != "list_files done" {
			t.Fatalf("%s agent, an ordinary listing: %q, %v", ag.gen, out, err)
		}
	}

	t.Log("a Refuse rule answers both generations with a JSON-RPC error naming it; the server never sees the call")
	systemRule := argumentsPolicy + "/" + ruleSystemConfig
	for _, ag := range agents {
		ran := tb.called("list_files")
		out, err := callArgs(ctx, ag.a, "list_files", map[string]any{"path": refusedSystemPath})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, systemRule) || !strings.Contains(rpcErr.Message, msgSystemConfig) {
			t.Fatalf("%s agent, a listing of %s: %q, %v; want a JSON-RPC error naming %s and its message", ag.gen, refusedSystemPath, out, err, systemRule)
		}
		if n := tb.called("list_files"); n != ran {
			t.Fatalf("%s agent: the refused call reached the server (%d calls, %d before)", ag.gen, n, ran)
		}
	}

	pinOf := func(tool string) *toolgatev1alpha1.ToolPin {
		t.Helper()
		var p toolgatev1alpha1.ToolPin
		if err := admin.Get(ctx, types.NamespacedName{Namespace: "tools", Name: lifecycle.PinName("toolbox", tool)}, &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	session := agents[0].a
	// hold makes the call in the background and returns the call the
	// operator recorded as pending on the tool's pin, and where the
	// agent's answer arrives.
	hold := func(tool string, args map[string]any) (toolgatev1alpha1.PendingCall, <-chan heldAnswer) {
		t.Helper()
		before := len(pinOf(tool).Status.PendingCalls)
		done := make(chan heldAnswer, 1)
		go func() {
			text, err := callArgs(ctx, session, tool, args)
			done <- heldAnswer{text, err}
		}()
		var call toolgatev1alpha1.PendingCall
		eventually(t, time.Minute, "the call is pending on the pin of "+tool, func() error {
			p := pinOf(tool)
			if len(p.Status.PendingCalls) <= before {
				return fmt.Errorf("%d pending calls", len(p.Status.PendingCalls))
			}
			call = p.Status.PendingCalls[len(p.Status.PendingCalls)-1]
			return nil
		})
		return call, done
	}
	answer := func(done <-chan heldAnswer) heldAnswer {
		t.Helper()
		select {
		case r := <-done:
			return r
		case <-time.After(2 * time.Minute):
			t.Fatalf("the decided call did not end; gate log:\n%s", g.logText(t))
		}
		return heldAnswer{}
	}
	decideCall := func(who, tool string, action toolgatev1alpha1.DecisionAction, call toolgatev1alpha1.PendingCall) {
		t.Helper()
		patch := fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":%q,"fingerprint":%q,"callID":%q}}]`, action, call.Fingerprint, call.ID)
		out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfigs[who], "patch", "toolpin", lifecycle.PinName("toolbox", tool),
			"-n", "tools", "--subresource=status", "--type=json", "-p", patch).CombinedOutput()
		if err != nil {
			t.Fatalf("%s deciding %s with kubectl patch: %v: %s", who, call.ID, err, out)
		}
	}
	recorded := func(tool, id string, verdict toolgatev1alpha1.CallVerdict) {
		t.Helper()
		eventually(t, time.Minute, "the call is on record as "+string(verdict), func() error {
			p := pinOf(tool)
			if r := lifecycle.ResolvedCall(&p.Status, id); lifecycle.PendingCall(&p.Status, id) != nil || r == nil || r.Verdict != verdict {
				return fmt.Errorf("record %+v", r)
			}
			return nil
		})
	}

	t.Log("a Hold rule holds a call of an exposed tool on its pin; alice approves it with kubectl toolgate and it runs once")
	homeRule := argumentsPolicy + "/" + ruleHomeDirs
	ran := tb.called("list_files")
	call, done := hold("list_files", map[string]any{"path": "/home/alice"})
	if call.HeldBy != toolgatev1alpha1.HeldByArgumentRule || call.Rule != homeRule || !strings.Contains(call.Reason, msgHomeDirs) ||
		!strings.Contains(call.Arguments, "/home/alice") || call.Agent.Pod != "agent-0" {
		t.Fatalf("the pending call %+v; want it held by the argument rule %s", call, homeRule)
	}
	if n := tb.called("list_files"); n != ran {
		t.Fatalf("the held call reached the server before a decision (%d calls, %d before)", n, ran)
	}
	plugin := newPluginRunner(t, dir, kubeconfigs["alice"])
	// The reviewer finds the policy that holds the call, as kubectl get would.
	if out := plugin.must(t, "toolgate", "policies", "-n", "agents"); !strings.Contains(out, argumentsPolicy) {
		t.Errorf("kubectl toolgate policies does not list %s:\n%s", argumentsPolicy, out)
	}
	if out := plugin.must(t, "toolgate", "policies", "-n", "agents", "-o", "name"); strings.TrimSpace(out) != "toolpolicy.toolgate.dev/"+argumentsPolicy {
		t.Errorf("kubectl toolgate policies -o name: %q", out)
	}
	pending := plugin.must(t, "toolgate", "pending", "-A")
	t.Logf("kubectl toolgate pending -A:\n%s", pending)
	if !strings.Contains(pending, call.ID) || !strings.Contains(pending, "list_files") {
		t.Fatalf("pending does not show the held call %s:\n%s", call.ID, pending)
	}
	// The person sees why the call waits: the rule.
	if !strings.Contains(pending, "rule "+homeRule) {
		t.Fatalf("pending does not say the rule %s holds the call:\n%s", homeRule, pending)
	}
	if out := plugin.must(t, "toolgate", "approve", lifecycle.PinName("toolbox", "list_files"), "-n", "tools", "--call", call.ID); !strings.Contains(out, string(call.Fingerprint)) {
		t.Fatalf("approve does not name the fingerprint it approves:\n%s", out)
	}
	if r := answer(done); r.err != nil || r.text != "list_files done" {
		t.Fatalf("the approved call: %q, %v", r.text, r.err)
	}
	if n := tb.called("list_files"); n != ran+1 {
		t.Fatalf("the approved call reached the server %d times", n-ran)
	}
	recorded("list_files", call.ID, toolgatev1alpha1.CallApproved)

	t.Log("a second held call is rejected by bob with kubectl patch: the agent gets an error, the server never runs it")
	ran = tb.called("list_files")
	call, done = hold("list_files", map[string]any{"path": "/home/bob"})
	if call.HeldBy != toolgatev1alpha1.HeldByArgumentRule || call.Rule != homeRule {
		t.Fatalf("the second pending call %+v", call)
	}
	decideCall("bob", "list_files", toolgatev1alpha1.DecisionReject, call)
	if r := answer(done); r.err == nil || !strings.Contains(r.err.Error(), "not approved") {
		t.Fatalf("the rejected call: %q, %v", r.text, r.err)
	}
	recorded("list_files", call.ID, toolgatev1alpha1.CallRejected)
	if n := tb.called("list_files"); n != ran {
		t.Fatalf("the rejected call reached the server (%d calls, %d before)", n, ran)
	}

	t.Log("a RaiseLevel rule above the ceiling refuses, naming the level and the ceiling")
	ran = tb.called("list_files")
	superRule := argumentsPolicy + "/" + ruleSuperuser
	if out, err := callArgs(ctx, session, "list_files", map[string]any{"path": "/root/.ssh"}); err == nil ||
		!strings.Contains(err.Error(), "raise the call to L5") || !strings.Contains(err.Error(), superRule) || !strings.Contains(err.Error(), "above the ceiling L4") {
		t.Fatalf("a listing raised to L5 under the ceiling L4: %q, %v", out, err)
	}
	if n := tb.called("list_files"); n != ran {
		t.Fatalf("the call raised above the ceiling reached the server (%d calls, %d before)", n, ran)
	}

	t.Log("a built-in floor: a wildcard raises a call of a tool below approval.minLevel to L4, where it waits")
	if out, err := callArgs(ctx, session, "close_issues", map[string]any{"ids": []string{"ISSUE-7"}}); err != nil || out != "close_issues done" {
		t.Fatalf("closing one issue: %q, %v; want it forwarded unheld", out, err)
	}
	call, done = hold("close_issues", map[string]any{"ids": []string{"*"}})
	if call.HeldBy != toolgatev1alpha1.HeldByArgumentLevel || call.Level != toolgatev1alpha1.LevelHigh || call.Rule != "" || !strings.Contains(call.Reason, "argument floor") {
		t.Fatalf("the pending call %+v; want it held at L4 by an argument floor", call)
	}
	if n := tb.called("close_issues"); n != 1 {
		t.Fatalf("close_issues reached the server %d times before the decision; want only the ordinary call", n)
	}
	decideCall("alice", "close_issues", toolgatev1alpha1.DecisionApprove, call)
	if r := answer(done); r.err != nil || r.text != "close_issues done" {
		t.Fatalf("the approved wildcard call: %q, %v", r.text, r.err)
	}
	recorded("close_issues", call.ID, toolgatev1alpha1.CallApproved)
	if n := tb.called("close_issues"); n != 2 {
		t.Fatalf("close_issues reached the server %d times; want the ordinary call and the approved one", n)
	}

	t.Log("the gate's audit lines and metrics name the rules")
	refusedDigest, err := gate.ArgumentsDigest([]byte(`{"path":"` + refusedSystemPath + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ag := range agents {
		// A line is written once the answer has gone back to the agent.
		eventually(t, 30*time.Second, "the audit line of the refusal through "+ag.server, func() error {
			for _, l := range decisionLines(t, g) {
				if l["server"] == ag.server && l["tool"] == "list_files" && l["decision"] == string(decide.Refuse) &&
					l["argumentRule"] == systemRule {
					if l["reason"] != string(decide.ReasonArgumentRule) || l["argumentOutcome"] != "refuse" || l["argumentsDigest"] != refusedDigest {
						return backoffStop(t, fmt.Sprintf("the refusal's audit line %v; want reason %s, outcome refuse, digest %s", l, decide.ReasonArgumentRule, refusedDigest))
					}
					return nil
				}
			}
			return fmt.Errorf("no decision line refusing list_files by %s; lines %v", systemRule, decisionLines(t, g))
		})
	}
	metrics := gateMetrics(t, g.gateProcess)
	for _, want := range []struct{ server, rule string }{{"tools/toolbox", systemRule}, {"tools/toolbox-next", systemRule}, {"tools/toolbox", homeRule}, {"tools/toolbox", superRule}} {
		if n := argumentRuleCount(metrics, want.server, want.rule); n < 1 {
			t.Errorf("toolgate_gate_argument_rules_total of %s on %s is %v; metrics:\n%s", want.rule, want.server, n, metrics)
		}
	}

	t.Log("a rule naming an argument the tool does not have: reported by the operator, refused by the gate")
	broken := append(rules, pathRule("no-such-argument", `args.recursive == true`, toolgatev1alpha1.ArgumentRuleHold, "", ""))
	if patch, err = json.Marshal(map[string]any{"spec": map[string]any{"argumentRules": broken}}); err != nil {
		t.Fatal(err)
	}
	revision = g.ready()
	if err := admin.Patch(ctx, policy, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the operator reports the rule", func() error {
		var p toolgatev1alpha1.ToolPolicy
		if err := admin.Get(ctx, client.ObjectKeyFromObject(policy), &p); err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, toolgatev1alpha1.ConditionArgumentRules)
		if p.Status.ObservedGeneration != p.Generation || c == nil || c.Status != metav1.ConditionFalse || len(p.Status.ArgumentRules) == 0 ||
			p.Status.ArgumentRules[0].Rule != "no-such-argument" || p.Status.ArgumentRules[0].Kind != "UnknownArgument" {
			return fmt.Errorf("generation %d, observed %d, condition %+v, problems %+v", p.Generation, p.Status.ObservedGeneration, c, p.Status.ArgumentRules)
		}
		return nil
	})
	eventually(t, time.Minute, "the gate applies the configuration with the broken rule", func() error {
		if now := g.ready(); now == "" || now == revision {
			return fmt.Errorf("the gate enforces %q, as before (%q)", now, revision)
		}
		return nil
	})
	before := tb.called("list_files")
	for _, ag := range agents {
		if _, err := callArgs(ctx, ag.a, "list_files", map[string]any{"path": "/work"}); err == nil ||
			!strings.Contains(err.Error(), "agents/no-such-argument cannot be evaluated") || !strings.Contains(err.Error(), "recursive") {
			t.Fatalf("%s agent: a call of a tool whose rule names a missing argument: %v; want it refused naming the rule and the argument", ag.gen, err)
		}
	}
	if n := tb.called("list_files"); n != before {
		t.Fatalf("list_files ran %d times while a rule that names it could not be evaluated", n-before)
	}
}

// heldAnswer is what the agent got for a call that was held.
type heldAnswer struct {
	text string
	err  error
}

// callArgs calls tool with args and returns the text of the result, or the
// error: a JSON-RPC error as the SDK returns it, or a result marked as an
// error. Its deadline covers a call held until a person decides.
func callArgs(ctx context.Context, a *agentSession, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		return "", fmt.Errorf("no text in %+v", res.Content)
	}
	return text.Text, nil
}

// toolsJSON is the agent's tools/list as JSON, for comparing two lists.
func toolsJSON(t *testing.T, a *agentSession) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decisionLines returns the gate's audit lines of decisions, each as JSON;
// the last line may be mid-write and is skipped if it does not parse.
func decisionLines(t *testing.T, g *auditedGate) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(g.audit)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range bytes.Lines(b) {
		var l map[string]any
		if json.Unmarshal(line, &l) == nil && l["msg"] == "toolgate.decision" {
			out = append(out, l)
		}
	}
	return out
}

// gateMetrics returns the gate's /metrics in the text exposition format.
func gateMetrics(t *testing.T, g *gateProcess) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+g.metrics+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the gate's metrics: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// argumentRuleCount is the value of toolgate_gate_argument_rules_total for
// the rule on the server with the outcome "matched", 0 when there is none.
func argumentRuleCount(metrics, server, rule string) float64 {
	sc := bufio.NewScanner(strings.NewReader(metrics))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "toolgate_gate_argument_rules_total{") ||
			!strings.Contains(line, fmt.Sprintf("server=%q", server)) || !strings.Contains(line, fmt.Sprintf("rule=%q", rule)) ||
			!strings.Contains(line, `outcome="matched"`) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err == nil {
			return v
		}
	}
	return 0
}
