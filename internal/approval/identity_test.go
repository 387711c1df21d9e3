package approval

import (
	"context"
	"errors"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func TestMayDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		user authenticationv1.UserInfo
		// want is "" when the user may decide, else part of the refusal.
		want string
		// asks is the namespace the policy must look up, if any.
		asks string
	}{
		{"a person", alice, "", ""},
		{"a person named like a namespace's service account group", authenticationv1.UserInfo{Username: "system:serviceaccounts:agents"}, "", ""},
		{"a configured approver", reviewBot, "", "reviewers"},
		{"a configured approver in a namespace that does not exist", strayBot, "", "gone"},
		{"a service account nobody configured", ciBot, ciName + " is a service account and not a configured approver: decisions are made by people", "default"},
		{"the service account of an agent namespace, although configured", agentBot, agentHelperName + " belongs to an agent namespace: agents never decide on tools", "agents"},
		{"another service account of an agent namespace", authenticationv1.UserInfo{Username: "system:serviceaccount:agents:default"}, "belongs to an agent namespace", "agents"},
		{"a service account whose namespace cannot be read", brokenBot, "cannot tell whether " + brokenName + " belongs to an agent namespace", "broken"},
		// The groups the API server adds never make a service account a
		// person, nor a person a service account.
		{"a service account claiming a person's groups", authenticationv1.UserInfo{Username: ciName, Groups: []string{"reviewers"}}, "not a configured approver", "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			p := testPolicy()
			p.Namespaces = func(ctx context.Context, name string) (map[string]string, error) {
				asked = append(asked, name)
				return testNamespaces(ctx, name)
			}
			for method, check := range map[string]func(context.Context, authenticationv1.UserInfo) error{
				"MayDecide":   p.MayDecide,
				"MayOverride": p.MayOverride,
			} {
				asked = nil
				err := check(t.Context(), tc.user)
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%s: refused: %v", method, err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("%s: got %v, want a refusal containing %q", method, err, tc.want)
				}
				if tc.asks == "" && len(asked) > 0 || tc.asks != "" && (len(asked) != 1 || asked[0] != tc.asks) {
					t.Errorf("%s: looked up namespaces %q, want %q", method, asked, tc.asks)
				}
			}
		})
	}
}

func TestMayDecideFailsClosed(t *testing.T) {
	p := testPolicy()
	if err := p.MayDecide(t.Context(), brokenBot); !errors.Is(err, errLookup) {
		t.Errorf("a failed lookup: got %v, want it wrapped", err)
	}
	// A policy without a lookup cannot tell agents apart: it refuses every
	// service account, and still lets people decide.
	p.Namespaces = nil
	for _, user := range []authenticationv1.UserInfo{reviewBot, agentBot} {
		if err := p.MayDecide(t.Context(), user); err == nil {
			t.Errorf("%s may decide without a namespace lookup", user.Username)
		}
	}
	if err := p.MayDecide(t.Context(), alice); err != nil {
		t.Errorf("a person was refused: %v", err)
	}
}

func TestIsOperator(t *testing.T) {
	p := testPolicy()
	for _, tc := range []struct {
		user authenticationv1.UserInfo
		want bool
	}{
		{operator, true},
		{alice, false},
		// Only the user name counts, never a group or a look-alike.
		{authenticationv1.UserInfo{Username: "mallory", Groups: []string{operatorName}}, false},
		{authenticationv1.UserInfo{Username: operatorName + "x"}, false},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:toolgate-system"}, false},
	} {
		if got := p.IsOperator(tc.user); got != tc.want {
			t.Errorf("IsOperator(%+v) = %t, want %t", tc.user, got, tc.want)
		}
	}
}

// namespaceReader answers Get for namespaces from a map, and fails with
// err for any other.
type namespaceReader struct {
	client.Reader
	namespaces map[string]map[string]string
	err        error
}

func (r namespaceReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return errors.New("not a namespace")
	}
	labels, found := r.namespaces[key.Name]
	switch {
	case found:
		ns.Name, ns.Labels = key.Name, labels
		return nil
	case r.err != nil:
		return r.err
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, key.Name)
}

func TestNamespaceLabelsFrom(t *testing.T) {
	agents := map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	lookup := NamespaceLabelsFrom(namespaceReader{namespaces: map[string]map[string]string{"agents": agents}})
	if labels, err := lookup(t.Context(), "agents"); err != nil || labels[toolgatev1alpha1.LabelInjection] != toolgatev1alpha1.InjectionEnabled {
		t.Errorf("an existing namespace: %v, %v", labels, err)
	}
	// A namespace that does not exist has no labels, as the policy expects.
	if labels, err := lookup(t.Context(), "gone"); err != nil || labels != nil {
		t.Errorf("a missing namespace: %v, %v", labels, err)
	}
	denied := apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "agents", errors.New("no"))
	lookup = NamespaceLabelsFrom(namespaceReader{err: denied})
	if _, err := lookup(t.Context(), "agents"); !apierrors.IsForbidden(err) {
		t.Errorf("a forbidden lookup: got %v, want the error", err)
	}
	p := &IdentityPolicy{ApproverServiceAccounts: []string{agentHelperName}, Namespaces: lookup}
	if err := p.MayDecide(t.Context(), agentBot); err == nil || !strings.Contains(err.Error(), "cannot tell whether") {
		t.Errorf("a forbidden lookup let a service account decide: %v", err)
	}
}
