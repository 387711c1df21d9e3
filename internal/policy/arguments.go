package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/argrule"
	"github.com/toolgate/toolgate/pkg/clip"
)

// ArgumentRule is one argument rule of one policy, with why it cannot be
// used at all, if it cannot. The offline CLI judges with it as the
// operator does.
type ArgumentRule struct {
	Policy string
	Spec   toolgatev1alpha1.ArgumentRule
	// servers are the servers the rule's policy references: a rule speaks
	// only of them, as the policy does.
	servers map[string]bool
	// Problem is why the rule cannot be used at all (it does not compile,
	// or costs more than the budget), nil when it can.
	Problem *argrule.Problem
}

// Name is how the configuration, the audit line and held calls name the
// rule: "policy/rule", unique among the policies of one namespace.
func (r ArgumentRule) Name() string { return r.Policy + "/" + r.Spec.Name }

// Applies reports whether the rule names the tool, on this server or on
// any server its policy references. A policy speaks of its own servers
// only: a rule naming a tool without a server does not reach the
// same-named tool of a server another policy brings, which its status
// could not check the rule against.
func (r ArgumentRule) Applies(server, tool string) bool {
	if !r.servers[server] {
		return false
	}
	for _, t := range r.Spec.Tools {
		if t.Name == tool && (t.Server == "" || t.Server == server) {
			return true
		}
	}
	return false
}

// RuleProblem is why one argument rule cannot be evaluated, for one tool
// or (Server and Tool empty) at all.
type RuleProblem struct {
	Policy, Rule, Server, Tool string
	Kind                       string
	Message                    string
}

// ArgumentRulesOf gathers the policies' argument rules, each compiled once
// (memoised by expression) so that a rule that cannot be used is known
// before any tool is decided.
func ArgumentRulesOf(policies []toolgatev1alpha1.ToolPolicy) []ArgumentRule {
	var out []ArgumentRule
	for i := range policies {
		p := &policies[i]
		servers := make(map[string]bool, len(p.Spec.Servers))
		for _, ref := range p.Spec.Servers {
			servers[ref.Namespace+"/"+ref.Name] = true
		}
		for _, spec := range p.Spec.ArgumentRules {
			r := ArgumentRule{Policy: p.Name, Spec: spec, servers: servers}
			if pr := checks.compile(spec.Expression); pr != nil {
				r.Problem = pr
			}
			out = append(out, r)
		}
	}
	return out
}

// GateRules is the rules as the configuration carries them.
func GateRules(rules []ArgumentRule) []gateproto.ArgumentRule {
	out := make([]gateproto.ArgumentRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, gateproto.ArgumentRule{
			Name: r.Name(), Expression: r.Spec.Expression, Action: gateproto.RuleAction(r.Spec.Action),
			Level: string(r.Spec.Level), Message: r.Spec.Message,
		})
	}
	return out
}

// argumentsOf sets what argument rules and floors see of a tool the agents
// can call (exposed, approval-gated, or forwarded in Audit): its pinned
// risk, and the rules that apply to it, each with the problem that keeps
// it from being evaluated for the tool's pinned inputSchema, if any. Every
// problem is also recorded in the result, for the policies' status.
func (e evaluator) argumentsOf(t *gateproto.Tool, server string, pins []*toolgatev1alpha1.ToolPin) {
	if len(pins) != 1 || (t.Decision == gateproto.DecisionWithheld && !t.AuditForwardable) {
		return
	}
	pin := pins[0]
	if r := pin.Status.Risk; r != nil {
		t.Category, t.BlastRadius, t.Reversibility = string(r.Category), string(r.BlastRadius), string(r.Reversibility)
	}
	var schema []byte
	var schemaErr error
	for _, r := range e.argRules {
		if !r.Applies(server, t.Name) {
			continue
		}
		ref := gateproto.ToolRule{Rule: r.Name()}
		switch {
		case r.Problem != nil:
			ref.Problem = r.Problem.Message
		default:
			if schema == nil && schemaErr == nil {
				schema, schemaErr = pinnedInputSchema(pin)
			}
			if schemaErr != nil {
				ref.Problem = schemaErr.Error()
				e.res.RuleProblems = append(e.res.RuleProblems, RuleProblem{Policy: r.Policy, Rule: r.Spec.Name, Server: server, Tool: t.Name, Kind: "Schema", Message: ref.Problem})
				break
			}
			if ps := checks.check(r.Spec.Expression, t.Fingerprint, schema); len(ps) > 0 {
				ref.Problem = string(ps[0].Kind) + ": " + ps[0].Message
				for _, p := range ps {
					e.res.RuleProblems = append(e.res.RuleProblems, RuleProblem{Policy: r.Policy, Rule: r.Spec.Name, Server: server, Tool: t.Name, Kind: string(p.Kind), Message: p.Message})
				}
			}
		}
		ref.Problem = clip.String(ref.Problem, gateproto.MaxMessageLength)
		t.Rules = append(t.Rules, ref)
	}
}

// pinnedInputSchema is the inputSchema of the definition a pin trusts, as
// the pin keeps it (canonical JSON); nil for a definition without one.
func pinnedInputSchema(pin *toolgatev1alpha1.ToolPin) ([]byte, error) {
	p := pin.Status.Pinned
	if p == nil || p.Definition == "" {
		return nil, errors.New("the pin keeps no definition to check the rule against")
	}
	var def struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal([]byte(p.Definition), &def); err != nil {
		return nil, fmt.Errorf("the pinned definition cannot be read: %w", err)
	}
	if def.InputSchema == nil {
		return []byte{}, nil
	}
	return def.InputSchema, nil
}

// ruleChecks memoises what CEL says of an expression, alone (argrule's
// own cache of compiled programs) and against a pinned schema: compiling
// costs far more than a lookup, and every pod's configuration and every
// policy's status evaluate the same rules against the same pins. A
// definition is named by its fingerprint, so a changed definition is
// checked afresh.
type ruleChecks struct {
	programs *argrule.Cache
	mu       sync.Mutex
	checked  map[string][]argrule.Problem
}

// maxMemo bounds each memo; past it, the memo starts again.
const maxMemo = 4096

var checks = &ruleChecks{programs: argrule.NewCache(maxMemo), checked: map[string][]argrule.Problem{}}

// compile is why an expression cannot be used as a rule at all, nil when
// it can.
func (c *ruleChecks) compile(expression string) *argrule.Problem {
	_, err := c.programs.Compile(expression)
	if err == nil {
		return nil
	}
	var pr argrule.Problem
	if !errors.As(err, &pr) {
		pr = argrule.Problem{Kind: argrule.Syntax, Message: err.Error()}
	}
	return &pr
}

func (c *ruleChecks) check(expression, fingerprint string, schema []byte) []argrule.Problem {
	key := fingerprint + "\x00" + expression
	c.mu.Lock()
	ps, ok := c.checked[key]
	c.mu.Unlock()
	if ok {
		return ps
	}
	ps = argrule.Check(expression, schema)
	c.mu.Lock()
	if len(c.checked) >= maxMemo {
		clear(c.checked)
	}
	c.checked[key] = ps
	c.mu.Unlock()
	return ps
}
