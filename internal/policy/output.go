package policy

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// Summary is what a policy's status says of a result.
type Summary struct {
	// Exposed, Withheld and ApprovalGated count every tool; an
	// approval-gated tool is not counted as exposed.
	Exposed, Withheld, ApprovalGated int32
	// Tools are at most MaxPolicyTools decisions: withheld first, then
	// gated, then exposed, each group by server and name.
	Tools []toolgatev1alpha1.PolicyToolDecision
	// NotReady are the messages of the servers that are not ready, by ID,
	// NotAdmitted ones aside (Acceptance reports those).
	NotReady []string
}

// Summarize counts a result's decisions and lists them for a status.
func (r Result) Summarize() Summary {
	var s Summary
	for _, srv := range r.Servers {
		if !srv.Ready && srv.Reason == gateproto.ReasonServerNotReady {
			s.NotReady = append(s.NotReady, srv.Message)
		}
		for _, t := range srv.Tools {
			switch t.Decision {
			case gateproto.DecisionExposed:
				s.Exposed++
			case gateproto.DecisionApprovalGated:
				s.ApprovalGated++
			default:
				s.Withheld++
			}
			d := toolgatev1alpha1.PolicyToolDecision{
				Server: srv.ID, Tool: t.Name, Decision: toolgatev1alpha1.ToolDecision(t.Decision),
				Reason:       clip.String(describe(t), toolgatev1alpha1.MaxPolicyReasonLength),
				ResultAction: toolgatev1alpha1.FindingAction(t.ResultAction),
			}
			if t.Decision == gateproto.DecisionApprovalGated {
				// Both, side by side: what the tool could do, and what the
				// gate reduces it to. Nothing is silently lowered.
				d.Level, d.EffectiveLevel = toolgatev1alpha1.Level(t.Level), toolgatev1alpha1.Level(t.EffectiveLevel)
			}
			s.Tools = append(s.Tools, d)
		}
	}
	order := map[toolgatev1alpha1.ToolDecision]int{toolgatev1alpha1.ToolWithheld: 0, toolgatev1alpha1.ToolApprovalGated: 1, toolgatev1alpha1.ToolExposed: 2}
	slices.SortStableFunc(s.Tools, func(a, b toolgatev1alpha1.PolicyToolDecision) int {
		return cmp.Or(cmp.Compare(order[a.Decision], order[b.Decision]), cmp.Compare(a.Server, b.Server), cmp.Compare(a.Tool, b.Tool))
	})
	if len(s.Tools) > toolgatev1alpha1.MaxPolicyTools {
		s.Tools = s.Tools[:toolgatev1alpha1.MaxPolicyTools]
	}
	return s
}

// Acceptance is whether one policy's spec and references can be used.
type Acceptance struct {
	Accepted bool
	// Reason is the first problem's, in the order InvalidPodSelector,
	// ServerNotFound, ServerNotAdmitted; Accepted when there is none.
	Reason string
	// Message names every problem.
	Message string
}

// Accept checks one policy against the input's servers and namespace: a
// pod selector that parses, referenced servers that exist, and servers
// that admit the policy's namespace.
func Accept(p *toolgatev1alpha1.ToolPolicy, in Input) Acceptance {
	servers := map[string]*toolgatev1alpha1.MCPServer{}
	for i := range in.Servers {
		servers[in.Servers[i].Namespace+"/"+in.Servers[i].Name] = &in.Servers[i]
	}
	var reasons, msgs []string
	problem := func(reason, msg string) {
		reasons, msgs = append(reasons, reason), append(msgs, msg)
	}
	if _, err := PodSelector(p); err != nil {
		problem(toolgatev1alpha1.ReasonInvalidPodSelector, err.Error()+"; the policy selects no pod")
	}
	var missing, refused []string
	for _, ref := range p.Spec.Servers {
		id := ref.Namespace + "/" + ref.Name
		s := servers[id]
		if s == nil {
			missing = append(missing, id)
			continue
		}
		if ok, why := Admits(s, in.Namespace, in.NamespaceLabels); !ok {
			refused = append(refused, why)
		}
	}
	slices.Sort(missing)
	slices.Sort(refused)
	if len(missing) > 0 {
		problem(toolgatev1alpha1.ReasonServerNotFound, "MCPServer not found: "+strings.Join(missing, ", "))
	}
	for _, why := range refused {
		problem(toolgatev1alpha1.ReasonServerNotAdmitted, why)
	}
	if len(reasons) == 0 {
		return Acceptance{Accepted: true, Reason: toolgatev1alpha1.ReasonAccepted,
			Message: fmt.Sprintf("the pod selector is valid and the %d referenced servers admit namespace %s", len(p.Spec.Servers), in.Namespace)}
	}
	return Acceptance{Reason: reasons[0], Message: clip.String(strings.Join(msgs, "; "), toolgatev1alpha1.MaxConditionMessageLength)}
}

