package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// eventuallyTimeout bounds every wait on a controller: long enough for a
// probe, a pin write and a status write to land on a loaded two-core
// machine that runs other packages' control planes too. A wait that
// succeeds returns as soon as its condition holds, so only a failing test
// pays for it.
const eventuallyTimeout = 60 * time.Second

// eventually polls cond every 50ms until it holds or eventuallyTimeout
// passes.
func eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(eventuallyTimeout)
	var last string
	for time.Now().Before(deadline) {
		ok, detail := cond()
		if ok {
			return
		}
		last = detail
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting until %s; last seen: %s", what, last)
}

// conflictBackoff paces a test's retries of a write that conflicted with a
// controller's: a dozen attempts over about five seconds, enough for the
// controllers to stop writing the object on a loaded machine.
var conflictBackoff = wait.Backoff{Steps: 12, Duration: 10 * time.Millisecond, Factor: 1.6, Jitter: 0.1}

// retryOnConflict runs write, which must read the object afresh, again
// while it fails with a conflict: the controllers write the same objects,
// and a write made with a resourceVersion loses to theirs.
func retryOnConflict(t testing.TB, what string, write func() error) {
	t.Helper()
	if err := retry.RetryOnConflict(conflictBackoff, write); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func create(t testing.TB, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T: %v", obj, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = env.Client.Delete(ctx, obj)
		// envtest runs no garbage collector: delete the pins a server owns,
		// as the cluster would, so a repeated run starts clean.
		if s, ok := obj.(*toolgatev1alpha1.MCPServer); ok {
			_ = env.Client.DeleteAllOf(ctx, &toolgatev1alpha1.ToolPin{}, client.InNamespace(s.Namespace),
				client.MatchingLabels{"toolgate.dev/server": s.Name})
		}
	})
}

// conditionIs reports whether conds hold condType with the status and reason,
// observed at generation.
func conditionIs(conds []metav1.Condition, condType string, status metav1.ConditionStatus, reason string, generation int64) (bool, string) {
	c := meta.FindStatusCondition(conds, condType)
	if c == nil {
		return false, "no " + condType + " condition"
	}
	ok := c.Status == status && c.Reason == reason && c.ObservedGeneration == generation && c.Message != ""
	return ok, c.Type + "=" + string(c.Status) + " " + c.Reason + ": " + c.Message
}

// TestConditionsBeforeWork checks that each reconciler says, with a reason,
// what it knows: an unreachable server is not Ready, nor is a policy that
// uses only it, and a pin never observed is Unknown — nothing claims Ready
// without cause.
func TestConditionsBeforeWork(t *testing.T) {
	ns := testNamespace(t)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "unprobed", Namespace: ns},
		Spec: toolgatev1alpha1.MCPServerSpec{
			Endpoint: toolgatev1alpha1.MCPEndpoint{URL: closedURL(t)},
		},
	}
	policy := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "unevaluated", Namespace: ns},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers: []toolgatev1alpha1.ServerReference{{Namespace: ns, Name: "unprobed"}},
		},
	}
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: "unobserved", Namespace: ns},
		Spec: toolgatev1alpha1.ToolPinSpec{
			ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "unprobed"}, ToolName: "list_things",
		},
	}
	create(t, server)
	create(t, policy)
	// Only the operator creates ToolPins.
	createAs(t, asOperator(t), pin)

	eventually(t, "the unreachable MCPServer is not Ready and says why", func() (bool, string) {
		var got toolgatev1alpha1.MCPServer
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(server), &got); err != nil {
			return false, err.Error()
		}
		if got.Status.ObservedGeneration != got.Generation || got.Status.LastProbeTime == nil {
			return false, "not probed yet"
		}
		if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, "Unreachable", got.Generation); !ok {
			return false, d
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReachable, metav1.ConditionFalse, "Unreachable", got.Generation)
	})
	// The policy is accepted (its server exists and admits it), but not
	// Ready: its only server is not, so nothing is exposed.
	eventually(t, "the ToolPolicy is Accepted and not Ready, and says why", func() (bool, string) {
		var got toolgatev1alpha1.ToolPolicy
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(policy), &got); err != nil {
			return false, err.Error()
		}
		if ok, d := conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionAccepted, metav1.ConditionTrue, toolgatev1alpha1.ReasonAccepted, got.Generation); !ok {
			return false, d
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonServersNotReady, got.Generation)
	})
	// A spec edit is evaluated at once: a condition must never look as if
	// it spoke of an older spec.
	// A merge patch, not an Update: the controller writes status meanwhile,
	// and an Update would race it on the resourceVersion.
	var edited toolgatev1alpha1.ToolPolicy
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(policy), &edited); err != nil {
		t.Fatal(err)
	}
	base := edited.DeepCopy()
	edited.Spec.MaxLevel = toolgatev1alpha1.LevelLow
	if err := env.Client.Patch(t.Context(), &edited, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the edited ToolPolicy's condition speaks of its new generation", func() (bool, string) {
		var got toolgatev1alpha1.ToolPolicy
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(policy), &got); err != nil {
			return false, err.Error()
		}
		if got.Generation < 2 {
			return false, "the edit did not land"
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonServersNotReady, got.Generation)
	})
	eventually(t, "the ToolPin has Ready Unknown, no state and an empty decisions list", func() (bool, string) {
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(pin), &got); err != nil {
			return false, err.Error()
		}
		if got.Status.State != "" {
			return false, "state " + string(got.Status.State) + " before any probe"
		}
		if got.Status.Decisions == nil {
			return false, "decisions absent"
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReady, metav1.ConditionUnknown, toolgatev1alpha1.ReasonAwaitingProbe, got.Generation)
	})
}

// testNamespace creates a namespace of the test's own, so that no test
// sees another's servers, pins, events or metrics series.
func testNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix(t.Name())}}
	if err := env.Client.Create(t.Context(), ns); err != nil {
		t.Fatalf("creating the test's namespace: %v", err)
	}
	// envtest runs no namespace controller: the namespace stays, but what
	// each test created in it is deleted by its own cleanup.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = env.Client.Delete(ctx, ns)
	})
	return ns.Name
}

// namespacePrefix is a DNS label prefix made from a test's name.
func namespacePrefix(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return strings.TrimSuffix(b.String(), "-") + "-"
}
