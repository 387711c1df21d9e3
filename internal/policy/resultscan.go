package policy

import (
	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// findingRank orders the actions from the most permissive to the
// strictest: Record, Redact, Hold, Withhold. Hold is below Withhold
// because a person may still release what is held, while a withheld
// answer never reaches the agent. Anything unknown ranks as Withhold, so
// nothing unrecognised is ever treated as permissive.
func findingRank(a gateproto.FindingAction) int {
	switch a {
	case gateproto.FindingRecord:
		return 0
	case gateproto.FindingRedact:
		return 1
	case gateproto.FindingHold:
		return 2
	}
	return 3
}

// Stricter returns the stricter of two actions (Record < Redact < Hold <
// Withhold). When several policies select a pod, the strictest action
// any of them resolves applies.
func Stricter(a, b gateproto.FindingAction) gateproto.FindingAction {
	if findingRank(b) > findingRank(a) {
		return b
	}
	return a
}

// Reach is what the agents of one configuration can call: the tools
// exposed or approval-gated on any of its servers (and, in Audit mode, the
// withheld tools the gate forwards). It decides the default actions: text
// a server returns steers the model's next call, so the danger of a
// finding is what the agents can reach, not what the tool that returned
// it does.
type Reach struct {
	// Dangerous is true when some reachable tool is L4 or above.
	Dangerous bool
	// Highest is, by server ID, the highest level of the server's
	// reachable tools; a server with none reachable is absent.
	Highest map[string]toolgatev1alpha1.Level
}

// dangerousLevel is the level from which a reachable tool makes every
// finding worth redacting by default: L4 and L5 are the tools that
// delete, pay, deploy or reach across the cluster.
const dangerousLevel = toolgatev1alpha1.LevelHigh

// ReachOf computes a result's reach from its decisions.
func ReachOf(r Result) Reach {
	reach := Reach{Highest: map[string]toolgatev1alpha1.Level{}}
	for _, srv := range r.Servers {
		for _, t := range srv.Tools {
			if !reachable(r.Mode, t) {
				continue
			}
			l := toolgatev1alpha1.Level(t.Level)
			if l.Compare(dangerousLevel) >= 0 {
				reach.Dangerous = true
			}
			if h, ok := reach.Highest[srv.ID]; !ok || l.Compare(h) > 0 {
				reach.Highest[srv.ID] = l
			}
		}
	}
	return reach
}

// reachable reports whether the agents can call the tool: exposed or
// approval-gated (a gated call still runs once a person approves it), or
// forwarded by the gate in Audit mode.
func reachable(mode gateproto.Mode, t gateproto.Tool) bool {
	switch t.Decision {
	case gateproto.DecisionExposed, gateproto.DecisionApprovalGated:
		return true
	}
	return mode == gateproto.ModeAudit && t.AuditForwardable
}

// DefaultResultAction is the action on a finding in a tool's results when
// no policy chooses one: Record when the tool is at most L2 and nothing
// the agents can reach is L4 or above; Redact otherwise. A tool whose
// level is unknown ranks as L5 (Level.Rank), and is redacted.
func DefaultResultAction(tool toolgatev1alpha1.Level, reach Reach) gateproto.FindingAction {
	if !reach.Dangerous && tool.Compare(toolgatev1alpha1.LevelLow) <= 0 {
		return gateproto.FindingRecord
	}
	return gateproto.FindingRedact
}

// DefaultMessageAction is the action on a finding in what a server says
// outside one tool's result (log lines, sampling and elicitation
// requests, prompts, resources) when no policy chooses one: Record when
// nothing the agents can reach is L4 or above and the server's own
// reachable tools are below L3; Redact otherwise.
func DefaultMessageAction(server string, reach Reach) gateproto.FindingAction {
	highest, ok := reach.Highest[server]
	if !reach.Dangerous && (!ok || highest.Compare(toolgatev1alpha1.LevelModerate) < 0) {
		return gateproto.FindingRecord
	}
	return gateproto.FindingRedact
}

// PolicyResultAction is what one policy says of findings in the results
// of tool on server, given the default for it: the most specific of its
// overrides (server and tool, then tool, then server), else its action,
// else the default. A policy in Audit mode records only: Audit changes no
// answer an agent gets, as it withholds nothing a policy could expose.
// Two overrides equally specific: the stricter.
func PolicyResultAction(p *toolgatev1alpha1.ToolPolicy, server, tool string, def gateproto.FindingAction) gateproto.FindingAction {
	if isAudit(p) {
		return gateproto.FindingRecord
	}
	rs := p.Spec.ResultScan
	if rs == nil {
		return def
	}
	var both, toolOnly, serverOnly gateproto.FindingAction
	for _, o := range rs.Overrides {
		a := gateproto.FindingAction(o.Action)
		switch {
		case o.Server == server && o.Tool == tool:
			both = stricterSet(both, a)
		case o.Server == "" && o.Tool == tool:
			toolOnly = stricterSet(toolOnly, a)
		case o.Server == server && o.Tool == "":
			serverOnly = stricterSet(serverOnly, a)
		}
	}
	return first(both, toolOnly, serverOnly, gateproto.FindingAction(rs.Action), def)
}

// PolicyMessageAction is what one policy says of findings in what server
// says outside one tool's result: its override for the server alone, else
// its action, else the default. Overrides that name a tool speak of that
// tool's results only. A policy in Audit mode records only.
func PolicyMessageAction(p *toolgatev1alpha1.ToolPolicy, server string, def gateproto.FindingAction) gateproto.FindingAction {
	if isAudit(p) {
		return gateproto.FindingRecord
	}
	rs := p.Spec.ResultScan
	if rs == nil {
		return def
	}
	var serverOnly gateproto.FindingAction
	for _, o := range rs.Overrides {
		if o.Server == server && o.Tool == "" {
			serverOnly = stricterSet(serverOnly, gateproto.FindingAction(o.Action))
		}
	}
	return first(serverOnly, gateproto.FindingAction(rs.Action), def)
}

// MessageActionFor is the action a configuration carries for a server's
// messages: Hold has no pin to wait on there, so it is Withhold, said
// plainly rather than left to the gate.
func MessageActionFor(a gateproto.FindingAction) gateproto.FindingAction {
	if a == gateproto.FindingHold {
		return gateproto.FindingWithhold
	}
	return a
}

func isAudit(p *toolgatev1alpha1.ToolPolicy) bool {
	return p.Spec.Mode == toolgatev1alpha1.PolicyAudit
}

// stricterSet is Stricter where the empty action means none set yet.
func stricterSet(cur, a gateproto.FindingAction) gateproto.FindingAction {
	if cur == "" {
		return a
	}
	return Stricter(cur, a)
}

func first(as ...gateproto.FindingAction) gateproto.FindingAction {
	for _, a := range as {
		if a != "" {
			return a
		}
	}
	return ""
}

// resolveActions fills, for every server and tool of the result, the
// strictest action the policies resolve: each policy on its own (its
// overrides, its action, the default by reach), then the strictest of
// them. With no policy there is nothing to fill: such a result exposes
// no server.
func resolveActions(res *Result, policies []toolgatev1alpha1.ToolPolicy) {
	if len(policies) == 0 {
		return
	}
	reach := ReachOf(*res)
	for i := range res.Servers {
		srv := &res.Servers[i]
		defMsg := DefaultMessageAction(srv.ID, reach)
		var msg gateproto.FindingAction
		for j := range policies {
			msg = stricterSet(msg, PolicyMessageAction(&policies[j], srv.ID, defMsg))
		}
		srv.MessageAction = MessageActionFor(msg)
		for k := range srv.Tools {
			t := &srv.Tools[k]
			def := DefaultResultAction(toolgatev1alpha1.Level(t.Level), reach)
			var a gateproto.FindingAction
			for j := range policies {
				a = stricterSet(a, PolicyResultAction(&policies[j], srv.ID, t.Name, def))
			}
			t.ResultAction = a
		}
	}
}
