package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/clip"
)

// Input is everything an evaluation reads.
type Input struct {
	// Namespace is the agents' namespace, NamespaceLabels its labels: a
	// server's spec.consumers selects on them.
	Namespace       string
	NamespaceLabels map[string]string
	// Policies are the ToolPolicies taken together: those that select one
	// pod, or a single one for its own status.
	Policies []toolgatev1alpha1.ToolPolicy
	// Servers are the referenced MCPServers that exist. A reference to a
	// server not among them is to a server not found.
	Servers []toolgatev1alpha1.MCPServer
	// Pins are the ToolPins of those servers; others are ignored.
	Pins []toolgatev1alpha1.ToolPin
	// Unresolved maps a server ID ("namespace/name") to why its upstream
	// could not be resolved (a Secret or a CA missing): the server is then
	// not ready, whatever its status says.
	Unresolved map[string]string
	// Ceilings are the cluster's default ceiling and cap.
	Ceilings Ceilings
	// RequireInjection says the operator serves gates only in namespaces
	// labelled for injection (as it does unless told to serve gates run by
	// hand): a policy elsewhere is then not Ready.
	RequireInjection bool
}

// Ceilings are the cluster's settings, from the operator's flags: the
// ceiling of a policy that names none, and a cap no policy rises above.
// The zero value is DefaultMaxLevel and no cap.
type Ceilings struct {
	Default toolgatev1alpha1.Level
	Cap     toolgatev1alpha1.Level
}

// Of is the ceiling in force for one policy.
func (c Ceilings) Of(p *toolgatev1alpha1.ToolPolicy) toolgatev1alpha1.Level {
	l := cmp.Or(p.Spec.MaxLevel, c.Default, toolgatev1alpha1.DefaultMaxLevel)
	if c.Cap != "" && c.Cap.Compare(l) < 0 {
		l = c.Cap
	}
	return l
}

// Result is the decision on every tool of every referenced server, under
// the policies taken together.
type Result struct {
	// Policies are the names of the policies, sorted.
	Policies []string
	// Mode is Enforce unless every policy says Audit.
	Mode gateproto.Mode
	// Ceiling, TrustLevel and ApprovalTimeout are the combined settings.
	Ceiling         toolgatev1alpha1.Level
	TrustLevel      int32
	ApprovalTimeout time.Duration
	// Servers are the referenced servers, sorted by ID.
	Servers []Server
	// ApprovalLevel is the lowest approval.minLevel of the policies ("" for
	// none): a call its arguments raise to it or above waits for a human.
	ApprovalLevel toolgatev1alpha1.Level
	// ArgumentRules are every policy's argument rules, by policy name then
	// as written; ArgumentFloorsOff says every policy turned the built-in
	// argument floors off.
	ArgumentRules     []gateproto.ArgumentRule
	ArgumentFloorsOff bool
	// RuleProblems are why argument rules cannot be evaluated: a rule's
	// own (compile, cost) once, then per tool (its pinned inputSchema).
	RuleProblems []RuleProblem
}

// Server is the decision on one referenced server and its tools.
type Server struct {
	// ID is "namespace/name".
	ID string
	// Ready is false when none of the server's tools may be exposed;
	// Reason (NotAdmitted or ServerNotReady) and Message say why.
	Ready   bool
	Reason  gateproto.Reason
	Message string
	// Tools are exposed and gated first, then withheld, each group sorted
	// by name.
	Tools []gateproto.Tool
	// Instructions are what the probe the server is Ready by read and
	// scanned of its instructions; nil when it is not ready or its status
	// does not say (see reviewedInstructions).
	Instructions *gateproto.Instructions
	// MessageAction is the action on a finding in what the server says
	// outside one tool's result (see resolveActions).
	MessageAction gateproto.FindingAction
}

// ApprovalRule is one approval rule of one policy, named as the
// configuration names the rule that gates a tool ("minLevel L4 (policy
// p)"). The offline CLI decides with it as the operator does.
type ApprovalRule struct {
	// Name is the rule as a gated tool's ApprovalRule says it.
	Name     string
	minLevel toolgatev1alpha1.Level
	category toolgatev1alpha1.Category
	server   string // for a tool rule, "" meaning any server
	tool     string
}

