package approval

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
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

// IdentityPolicy says who a requester is to toolgate: the operator, which
// writes the record, someone who may decide on tools, or neither. It sees
// only what the API server authenticated (the admission request's user
// info), never a field the requester typed, and it refuses when it cannot
// tell.
//
// It is a value of its own, apart from the webhooks, so that every handler
// asks the same question the same way and so that further rules (identities
// that are never a person, an authorization check for overrides) have one
// place to go.
type IdentityPolicy struct {
	// Operators are the user names of the operator itself, which writes the
	// whole status and is not subject to the approvers' rules.
	Operators []string
	// ApproverServiceAccounts are the service accounts that may decide, as
	// "system:serviceaccount:<namespace>:<name>". Every other service
	// account is refused: decisions are made by people.
	ApproverServiceAccounts []string
	// Namespaces looks up a service account's namespace, to recognise
	// agent namespaces. Required whenever a service account may ask.
	Namespaces NamespaceLabels
}

// IsOperator reports whether user is the operator.
func (p *IdentityPolicy) IsOperator(user authenticationv1.UserInfo) bool {
	return slices.Contains(p.Operators, user.Username)
}

// MayDecide returns nil if user may append a decision to a ToolPin, and
// otherwise an error that says why not, meant for the requester. People
// may; service accounts only when configured as approvers, and never those
// of an agent namespace, even when configured, so that an agent can never
// approve itself. A failed namespace lookup refuses (fail closed) and wraps
// the lookup's error.
func (p *IdentityPolicy) MayDecide(ctx context.Context, user authenticationv1.UserInfo) error {
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

// MayOverride returns nil if user may set, change or clear a ToolPin's
// spec.override, and otherwise an error that says why not. An override can
// lower a tool's level, so it takes at least what a decision takes; today
// exactly that.
func (p *IdentityPolicy) MayOverride(ctx context.Context, user authenticationv1.UserInfo) error {
	return p.MayDecide(ctx, user)
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
