package policy

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// The fixtures: agents in namespace "agents", servers in "agents" and
// "tools".
const agentsNS = "agents"

func fp(n int) toolgatev1alpha1.Fingerprint {
	return toolgatev1alpha1.Fingerprint(fmt.Sprintf("sha256:%064x", n))
}

type serverOpt func(*toolgatev1alpha1.MCPServer)

func readyServer(ns, name string, opts ...serverOpt) toolgatev1alpha1.MCPServer {
	s := toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 3},
		Status: toolgatev1alpha1.MCPServerStatus{Conditions: []metav1.Condition{{
			Type: toolgatev1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: toolgatev1alpha1.ReasonProbed,
			Message: "probed", ObservedGeneration: 3,
		}}},
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func consumers(from toolgatev1alpha1.NamespacesFrom, sel *metav1.LabelSelector) serverOpt {
	return func(s *toolgatev1alpha1.MCPServer) {
		s.Spec.Consumers = toolgatev1alpha1.ConsumerSpec{From: from, Selector: sel}
	}
}

func notReadyCondition(reason string) serverOpt {
	return func(s *toolgatev1alpha1.MCPServer) {
		s.Status.Conditions[0].Status, s.Status.Conditions[0].Reason, s.Status.Conditions[0].Message = metav1.ConditionFalse, reason, "it failed"
	}
}

func serverFindings(s *toolgatev1alpha1.MCPServer) {
	s.Status.Risk = &toolgatev1alpha1.ServerRisk{Level: toolgatev1alpha1.LevelCritical, Findings: []toolgatev1alpha1.Finding{{Signal: "model-instruction", Field: "instructions"}}}
}

type pinOpt func(*toolgatev1alpha1.ToolPin)

// trustedPin is a pin trusted on first use at fingerprint n, with the
// level, category and minTrustLevel given.
func trustedPin(ns, server, tool string, n int, level toolgatev1alpha1.Level, category toolgatev1alpha1.Category, minTrust int32, opts ...pinOpt) toolgatev1alpha1.ToolPin {
	p := toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: server + "-" + strings.ReplaceAll(tool, "_", "-")}, // an object name, as pins have
		Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: server}, ToolName: tool},
		Status: toolgatev1alpha1.ToolPinStatus{
			State:               toolgatev1alpha1.PinTrusted,
			Pinned:              &toolgatev1alpha1.PinnedDefinition{Fingerprint: fp(n), Source: toolgatev1alpha1.PinnedOnFirstUse},
			ObservedFingerprint: fp(n),
			Risk:                &toolgatev1alpha1.ToolRisk{Level: level, EffectiveLevel: level, Category: category, MinTrustLevel: minTrust},
		},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func state(s toolgatev1alpha1.PinState) pinOpt {
	return func(p *toolgatev1alpha1.ToolPin) { p.Status.State = s }
}

func observed(n int) pinOpt {
	return func(p *toolgatev1alpha1.ToolPin) { p.Status.ObservedFingerprint = fp(n) }
}

func findings(p *toolgatev1alpha1.ToolPin) {
	p.Status.Risk.Findings = []toolgatev1alpha1.Finding{{Signal: "hidden-instruction", Field: "description"}}
}

func approved(p *toolgatev1alpha1.ToolPin) {
	p.Status.Pinned.Source = toolgatev1alpha1.PinnedByApproval
}

type policyOpt func(*toolgatev1alpha1.ToolPolicy)

func policy(name string, opts ...policyOpt) toolgatev1alpha1.ToolPolicy {
	p := toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: agentsNS, Name: name}}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func refs(ids ...string) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) {
		for _, id := range ids {
			ns, name, _ := gateproto.SplitServerID(id)
			p.Spec.Servers = append(p.Spec.Servers, toolgatev1alpha1.ServerReference{Namespace: ns, Name: name})
		}
	}
}

func ref(id string, tools ...string) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) {
		ns, name, _ := gateproto.SplitServerID(id)
		p.Spec.Servers = append(p.Spec.Servers, toolgatev1alpha1.ServerReference{Namespace: ns, Name: name, Tools: tools})
	}
}

func ceiling(l toolgatev1alpha1.Level) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) { p.Spec.MaxLevel = l }
}

func trust(n int32) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) { p.Spec.AgentTrustLevel = n }
}

func audit(p *toolgatev1alpha1.ToolPolicy) { p.Spec.Mode = toolgatev1alpha1.PolicyAudit }

func approval(a toolgatev1alpha1.CallApprovalRules) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) { p.Spec.Approval = &a }
}

func selector(sel metav1.LabelSelector) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) { p.Spec.PodSelector = sel }
}

func timeout(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// upstreamsFor resolves every server of a result to a plain URL.
func upstreamsFor(r Result) map[string]*gateproto.Upstream {
	out := map[string]*gateproto.Upstream{}
	for _, s := range r.Servers {
		out[s.ID] = &gateproto.Upstream{URL: "http://" + s.ID + "/mcp", Transport: "StreamableHTTP", Headers: map[string]string{"Authorization": "Bearer t"}}
	}
	return out
}

// toolOf finds a tool's decision in a result.
func toolOf(r Result, server, tool string) *gateproto.Tool {
	for _, s := range r.Servers {
		if s.ID != server {
			continue
		}
		for i := range s.Tools {
			if s.Tools[i].Name == tool {
				return &s.Tools[i]
			}
		}
	}
	return nil
}