// Matches reports whether the rule gates a tool of the server at the
// level and of the category.
func (r ApprovalRule) Matches(server string, level toolgatev1alpha1.Level, category toolgatev1alpha1.Category, tool string) bool {
	switch {
	case r.minLevel != "":
		return level.Compare(r.minLevel) >= 0
	case r.category != "":
		return category == r.category
	default:
		return r.tool == tool && (r.server == "" || r.server == server)
	}
}

// narrowing is what the policies' tool lists say of one server.
type narrowing struct {
	// lists are the tool lists of the policies that give one, by policy.
	lists map[string][]string
}

// allows reports whether every list names the tool, and if not, the first
// policy (by name) whose list leaves it out.
func (n narrowing) allows(tool string) (bool, string) {
	for _, p := range sortedKeys(n.lists) {
		if !slices.Contains(n.lists[p], tool) {
			return false, p
		}
	}
	return true, ""
}

// Evaluate decides every tool of every server the policies reference.
func Evaluate(in Input) Result {
	policies := slices.Clone(in.Policies)
	slices.SortFunc(policies, func(a, b toolgatev1alpha1.ToolPolicy) int { return cmp.Compare(a.Name, b.Name) })

	res := Result{Mode: gateproto.ModeEnforce, Ceiling: toolgatev1alpha1.LevelVerified, TrustLevel: 1}
	if len(policies) > 0 {
		res.Mode = gateproto.ModeAudit
		res.Ceiling, res.TrustLevel = toolgatev1alpha1.LevelCritical, 5
	}
	var rules []ApprovalRule
	refs := map[string]*narrowing{}
	res.ArgumentFloorsOff = len(policies) > 0
	for i := range policies {
		p := &policies[i]
		res.Policies = append(res.Policies, p.Name)
		if cmp.Or(p.Spec.Mode, toolgatev1alpha1.DefaultPolicyMode) != toolgatev1alpha1.PolicyAudit {
			res.Mode = gateproto.ModeEnforce
		}
		if c := in.Ceilings.Of(p); c.Compare(res.Ceiling) < 0 {
			res.Ceiling = c
		}
		res.TrustLevel = min(res.TrustLevel, cmp.Or(p.Spec.AgentTrustLevel, toolgatev1alpha1.DefaultAgentTrustLevel))
		if a := p.Spec.Approval; a != nil {
			timeout := toolgatev1alpha1.DefaultApprovalTimeout
			if a.Timeout != nil && a.Timeout.Duration > 0 {
				timeout = a.Timeout.Duration
			}
			if res.ApprovalTimeout == 0 || timeout < res.ApprovalTimeout {
				res.ApprovalTimeout = timeout
			}
			rules = append(rules, ApprovalRulesOf(p.Name, a)...)
			if a.MinLevel != "" && (res.ApprovalLevel == "" || a.MinLevel.Compare(res.ApprovalLevel) < 0) {
				res.ApprovalLevel = a.MinLevel
			}
		}
		if cmp.Or(p.Spec.ArgumentFloors, toolgatev1alpha1.DefaultArgumentFloors) != toolgatev1alpha1.ArgumentFloorsDisabled {
			res.ArgumentFloorsOff = false
		}
		for _, ref := range p.Spec.Servers {
			id := ref.Namespace + "/" + ref.Name
			n := refs[id]
			if n == nil {
				n = &narrowing{lists: map[string][]string{}}
				refs[id] = n
			}
			if len(ref.Tools) > 0 {
				n.lists[p.Name] = ref.Tools
			}
		}
	}

	servers := map[string]*toolgatev1alpha1.MCPServer{}
	for i := range in.Servers {
		s := &in.Servers[i]
		servers[s.Namespace+"/"+s.Name] = s
	}
	pins := map[string][]*toolgatev1alpha1.ToolPin{}
	for i := range in.Pins {
		p := &in.Pins[i]
		id := p.Namespace + "/" + p.Spec.ServerRef.Name
		if refs[id] != nil {
			pins[id] = append(pins[id], p)
		}
	}

	argRules := ArgumentRulesOf(policies)
	res.ArgumentRules = GateRules(argRules)
	for _, r := range argRules {
		if r.Problem != nil {
			res.RuleProblems = append(res.RuleProblems, RuleProblem{Policy: r.Policy, Rule: r.Spec.Name, Kind: string(r.Problem.Kind), Message: r.Problem.Message})
		}
	}
	e := evaluator{res: &res, rules: rules, argRules: argRules, cap: in.Ceilings.Cap}
	for _, id := range sortedKeys(refs) {
		srv := e.server(id, servers[id], in, *refs[id], pins[id])
		res.Servers = append(res.Servers, srv)
	}
	// The default actions depend on everything the agents can reach, so
	// they are resolved once every tool is decided.
	resolveActions(&res, policies)
	return res
}

