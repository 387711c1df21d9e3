package gateserver

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestHeldByConfig: the operator opens a pending call only for a reason
// the pod's configuration could have held it for, so that a gate cannot
// put a call before a person that no policy asked about, nor one the
// configuration refuses.
func TestHeldByConfig(t *testing.T) {
	cfg := &gateproto.Config{
		Ceiling: "L4", ApprovalLevel: "L4",
		ArgumentRules: []gateproto.ArgumentRule{
			{Name: "p/hold", Expression: "true", Action: gateproto.RuleHold},
			{Name: "p/refuse", Expression: "true", Action: gateproto.RuleRefuse},
			{Name: "p/raise", Expression: "true", Action: gateproto.RuleRaiseLevel, Level: "L4"},
		},
	}
	exposed := &gateproto.Tool{Name: "push", Decision: gateproto.DecisionExposed, Rules: []gateproto.ToolRule{{Rule: "p/hold"}, {Rule: "p/refuse"}, {Rule: "p/raise"}}}
	broken := &gateproto.Tool{Name: "push", Decision: gateproto.DecisionExposed, Rules: []gateproto.ToolRule{{Rule: "p/hold", Problem: "UnknownArgument"}}}
	gated := &gateproto.Tool{Name: "push", Decision: gateproto.DecisionApprovalGated}
	withheld := &gateproto.Tool{Name: "push", Decision: gateproto.DecisionWithheld, Rules: exposed.Rules}
	for _, tc := range []struct {
		name string
		tool *gateproto.Tool
		req  gateproto.CallRequest
		ok   bool
	}{
		{"designated", gated, gateproto.CallRequest{}, true},
		{"designation claimed for an exposed tool", exposed, gateproto.CallRequest{}, false},
		{"a hold rule of the tool", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByRule, Rule: "p/hold"}, true},
		{"a refuse rule is no reason to hold", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByRule, Rule: "p/refuse"}, false},
		{"a rule the tool does not name", gated, gateproto.CallRequest{HeldBy: gateproto.HeldByRule, Rule: "p/hold"}, false},
		{"a rule broken for the tool refuses, never holds", broken, gateproto.CallRequest{HeldBy: gateproto.HeldByRule, Rule: "p/hold"}, false},
		{"a level at the approval level", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L4"}, true},
		{"a level below it", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L3"}, false},
		{"a level above the ceiling is refused, never held", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L5"}, false},
		{"a level a rule of the tool raises it to", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L4", Rule: "p/raise"}, true},
		{"a level said to be raised by a rule that does not raise", exposed, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L4", Rule: "p/hold"}, false},
		{"a level said to be raised by a rule the tool does not name", gated, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L4", Rule: "p/raise"}, false},
		{"a withheld tool's call by rule", withheld, gateproto.CallRequest{HeldBy: gateproto.HeldByRule, Rule: "p/hold"}, false},
		{"a withheld tool's call by level", withheld, gateproto.CallRequest{HeldBy: gateproto.HeldByLevel, Level: "L5"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Tool = "push"
			why := heldByConfig(cfg, tc.tool, &tc.req)
			if (why == "") != tc.ok {
				t.Fatalf("heldByConfig = %q, want accepted %v", why, tc.ok)
			}
			if !tc.ok && !strings.Contains(why, "push") && !strings.Contains(why, "level") {
				t.Errorf("the refusal does not say what: %q", why)
			}
		})
	}
	floorsOff := &gateproto.Config{Ceiling: "L4", ApprovalLevel: "L4", ArgumentFloorsOff: true}
	if why := heldByConfig(floorsOff, exposed, &gateproto.CallRequest{Tool: "push", HeldBy: gateproto.HeldByLevel, Level: "L4"}); why == "" {
		t.Error("a configuration with the floors off accepted a call a floor raised")
	}
	noLevel := &gateproto.Config{}
	if why := heldByConfig(noLevel, exposed, &gateproto.CallRequest{Tool: "push", HeldBy: gateproto.HeldByLevel, Level: "L5"}); why == "" {
		t.Error("a configuration that holds no call by level accepted one held by level")
	}
}