// Config turns a result into the configuration of one pod's gate. The
// upstreams are by server ID; a server that is ready but has no upstream
// there is made not ready, so that nothing is exposed that the gate could
// not reach as the operator meant. The configuration passes Validate: the
// bounds of the protocol are kept by leaving out what does not fit, which
// the gate withholds (a server or a tool it does not know is withheld).
func (r Result) Config(namespace, pod string, upstreams map[string]*gateproto.Upstream) *gateproto.Config {
	c := &gateproto.Config{
		Version: gateproto.Version, Namespace: namespace, Pod: pod, Mode: r.Mode,
		ApprovalTimeout: gateproto.Duration{Duration: r.ApprovalTimeout},
	}
	c.Ceiling, c.ApprovalLevel = string(r.Ceiling), string(r.ApprovalLevel)
	c.ArgumentRules, c.ArgumentFloorsOff = slices.Clone(r.ArgumentRules), r.ArgumentFloorsOff
	if len(c.ArgumentRules) == 0 {
		c.ArgumentRules = nil
	}
	c.Policies = slices.Clone(r.Policies)
	if len(c.Policies) > gateproto.MaxPolicies {
		c.Policies = c.Policies[:gateproto.MaxPolicies]
	}
	for _, srv := range r.Servers {
		if len(c.Servers) == gateproto.MaxServers {
			break
		}
		out := gateproto.Server{ID: srv.ID, Ready: srv.Ready, Reason: srv.Reason, Message: srv.Message, Tools: slices.Clone(srv.Tools),
			MessageAction: srv.MessageAction}
		if srv.Ready {
			if in := srv.Instructions; in != nil {
				cp := *in
				out.Instructions = &cp
			}
			if u := upstreams[srv.ID]; u != nil {
				cp := *u
				cp.Headers = maps.Clone(u.Headers)
				out.Upstream = &cp
			} else {
				out = notReady(out, fmt.Sprintf("MCPServer %s: no upstream was resolved", srv.ID))
			}
		}
		if len(out.Tools) > gateproto.MaxToolsPerServer {
			out.Tools = out.Tools[:gateproto.MaxToolsPerServer]
		}
		c.Servers = append(c.Servers, out)
	}
	c.Revision = c.ComputeRevision()
	return c
}

// notReady withholds every tool of a server for a reason found after
// evaluation.
func notReady(s gateproto.Server, msg string) gateproto.Server {
	s.Ready, s.Reason, s.Message, s.Upstream, s.Instructions = false, gateproto.ReasonServerNotReady, clip.String(msg, gateproto.MaxMessageLength), nil, nil
	tools := make([]gateproto.Tool, len(s.Tools))
	for i, t := range s.Tools {
		tools[i] = gateproto.Tool{Name: t.Name, Pin: t.Pin, Level: t.Level, Decision: gateproto.DecisionWithheld, Reason: s.Reason, Message: s.Message,
			ResultAction: t.ResultAction}
	}
	slices.SortFunc(tools, func(a, b gateproto.Tool) int { return cmp.Compare(a.Name, b.Name) })
	s.Tools = tools
	return s
}
