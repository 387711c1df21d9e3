package policy

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	local  = agentsNS + "/files"
	remote = "tools/github"
)

// want is the expected decision on one tool.
type want struct {
	decision    gateproto.Decision
	reason      gateproto.Reason
	message     string // a part of the message
	forwardable bool
	fingerprint bool // whether the tool carries a fingerprint
	rule        string
	effective   string
}

// TestDecisions covers every decision on one tool: each withholding reason,
// the order of the checks, the gating rules with their credit, and Audit.
func TestDecisions(t *testing.T) {
	sameNS := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}
	l2 := trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1)
	for _, c := range []struct {
		name       string
		policies   []toolgatev1alpha1.ToolPolicy
		servers    []toolgatev1alpha1.MCPServer
		pins       []toolgatev1alpha1.ToolPin
		unresolved map[string]string
		server     string
		tool       string
		want       want
	}{
		{
			name:     "exposed",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionExposed, fingerprint: true},
		},
		{
			name:     "another namespace's server with consumers Same does not admit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(remote))},
			servers:  []toolgatev1alpha1.MCPServer{readyServer("tools", "github")},
			pins:     []toolgatev1alpha1.ToolPin{trustedPin("tools", "github", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1)},
			server:   remote, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonNotAdmitted, message: "admits only its own namespace"},
		},
		{
			name:     "not admitted comes before not ready, and is never forwardable",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(remote), audit)},
			servers:  []toolgatev1alpha1.MCPServer{readyServer("tools", "github", notReadyCondition("Unreachable"))},
			pins:     []toolgatev1alpha1.ToolPin{trustedPin("tools", "github", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1)},
			server:   remote, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonNotAdmitted},
		},
		{
			name:     "missing server",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", ref(local, "read"))},
			server:   local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonServerNotReady, message: "not found"},
		},
		{
			name:     "server not ready, in Audit too",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files", notReadyCondition("Unreachable"))},
			pins:     []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonServerNotReady, message: "Unreachable: it failed"},
		},
		{
			name:     "server being deleted",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files", func(s *toolgatev1alpha1.MCPServer) {
				s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
			})},
			pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonServerNotReady, message: "being deleted"},
		},
		{
			name:     "server Ready for an older generation",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files", func(s *toolgatev1alpha1.MCPServer) { s.Generation = 4 })},
			pins:     []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonServerNotReady, message: "since its spec changed"},
		},
		{
			name:     "server whose credentials do not resolve",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, unresolved: map[string]string{local: "secret token not found"},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonServerNotReady, message: "secret token not found"},
		},
		{
			name:     "not listed, trusted: forwardable in Audit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", ref(local, "other"), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonNotListed, message: "policy p's tool list", forwardable: true, fingerprint: true},
		},
		{
			name:     "not listed comes before the pin's state, and an untrusted pin is not forwardable",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", ref(local, "other"), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, state(toolgatev1alpha1.PinRejected))},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonNotListed},
		},
		{
			name:     "removed",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, state(toolgatev1alpha1.PinRemoved))},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonRemoved, message: "no longer offers"},
		},
		{
			name:     "rejected",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, state(toolgatev1alpha1.PinRejected))},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonRejected, message: "rejected"},
		},
		{
			name:     "awaiting review after a rug pull, not forwardable in Audit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  sameNS,
			pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, state(toolgatev1alpha1.PinAwaitingReview), observed(2),
				func(p *toolgatev1alpha1.ToolPin) {
					p.Status.Change = &toolgatev1alpha1.DefinitionChange{From: fp(1), To: fp(2)}
				})},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "changed from sha256:000000000000 to sha256:000000000000"},
		},
		{
			name:     "listed but no pin",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", ref(local, "read", "ghost"))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "ghost",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "no pin"},
		},
		{
			name:     "pin not judged yet",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, state(""))},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "not been judged"},
		},
		{
			name:     "trusted pin without a risk",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk = nil })},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "not been judged", fingerprint: true},
		},
		{
			name:     "Trusted but the observed fingerprint is not the pinned one",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, observed(9))},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "not the pinned one"},
		},
		{
			name:     "two pins claim one tool",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS,
			pins: []toolgatev1alpha1.ToolPin{l2, trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1, func(p *toolgatev1alpha1.ToolPin) {
				p.Name = "squatter"
			})},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAwaitingReview, message: "2 pins claim"},
		},
		{
			name:     "poisoning trusted on first use: withheld, in Audit too",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelCritical), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelCritical, "", 1, findings)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonPoisoning, message: "hidden-instruction in description", fingerprint: true},
		},
		{
			name:     "poisoning comes before the ceiling",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelCritical, "", 1, findings)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonPoisoning, fingerprint: true},
		},
		{
			name:     "findings on a definition a human approved: exposed, gated without credit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelCritical), approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelCritical, "", 1, findings, approved)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "minLevel L4 (policy p)", effective: "L5", fingerprint: true},
		},
		{
			name:     "above the default ceiling L3",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "drop", 1, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1)},
			server: local, tool: "drop",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAboveCeiling, message: "level L5 above ceiling L3", fingerprint: true},
		},
		{
			name: "the gate's credit never lifts a tool over the ceiling",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelModerate),
				approval(toolgatev1alpha1.CallApprovalRules{Categories: []toolgatev1alpha1.Category{toolgatev1alpha1.CategoryMutate}}))},
			servers: sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "write", 1, toolgatev1alpha1.LevelHigh, toolgatev1alpha1.CategoryMutate, 1)},
			server: local, tool: "write",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAboveCeiling, message: "level L4 above ceiling L3", fingerprint: true},
		},
		{
			name:     "above the ceiling in Audit: forwardable",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "drop", 1, toolgatev1alpha1.LevelCritical, "", 1)},
			server: local, tool: "drop",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonAboveCeiling, forwardable: true, fingerprint: true},
		},
		{
			name:     "trust level",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), trust(2))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 4)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonTrustLevel, message: "needs agent trust 4, the agents have 2", fingerprint: true},
		},
		{
			name:     "the default trust is 2",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 3)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionWithheld, reason: gateproto.ReasonTrustLevel, message: "the agents have 2", fingerprint: true},
		},
		{
			name:     "gated by minLevel: one band of credit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelCritical), approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "drop", 1, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1)},
			server: local, tool: "drop",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "minLevel L4 (policy p)", effective: "L4", fingerprint: true},
		},
		{
			name:     "below minLevel: exposed",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelModerate}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionExposed, fingerprint: true},
		},
		{
			name: "gated by category; minLevel is checked first",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelCritical), approval(toolgatev1alpha1.CallApprovalRules{
				MinLevel: toolgatev1alpha1.LevelCritical, Categories: []toolgatev1alpha1.Category{toolgatev1alpha1.CategoryRead, toolgatev1alpha1.CategoryDestroy}}))},
			servers: sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "drop", 1, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1)},
			server: local, tool: "drop",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "minLevel L5 (policy p)", effective: "L4", fingerprint: true},
		},
		{
			name:     "gated by category",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Categories: []toolgatev1alpha1.Category{toolgatev1alpha1.CategoryRead}}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "category read (policy p)", effective: "L1", fingerprint: true},
		},
		{
			name: "gated by name on its server",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Tools: []toolgatev1alpha1.ToolReference{
				{Server: "tools/other", Name: "read"}, {Server: local, Name: "read"}}}))},
			servers: sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "tool agents/files read (policy p)", effective: "L1", fingerprint: true},
		},
		{
			name:     "a name rule on another server does not gate",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Tools: []toolgatev1alpha1.ToolReference{{Server: "tools/other", Name: "read"}}}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionExposed, fingerprint: true},
		},
		{
			name:     "a name rule without a server gates on any",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Tools: []toolgatev1alpha1.ToolReference{{Name: "read"}}}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "tool read (policy p)", effective: "L1", fingerprint: true},
		},
		{
			name:     "findings in the server's instructions forfeit the credit",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Tools: []toolgatev1alpha1.ToolReference{{Name: "read"}}}))},
			servers:  []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files", serverFindings)},
			pins:     []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "tool read (policy p)", effective: "L2", fingerprint: true},
		},
		{
			name:     "L0 has no band below",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelVerified}))},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelVerified, "", 1)},
			server: local, tool: "read",
			want: want{decision: gateproto.DecisionApprovalGated, rule: "minLevel L0 (policy p)", effective: "L0", fingerprint: true},
		},
		{
			name:     "Audit changes no decision on an exposed tool",
			policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)},
			servers:  sameNS, pins: []toolgatev1alpha1.ToolPin{l2}, server: local, tool: "read",
			want: want{decision: gateproto.DecisionExposed, fingerprint: true},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Namespace: agentsNS, Policies: c.policies, Servers: c.servers, Pins: c.pins, Unresolved: c.unresolved}
			res := Evaluate(in)
			got := toolOf(res, c.server, c.tool)
			if got == nil {
				t.Fatalf("no decision on %s %s in %+v", c.server, c.tool, res.Servers)
			}
			w := c.want
			if got.Decision != w.decision || got.Reason != w.reason || got.AuditForwardable != w.forwardable ||
				(got.Fingerprint != "") != w.fingerprint || got.ApprovalRule != w.rule || got.EffectiveLevel != w.effective {
				t.Errorf("got %+v\nwant %+v", *got, w)
			}
			if !strings.Contains(got.Message, w.message) {
				t.Errorf("message %q does not say %q", got.Message, w.message)
			}
			if got.Decision == gateproto.DecisionWithheld && got.Message == "" {
				t.Error("a withheld tool without a message")
			}
			mustValidate(t, res)
		})
	}
}

