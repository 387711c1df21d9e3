package policy

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/clip"
)

// Status evaluates one policy on its own and returns its status: Accepted,
// Ready and GateBypassable conditions (without transition times, which the caller keeps
// or stamps), observedGeneration, the counts and the bounded list of
// decisions. A policy whose pod selector is invalid selects no pod, so it
// exposes nothing and lists no tool.
func Status(p *toolgatev1alpha1.ToolPolicy, in Input) toolgatev1alpha1.ToolPolicyStatus {
	in.Policies = []toolgatev1alpha1.ToolPolicy{*p}
	acc := Accept(p, in)
	st := toolgatev1alpha1.ToolPolicyStatus{ObservedGeneration: p.Generation, Ceiling: in.Ceilings.Of(p)}
	accepted := metav1.Condition{Type: toolgatev1alpha1.ConditionAccepted, Status: metav1.ConditionTrue, Reason: acc.Reason, Message: acc.Message, ObservedGeneration: p.Generation}
	if !acc.Accepted {
		accepted.Status = metav1.ConditionFalse
	}

	var sum Summary
	var problems []RuleProblem
	if _, err := PodSelector(p); err == nil {
		res := Evaluate(in)
		sum, problems = res.Summarize(), res.RuleProblems
	} else {
		// A policy that selects no pod still says what is wrong with its
		// rules.
		for _, r := range ArgumentRulesOf(in.Policies) {
			if r.Problem != nil {
				problems = append(problems, RuleProblem{Policy: r.Policy, Rule: r.Spec.Name, Kind: string(r.Problem.Kind), Message: r.Problem.Message})
			}
		}
	}
	rules := rulesCondition(p, problems)
	for _, pr := range problems {
		if len(st.ArgumentRules) == toolgatev1alpha1.MaxArgumentRuleProblems {
			break
		}
		st.ArgumentRules = append(st.ArgumentRules, toolgatev1alpha1.ArgumentRuleProblem{
			Rule: pr.Rule, Server: pr.Server, Tool: pr.Tool, Kind: clip.String(pr.Kind, 32), Message: clip.String(pr.Message, 512),
		})
	}
	st.Exposed, st.Withheld, st.ApprovalGated, st.Tools = sum.Exposed, sum.Withheld, sum.ApprovalGated, sum.Tools

	ready := metav1.Condition{Type: toolgatev1alpha1.ConditionReady, ObservedGeneration: p.Generation}
	switch {
	case !acc.Accepted:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, toolgatev1alpha1.ReasonNotAccepted, "the policy is not accepted: "+acc.Message
	case in.RequireInjection && in.NamespaceLabels[toolgatev1alpha1.LabelInjection] != toolgatev1alpha1.InjectionEnabled:
		ready.Status, ready.Reason = metav1.ConditionFalse, toolgatev1alpha1.ReasonInjectionNotEnabled
		ready.Message = fmt.Sprintf("namespace %s is not labelled %s=%s: no pod here gets a gate, so this policy enforces nothing until it is",
			p.Namespace, toolgatev1alpha1.LabelInjection, toolgatev1alpha1.InjectionEnabled)
	case len(sum.NotReady) > 0:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, toolgatev1alpha1.ReasonServersNotReady,
			strings.Join(sum.NotReady, "; ")+"; their tools are withheld until they are ready"
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, toolgatev1alpha1.ReasonEvaluated
		ready.Message = fmt.Sprintf("%d tools exposed, %d approval-gated, %d withheld", sum.Exposed, sum.ApprovalGated, sum.Withheld)
	}
	if p.Spec.Mode == toolgatev1alpha1.PolicyAudit {
		ready.Message += "; Audit mode: findings in what servers answer are recorded only, never redacted, withheld or held"
	}
	accepted.Message = clip.String(accepted.Message, toolgatev1alpha1.MaxConditionMessageLength)
	ready.Message = clip.String(ready.Message, toolgatev1alpha1.MaxConditionMessageLength)
	st.Conditions = []metav1.Condition{accepted, ready, GateBypass(p, in), rules}
	return st
}

// rulesCondition summarises the problems of a policy's argument rules:
// True when every rule can be evaluated for every tool it names.
func rulesCondition(p *toolgatev1alpha1.ToolPolicy, problems []RuleProblem) metav1.Condition {
	c := metav1.Condition{Type: toolgatev1alpha1.ConditionArgumentRules, ObservedGeneration: p.Generation,
		Status: metav1.ConditionTrue, Reason: toolgatev1alpha1.ReasonRulesAccepted}
	if len(problems) == 0 {
		switch n := len(p.Spec.ArgumentRules); n {
		case 0:
			c.Message = "no argument rules"
		case 1:
			c.Message = "1 argument rule; it can be evaluated for every tool it names"
		default:
			c.Message = fmt.Sprintf("%d argument rules; each can be evaluated for every tool it names", n)
		}
		return c
	}
	c.Status, c.Reason = metav1.ConditionFalse, toolgatev1alpha1.ReasonRulesInvalid
	first := problems[0]
	where := ""
	if first.Tool != "" {
		where = fmt.Sprintf(" for tool %s of %s", first.Tool, first.Server)
	}
	c.Message = clip.String(fmt.Sprintf("%d problems; rule %s%s: %s: %s; the gate refuses the calls a rule it cannot evaluate names (status.argumentRules)",
		len(problems), first.Rule, where, first.Kind, first.Message), toolgatev1alpha1.MaxConditionMessageLength)
	return c
}
