package offline

import (
	"os"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gate/argcheck"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// TestCheckCallConfiguresAsTheOperator holds check-call to the operator:
// the policies combined, and each tool's entry — its decision, approval
// rule, withholding reason, pinned risk and the argument rules that apply
// with their problems — are what package policy puts in the gate's
// configuration for a pod the policies select, given pins of the -tools
// capture's definitions at the levels check-call uses.
func TestCheckCallConfiguresAsTheOperator(t *testing.T) {
	data, err := os.ReadFile(td("policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sample := string(data)
	for _, tc := range []struct {
		name   string
		policy string
		level  string // "" for the scored levels
	}{
		{"sample at L2", sample, "L2"},
		{"sample at L4: designated", sample, "L4"},
		{"sample scored: above the ceiling", sample, ""},
		{"sample in Audit: above the ceiling, forwarded", strings.ReplaceAll(sample, "  servers:\n", "  mode: Audit\n  servers:\n"), ""},
		{"a tool list and the agents' trust", strings.Replace(strings.ReplaceAll(sample, "agentTrustLevel: 5", "agentTrustLevel: 3"),
			"      name: ops\n", "      name: ops\n      tools: [delete_resource, run_query, send_email]\n", 1), ""},
		{"floors off, by category", `apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: cats, namespace: agents}
spec:
  servers: [{namespace: platform, name: ops}]
  maxLevel: L5
  agentTrustLevel: 5
  argumentFloors: Disabled
  approval: {categories: [destroy], tools: [{server: platform/ops, name: send_email}]}
`, ""},
		{"a rule that does not compile", readTD(t, "rule-syntax.yaml"), "L2"},
		{"a rule that reads an argument the tool does not have", readTD(t, "rule-unknown-argument.yaml"), "L2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policies, err := readPolicies("policy.yaml", []byte(tc.policy))
			if err != nil {
				t.Fatal(err)
			}
			capture, err := readCatalogue(td("tools.json"), nil, tooldef.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			const server = "platform/ops"
			cat := scoreCatalogue(server, capture)
			j := &callJudge{set: combine(policies), server: server, catalogue: cat, level: -1}
			if tc.level != "" {
				l, err := risk.ParseLevel(tc.level)
				if err != nil {
					t.Fatal(err)
				}
				j.level = l
			}

			res := policy.Evaluate(policy.Input{
				Namespace: "agents", Policies: policies,
				Servers: []toolgatev1alpha1.MCPServer{readyServer()},
				Pins:    pinsOf(t, cat, tc.level),
			})
			cfg := res.Config("agents", "agent-0", map[string]*gateproto.Upstream{server: {URL: "http://ops.platform.svc/mcp", Transport: "StreamableHTTP"}})
			if err := cfg.Validate(); err != nil {
				t.Fatalf("the operator's configuration: %v", err)
			}
			switch {
			case cfg.Mode != j.set.mode, cfg.Ceiling != string(j.set.ceiling), cfg.ApprovalLevel != string(j.set.approvalLevel),
				cfg.ArgumentFloorsOff != j.set.floorsOff, !slices.Equal(cfg.ArgumentRules, policy.GateRules(j.set.rules)):
				t.Errorf("combined: operator mode %s ceiling %s approval %q floorsOff %v rules %+v\ncheck-call mode %s ceiling %s approval %q floorsOff %v rules %+v",
					cfg.Mode, cfg.Ceiling, cfg.ApprovalLevel, cfg.ArgumentFloorsOff, cfg.ArgumentRules,
					j.set.mode, j.set.ceiling, j.set.approvalLevel, j.set.floorsOff, policy.GateRules(j.set.rules))
			}
			if len(cfg.Servers) != 1 || !cfg.Servers[0].Ready {
				t.Fatalf("the operator does not serve %s: %+v", server, cfg.Servers)
			}
			for _, want := range cfg.Servers[0].Tools {
				got, _, _, why := j.calledTool(want.Name)
				if got == nil {
					t.Errorf("%s: check-call has no entry: %s", want.Name, why)
					continue
				}
				callable := want.Decision != gateproto.DecisionWithheld || want.AuditForwardable
				if got.Decision != want.Decision || got.ApprovalRule != want.ApprovalRule || got.Reason != want.Reason || got.Message != want.Message ||
					got.AuditForwardable != want.AuditForwardable || got.Level != want.Level || got.Fingerprint != want.Fingerprint ||
					!slices.Equal(got.Rules, want.Rules) ||
					callable && (got.Category != want.Category || got.BlastRadius != want.BlastRadius || got.Reversibility != want.Reversibility) {
					t.Errorf("%s:\n operator   %+v\n check-call %+v", want.Name, want, *got)
				}
			}
		})
	}
}

func readTD(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(td(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readyServer is platform/ops as the operator finds it ready to serve the
// agents' namespace.
func readyServer() toolgatev1alpha1.MCPServer {
	return toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: "ops", Generation: 1},
		Spec:       toolgatev1alpha1.MCPServerSpec{Consumers: toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll}},
		Status: toolgatev1alpha1.MCPServerStatus{Conditions: []metav1.Condition{{
			Type: toolgatev1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Probed", ObservedGeneration: 1,
		}}},
	}
}

// pinsOf pins every tool of the capture, Trusted at its definition, with
// the risk check-call reads: scored, its level overridden when level is set.
func pinsOf(t *testing.T, cat *scoredCatalogue, level string) []toolgatev1alpha1.ToolPin {
	t.Helper()
	var pins []toolgatev1alpha1.ToolPin
	for name, rep := range cat.reports {
		def := cat.tools[name]
		if _, err := argcheck.InputSchema(def.Canonical()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fp := toolgatev1alpha1.Fingerprint(rep.Fingerprint)
		l := toolgatev1alpha1.Level(rep.Level)
		if level != "" {
			l = toolgatev1alpha1.Level(level)
		}
		pins = append(pins, toolgatev1alpha1.ToolPin{
			ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: "ops-" + strings.ReplaceAll(name, "_", "-")},
			Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "ops"}, ToolName: name},
			Status: toolgatev1alpha1.ToolPinStatus{
				State:               toolgatev1alpha1.PinTrusted,
				Pinned:              &toolgatev1alpha1.PinnedDefinition{Fingerprint: fp, Source: toolgatev1alpha1.PinnedOnFirstUse, Definition: string(def.Canonical())},
				ObservedFingerprint: fp,
				Risk: &toolgatev1alpha1.ToolRisk{
					Level: l, Category: toolgatev1alpha1.Category(rep.Risk.Category), BlastRadius: toolgatev1alpha1.BlastRadius(rep.Risk.BlastRadius),
					Reversibility: toolgatev1alpha1.Reversibility(rep.Risk.Reversibility), MinTrustLevel: int32(rep.Risk.MinTrustLevel),
				},
			},
		})
	}
	return pins
}
