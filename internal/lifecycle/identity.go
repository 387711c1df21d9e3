package lifecycle

import (
	"slices"
	"strings"
)

// The identities the API server gives to what is not a person. Kubernetes
// reserves the "system:" prefix of user and group names for itself, so
// nobody outside the control plane can be given one of these by an
// authenticator that follows the convention.
const (
	userAnonymous         = "system:anonymous"
	groupUnauthenticated  = "system:unauthenticated"
	nodeUserPrefix        = "system:node:"
	groupNodes            = "system:nodes"
	serviceAccountPrefix  = "system:serviceaccount:"
	systemPrefix          = "system:"
	groupServiceAccounts  = "system:serviceaccounts"
	groupServiceAccountNS = "system:serviceaccounts:"
)

// NeverAPerson returns why an authenticated identity is never a person
// whose decision on a tool may count, or "" when it may be one. The list is
// fixed and does not rely on RBAC being right:
//
//   - system:anonymous, and anything in the group system:unauthenticated;
//   - nodes: users system:node:NAME and the group system:nodes;
//   - every other "system:" user that is not a service account: the
//     control-plane components (system:kube-controller-manager,
//     system:kube-scheduler, system:kube-proxy, system:apiserver, …) and
//     shared break-glass identities such as system:admin, none of which
//     names a person.
//
// Service accounts are left to the caller's own rules (they decide only
// when configured, and never count as people for multi), as are the
// groups a service account is in.
func NeverAPerson(user string, groups []string) string {
	switch {
	case user == userAnonymous:
		return user + " is the anonymous user"
	case slices.Contains(groups, groupUnauthenticated):
		return user + " is not authenticated (group " + groupUnauthenticated + ")"
	case strings.HasPrefix(user, nodeUserPrefix) || slices.Contains(groups, groupNodes):
		return user + " is a node"
	case strings.HasPrefix(user, serviceAccountPrefix):
		return ""
	case strings.HasPrefix(user, systemPrefix):
		return user + " is a Kubernetes system identity, not a person"
	}
	// A person's groups never include the service-account groups; a user
	// that claims them is something an authenticator built to look like
	// a service account without being one.
	for _, g := range groups {
		if g == groupServiceAccounts || strings.HasPrefix(g, groupServiceAccountNS) {
			return user + " is in the service-account group " + g + " without being a service account"
		}
	}
	return ""
}
