package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// serviceAccountPrefix starts the user name the API server gives a service
// account: system:serviceaccount:<namespace>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

// NamespaceLabels returns the labels of the named namespace. A namespace
// that does not exist has no labels and is not an error: its service
// accounts are then judged as any other's. Any other failure must be
// returned, so that the policy can refuse rather than guess.
type NamespaceLabels func(ctx context.Context, name string) (map[string]string, error)

// NamespaceLabelsFrom reads namespaces through r. The manager passes its
// API reader, not its cache: the operator does not watch namespaces, and a
// namespace labelled as an agent namespace a moment ago must already count.
func NamespaceLabelsFrom(r client.Reader) NamespaceLabels {
	return func(ctx context.Context, name string) (map[string]string, error) {
		var ns corev1.Namespace
		if err := r.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		return ns.Labels, nil
	}
}

// AccessReview asks the API server whether user may do what attrs
// describe, as a SubjectAccessReview does: with the user's name, groups,
// UID and extra, exactly as the API server authenticated them. It returns
// the authorizer's verdict and reason, or an error when it could not ask.
type AccessReview func(ctx context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (allowed bool, reason string, err error)

// AccessReviewsFrom asks through c, which must be able to create
// subjectaccessreviews. Each call is one request to the API server: the
// answer is never cached, so that a binding revoked a moment ago counts.
func AccessReviewsFrom(c client.Client) AccessReview {
	return func(ctx context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, string, error) {
		extra := make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			extra[k] = authorizationv1.ExtraValue(v)
		}
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: &attrs,
			User:               user.Username,
			Groups:             user.Groups,
			UID:                user.UID,
			Extra:              extra,
		}}
		if err := c.Create(ctx, sar); err != nil {
			return false, "", err
		}
		return sar.Status.Allowed && !sar.Status.Denied, sar.Status.Reason, nil
	}
}

// NamespaceTerminating reports whether the named namespace is being
// deleted. A namespace that does not exist is not terminating; any other
// failure must be returned, so that the caller can refuse.
type NamespaceTerminating func(ctx context.Context, name string) (bool, error)

// NamespaceTerminatingFrom reads namespaces through r, the manager's API
// reader, for the same reason as NamespaceLabelsFrom.
func NamespaceTerminatingFrom(r client.Reader) NamespaceTerminating {
	return func(ctx context.Context, name string) (bool, error) {
		var ns corev1.Namespace
		if err := r.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ns.DeletionTimestamp != nil, nil
	}
}

// IdentityPolicy says who a requester is to toolgate: the operator, which
// writes the record, an administrator, who may delete it, someone who may
// decide on tools, or none of these. It sees only what the API server
// authenticated (the admission request's user info), never a field the
// requester typed, and it refuses when it cannot tell.
//
// It is a value of its own, apart from the webhooks, so that every handler
// asks the same question the same way.
type IdentityPolicy struct {
	// Operators are the user names of the operator itself, which writes the
	// whole status and is not subject to the approvers' rules.
	Operators []string
	// AdminUsers and AdminGroups are the identities that may delete a
	// ToolPin holding decisions: deleting one forgets a review, and the
	// next probe would trust the tool on first use again.
	AdminUsers, AdminGroups []string
	// ApproverServiceAccounts are the service accounts that may decide, as
	// "system:serviceaccount:<namespace>:<name>". Every other service
	// account is refused: decisions are made by people.
	ApproverServiceAccounts []string
	// Namespaces looks up a service account's namespace, to recognise
	// agent namespaces. Required whenever a service account may ask.
	Namespaces NamespaceLabels
	// AccessReviews asks the API server whether a requester holds the
	// right to decide. Required for overrides: without it every override
	// is refused.
	AccessReviews AccessReview
}

// IsOperator reports whether user is the operator.
func (p *IdentityPolicy) IsOperator(user authenticationv1.UserInfo) bool {
	return slices.Contains(p.Operators, user.Username)
}

// IsAdmin reports whether user is a configured administrator, by user
// name or by one of its groups.
func (p *IdentityPolicy) IsAdmin(user authenticationv1.UserInfo) bool {
	if slices.Contains(p.AdminUsers, user.Username) {
		return true
	}
	for _, g := range user.Groups {
		if slices.Contains(p.AdminGroups, g) {
			return true
		}
	}
	return false
}