// mustValidate checks the configuration of a result passes the gate's own
// validation, and that it is the same when made twice.
func mustValidate(t *testing.T, res Result) *gateproto.Config {
	t.Helper()
	c := res.Config(agentsNS, "agent-0", upstreamsFor(res))
	if err := c.Validate(); err != nil {
		t.Fatalf("the configuration does not validate: %v", err)
	}
	if again := res.Config(agentsNS, "agent-0", upstreamsFor(res)); again.Revision != c.Revision {
		t.Fatal("two configurations of one result differ")
	}
	return c
}

// TestAdmission covers the three consumer modes.
func TestAdmission(t *testing.T) {
	labels := map[string]string{"team": "platform", "kubernetes.io/metadata.name": agentsNS}
	for _, c := range []struct {
		name   string
		server toolgatev1alpha1.MCPServer
		admits bool
	}{
		{"Same, same namespace", readyServer(agentsNS, "s"), true},
		{"Same spelled out, other namespace", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSame, nil)), false},
		{"unset, other namespace", readyServer("tools", "s"), false},
		{"All", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromAll, nil)), true},
		{"Selector matching", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "platform"}})), true},
		{"Selector by name", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": agentsNS}})), true},
		{"Selector not matching", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "data"}})), false},
		{"Selector not matching its own namespace", readyServer(agentsNS, "s", consumers(toolgatev1alpha1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "data"}})), false},
		{"Selector without a selector", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSelector, nil)), false},
		{"invalid selector", readyServer("tools", "s", consumers(toolgatev1alpha1.NamespacesFromSelector, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "In"}}})), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, why := Admits(&c.server, agentsNS, labels)
			if ok != c.admits || (!ok && why == "") {
				t.Fatalf("Admits = %v %q, want %v", ok, why, c.admits)
			}
			id := c.server.Namespace + "/" + c.server.Name
			p := policy("p", refs(id))
			in := Input{Namespace: agentsNS, NamespaceLabels: labels, Policies: []toolgatev1alpha1.ToolPolicy{p}, Servers: []toolgatev1alpha1.MCPServer{c.server}}
			if acc := Accept(&p, in); acc.Accepted != c.admits || (!c.admits && acc.Reason != toolgatev1alpha1.ReasonServerNotAdmitted) {
				t.Errorf("Accept = %+v", acc)
			}
			res := Evaluate(in)
			if res.Servers[0].Ready != c.admits || (!c.admits && res.Servers[0].Reason != gateproto.ReasonNotAdmitted) {
				t.Errorf("server %+v", res.Servers[0])
			}
			mustValidate(t, res)
		})
	}
}

