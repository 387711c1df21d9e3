package controllers

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/risk"
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

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// reach asks the API server, with SubjectAccessReviews, what the server's
// ServiceAccount may do. What that means for its tools is the risk
// engine's to judge (risk.Reach), so that the CLI given the same reach
// reaches the same verdict.
func (r *MCPServerReconciler) reach(ctx context.Context, s *toolgatev1alpha1.MCPServer) (risk.Reach, error) {
	var res risk.Reach
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
			res.Findings = append(res.Findings, fmt.Sprintf("%s %s", user, check.finding))
			res.ClusterWide = res.ClusterWide || check.clusterWide
			res.Secrets = res.Secrets || check.secrets
		}
	}
	return res, nil
}