// MayDecide returns nil if user may append a decision to a ToolPin, and
// otherwise an error that says why not, meant for the requester. People
// may; identities that are never a person (anonymous, unauthenticated,
// nodes, control-plane components: lifecycle.NeverAPerson) never do;
// service accounts only when configured as approvers, and never those of
// an agent namespace, even when configured, so that an agent can never
// approve itself. A failed namespace lookup refuses (fail closed) and wraps
// the lookup's error.
func (p *IdentityPolicy) MayDecide(ctx context.Context, user authenticationv1.UserInfo) error {
	// The fixed list comes first: it does not depend on configuration or
	// on RBAC being right.
	if why := lifecycle.NeverAPerson(user.Username, user.Groups); why != "" {
		return fmt.Errorf("%s: decisions are made by people", why)
	}
	namespace, isSA := serviceAccountNamespace(user.Username)
	if !isSA {
		return nil
	}
	// The agent-namespace check comes first: an agent's service account
	// listed as an approver by mistake still never decides, and a
	// namespace labelled a moment ago counts at once.
	agent, err := p.isAgentNamespace(ctx, namespace)
	if err != nil {
		return fmt.Errorf("cannot tell whether %s belongs to an agent namespace: %w", user.Username, err)
	}
	if agent {
		return fmt.Errorf("%s belongs to an agent namespace: agents never decide on tools", user.Username)
	}
	if !slices.Contains(p.ApproverServiceAccounts, user.Username) {
		return fmt.Errorf("%s is a service account and not a configured approver: decisions are made by people", user.Username)
	}
	return nil
}

// DecideVerb and DecideResource are the right an override takes: the one
// the shipped toolgate-approver role grants to append a decision, patch on
// toolpins/status, checked for the pin's own namespace and name so that a
// RoleBinding limited to some namespaces or some pins counts as it says.
const (
	DecideVerb        = "patch"
	DecideResource    = "toolpins"
	DecideSubresource = "status"
)

// MayOverride returns nil if user may set, change or clear spec.override
// of the ToolPin namespace/name, and otherwise an error that says why not.
// An override can lower a tool's level, so it takes what a decision takes:
// an identity that may decide (MayDecide), holding the right to decide on
// that very pin, asked of the API server with a SubjectAccessReview for
// the requester's name, groups, UID and extra. Holding patch on toolpins,
// which server owners may well hold, is not enough. A review that cannot
// be made refuses.
func (p *IdentityPolicy) MayOverride(ctx context.Context, user authenticationv1.UserInfo, namespace, name string) error {
	if err := p.MayDecide(ctx, user); err != nil {
		return err
	}
	if p.AccessReviews == nil {
		return errors.New("no access review configured, so nobody may override")
	}
	allowed, reason, err := p.AccessReviews(ctx, user, authorizationv1.ResourceAttributes{
		Namespace:   namespace,
		Verb:        DecideVerb,
		Group:       toolgatev1alpha1.GroupVersion.Group,
		Resource:    DecideResource,
		Subresource: DecideSubresource,
		Name:        name,
	})
	if err != nil {
		return fmt.Errorf("cannot tell whether %s may decide on tools: %w", user.Username, err)
	}
	if !allowed {
		msg := fmt.Sprintf("%s may not decide on this tool (%s %s/%s in %s)", user.Username, DecideVerb, DecideResource, DecideSubresource, namespace)
		if reason != "" {
			msg += ": " + reason
		}
		return errors.New(msg)
	}
	return nil
}

func (p *IdentityPolicy) isAgentNamespace(ctx context.Context, namespace string) (bool, error) {
	if p.Namespaces == nil {
		// A policy built without a lookup cannot recognise agents; it
		// must not let their service accounts through for that.
		return false, fmt.Errorf("no namespace lookup configured")
	}
	labels, err := p.Namespaces(ctx, namespace)
	if err != nil {
		return false, err
	}
	return labels[toolgatev1alpha1.LabelInjection] == toolgatev1alpha1.InjectionEnabled, nil
}

// serviceAccountNamespace returns the namespace of a service account's user
// name, and whether the name is a service account's at all.
func serviceAccountNamespace(username string) (string, bool) {
	rest, isSA := strings.CutPrefix(username, serviceAccountPrefix)
	if !isSA {
		return "", false
	}
	namespace, _, _ := strings.Cut(rest, ":")
	return namespace, true
}
