package controllers

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/vet"
)

// reachCheck is one question asked of the API server about what an
// in-cluster MCP server's own identity may do.
type reachCheck struct {
	attrs   authorizationv1.ResourceAttributes
	finding string
	// clusterWide: a mutating tool of a server allowed this reaches the
	// whole cluster.
	clusterWide bool
	// secrets: a tool of a server allowed this can reveal secrets.
	secrets bool
}

// reachChecks are asked for every MCPServer that names its ServiceAccount.
// An empty namespace asks about every namespace.
var reachChecks = []reachCheck{
	{authorizationv1.ResourceAttributes{Verb: "delete", Resource: "pods"}, "can delete pods in every namespace", true, false},
	{authorizationv1.ResourceAttributes{Verb: "patch", Group: "apps", Resource: "deployments"}, "can change deployments in every namespace", true, false},
	{authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Subresource: "exec"}, "can exec into pods in every namespace", true, false},
	{authorizationv1.ResourceAttributes{Verb: "delete", Resource: "namespaces"}, "can delete namespaces", true, false},
	{authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, "can grant cluster-wide permissions", true, false},
	{authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets"}, "can read secrets in every namespace", false, true},
}

// reachResult is what an MCPServer's ServiceAccount may do.
type reachResult struct {
	findings    []string
	clusterWide bool
	secrets     bool
}

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// reach asks the API server, with SubjectAccessReviews, what the server's
// ServiceAccount may do.
func (r *MCPServerReconciler) reach(ctx context.Context, s *toolgatev1alpha1.MCPServer) (reachResult, error) {
	var res reachResult
	sa := s.Spec.ServiceAccount
	if sa == nil {
		return res, nil
	}
	ns := sa.Namespace
	if ns == "" {
		ns = s.Namespace
	}
	user := "system:serviceaccount:" + ns + ":" + sa.Name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	for _, check := range reachChecks {
		attrs := check.attrs
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups, ResourceAttributes: &attrs,
		}}
		if err := r.Create(ctx, review); err != nil {
			return res, fmt.Errorf("asking what %s may do: %w", user, err)
		}
		if review.Status.Allowed {
			res.findings = append(res.findings, fmt.Sprintf("%s %s", user, check.finding))
			res.clusterWide = res.clusterWide || check.clusterWide
			res.secrets = res.secrets || check.secrets
		}
	}
	return res, nil
}

// applyReach widens the judgement of a server's tools to what its identity
// can reach: a state-changing tool of a server that may change things in
// every namespace reaches the cluster, whatever its parameters say.
func applyReach(report *vet.Report, reach reachResult) {
	if !reach.clusterWide && !reach.secrets {
		return
	}
	why := "the server's service account " + strings.Join(reach.findings, "; ")
	for i := range report.Tools {
		t := &report.Tools[i]
		switch t.Risk.Category {
		case "mutate", "delete", "destroy":
			if reach.clusterWide && t.Risk.BlastRadius != "organization" && t.Risk.BlastRadius != "global" {
				t.Risk.BlastRadius = "cluster"
				t.Reasons = append(t.Reasons, "blast radius cluster: "+why)
				raiseReport(t, risk.L4, "a state change whose reach is the cluster")
			}
		default:
			if reach.secrets && !containsString(t.Risk.SideEffects, "data_exfiltration") {
				t.Risk.SideEffects = append(t.Risk.SideEffects, "data_exfiltration")
				t.Reasons = append(t.Reasons, "may reveal secrets: "+why)
			}
		}
	}
}

// raiseReport raises a reported level, keeping the SEP-2793 fields in
// step with it.
func raiseReport(t *vet.ToolReport, to risk.Level, why string) {
	level, err := risk.ParseLevel(t.Level)
	if err != nil || level >= to {
		return
	}
	t.Level, t.EffectiveLevel = to.String(), to.String()
	t.Risk.RiskLevel = risk.RiskLevelOf(to)
	t.Risk.MinTrustLevel = max(t.Risk.MinTrustLevel, int(to))
	if t.Risk.ApprovalRecommendation == "none" {
		t.Risk.ApprovalRecommendation = "single"
	}
	t.Reasons = append(t.Reasons, to.String()+": "+why)
}

func containsString(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
