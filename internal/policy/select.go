package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// PodSelector parses a policy's pod selector. An empty selector selects
// every pod; an invalid one is an error, and the policy selects none.
func PodSelector(p *toolgatev1alpha1.ToolPolicy) (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
	if err != nil {
		return labels.Nothing(), fmt.Errorf("spec.podSelector: %w", err)
	}
	return sel, nil
}

// Selects reports whether a policy applies to a pod with the given labels.
func Selects(p *toolgatev1alpha1.ToolPolicy, podLabels map[string]string) bool {
	sel, err := PodSelector(p)
	return err == nil && sel.Matches(labels.Set(podLabels))
}

// Matching returns, in their order, the policies that apply to a pod with
// the given labels.
func Matching(policies []toolgatev1alpha1.ToolPolicy, podLabels map[string]string) []toolgatev1alpha1.ToolPolicy {
	var out []toolgatev1alpha1.ToolPolicy
	for i := range policies {
		if Selects(&policies[i], podLabels) {
			out = append(out, policies[i])
		}
	}
	return out
}

// Admits reports whether an MCPServer's spec.consumers admits agents of the
// namespace, and when not, why.
func Admits(s *toolgatev1alpha1.MCPServer, namespace string, namespaceLabels map[string]string) (bool, string) {
	id := s.Namespace + "/" + s.Name
	switch s.Spec.Consumers.From {
	case toolgatev1alpha1.NamespacesFromAll:
		return true, ""
	case toolgatev1alpha1.NamespacesFromSelector:
		if s.Spec.Consumers.Selector == nil {
			return false, fmt.Sprintf("MCPServer %s admits namespaces by a selector it does not give", id)
		}
		sel, err := metav1.LabelSelectorAsSelector(s.Spec.Consumers.Selector)
		if err != nil {
			return false, fmt.Sprintf("MCPServer %s: spec.consumers.selector: %v", id, err)
		}
		if sel.Matches(labels.Set(namespaceLabels)) {
			return true, ""
		}
		return false, fmt.Sprintf("MCPServer %s does not admit namespace %s: its labels do not match spec.consumers.selector", id, namespace)
	default: // Same, and unset: the API server defaults it to Same
		if s.Namespace == namespace {
			return true, ""
		}
		return false, fmt.Sprintf("MCPServer %s admits only its own namespace (spec.consumers.from Same), not %s", id, namespace)
	}
}

// serverReady reports whether a server may serve tools, and when not, why:
// being deleted, or its Ready condition is not True for its current
// generation (a spec edit is not trusted until a probe has judged it).
func serverReady(s *toolgatev1alpha1.MCPServer) (bool, string) {
	id := s.Namespace + "/" + s.Name
	if !s.DeletionTimestamp.IsZero() {
		return false, fmt.Sprintf("MCPServer %s is being deleted", id)
	}
	c := meta.FindStatusCondition(s.Status.Conditions, toolgatev1alpha1.ConditionReady)
	switch {
	case c == nil:
		return false, fmt.Sprintf("MCPServer %s has not been probed yet", id)
	case c.Status != metav1.ConditionTrue:
		return false, fmt.Sprintf("MCPServer %s is not ready: %s: %s", id, c.Reason, c.Message)
	case c.ObservedGeneration != s.Generation:
		return false, fmt.Sprintf("MCPServer %s has not been probed since its spec changed", id)
	}
	return true, ""
}
