package policy

import (
	"strings"
	"testing"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestAuditLiftsOnlyPolicyChoices: Audit forwards a withheld tool only
// when some policy could have exposed it — it was withheld for the tool
// list, the policy's own ceiling or the agents' trust — and never one
// withheld for what no policy setting changes: a poisoning finding no
// human approved, a level above the cluster's cap, a risk not judged, a
// pin not Trusted. The reason given stays the first that applies, so a
// tool NotListed is judged on everything else too.
func TestAuditLiftsOnlyPolicyChoices(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}
	const (
		safe     = toolgatev1alpha1.LevelSafe
		low      = toolgatev1alpha1.LevelLow
		high     = toolgatev1alpha1.LevelHigh
		critical = toolgatev1alpha1.LevelCritical
	)
	pin := func(level toolgatev1alpha1.Level, minTrust int32, opts ...pinOpt) []toolgatev1alpha1.ToolPin {
		return []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "t", 1, level, "", minTrust, opts...)}
	}
	unjudged := func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk = nil }
	notListed := ref(local, "other")
	capL4 := Ceilings{Cap: high}
	for _, c := range []struct {
		name        string
		policy      toolgatev1alpha1.ToolPolicy
		pins        []toolgatev1alpha1.ToolPin
		ceilings    Ceilings
		reason      gateproto.Reason
		message     string // a part of the message
		forwardable bool
	}{
		// What a policy could have chosen.
		{name: "not listed", policy: policy("p", notListed, audit), pins: pin(low, 1),
			reason: gateproto.ReasonNotListed, forwardable: true},
		{name: "above the policy's ceiling, within the cap", policy: policy("p", refs(local), audit), pins: pin(critical, 1),
			ceilings: Ceilings{Cap: critical}, reason: gateproto.ReasonAboveCeiling, forwardable: true},
		{name: "above the policy's ceiling, no cap", policy: policy("p", refs(local), audit), pins: pin(critical, 1),
			reason: gateproto.ReasonAboveCeiling, forwardable: true},
		{name: "above the policy's ceiling, at the cap", policy: policy("p", refs(local), ceiling(toolgatev1alpha1.LevelModerate), audit), pins: pin(high, 1),
			ceilings: capL4, reason: gateproto.ReasonAboveCeiling, forwardable: true},
		{name: "trust level", policy: policy("p", refs(local), trust(1), audit), pins: pin(low, 5),
			reason: gateproto.ReasonTrustLevel, forwardable: true},
		{name: "not listed, findings a human approved", policy: policy("p", notListed, audit), pins: pin(low, 1, findings, approved),
			reason: gateproto.ReasonNotListed, forwardable: true},

		// What no policy could expose.
		{name: "poisoning finding", policy: policy("p", refs(local), ceiling(critical), audit), pins: pin(low, 1, findings),
			reason: gateproto.ReasonPoisoning},
		{name: "not listed, with a poisoning finding", policy: policy("p", notListed, audit), pins: pin(low, 1, findings),
			reason: gateproto.ReasonNotListed},
		{name: "above the cap, the policy asking for L5", policy: policy("p", refs(local), ceiling(critical), audit), pins: pin(critical, 1),
			ceilings: capL4, reason: gateproto.ReasonAboveCeiling, message: "above the cluster's cap L4"},
		{name: "above the cap and the default ceiling", policy: policy("p", refs(local), audit), pins: pin(critical, 1),
			ceilings: capL4, reason: gateproto.ReasonAboveCeiling, message: "above ceiling L3, and above the cluster's cap L4"},
		{name: "not listed, above the cap", policy: policy("p", notListed, audit), pins: pin(critical, 1),
			ceilings: capL4, reason: gateproto.ReasonNotListed},
		{name: "not listed, not judged", policy: policy("p", notListed, audit), pins: pin(low, 1, unjudged),
			reason: gateproto.ReasonNotListed},
		{name: "not listed, awaiting review", policy: policy("p", notListed, audit), pins: pin(low, 1, state(toolgatev1alpha1.PinAwaitingReview)),
			reason: gateproto.ReasonNotListed},
		{name: "not listed, rejected", policy: policy("p", notListed, audit), pins: pin(low, 1, state(toolgatev1alpha1.PinRejected)),
			reason: gateproto.ReasonNotListed},
		{name: "not listed, removed", policy: policy("p", notListed, audit), pins: pin(low, 1, state(toolgatev1alpha1.PinRemoved)),
			reason: gateproto.ReasonNotListed},
		{name: "not listed, Trusted but redefined since", policy: policy("p", notListed, audit), pins: pin(low, 1, observed(2)),
			reason: gateproto.ReasonNotListed},
		{name: "not listed, claimed by two pins", policy: policy("p", notListed, audit),
			pins:   append(pin(low, 1), trustedPin(agentsNS, "files", "t", 1, low, "", 1, func(p *toolgatev1alpha1.ToolPin) { p.Name = "squatter" })),
			reason: gateproto.ReasonNotListed},
		{name: "not judged", policy: policy("p", refs(local), audit), pins: pin(low, 1, unjudged),
			reason: gateproto.ReasonAwaitingReview},
		{name: "judged without a level", policy: policy("p", refs(local), audit), pins: pin("", 1),
			reason: gateproto.ReasonAwaitingReview},

		// Enforce forwards nothing withheld.
		{name: "not listed in Enforce", policy: policy("p", notListed), pins: pin(safe, 1),
			reason: gateproto.ReasonNotListed},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{c.policy}, Servers: servers, Pins: c.pins, Ceilings: c.ceilings})
			got := toolOf(res, local, "t")
			if got == nil {
				t.Fatalf("no decision on t in %+v", res.Servers)
			}
			if got.Decision != gateproto.DecisionWithheld || got.Reason != c.reason || got.AuditForwardable != c.forwardable {
				t.Errorf("got %s %s forwardable=%v (%s), want Withheld %s forwardable=%v", got.Decision, got.Reason, got.AuditForwardable, got.Message, c.reason, c.forwardable)
			}
			if !strings.Contains(got.Message, c.message) {
				t.Errorf("message %q does not say %q", got.Message, c.message)
			}
			// The policy's status says whether the gate forwards it.
			for _, d := range res.Summarize().Tools {
				if d.Tool == "t" && strings.HasPrefix(d.Reason, "audit, forwarded") != c.forwardable {
					t.Errorf("status reason %q, forwardable %v", d.Reason, c.forwardable)
				}
			}
			mustValidate(t, res)
		})
	}
}

// TestAuditKeepsGatedToolsGated: a gated tool stays ApprovalGated in
// Audit, so the gate knows each of its calls is one Enforce would hold; a
// poisoning finding a human approved is exposed in both modes alike.
func TestAuditKeepsGatedToolsGated(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}
	pins := []toolgatev1alpha1.ToolPin{
		trustedPin(agentsNS, "files", "drop", 1, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1),
		trustedPin(agentsNS, "files", "read", 2, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1, findings, approved),
	}
	for _, mode := range []toolgatev1alpha1.PolicyMode{toolgatev1alpha1.PolicyEnforce, toolgatev1alpha1.PolicyAudit} {
		p := policy("p", refs(local), ceiling(toolgatev1alpha1.LevelCritical), approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh}))
		p.Spec.Mode = mode
		res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{p}, Servers: servers, Pins: pins})
		if got := toolOf(res, local, "drop"); got.Decision != gateproto.DecisionApprovalGated || got.AuditForwardable {
			t.Errorf("%s: drop %+v, want ApprovalGated", mode, got)
		}
		if got := toolOf(res, local, "read"); got.Decision != gateproto.DecisionExposed {
			t.Errorf("%s: read %+v, want Exposed", mode, got)
		}
		mustValidate(t, res)
	}
}
