package controllers

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// retryUnbound runs a delete again while the API server's authorizer has
// not yet seen the role binding made a moment ago: RBAC's refusal then
// comes before the webhook's, and says nothing of the pin.
func retryUnbound(t *testing.T, do func() error) error {
	t.Helper()
	err := do()
	for deadline := time.Now().Add(10 * time.Second); apierrors.IsForbidden(err) && strings.Contains(err.Error(), "cannot delete") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		err = do()
	}
	return err
}

// TestAPinAwaitingReviewIsNotErasedByItsOwner: after a rug pull, a pin
// awaits review and holds no decision yet. Deleting it would have the
// next probe meet a brand-new tool and trust the changed definition on
// first use, so whoever may delete toolpins (a server owner) is refused,
// one by one and as a collection, as for a pin holding decisions; so is a
// removed pin, which keeps the definition last seen, and a trusted pin
// without decisions. An administrator may delete any.
func TestAPinAwaitingReviewIsNotErasedByItsOwner(t *testing.T) {
	ns := testNamespace(t)
	changed := changedPin(t, ns, "notes", "rename_note", "Renames one note of the notebook.")
	if n := len(changed.Status.Decisions); n != 0 {
		t.Fatalf("the rug-pulled pin must hold no decision for this test, it holds %d", n)
	}

	// A second server: one tool stays trusted, the other leaves the
	// catalogue (renamed) and its pin becomes Removed.
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "count_notes", Description: "Counts the notes of the notebook."},
		&mcp.Tool{Name: "export_note", Description: "Exports one note of the notebook as text."},
	)
	other := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "shelf", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	}
	create(t, other)
	eventually(t, "both tools are trusted on first use", func() (bool, string) {
		a, err1 := getPin(t, ns, "shelf", "count_notes")
		b, err2 := getPin(t, ns, "shelf", "export_note")
		if err := errors.Join(err1, err2); err != nil {
			return false, err.Error()
		}
		return a.Status.State == toolgatev1alpha1.PinTrusted && b.Status.State == toolgatev1alpha1.PinTrusted, fmt.Sprint(a.Status.State, b.Status.State)
	})
	fixture.setRewrite(func(b []byte) []byte {
		return []byte(strings.ReplaceAll(string(b), `"name":"export_note"`, `"name":"export_notes"`))
	})
	reprobe(t, other, "6m")
	var removed, trusted *toolgatev1alpha1.ToolPin
	eventually(t, "the renamed tool's pin is Removed", func() (bool, string) {
		r, err1 := getPin(t, ns, "shelf", "export_note")
		k, err2 := getPin(t, ns, "shelf", "count_notes")
		removed, trusted = r, k
		if err := errors.Join(err1, err2); err != nil {
			return false, err.Error()
		}
		return r.Status.State == toolgatev1alpha1.PinRemoved && len(r.Status.Decisions) == 0, string(r.Status.State)
	})

	owner := userWithRole(t, "owen", "toolpin-deleter-owner", []string{"toolpins"}, []string{"get", "list", "delete", "deletecollection"})
	for _, c := range []struct {
		pin  *toolgatev1alpha1.ToolPin
		want string
	}{
		{changed, "is AwaitingReview"},
		{removed, "is Removed"},
	} {
		err := retryUnbound(t, func() error { return owner.Delete(t.Context(), c.pin.DeepCopy()) })
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "only a toolgate administrator may delete it") {
			t.Errorf("a server owner deleting %s (%s): %v", c.pin.Name, c.pin.Status.State, err)
		}
	}
	err := retryUnbound(t, func() error {
		return owner.DeleteAllOf(t.Context(), &toolgatev1alpha1.ToolPin{}, client.InNamespace(ns))
	})
	if err == nil || !strings.Contains(err.Error(), "only a toolgate administrator") {
		t.Errorf("a server owner deleting the collection: %v", err)
	}
	// Nor is a cluster administrator a toolgate administrator.
	if err := env.Client.Delete(t.Context(), changed.DeepCopy()); err == nil || !strings.Contains(err.Error(), "is AwaitingReview") {
		t.Errorf("a cluster administrator deleted a pin awaiting review: %v", err)
	}

	// The review stands: the next probe still meets the pin, which still
	// waits for a human rather than trusting the change on first use.
	notes := &toolgatev1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Name: "notes", Namespace: ns}}
	reprobe(t, notes, "7m")
	eventually(t, "the server is probed again", func() (bool, string) {
		var got toolgatev1alpha1.MCPServer
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(notes), &got); err != nil {
			return false, err.Error()
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionReady, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, got.Generation)
	})
	if p, err := getPin(t, ns, "notes", "rename_note"); err != nil || p.UID != changed.UID || p.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Fatalf("after the refused deletes and a probe, the pin is %+v (%v), want the same pin AwaitingReview", p.Status.State, err)
	}
	if !pinExists(t, removed) {
		t.Error("the removed pin is gone")
	}

	// Nor a trusted pin without decisions: deleted, the next probe would
	// trust on first use whatever the server sends then.
	if err := retryUnbound(t, func() error { return owner.Delete(t.Context(), trusted.DeepCopy()) }); err == nil || !strings.Contains(err.Error(), "pins the definition of tool") {
		t.Errorf("a server owner deleted a trusted pin without decisions: %v", err)
	}

	admin := userWithRole(t, "ada", "toolpin-deleter-admin", []string{"toolpins"}, []string{"get", "list", "delete"}, testAdminGroup)
	for _, p := range []*toolgatev1alpha1.ToolPin{changed, removed, trusted} {
		if err := retryUnbound(t, func() error { return admin.Delete(t.Context(), p.DeepCopy()) }); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("an administrator deleting %s: %v", p.Name, err)
		}
	}
}
