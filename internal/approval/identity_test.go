package approval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		// Kubernetes reserves system: for itself: a user named like a
		// service-account group is no person, and no service account.
		{"a user named like a namespace's service account group", authenticationv1.UserInfo{Username: "system:serviceaccounts:agents"}, "is a Kubernetes system identity, not a person", ""},
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
				"MayDecide": p.MayDecide,
				"MayOverride": func(ctx context.Context, u authenticationv1.UserInfo) error {
					return p.MayOverride(ctx, u, "default", "notes-archive-note")
				},
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

// TestSystemIdentitiesNeverApprove: identities that are never a
// person (anonymous, unauthenticated, nodes, control-plane components and
// other system: users) are refused as deciders and for overrides, whatever
// RBAC grants them and whatever the configuration lists, so that they can
// never count as distinct humans for multi.
func TestSystemIdentitiesNeverApprove(t *testing.T) {
	p := testPolicy()
	// Even listed as approvers, and granted the right to decide.
	p.ApproverServiceAccounts = append(p.ApproverServiceAccounts, "system:anonymous", "system:kube-scheduler")
	everything := func(context.Context, authenticationv1.UserInfo, authorizationv1.ResourceAttributes) (bool, string, error) {
		return true, "", nil
	}
	p.AccessReviews = everything
	stamper := &StatusStamper{Identities: p, Decoder: testDecoder(t), Now: func() time.Time { return stampTime }}
	validator := &StatusValidator{Identities: p, Decoder: testDecoder(t)}
	for _, tc := range []struct {
		user authenticationv1.UserInfo
		want string
	}{
		{authenticationv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}, "system:anonymous is the anonymous user"},
		{authenticationv1.UserInfo{Username: "someone", Groups: []string{"system:unauthenticated"}}, "is not authenticated"},
		{authenticationv1.UserInfo{Username: "system:node:worker-1", Groups: []string{"system:nodes", "system:authenticated"}}, "system:node:worker-1 is a node"},
		{authenticationv1.UserInfo{Username: "kubelet-on-worker-2", Groups: []string{"system:nodes"}}, "is a node"},
		{authenticationv1.UserInfo{Username: "system:kube-controller-manager"}, "system:kube-controller-manager is a Kubernetes system identity"},
		{authenticationv1.UserInfo{Username: "system:kube-scheduler"}, "system:kube-scheduler is a Kubernetes system identity"},
		{authenticationv1.UserInfo{Username: "system:apiserver", Groups: []string{"system:masters"}}, "system:apiserver is a Kubernetes system identity"},
		{authenticationv1.UserInfo{Username: "system:kube-proxy"}, "system:kube-proxy is a Kubernetes system identity"},
		{authenticationv1.UserInfo{Username: "system:admin", Groups: []string{"system:masters"}}, "system:admin is a Kubernetes system identity"},
		{authenticationv1.UserInfo{Username: "eve", Groups: []string{"system:serviceaccounts:reviewers"}}, "is in the service-account group"},
	} {
		t.Run(tc.user.Username, func(t *testing.T) {
			if err := p.MayDecide(t.Context(), tc.user); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("MayDecide: got %v, want a refusal containing %q", err, tc.want)
			}
			if err := p.MayOverride(t.Context(), tc.user, "default", "notes-archive-note"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("MayOverride: got %v, want a refusal containing %q", err, tc.want)
			}
			approve := statusUpdate(tc.user, statusJSON, appendDecisions(t, statusJSON, stampedBy(t, tc.user, decision("Approve", fpNow))))
			refused(tc.want).check(t, stamper.Handle(t.Context(), approve))
			refused(tc.want).check(t, validator.Handle(t.Context(), approve))
		})
	}
	// People, and the groups every authenticated user is in, still count.
	for _, user := range []authenticationv1.UserInfo{alice, {Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}} {
		if err := p.MayDecide(t.Context(), user); err != nil {
			t.Errorf("%s was refused: %v", user.Username, err)
		}
	}
}

