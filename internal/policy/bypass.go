package policy

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/clip"
)

// GateBypass is a policy's GateBypassable condition: whether its agents
// could call any server it references without going through their gates,
// summarised from each server's own GateBypassable condition. True names
// the bypassable servers and why; False says every referenced server
// refuses callers without the gate's credentials; Unknown that none is
// known to be bypassable but some is not known either (not checked yet,
// or the check could not tell).
//
// Every referenced server counts, admitted or not and ready or not: the
// question is what an agent's pod can reach, and a server the gate
// withholds is reachable all the same. A reference to a server that does
// not exist is left to the Accepted condition.
func GateBypass(p *toolgatev1alpha1.ToolPolicy, in Input) metav1.Condition {
	servers := map[string]*toolgatev1alpha1.MCPServer{}
	for i := range in.Servers {
		servers[in.Servers[i].Namespace+"/"+in.Servers[i].Name] = &in.Servers[i]
	}
	var ids []string
	for _, ref := range p.Spec.Servers {
		id := ref.Namespace + "/" + ref.Name
		if servers[id] != nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)

	var bypassable, unknown []string
	for _, id := range ids {
		c := meta.FindStatusCondition(servers[id].Status.Conditions, toolgatev1alpha1.ConditionGateBypassable)
		switch {
		case c == nil:
			unknown = append(unknown, id+" (not checked yet)")
		case c.Status == metav1.ConditionTrue:
			bypassable = append(bypassable, id+" ("+c.Reason+")")
		case c.Status != metav1.ConditionFalse:
			unknown = append(unknown, id+" ("+c.Reason+")")
		}
	}

	c := metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, ObservedGeneration: p.Generation}
	switch {
	case len(bypassable) > 0:
		c.Status, c.Reason = metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable
		c.Message = fmt.Sprintf("the agents can call %d of the %d referenced servers without going through their gates: %s",
			len(bypassable), len(ids), strings.Join(bypassable, ", "))
		if len(unknown) > 0 {
			c.Message += "; not known for " + strings.Join(unknown, ", ")
		}
		c.Message += ". The gate still enforces this policy on what passes through it, but nothing makes an agent pass. " +
			"kubectl describe mcpserver says why for each server; put credentials only the gate holds on them and apply a NetworkPolicy (docs/install.md)."
	case len(unknown) > 0:
		c.Status, c.Reason = metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown
		c.Message = "no referenced server is known to let agents around their gates, but it is not known for " + strings.Join(unknown, ", ")
	case len(ids) == 0:
		c.Status, c.Reason = metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown
		c.Message = "none of the servers the policy references exists"
	default:
		c.Status, c.Reason = metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired
		c.Message = fmt.Sprintf("all %d referenced servers refuse callers without the credentials only the gates hold", len(ids))
	}
	c.Message = clip.String(c.Message, toolgatev1alpha1.MaxConditionMessageLength)
	return c
}