// TestCombination checks several policies combine to the most restrictive.
func TestCombination(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files"), readyServer("tools", "github", consumers(toolgatev1alpha1.NamespacesFromAll, nil))}
	pins := []toolgatev1alpha1.ToolPin{
		trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1),
		trustedPin(agentsNS, "files", "write", 2, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.CategoryMutate, 2),
		trustedPin(agentsNS, "files", "chmod", 3, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.CategoryMutate, 3),
		trustedPin(agentsNS, "files", "drop", 4, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1),
		trustedPin("tools", "github", "search", 5, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1),
		trustedPin("tools", "github", "comment", 6, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryMutate, 1),
	}
	loose := policy("a-loose", ref(local, "read", "write", "chmod", "drop"), ceiling(toolgatev1alpha1.LevelCritical), trust(5), audit,
		approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh, Timeout: timeout(time.Hour)}))
	strict := policy("b-strict", ref(local, "read", "write", "drop"), refs(remote), ceiling(toolgatev1alpha1.LevelModerate), trust(2),
		approval(toolgatev1alpha1.CallApprovalRules{Categories: []toolgatev1alpha1.Category{toolgatev1alpha1.CategoryMutate}, Timeout: timeout(time.Minute)}))

	in := Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{strict, loose}, Servers: servers, Pins: pins}
	res := Evaluate(in)
	if res.Ceiling != toolgatev1alpha1.LevelModerate || res.TrustLevel != 2 || res.Mode != gateproto.ModeEnforce || res.ApprovalTimeout != time.Minute {
		t.Fatalf("combined settings: ceiling %s trust %d mode %s timeout %s", res.Ceiling, res.TrustLevel, res.Mode, res.ApprovalTimeout)
	}
	if strings.Join(res.Policies, ",") != "a-loose,b-strict" || len(res.Servers) != 2 || res.Servers[0].ID != local || res.Servers[1].ID != remote {
		t.Fatalf("policies %v, servers %+v", res.Policies, res.Servers)
	}
	for _, c := range []struct {
		server, tool string
		decision     gateproto.Decision
		reason       gateproto.Reason
		rule         string
	}{
		{local, "read", gateproto.DecisionExposed, "", ""},
		// Gated by the strict policy's category, although the loose one
		// alone would expose it.
		{local, "write", gateproto.DecisionApprovalGated, "", "category mutate (policy b-strict)"},
		// Listed by a-loose, not by b-strict: the intersection decides.
		{local, "chmod", gateproto.DecisionWithheld, gateproto.ReasonNotListed, ""},
		// The loose ceiling L5 does not count: b-strict's L3 does.
		{local, "drop", gateproto.DecisionWithheld, gateproto.ReasonAboveCeiling, ""},
		// Only b-strict references github: the union of servers, without
		// a list narrowing it.
		{remote, "search", gateproto.DecisionExposed, "", ""},
		{remote, "comment", gateproto.DecisionApprovalGated, "", "category mutate (policy b-strict)"},
	} {
		got := toolOf(res, c.server, c.tool)
		if got == nil || got.Decision != c.decision || got.Reason != c.reason || got.ApprovalRule != c.rule || got.AuditForwardable {
			t.Errorf("%s %s: got %+v, want %s %s %q", c.server, c.tool, got, c.decision, c.reason, c.rule)
		}
	}
	if m := toolOf(res, local, "chmod").Message; !strings.Contains(m, "b-strict") {
		t.Errorf("the NotListed message does not name the policy that leaves it out: %q", m)
	}

	// Every policy in Audit: Audit, and the tools withheld by policy alone
	// become forwardable; the decisions stay.
	strictAudit := strict.DeepCopy()
	strictAudit.Spec.Mode = toolgatev1alpha1.PolicyAudit
	auditRes := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{*strictAudit, loose}, Servers: servers, Pins: pins})
	if auditRes.Mode != gateproto.ModeAudit {
		t.Fatalf("mode %s", auditRes.Mode)
	}
	for _, s := range auditRes.Servers {
		for _, tool := range s.Tools {
			enforced := toolOf(res, s.ID, tool.Name)
			if tool.Decision != enforced.Decision || tool.Reason != enforced.Reason {
				t.Errorf("Audit changed the decision on %s: %+v, Enforce %+v", tool.Name, tool, enforced)
			}
			if tool.AuditForwardable != (tool.Decision == gateproto.DecisionWithheld) {
				t.Errorf("%s: forwardable %v", tool.Name, tool.AuditForwardable)
			}
		}
	}
	mustValidate(t, res)
	mustValidate(t, auditRes)

	// Each policy alone is what its status reports: a-loose alone exposes
	// drop behind the gate.
	alone := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{loose}, Servers: servers, Pins: pins})
	if got := toolOf(alone, local, "drop"); got.Decision != gateproto.DecisionApprovalGated || got.EffectiveLevel != "L4" {
		t.Errorf("a-loose alone: drop %+v", got)
	}
	if len(alone.Servers) != 1 {
		t.Errorf("a-loose alone references one server, got %d", len(alone.Servers))
	}
	// Its status shows both levels of the gated tool, and no credit on
	// the others.
	for _, d := range alone.Summarize().Tools {
		switch {
		case d.Tool == "drop" && (d.Level != toolgatev1alpha1.LevelCritical || d.EffectiveLevel != toolgatev1alpha1.LevelHigh):
			t.Errorf("the status of the gated drop shows %q → %q, want L5 → L4", d.Level, d.EffectiveLevel)
		case d.Decision != toolgatev1alpha1.ToolApprovalGated && (d.Level != "" || d.EffectiveLevel != ""):
			t.Errorf("%s is %s and shows a credit: %+v", d.Tool, d.Decision, d)
		}
	}
}