// TestOverrideTakesTheRightToDecide: MayOverride asks the API
// server, with a SubjectAccessReview of the requester exactly as
// authenticated, for the right to decide on that pin; patch on toolpins is
// not enough, and a review that fails refuses.
func TestOverrideTakesTheRightToDecide(t *testing.T) {
	var asked []authorizationv1.ResourceAttributes
	var askedFor []authenticationv1.UserInfo
	p := testPolicy()
	p.AccessReviews = func(ctx context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, string, error) {
		asked, askedFor = append(asked, attrs), append(askedFor, user)
		return testAccessReviews(ctx, user, attrs)
	}
	withExtra := authenticationv1.UserInfo{Username: "alice", UID: "4c1d", Groups: []string{"reviewers"},
		Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"X509SHA256=ab12"}}}
	for _, tc := range []struct {
		name      string
		user      authenticationv1.UserInfo
		namespace string
		want      string
		// reviewed is whether the API server must have been asked.
		reviewed bool
	}{
		{"a reviewer", withExtra, "default", "", true},
		{"a server owner who may patch toolpins but not decide", authenticationv1.UserInfo{Username: "mallory"}, "default", "mallory may not decide on this tool (patch toolpins/status in default)", true},
		{"someone who decides elsewhere only", authenticationv1.UserInfo{Username: "olivia"}, "default", "olivia may not decide on this tool", true},
		{"someone who decides here", authenticationv1.UserInfo{Username: "olivia"}, "other", "", true},
		{"a failed review", authenticationv1.UserInfo{Username: "flaky"}, "default", "cannot tell whether flaky may decide on tools: " + errReview.Error(), true},
		{"a configured approver service account", reviewBot, "default", "", true},
		// The identity rules come first and cost no request.
		{"a service account nobody configured", ciBot, "default", "not a configured approver", false},
		{"an agent's service account", agentBot, "default", "agents never decide", false},
		{"the anonymous user", authenticationv1.UserInfo{Username: "system:anonymous"}, "default", "anonymous", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked, askedFor = nil, nil
			err := p.MayOverride(t.Context(), tc.user, tc.namespace, "notes-archive-note")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want a refusal containing %q", err, tc.want)
			}
			if !tc.reviewed {
				if len(asked) != 0 {
					t.Fatalf("asked the API server %+v", asked)
				}
				return
			}
			want := authorizationv1.ResourceAttributes{Namespace: tc.namespace, Verb: "patch", Group: "toolgate.dev", Resource: "toolpins", Subresource: "status", Name: "notes-archive-note"}
			if len(asked) != 1 || asked[0] != want {
				t.Fatalf("asked %+v, want %+v", asked, want)
			}
			if !equality.Semantic.DeepEqual(askedFor[0], tc.user) {
				t.Fatalf("asked for %+v, want the requester %+v", askedFor[0], tc.user)
			}
		})
	}
	p.AccessReviews = nil
	if err := p.MayOverride(t.Context(), alice, "default", "x"); err == nil {
		t.Error("a policy without access reviews let a person override")
	}
}

// sarClient answers the creation of a SubjectAccessReview with allowed
// for the user "alice", and remembers the review.
type sarClient struct {
	client.Client
	got *authorizationv1.SubjectAccessReview
	err error
}

func (c *sarClient) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	sar, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return errors.New("not a SubjectAccessReview")
	}
	if c.err != nil {
		return c.err
	}
	c.got = sar.DeepCopy()
	sar.Status.Allowed = sar.Spec.User == "alice"
	sar.Status.Reason = "because"
	return nil
}

func TestAccessReviewsFrom(t *testing.T) {
	c := &sarClient{}
	review := AccessReviewsFrom(c)
	user := authenticationv1.UserInfo{Username: "alice", UID: "u-1", Groups: []string{"reviewers"},
		Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"JTI=abc"}}}
	attrs := authorizationv1.ResourceAttributes{Namespace: "default", Verb: "patch", Group: "toolgate.dev", Resource: "toolpins", Subresource: "status", Name: "p"}
	allowed, reason, err := review(t.Context(), user, attrs)
	if err != nil || !allowed || reason != "because" {
		t.Fatalf("got %t %q %v", allowed, reason, err)
	}
	spec := c.got.Spec
	if spec.User != "alice" || spec.UID != "u-1" || !slices.Equal(spec.Groups, user.Groups) ||
		!slices.Equal(spec.Extra["authentication.kubernetes.io/credential-id"], authorizationv1.ExtraValue{"JTI=abc"}) || *spec.ResourceAttributes != attrs {
		t.Fatalf("asked %+v", spec)
	}
	if allowed, _, _ := review(t.Context(), authenticationv1.UserInfo{Username: "bob"}, attrs); allowed {
		t.Error("bob was allowed")
	}
	c.err = errors.New("no")
	if _, _, err := review(t.Context(), user, attrs); err == nil {
		t.Error("a failed review is not an error")
	}
}

func TestIsAdmin(t *testing.T) {
	p := testPolicy()
	for _, tc := range []struct {
		user authenticationv1.UserInfo
		want bool
	}{
		{authenticationv1.UserInfo{Username: adminName}, true},
		{authenticationv1.UserInfo{Username: "zoe", Groups: []string{"reviewers", adminGroup}}, true},
		{alice, false},
		{operator, false},
		{authenticationv1.UserInfo{Username: adminGroup}, false},
		{authenticationv1.UserInfo{Username: "yann", Groups: []string{adminName}}, false},
	} {
		if got := p.IsAdmin(tc.user); got != tc.want {
			t.Errorf("IsAdmin(%+v) = %t, want %t", tc.user, got, tc.want)
		}
	}
}

// terminatingReader answers Get for namespaces: "leaving" is being
// deleted, "staying" is not, any other does not exist, unless err is set.
type terminatingReader struct {
	client.Reader
	err error
}

func (r terminatingReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return errors.New("not a namespace")
	}
	switch {
	case r.err != nil:
		return r.err
	case key.Name == "leaving":
		now := metav1.Now()
		ns.Name, ns.DeletionTimestamp = key.Name, &now
		return nil
	case key.Name == "staying":
		ns.Name = key.Name
		return nil
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, key.Name)
}

func TestNamespaceTerminatingFrom(t *testing.T) {
	lookup := NamespaceTerminatingFrom(terminatingReader{})
	for name, want := range map[string]bool{"leaving": true, "staying": false, "gone": false} {
		if got, err := lookup(t.Context(), name); err != nil || got != want {
			t.Errorf("%s: %t, %v; want %t", name, got, err, want)
		}
	}
	if _, err := NamespaceTerminatingFrom(terminatingReader{err: errLookup})(t.Context(), "leaving"); !errors.Is(err, errLookup) {
		t.Errorf("a failed lookup: %v", err)
	}
}
