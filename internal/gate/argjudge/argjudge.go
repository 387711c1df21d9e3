package argjudge

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/argfloor"
	"github.com/toolgate/toolgate/pkg/argrule"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/namefold"
)

// Rule is one argument rule of a configuration, compiled.
type Rule struct {
	Spec    *gateproto.ArgumentRule
	Program *argrule.Program
	// Err is why the rule did not compile: the calls of every tool that
	// names it are refused.
	Err error
}

// Rules are a configuration's argument rules, by name.
type Rules map[string]*Rule

// Compile compiles a configuration's argument rules through cache (nil
// compiles each afresh). A rule that does not compile is kept with its
// error.
func Compile(rules []gateproto.ArgumentRule, cache *argrule.Cache) Rules {
	if len(rules) == 0 {
		return nil
	}
	out := make(Rules, len(rules))
	for i := range rules {
		r := &rules[i]
		var p *argrule.Program
		var err error
		if cache != nil {
			p, err = cache.Compile(r.Expression)
		} else {
			p, err = argrule.Compile(r.Expression)
		}
		out[r.Name] = &Rule{Spec: r, Program: p, Err: err}
	}
	return out
}

// Call is one call as Judge sees it.
type Call struct {
	// Namespace, Pod and Agent are the configuration's: who calls.
	Namespace, Pod string
	Agent          *gateproto.Agent
	// Server is the server's ID; Tool the configuration's entry for the
	// tool called.
	Server string
	Tool   *gateproto.Tool
	// Arguments are the call's raw arguments, already checked against the
	// approved inputSchema.
	Arguments []byte
	// Floors is the approved inputSchema's floor plan; nil when the floors
	// are off.
	Floors *argfloor.Plan
}

// Match is one rule that matched a call, or could not be evaluated.
type Match struct {
	Rule string
	// Outcome is "matched", "failed" (the expression could not be
	// evaluated on these arguments and counts as true) or "unevaluable"
	// (the rule cannot be evaluated for this tool at all).
	Outcome string
	// Err says why, for failed and unevaluable.
	Err string
}

// Result is a call's judgement, with what it was made of.
type Result struct {
	decide.ArgumentJudgement
	Matches []Match
	Floors  []argfloor.Floor
}

// Judge applies the rules that name the tool, in the order the tool names
// them, and the floors, to one call.
func Judge(rules Rules, c Call) Result {
	t := c.Tool
	res := Result{ArgumentJudgement: decide.ArgumentJudgement{Judged: true, Level: t.Level}}
	j := &res.ArgumentJudgement
	raise := func(level, why, rule string) {
		if level > j.Level {
			j.Level, j.Raised, j.RaisedBy = level, why, rule
		}
	}
	if len(t.Rules) > 0 {
		call := &argrule.Call{
			Tool:  argrule.Tool{Name: t.Name, Server: c.Server, Level: t.Level, Category: t.Category, BlastRadius: t.BlastRadius, Reversibility: t.Reversibility},
			Agent: argrule.Agent{Namespace: c.Namespace, Pod: c.Pod},
		}
		if a := c.Agent; a != nil {
			call.Agent.ServiceAccount, call.Agent.Labels = a.ServiceAccount, a.Labels
		}
		args, decodeErr := argrule.DecodeArguments(c.Arguments)
		call.Arguments = args
		if decodeErr == nil {
			if rule, why := foldedRead(rules, t, c.Arguments); why != "" {
				res.Matches = append(res.Matches, Match{Rule: rule, Outcome: "unevaluable", Err: why})
				j.Unevaluable = &decide.RuleMatch{Rule: rule, Message: clip.String(why, 256)}
			}
		}
		for _, ref := range t.Rules {
			r := rules[ref.Rule]
			var why string
			switch {
			case ref.Problem != "":
				why = ref.Problem
			case r == nil: // a valid configuration names only its own rules
				why = "the configuration does not carry the rule"
			case r.Err != nil:
				why = r.Err.Error()
			case decodeErr != nil:
				why = decodeErr.Error()
			}
			if why != "" {
				res.Matches = append(res.Matches, Match{Rule: ref.Rule, Outcome: "unevaluable", Err: why})
				if j.Unevaluable == nil {
					j.Unevaluable = &decide.RuleMatch{Rule: ref.Rule, Message: clip.String(why, 256)}
				}
				continue
			}
			matched, err := r.Program.Eval(call)
			m := Match{Rule: ref.Rule, Outcome: "matched"}
			if err != nil {
				matched, m.Outcome, m.Err = true, "failed", err.Error()
			}
			if !matched {
				continue
			}
			res.Matches = append(res.Matches, m)
			rm := &decide.RuleMatch{Rule: ref.Rule, Message: r.Spec.Message}
			switch r.Spec.Action {
			case gateproto.RuleRefuse:
				if j.Refuse == nil {
					j.Refuse = rm
				}
			case gateproto.RuleHold:
				if j.Hold == nil {
					j.Hold = rm
				}
			case gateproto.RuleRaiseLevel:
				raise(r.Spec.Level, "argument rule "+ref.Rule, ref.Rule)
			}
		}
	}
	if c.Floors != nil {
		res.Floors = c.Floors.Evaluate(c.Arguments, t.Category)
		var met []string
		for _, f := range res.Floors {
			met = append(met, fmt.Sprintf("%s at %s", f.Signal, f.Path))
			raise(f.Level, "argument floor "+string(f.Signal)+" at "+f.Path, "")
		}
		if len(met) > 1 && strings.HasPrefix(j.Raised, "argument floor") {
			j.Raised = "argument floors " + strings.Join(met, ", ")
		}
	}
	j.Raised = clip.String(j.Raised, 256)
	return res
}

// foldedRead finds an argument a rule of t reads by name that the call
// spells otherwise but for case ({"Force": true} for a rule reading
// args.force): the rule reads names exactly, and would not see it, while a
// server that binds arguments case-insensitively (Go's encoding/json, and
// others) reads it as the argument the rule meant to judge. It returns the
// first rule that reads it and why the call is refused; "" when the call
// spells every argument the rules read as they do.
func foldedRead(rules Rules, t *gateproto.Tool, raw []byte) (rule, why string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", ""
	}
	var reads []string
	for _, ref := range t.Rules {
		if r := rules[ref.Rule]; r != nil && r.Program != nil {
			reads = append(reads, r.Program.Reads()...)
		}
	}
	if len(reads) == 0 {
		return "", ""
	}
	err := namefold.Check(raw, namefold.Names(reads...))
	var fe *namefold.Error
	if !errors.As(err, &fe) || !fe.Defined || fe.Path != "" {
		// Only a top-level argument the rules read by name is theirs to
		// judge; colliding names elsewhere are the schema check's.
		return "", ""
	}
	for _, ref := range t.Rules {
		if r := rules[ref.Rule]; r != nil && r.Program != nil && slices.Contains(r.Program.Reads(), fe.Other) {
			return ref.Rule, fmt.Sprintf("argument %q is %q but for case, which the rule reads and a case-insensitive server would read it as", fe.Name, fe.Other)
		}
	}
	return "", ""
}