// TestNoPolicy checks a pod no policy selects gets a valid configuration
// that exposes nothing.
func TestNoPolicy(t *testing.T) {
	res := Evaluate(Input{Namespace: agentsNS, Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}})
	c := mustValidate(t, res)
	if len(c.Servers) != 0 || len(c.Policies) != 0 || c.Mode != gateproto.ModeEnforce {
		t.Fatalf("config %+v", c)
	}
}

// TestSelection covers pod selectors.
func TestSelection(t *testing.T) {
	all := policy("all")
	web := policy("web", selector(metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}))
	invalid := policy("invalid", selector(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}))
	policies := []toolgatev1alpha1.ToolPolicy{all, web, invalid}
	names := func(ps []toolgatev1alpha1.ToolPolicy) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(Matching(policies, map[string]string{"app": "web"})); got != "all,web" {
		t.Errorf("a web pod: %s", got)
	}
	if got := names(Matching(policies, nil)); got != "all" {
		t.Errorf("a pod without labels: %s", got)
	}
	acc := Accept(&invalid, Input{Namespace: agentsNS})
	if acc.Accepted || acc.Reason != toolgatev1alpha1.ReasonInvalidPodSelector || !strings.Contains(acc.Message, "spec.podSelector") {
		t.Errorf("Accept of an invalid selector: %+v", acc)
	}
}