// ApprovalRulesOf is a policy's approval rules, in evaluation order:
// minLevel, then categories, then tools, as written.
func ApprovalRulesOf(policy string, a *toolgatev1alpha1.CallApprovalRules) []ApprovalRule {
	var out []ApprovalRule
	if a.MinLevel != "" {
		out = append(out, ApprovalRule{Name: fmt.Sprintf("minLevel %s (policy %s)", a.MinLevel, policy), minLevel: a.MinLevel})
	}
	for _, c := range a.Categories {
		out = append(out, ApprovalRule{Name: fmt.Sprintf("category %s (policy %s)", c, policy), category: c})
	}
	for _, t := range a.Tools {
		what := t.Name
		if t.Server != "" {
			what = t.Server + " " + t.Name
		}
		out = append(out, ApprovalRule{Name: fmt.Sprintf("tool %s (policy %s)", what, policy), server: t.Server, tool: t.Name})
	}
	return out
}

type evaluator struct {
	res      *Result
	rules    []ApprovalRule
	argRules []ArgumentRule
	// cap is the operator's cluster cap ("" for none): no policy can raise
	// a ceiling above it, so Audit never forwards a tool above it either.
	cap toolgatev1alpha1.Level
}

// maxAgentTrustLevel is the highest agentTrustLevel a policy may state
// (the CRD's bound): a tool needing more is beyond every policy.
const maxAgentTrustLevel = 5

