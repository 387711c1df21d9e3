package controllers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestArgumentRulesAreCheckedWhenAdmitted: a rule that does not compile,
// one that names an argument the tool's pinned inputSchema does not have,
// and one over CEL's cost budget are each reported in the policy's status
// with the rule and the reason, and the gate's configuration carries the
// problem so that the tool's calls are refused; a rule that fits reaches
// the configuration with nothing to report, beside the agent's identity
// and the tool's pinned risk.
func TestArgumentRulesAreCheckedWhenAdmitted(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "push", Description: "Pushes the local commits to a branch of the remote repository.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"branch":{"type":"string"},"force":{"type":"boolean"},"refs":{"type":"array","items":{"type":"string"}}},"required":["branch"]}`)},
	)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
	}
	create(t, server)
	waitForReady(t, "the server is probed", server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)
	push := []toolgatev1alpha1.ToolReference{{Name: "push"}}
	p := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: ns},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers:  []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: server.Name}},
			MaxLevel: toolgatev1alpha1.LevelCritical, AgentTrustLevel: 5,
			ArgumentRules: []toolgatev1alpha1.ArgumentRule{
				{Name: "no-force-to-main", Tools: push, Expression: `has(args.force) && args.force && args.branch == "main"`, Action: toolgatev1alpha1.ArgumentRuleRefuse},
				{Name: "broken", Tools: push, Expression: `args.branch ==`, Action: toolgatev1alpha1.ArgumentRuleRefuse},
				{Name: "missing", Tools: push, Expression: `args.remote == "origin"`, Action: toolgatev1alpha1.ArgumentRuleHold},
				{Name: "costly", Tools: push, Expression: `args.refs.all(a, args.refs.all(b, args.refs.all(c, a + b + c != "")))`, Action: toolgatev1alpha1.ArgumentRuleRaiseLevel, Level: toolgatev1alpha1.LevelHigh},
			},
		},
	}
	create(t, p)
	got := policyStatus(t, "the three broken rules are reported", p, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		return len(st.ArgumentRules) >= 3, "problems"
	})
	kinds := map[string]string{}
	for _, pr := range got.Status.ArgumentRules {
		kinds[pr.Rule] = pr.Kind + ": " + pr.Message
		if pr.Rule == "missing" && (pr.Tool != "push" || pr.Server != ns+"/git") {
			t.Errorf("the missing-argument problem does not name the tool: %+v", pr)
		}
	}
	for rule, want := range map[string]string{"broken": "Syntax", "missing": "UnknownArgument", "costly": "Cost"} {
		if !strings.HasPrefix(kinds[rule], want) {
			t.Errorf("rule %s: %q, want a %s problem", rule, kinds[rule], want)
		}
	}
	if !strings.Contains(kinds["missing"], "remote") {
		t.Errorf("the missing-argument problem does not name the argument: %q", kinds["missing"])
	}
	if _, ok := kinds["no-force-to-main"]; ok {
		t.Errorf("a rule that fits the schema was reported: %q", kinds["no-force-to-main"])
	}
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionArgumentRules, metav1.ConditionFalse, toolgatev1alpha1.ReasonRulesInvalid, got.Generation); !ok {
		t.Error(d)
	}

	pod := agentPod(t, ns, "agent-0", map[string]string{"team": "platform"})
	cfg := gateConfig(t, "the configuration carries the rules", pod, func(c *gateproto.Config) (bool, string) {
		return len(c.ArgumentRules) == 4, "rules"
	})
	tool := toolIn(cfg, ns+"/git", "push")
	if tool == nil || len(tool.Rules) != 4 || tool.Category == "" {
		t.Fatalf("push in the configuration: %+v", tool)
	}
	for _, r := range tool.Rules {
		if broken := r.Rule != "git/no-force-to-main"; broken != (r.Problem != "") {
			t.Errorf("rule %s for push: problem %q", r.Rule, r.Problem)
		}
	}
	if cfg.Agent == nil || cfg.Agent.Labels["team"] != "platform" || cfg.Ceiling != "L5" {
		t.Errorf("the agent and ceiling rules see: %+v, ceiling %q", cfg.Agent, cfg.Ceiling)
	}

	// Fixed, the condition turns True and the configuration carries no
	// problem.
	var edited toolgatev1alpha1.ToolPolicy
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(p), &edited); err != nil {
		t.Fatal(err)
	}
	base := edited.DeepCopy()
	edited.Spec.ArgumentRules = edited.Spec.ArgumentRules[:1]
	if err := env.Client.Patch(t.Context(), &edited, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got = policyStatus(t, "the remaining rule is accepted", p, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		return len(st.ArgumentRules) == 0, "problems"
	})
	if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionArgumentRules, metav1.ConditionTrue, toolgatev1alpha1.ReasonRulesAccepted, got.Generation); !ok {
		t.Error(d)
	}
}