// TestAcceptance covers the reasons a policy is not Accepted, in order.
func TestAcceptance(t *testing.T) {
	p := policy("p", refs(local, "tools/missing", remote),
		selector(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "In"}}}))
	in := Input{Namespace: agentsNS, Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files"), readyServer("tools", "github")}}
	acc := Accept(&p, in)
	if acc.Accepted || acc.Reason != toolgatev1alpha1.ReasonInvalidPodSelector {
		t.Fatalf("%+v", acc)
	}
	for _, part := range []string{"spec.podSelector", "not found: tools/missing", "tools/github admits only its own namespace"} {
		if !strings.Contains(acc.Message, part) {
			t.Errorf("message %q does not say %q", acc.Message, part)
		}
	}
	p.Spec.PodSelector = metav1.LabelSelector{}
	if acc := Accept(&p, in); acc.Reason != toolgatev1alpha1.ReasonServerNotFound {
		t.Errorf("%+v", acc)
	}
	good := policy("good", refs(local))
	if acc := Accept(&good, in); !acc.Accepted || acc.Reason != toolgatev1alpha1.ReasonAccepted {
		t.Errorf("%+v", acc)
	}
}

// TestSummary checks the status a result turns into: counts over every
// tool, withheld first, bounded.
func TestSummary(t *testing.T) {
	var pins []toolgatev1alpha1.ToolPin
	for i := range 250 {
		level := toolgatev1alpha1.LevelLow
		if i%2 == 0 {
			level = toolgatev1alpha1.LevelCritical
		}
		pins = append(pins, trustedPin(agentsNS, "files", fmt.Sprintf("tool-%03d", i), i+1, level, toolgatev1alpha1.CategoryRead, 1))
	}
	p := policy("p", refs(local), approval(toolgatev1alpha1.CallApprovalRules{Tools: []toolgatev1alpha1.ToolReference{{Name: "tool-001"}}}))
	res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{p}, Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}, Pins: pins})
	s := res.Summarize()
	if s.Withheld != 125 || s.Exposed != 124 || s.ApprovalGated != 1 {
		t.Fatalf("counts %d withheld, %d exposed, %d gated", s.Withheld, s.Exposed, s.ApprovalGated)
	}
	if len(s.Tools) != toolgatev1alpha1.MaxPolicyTools {
		t.Fatalf("%d tools listed", len(s.Tools))
	}
	for i, d := range s.Tools {
		if (i < 125) != (d.Decision == toolgatev1alpha1.ToolWithheld) {
			t.Fatalf("entry %d is %s: withheld are not first", i, d.Decision)
		}
		if len(d.Reason) > toolgatev1alpha1.MaxPolicyReasonLength || d.Reason == "" {
			t.Fatalf("entry %d reason %q", i, d.Reason)
		}
	}
	if s.Tools[125].Decision != toolgatev1alpha1.ToolApprovalGated || !strings.Contains(s.Tools[125].Reason, "effective L1") {
		t.Errorf("the gated tool follows the withheld ones: %+v", s.Tools[125])
	}
	if !strings.Contains(s.Tools[0].Reason, "AboveCeiling: level L5 above ceiling L3") {
		t.Errorf("reason %q", s.Tools[0].Reason)
	}
	mustValidate(t, res)
}