// server decides one referenced server and every tool it has a pin for or
// that a tool list names.
func (e evaluator) server(id string, s *toolgatev1alpha1.MCPServer, in Input, narrow narrowing, pins []*toolgatev1alpha1.ToolPin) Server {
	out := Server{ID: id, Ready: true}
	if s == nil {
		out.Ready, out.Reason, out.Message = false, gateproto.ReasonServerNotReady, fmt.Sprintf("MCPServer %s not found", id)
	} else if ok, why := Admits(s, in.Namespace, in.NamespaceLabels); !ok {
		out.Ready, out.Reason, out.Message = false, gateproto.ReasonNotAdmitted, why
	} else if ok, why := serverReady(s); !ok {
		out.Ready, out.Reason, out.Message = false, gateproto.ReasonServerNotReady, why
	} else if why, unresolved := in.Unresolved[id]; unresolved {
		out.Ready, out.Reason, out.Message = false, gateproto.ReasonServerNotReady, fmt.Sprintf("MCPServer %s cannot be reached: %s", id, why)
	}
	out.Message = clip.String(out.Message, gateproto.MaxMessageLength)
	if out.Ready {
		out.Instructions = reviewedInstructions(s)
	}

	byName := map[string][]*toolgatev1alpha1.ToolPin{}
	for _, p := range pins {
		byName[p.Spec.ToolName] = append(byName[p.Spec.ToolName], p)
	}
	// A listed tool that no pin holds is named too, so that a policy's
	// author sees why a tool they asked for is missing.
	for _, list := range narrow.lists {
		for _, name := range list {
			if _, ok := byName[name]; !ok {
				if allowed, _ := narrow.allows(name); allowed {
					byName[name] = nil
				}
			}
		}
	}
	var findingsOnServer bool
	if s != nil && s.Status.Risk != nil {
		findingsOnServer = len(s.Status.Risk.Findings) > 0
	}
	for _, name := range sortedKeys(byName) {
		t := e.tool(out, name, byName[name], narrow, findingsOnServer)
		e.argumentsOf(&t, out.ID, byName[name])
		out.Tools = append(out.Tools, t)
	}
	slices.SortStableFunc(out.Tools, func(a, b gateproto.Tool) int {
		return cmp.Or(cmp.Compare(withheldRank(a.Decision), withheldRank(b.Decision)), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func withheldRank(d gateproto.Decision) int {
	if d == gateproto.DecisionWithheld {
		return 1
	}
	return 0
}

// trustedAt returns the fingerprint a pin is Trusted at, or "" when it is
// not Trusted with the pinned definition observed now.
func trustedAt(p *toolgatev1alpha1.ToolPin) string {
	st := p.Status
	if st.State != toolgatev1alpha1.PinTrusted || st.Pinned == nil || st.Pinned.Fingerprint == "" || st.Pinned.Fingerprint != st.ObservedFingerprint {
		return ""
	}
	return string(st.Pinned.Fingerprint)
}

// tool decides one tool. The checks run in the order of gateproto's
// reasons; the first that applies is the one given.
func (e evaluator) tool(srv Server, name string, pins []*toolgatev1alpha1.ToolPin, narrow narrowing, findingsOnServer bool) gateproto.Tool {
	t := gateproto.Tool{Name: name, Decision: gateproto.DecisionWithheld}
	var pin *toolgatev1alpha1.ToolPin
	if len(pins) == 1 {
		pin = pins[0]
	}
	if pin != nil {
		t.Pin = pin.Name
		t.Level = string(verdict.LevelOf(pin.Status.Risk))
	}
	withhold := func(r gateproto.Reason, msg string) gateproto.Tool {
		t.Reason, t.Message = r, clip.String(msg, gateproto.MaxMessageLength)
		if e.res.Mode == gateproto.ModeAudit && srv.Ready && policyChoice(r) {
			t.AuditForwardable = e.withinReach(pin, len(pins)) && t.Fingerprint != ""
		}
		return t
	}
	if !srv.Ready {
		return withhold(srv.Reason, srv.Message)
	}
	if pin != nil {
		// Carried on withheld tools too: in Audit the gate forwards a
		// forwardable tool only at this fingerprint.
		t.Fingerprint = trustedAt(pin)
	}
	if ok, policy := narrow.allows(name); !ok {
		return withhold(gateproto.ReasonNotListed, fmt.Sprintf("not in policy %s's tool list for %s", policy, srv.ID))
	}
	switch {
	case len(pins) > 1:
		return withhold(gateproto.ReasonAwaitingReview, fmt.Sprintf("%d pins claim the tool; none is trusted until only one does", len(pins)))
	case pin == nil:
		return withhold(gateproto.ReasonAwaitingReview, "no pin: the server has not offered the tool, or it has not been observed yet")
	}
	st := pin.Status
	switch st.State {
	case toolgatev1alpha1.PinRemoved:
		return withhold(gateproto.ReasonRemoved, "the server no longer offers the tool")
	case toolgatev1alpha1.PinRejected:
		return withhold(gateproto.ReasonRejected, "a human rejected the definition "+st.ObservedFingerprint.Short())
	case "":
		return withhold(gateproto.ReasonAwaitingReview, "the tool has not been judged yet")
	case toolgatev1alpha1.PinAwaitingReview:
		msg := "awaiting review"
		if st.Change != nil {
			msg = fmt.Sprintf("the definition changed from %s to %s; awaiting review", st.Change.From.Short(), st.Change.To.Short())
		} else if st.Pinned == nil {
			msg = "awaiting its first review"
		}
		return withhold(gateproto.ReasonAwaitingReview, msg)
	}
	if t.Fingerprint == "" {
		return withhold(gateproto.ReasonAwaitingReview, "the observed definition is not the pinned one; awaiting review")
	}
	risk := st.Risk
	if risk == nil || risk.Level == "" {
		return withhold(gateproto.ReasonAwaitingReview, "the tool has not been judged yet")
	}
	if len(risk.Findings) > 0 && st.Pinned.Source != toolgatev1alpha1.PinnedByApproval {
		f := risk.Findings[0]
		return withhold(gateproto.ReasonPoisoning, fmt.Sprintf("poisoning scan: %s in %s; a definition with findings is exposed only once a human approves it", f.Signal, f.Field))
	}
	level := risk.Level
	if level.Compare(e.res.Ceiling) > 0 {
		msg := fmt.Sprintf("level %s above ceiling %s", level, e.res.Ceiling)
		if e.aboveCap(level) {
			msg += fmt.Sprintf(", and above the cluster's cap %s", e.cap)
		}
		return withhold(gateproto.ReasonAboveCeiling, msg)
	}
	if risk.MinTrustLevel > e.res.TrustLevel {
		return withhold(gateproto.ReasonTrustLevel, fmt.Sprintf("needs agent trust %d, the agents have %d", risk.MinTrustLevel, e.res.TrustLevel))
	}

	t.Decision = gateproto.DecisionExposed
	for _, r := range e.rules {
		if r.Matches(srv.ID, level, risk.Category, name) {
			t.Decision, t.ApprovalRule = gateproto.DecisionApprovalGated, r.Name
			t.EffectiveLevel = string(level)
			if len(risk.Findings) == 0 && !findingsOnServer && level.Rank() > 0 {
				t.EffectiveLevel = fmt.Sprintf("L%d", level.Rank()-1)
			}
			break
		}
	}
	return t
}

// policyChoice reports whether a reason is one a ToolPolicy chose, and
// another policy could have chosen otherwise: its tool list, its ceiling,
// the agents' trust. Only those may Audit lift. PoisoningFinding is not
// among them: no policy exposes a definition with findings no human has
// approved, so Audit does not either.
func policyChoice(r gateproto.Reason) bool {
	switch r {
	case gateproto.ReasonNotListed, gateproto.ReasonAboveCeiling, gateproto.ReasonTrustLevel:
		return true
	}
	return false
}

// withinReach reports whether some ToolPolicy could expose the tool: its
// one pin is Trusted at the definition observed now, judged, without
// poisoning findings a human has not approved, at most the cluster's cap,
// and with a minTrustLevel an agent can be given. It holds the checks of
// tool that no policy setting changes, so that Audit, a namespace's own
// word, never forwards more than a namespace could have chosen to expose.
// NotListed is decided before the pin is looked at, which is why every
// check is made again here rather than read from the reason.
func (e evaluator) withinReach(pin *toolgatev1alpha1.ToolPin, claims int) bool {
	if claims != 1 || pin == nil || trustedAt(pin) == "" {
		return false
	}
	st := pin.Status
	risk := st.Risk
	switch {
	case risk == nil || risk.Level == "":
		return false
	case len(risk.Findings) > 0 && st.Pinned.Source != toolgatev1alpha1.PinnedByApproval:
		return false
	case e.aboveCap(risk.Level):
		return false
	case risk.MinTrustLevel > maxAgentTrustLevel:
		return false
	}
	return true
}

// aboveCap reports whether a level is above the cluster's cap, which no
// policy's ceiling rises above.
func (e evaluator) aboveCap(l toolgatev1alpha1.Level) bool {
	return e.cap != "" && l.Compare(e.cap) > 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describe is a tool's decision as one line of a policy's status.
func describe(t gateproto.Tool) string {
	switch t.Decision {
	case gateproto.DecisionApprovalGated:
		return fmt.Sprintf("level %s, effective %s: each call waits for a human (%s)", t.Level, t.EffectiveLevel, t.ApprovalRule)
	case gateproto.DecisionExposed:
		return "level " + t.Level
	}
	msg := string(t.Reason) + ": " + t.Message
	if t.AuditForwardable {
		msg = "audit, forwarded: " + msg
	}
	return strings.TrimSpace(msg)
}

// reviewedInstructions are a ready server's instructions as its last probe
// read them: the fingerprint status records of the instructions the probe
// scanned, or None when that probe read none. The server is Ready at its
// current generation, so the probe that wrote serverInfo is the one that
// made it Ready (a failed probe makes it not ready and writes none). A
// status without serverInfo says nothing, and nothing is claimed.
//
// Instructions the scan found poisoning in are reviewed and refused, not
// reviewed and passed: the configuration claims nothing for them, so the
// gate takes them out of every answer an agent gets. (Their findings also
// floor every tool of the server to L5 and forfeit the approval gate's
// credit, see the package's doc; the text would still reach the model, and
// could steer it toward other servers' tools.)
func reviewedInstructions(s *toolgatev1alpha1.MCPServer) *gateproto.Instructions {
	info := s.Status.ServerInfo
	if info == nil {
		return nil
	}
	if info.InstructionsFingerprint == "" {
		return &gateproto.Instructions{None: true}
	}
	if s.Status.Risk != nil && len(s.Status.Risk.Findings) > 0 {
		return nil
	}
	return &gateproto.Instructions{Fingerprint: string(info.InstructionsFingerprint)}
}