// TestConfigWithoutUpstream checks a ready server whose upstream is missing
// is not ready in the configuration: nothing of it is exposed.
func TestConfigWithoutUpstream(t *testing.T) {
	res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), audit)}, Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")},
		Pins: []toolgatev1alpha1.ToolPin{
			trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1),
			trustedPin(agentsNS, "files", "drop", 2, toolgatev1alpha1.LevelCritical, "", 1),
		}})
	c := res.Config(agentsNS, "agent-0", nil)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := c.Servers[0]
	if s.Ready || s.Reason != gateproto.ReasonServerNotReady || s.Upstream != nil || len(s.Tools) != 2 {
		t.Fatalf("%+v", s)
	}
	for _, tool := range s.Tools {
		if tool.Decision != gateproto.DecisionWithheld || tool.AuditForwardable || tool.Fingerprint != "" {
			t.Errorf("%+v", tool)
		}
	}
}

// TestDeterministic shuffles the inputs and checks the configuration is the
// same, byte for byte, and matches the golden file.
func TestDeterministic(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{
		readyServer(agentsNS, "files"),
		readyServer("tools", "github", consumers(toolgatev1alpha1.NamespacesFromAll, nil)),
		readyServer("tools", "closed"),
	}
	pins := []toolgatev1alpha1.ToolPin{
		trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1),
		trustedPin(agentsNS, "files", "write", 2, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.CategoryMutate, 2),
		trustedPin(agentsNS, "files", "drop", 3, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1),
		trustedPin(agentsNS, "files", "poisoned", 4, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.CategoryRead, 1, findings),
		trustedPin(agentsNS, "files", "changed", 5, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1, state(toolgatev1alpha1.PinAwaitingReview), observed(50)),
		trustedPin("tools", "github", "search", 6, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1),
		trustedPin("tools", "github", "delete_repo", 7, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 3),
		trustedPin("tools", "closed", "secret", 8, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1),
	}
	policies := []toolgatev1alpha1.ToolPolicy{
		policy("b", refs(local, remote), ceiling(toolgatev1alpha1.LevelHigh), audit, approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelModerate})),
		policy("a", refs("tools/closed"), ref(local, "read", "write", "drop", "poisoned", "changed", "missing"), audit),
		policy("c", ref(remote, "search", "delete_repo"), audit, approval(toolgatev1alpha1.CallApprovalRules{Categories: []toolgatev1alpha1.Category{toolgatev1alpha1.CategoryRead}, Timeout: timeout(30 * time.Second)})),
	}
	var first []byte
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rng.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
		rng.Shuffle(len(pins), func(i, j int) { pins[i], pins[j] = pins[j], pins[i] })
		rng.Shuffle(len(policies), func(i, j int) { policies[i], policies[j] = policies[j], policies[i] })
		res := Evaluate(Input{Namespace: agentsNS, Policies: policies, Servers: servers, Pins: pins})
		c := mustValidate(t, res)
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
			continue
		}
		if string(b) != string(first) {
			t.Fatalf("the configuration depends on the order of the inputs:\n%s\n---\n%s", first, b)
		}
	}
	golden := filepath.Join("testdata", "combined.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(first, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != string(first)+"\n" {
		t.Errorf("the configuration differs from %s (go test -update rewrites it):\n%s", golden, first)
	}
}

// TestClusterCeilings: a policy without maxLevel takes the cluster's
// default ceiling, and the cluster's cap bounds every policy, its own
// maxLevel included; status.ceiling shows the ceiling in force.
func TestClusterCeilings(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}
	pins := []toolgatev1alpha1.ToolPin{
		trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1),
		trustedPin(agentsNS, "files", "write", 2, toolgatev1alpha1.LevelHigh, toolgatev1alpha1.CategoryMutate, 1),
		trustedPin(agentsNS, "files", "drop", 3, toolgatev1alpha1.LevelCritical, toolgatev1alpha1.CategoryDestroy, 1),
	}
	unset := policy("unset", ref(local), trust(5))
	critical := policy("critical", ref(local), ceiling(toolgatev1alpha1.LevelCritical), trust(5))
	for _, c := range []struct {
		name     string
		p        toolgatev1alpha1.ToolPolicy
		ceilings Ceilings
		want     toolgatev1alpha1.Level
		exposed  []string
	}{
		{"no maxLevel, no cluster setting: L3", unset, Ceilings{}, toolgatev1alpha1.LevelModerate, []string{"read"}},
		{"no maxLevel takes the cluster's default", unset, Ceilings{Default: toolgatev1alpha1.LevelHigh}, toolgatev1alpha1.LevelHigh, []string{"read", "write"}},
		{"a lower default is lower", unset, Ceilings{Default: toolgatev1alpha1.LevelLow}, toolgatev1alpha1.LevelLow, []string{"read"}},
		{"the policy's own maxLevel wins over the default", critical, Ceilings{Default: toolgatev1alpha1.LevelLow}, toolgatev1alpha1.LevelCritical, []string{"read", "write", "drop"}},
		{"the cap bounds the policy's own maxLevel", critical, Ceilings{Cap: toolgatev1alpha1.LevelHigh}, toolgatev1alpha1.LevelHigh, []string{"read", "write"}},
		{"the cap bounds the default", unset, Ceilings{Default: toolgatev1alpha1.LevelCritical, Cap: toolgatev1alpha1.LevelModerate}, toolgatev1alpha1.LevelModerate, []string{"read"}},
		{"a cap above the ceiling changes nothing", unset, Ceilings{Cap: toolgatev1alpha1.LevelCritical}, toolgatev1alpha1.LevelModerate, []string{"read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{c.p}, Servers: servers, Pins: pins, Ceilings: c.ceilings}
			res := Evaluate(in)
			if res.Ceiling != c.want {
				t.Errorf("ceiling %s, want %s", res.Ceiling, c.want)
			}
			var exposed []string
			for _, s := range res.Servers {
				for _, tool := range s.Tools {
					if tool.Decision == gateproto.DecisionExposed {
						exposed = append(exposed, tool.Name)
					} else if tool.Reason != gateproto.ReasonAboveCeiling {
						t.Errorf("%s withheld for %s, not the ceiling", tool.Name, tool.Reason)
					}
				}
			}
			slices.Sort(exposed)
			want := slices.Sorted(slices.Values(c.exposed))
			if !slices.Equal(exposed, want) {
				t.Errorf("exposed %v, want %v", exposed, want)
			}
			if st := Status(&c.p, in); st.Ceiling != c.want {
				t.Errorf("status.ceiling %s, want %s", st.Ceiling, c.want)
			}
		})
	}
}

// TestReadyNeedsInjection: where the operator serves only namespaces
// labelled for injection, a policy elsewhere says plainly that it
// enforces nothing; its decisions are still listed.
func TestReadyNeedsInjection(t *testing.T) {
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")}
	pins := []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, toolgatev1alpha1.CategoryRead, 1)}
	p := policy("p", refs(local))
	enabled := map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	for _, c := range []struct {
		name    string
		require bool
		labels  map[string]string
		reason  string
	}{
		{"required, not labelled", true, nil, toolgatev1alpha1.ReasonInjectionNotEnabled},
		{"required, labelled another value", true, map[string]string{toolgatev1alpha1.LabelInjection: "true"}, toolgatev1alpha1.ReasonInjectionNotEnabled},
		{"required, labelled", true, enabled, toolgatev1alpha1.ReasonEvaluated},
		{"gates run by hand are served", false, nil, toolgatev1alpha1.ReasonEvaluated},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := Status(&p, Input{Namespace: agentsNS, NamespaceLabels: c.labels, Servers: servers, Pins: pins, RequireInjection: c.require})
			ready := st.Conditions[1]
			if ready.Reason != c.reason || (ready.Status == metav1.ConditionTrue) != (c.reason == toolgatev1alpha1.ReasonEvaluated) {
				t.Fatalf("Ready %s %s: %s", ready.Status, ready.Reason, ready.Message)
			}
			if c.reason == toolgatev1alpha1.ReasonInjectionNotEnabled && !strings.Contains(ready.Message, "toolgate.dev/injection=enabled") {
				t.Errorf("the message does not say which label: %q", ready.Message)
			}
			if st.Exposed != 1 {
				t.Errorf("exposed %d: the decisions are listed either way", st.Exposed)
			}
		})
	}
}
