package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// approver returns a client acting as a user who holds the shipped
// toolgate-approver ClusterRole.
func approver(t *testing.T, user string, groups ...string) client.Client {
	t.Helper()
	cfg, err := env.UserBoundToClusterRole(user, filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml"), groups...)
	if err != nil {
		t.Fatal(err)
	}
	// The administrator's REST mapper: an identity outside
	// system:authenticated (system:anonymous) may not read discovery.
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Client.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// decide appends one decision as c.
func decide(t *testing.T, c client.Client, pin *toolgatev1alpha1.ToolPin, value map[string]any) error {
	t.Helper()
	body, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/status/decisions/-", "value": value}})
	target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: pin.Namespace, Name: pin.Name}}
	err := c.Status().Patch(t.Context(), target, client.RawPatch(types.JSONPatchType, body))
	// A binding made a moment ago may not have reached the API server's
	// authorizer yet: RBAC's refusal then comes before the webhooks'.
	for deadline := time.Now().Add(10 * time.Second); apierrors.IsForbidden(err) && strings.Contains(err.Error(), "cannot patch resource") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		err = c.Status().Patch(t.Context(), target.DeepCopy(), client.RawPatch(types.JSONPatchType, body))
	}
	return err
}

// settledPin runs the ToolPin controller's pass over a tool's pin once,
// here and now, as the operator, and returns the pin as it then is: what
// the decisions recorded so far mean has been applied to it. A test that
// asserts a decision did not move a pin reads it through this; after a
// sleep, it could read a pin the manager had not reconciled yet and pass
// whatever the controller would do. The manager's controllers write the
// pin too; the pass, as in the operator, reads it again and decides again
// when they got there first.
func settledPin(t *testing.T, ns, server, tool string) *toolgatev1alpha1.ToolPin {
	t.Helper()
	r := &ToolPinReconciler{Client: operatorClient(t), Scheme: env.Scheme, RequiredApprovers: 2}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: lifecycle.PinName(server, tool)}}
	if _, err := r.Reconcile(t.Context(), req); err != nil {
		t.Fatalf("reconciling the pin: %v", err)
	}
	p, err := getPin(t, ns, server, tool)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rejectOnceTrusted waits until a tool is trusted on first use, has the
// reviewer reject it, and waits until the rejection applies.
func rejectOnceTrusted(t *testing.T, ns, server, tool, reviewer string) {
	t.Helper()
	var pin *toolgatev1alpha1.ToolPin
	eventually(t, tool+" is trusted on first use", func() (bool, string) {
		p, err := getPin(t, ns, server, tool)
		pin = p
		return err == nil && p.Status.State == toolgatev1alpha1.PinTrusted, fmt.Sprint(err)
	})
	if err := decide(t, approver(t, reviewer), pin, map[string]any{"action": "Reject", "fingerprint": string(pin.Status.ObservedFingerprint)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, tool+" is rejected", func() (bool, string) {
		p, _ := getPin(t, ns, server, tool)
		return p.Status.State == toolgatev1alpha1.PinRejected, string(p.Status.State)
	})
}

// changedPin serves one tool, lets it be trusted on first use, redefines
// it, and returns the pin once it awaits review.
func changedPin(t *testing.T, ns, server, tool, description string) *toolgatev1alpha1.ToolPin {
	t.Helper()
	fixture := startMCPServer(t, &mcp.Tool{Name: tool, Description: description})
	s := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: server, Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	}
	create(t, s)
	eventually(t, "the tool is trusted on first use", func() (bool, string) {
		pin, err := getPin(t, ns, server, tool)
		return err == nil && pin.Status.State == toolgatev1alpha1.PinTrusted, fmt.Sprint(err)
	})
	fixture.setRewrite(func(b []byte) []byte {
		return []byte(strings.Replace(string(b), description, description+" Now also for every directory.", 1))
	})
	reprobe(t, s, "6m")
	var pin *toolgatev1alpha1.ToolPin
	eventually(t, "the changed tool awaits review", func() (bool, string) {
		p, err := getPin(t, ns, server, tool)
		pin = p
		return err == nil && p.Status.State == toolgatev1alpha1.PinAwaitingReview, fmt.Sprint(err)
	})
	return pin
}

func TestApprovalsAreStampedAndChecked(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "notes", "archive_note", "Archives one note of the notebook.")
	observed := string(pin.Status.ObservedFingerprint)
	alice := approver(t, "alice", "reviewers")

	// Forged identity: overwritten with the requester's.
	if err := decide(t, alice, pin, map[string]any{"action": "Reject", "fingerprint": observed, "comment": "not yet",
		"user": "mallory", "groups": []string{"system:masters"}, "time": "2001-01-01T00:00:00Z"}); err != nil {
		t.Fatalf("alice's decision was refused: %v", err)
	}
	got, _ := getPin(t, ns, "notes", "archive_note")
	d := got.Status.Decisions[len(got.Status.Decisions)-1]
	if d.User != "alice" || !slices.Contains(d.Groups, "reviewers") || slices.Contains(d.Groups, "system:masters") || d.Time == nil || d.Time.Year() == 2001 {
		t.Fatalf("the decision is not stamped with the requester: %+v", d)
	}

	for _, tc := range []struct {
		name  string
		c     client.Client
		value map[string]any
		want  string
	}{
		{"an old fingerprint", alice, map[string]any{"action": "Approve", "fingerprint": string(pin.Status.Pinned.Fingerprint)}, "the definition observed now is"},
		{"a service account", approver(t, "system:serviceaccount:default:ci"), map[string]any{"action": "Approve", "fingerprint": observed}, "not a configured approver"},
		{"an agent's service account, even when configured", approver(t, "system:serviceaccount:agents:helper"), map[string]any{"action": "Approve", "fingerprint": observed}, "agent namespace"},
		{"an unknown call", alice, map[string]any{"action": "Approve", "fingerprint": observed, "callID": "nope"}, `no pending call "nope"`},
	} {
		err := decide(t, tc.c, pin, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a refusal containing %q", tc.name, err, tc.want)
		}
	}

	// The record is the operator's: no edits of past decisions, no state.
	for name, patch := range map[string]string{
		"editing a past decision":  `[{"op":"replace","path":"/status/decisions/0/action","value":"Approve"}]`,
		"removing a past decision": `[{"op":"remove","path":"/status/decisions/0"}]`,
		"setting the state":        `[{"op":"replace","path":"/status/state","value":"Trusted"}]`,
	} {
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pin.Name}}
		err := alice.Status().Patch(t.Context(), target, client.RawPatch(types.JSONPatchType, []byte(patch)))
		if err == nil || !(strings.Contains(err.Error(), "append-only") || strings.Contains(err.Error(), "only the toolgate operator")) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// A configured approver service account outside agent namespaces may decide.
	if err := decide(t, approver(t, "system:serviceaccount:reviewers:review-bot"), pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Errorf("the configured approver was refused: %v", err)
	}
}

func TestMultiApprovalNeedsTwoPeople(t *testing.T) {
	ns := testNamespace(t)
	// A delete tool is critical: approvalRecommendation multi.
	pin := changedPin(t, ns, "trash", "delete_note", "Deletes one note of the notebook.")
	if pin.Status.Risk == nil || pin.Status.Risk.ApprovalRecommendation != toolgatev1alpha1.ApprovalMulti {
		t.Fatalf("the fixture must need multi approval: %+v", pin.Status.Risk)
	}
	observed := string(pin.Status.ObservedFingerprint)
	carol, dave := approver(t, "carol"), approver(t, "dave")

	for range 2 { // one person twice counts once
		if err := decide(t, carol, pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "two decisions recorded, still awaiting review", func() (bool, string) {
		p, _ := getPin(t, ns, "trash", "delete_note")
		return len(p.Status.Decisions) == 2 && p.Status.State == toolgatev1alpha1.PinAwaitingReview, string(p.Status.State)
	})
	if p := settledPin(t, ns, "trash", "delete_note"); p.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Fatalf("one approver moved a multi pin: %s", p.Status.State)
	}
	if err := decide(t, dave, pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "trusted with two approvers", func() (bool, string) {
		p, _ := getPin(t, ns, "trash", "delete_note")
		return p.Status.State == toolgatev1alpha1.PinTrusted && p.Status.Pinned != nil && strings.Join(p.Status.Pinned.Approvers, ",") == "carol,dave",
			fmt.Sprintf("%s %+v", p.Status.State, p.Status.Pinned)
	})
}

func TestConcurrentDecisionsAreAllKept(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "inbox", "move_message", "Moves one message to another folder.")
	observed := string(pin.Status.ObservedFingerprint)
	users := []string{"erin", "frank", "grace", "heidi"}
	clients := make([]client.Client, len(users))
	for i, u := range users {
		clients[i] = approver(t, u)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(users))
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = decide(t, clients[i], pin, map[string]any{"action": "Reject", "fingerprint": observed, "comment": users[i]})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", users[i], err)
		}
	}
	p, _ := getPin(t, ns, "inbox", "move_message")
	var who []string
	for _, d := range p.Status.Decisions {
		who = append(who, d.User)
	}
	slices.Sort(who)
	if !slices.Equal(who, users) {
		t.Fatalf("decisions kept: %v, want %v", who, users)
	}
}

func init() {
	// The agent namespace the webhook must recognise.
	agentNamespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "agents", Labels: map[string]string{"toolgate.dev/injection": "enabled"}}}
}

var agentNamespace *corev1.Namespace

// TestReviewedAbuses holds fixes of ways around the review a code review
// found.
func TestReviewedAbuses(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "vault", "delete_secret", "Deletes one secret of the vault.")
	observed := string(pin.Status.ObservedFingerprint)

	// An override (even one that only renames the category) does not lower
	// the approvals a change needs, and the risk survives the approval.
	patch := []byte(`{"spec":{"override":{"category":"delete","reason":"one secret at a time"}}}`)
	if err := env.Client.Patch(t.Context(), pin.DeepCopy(), client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	if err := decide(t, approver(t, "kate"), pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Fatal(err)
	}
	// A configured approver service account does not make a second person.
	if err := decide(t, approver(t, "system:serviceaccount:reviewers:review-bot"), pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the decisions are recorded", func() (bool, string) {
		p, _ := getPin(t, ns, "vault", "delete_secret")
		return len(p.Status.Decisions) == 2, fmt.Sprint(len(p.Status.Decisions))
	})
	p := settledPin(t, ns, "vault", "delete_secret")
	if p.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Fatalf("one person and a service account approved a multi tool: %s", p.Status.State)
	}
	if p.Status.Risk == nil || p.Status.ComputedRisk == nil || !p.Status.Risk.Overridden || len(p.Status.Risk.Reasons) > len(p.Status.ComputedRisk.Reasons)+1 {
		t.Fatalf("risk %+v / computed %+v", p.Status.Risk, p.Status.ComputedRisk)
	}

	// Nobody may drop the decisions list.
	target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pin.Name}}
	err := approver(t, "kate").Status().Patch(t.Context(), target, client.RawPatch(types.MergePatchType, []byte(`{"status":{"decisions":null}}`)))
	if err == nil || !strings.Contains(err.Error(), "append-only") && !strings.Contains(err.Error(), "cannot be removed") {
		t.Errorf("dropping the decisions: %v", err)
	}
}

func TestOverrideIsForPeople(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "mail", "send_mail", "Sends one email to one recipient.")
	role := filepath.Join(t.TempDir(), "editor.yaml")
	if err := os.WriteFile(role, []byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: toolpin-editor}
rules:
- apiGroups: [toolgate.dev]
  resources: [toolpins]
  verbs: [get, list, watch, update, patch]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := env.UserBoundToClusterRole("system:serviceaccount:default:ci-bot", role)
	if err != nil {
		t.Fatal(err)
	}
	bot, _ := client.New(cfg, client.Options{Scheme: env.Scheme})
	patch := []byte(`{"spec":{"override":{"level":"L1","reason":"trust me"}}}`)
	err = bot.Patch(t.Context(), pin.DeepCopy(), client.RawPatch(types.MergePatchType, patch))
	if err == nil || !strings.Contains(err.Error(), "spec.override is a human classification") {
		t.Fatalf("a service account set an override: %v", err)
	}
}

func TestRemovedThenRenamedIsNotLaundered(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "export_contacts", Description: "Exports every contact of the address book to a file."},
		&mcp.Tool{Name: "ping", Description: "Checks that the server answers."},
	)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "contacts", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	}
	create(t, server)
	rejectOnceTrusted(t, ns, "contacts", "export_contacts", "liam")
	// First the tool disappears...
	fixture.setRewrite(func(b []byte) []byte {
		var msg map[string]any
		if err := json.Unmarshal(b, &msg); err != nil {
			return b
		}
		res := msg["result"].(map[string]any)
		var kept []any
		for _, tl := range res["tools"].([]any) {
			if tl.(map[string]any)["name"] != "export_contacts" {
				kept = append(kept, tl)
			}
		}
		res["tools"] = kept
		out, _ := json.Marshal(msg)
		return out
	})
	reprobe(t, server, "6m")
	eventually(t, "removed", func() (bool, string) {
		p, _ := getPin(t, ns, "contacts", "export_contacts")
		return p.Status.State == toolgatev1alpha1.PinRemoved, string(p.Status.State)
	})
	// ...then it comes back under another name.
	fixture.setRewrite(func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"export_contacts"`, `"backup_contacts"`, 1))
	})
	reprobe(t, server, "7m")
	eventually(t, "the renamed copy awaits review", func() (bool, string) {
		p, err := getPin(t, ns, "contacts", "backup_contacts")
		return err == nil && p.Status.State == toolgatev1alpha1.PinAwaitingReview, fmt.Sprint(err)
	})
}

// asOperator returns a client acting as the operator, with the generated
// ClusterRole: the only identity that creates ToolPins.
func asOperator(t *testing.T) client.Client {
	t.Helper()
	cfg, err := env.UserBoundToClusterRole(testenv.OperatorUser, filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createAs creates obj as c and deletes it as c when the test ends.
func createAs(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T: %v", obj, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Delete(ctx, obj)
	})
}

// userWithRole returns a client acting as user (in groups), bound to a
// ClusterRole named role that grants verbs on toolgate's resources.
func userWithRole(t *testing.T, user, role string, resources, verbs []string, groups ...string) client.Client {
	t.Helper()
	file := filepath.Join(t.TempDir(), role+".yaml")
	manifest := fmt.Sprintf("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: %s}\nrules:\n- apiGroups: [toolgate.dev]\n  resources: [%s]\n  verbs: [%s]\n",
		role, strings.Join(resources, ", "), strings.Join(verbs, ", "))
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := env.UserBoundToClusterRole(user, file, groups...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pinExists reports whether the pin is still there.
func pinExists(t *testing.T, pin *toolgatev1alpha1.ToolPin) bool {
	t.Helper()
	err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(pin), &toolgatev1alpha1.ToolPin{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestPinWithDecisionsIsDeletedOnlyByAdministrators: a namespace
// user who may delete toolpins (as server owners may) deleted a rejected
// pin, and the next probe trusted the tool on first use again. Now the
// webhook on DELETE refuses that, one by one and as a collection, for
// everyone but the configured administrators and the operator; so is a
// trusted pin without decisions, which the next probe would otherwise
// trust on first use again, whatever the server then sends.
func TestPinWithDecisionsIsDeletedOnlyByAdministrators(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "purge_cache", Description: "Purges the whole cache of the service."},
		&mcp.Tool{Name: "cache_stats", Description: "Reports the cache's hit rate."},
		&mcp.Tool{Name: "flush_keys", Description: "Flushes every key of one cache region."},
	)
	create(t, &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	})
	var decided, undecided, flush *toolgatev1alpha1.ToolPin
	eventually(t, "the tools are pinned", func() (bool, string) {
		d, err1 := getPin(t, ns, "cache", "purge_cache")
		u, err2 := getPin(t, ns, "cache", "cache_stats")
		f, err3 := getPin(t, ns, "cache", "flush_keys")
		decided, undecided, flush = d, u, f
		return err1 == nil && err2 == nil && err3 == nil && d.Status.ObservedFingerprint != "" && u.Status.ObservedFingerprint != "" && f.Status.ObservedFingerprint != "",
			fmt.Sprint(err1, err2, err3)
	})
	nina := approver(t, "nina", "reviewers")
	for _, p := range []*toolgatev1alpha1.ToolPin{decided, flush} {
		if err := decide(t, nina, p, map[string]any{"action": "Reject", "fingerprint": string(p.Status.ObservedFingerprint)}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "rejected", func() (bool, string) {
		p, _ := getPin(t, ns, "cache", "purge_cache")
		return p.Status.State == toolgatev1alpha1.PinRejected, string(p.Status.State)
	})

	verbs := []string{"get", "list", "delete", "deletecollection"}
	owner := userWithRole(t, "oscar", "toolpin-deleter", []string{"toolpins"}, verbs)
	err := owner.Delete(t.Context(), decided.DeepCopy())
	if err == nil || !strings.Contains(err.Error(), "only a toolgate administrator may delete it") {
		t.Fatalf("a server owner deleted a pin with decisions: %v", err)
	}
	err = owner.DeleteAllOf(t.Context(), &toolgatev1alpha1.ToolPin{}, client.InNamespace(ns))
	if err == nil || !strings.Contains(err.Error(), "only a toolgate administrator") {
		t.Errorf("a delete of the collection: %v", err)
	}
	// A cluster administrator is not a toolgate administrator unless
	// configured as one.
	if err := env.Client.Delete(t.Context(), decided.DeepCopy()); err == nil || !strings.Contains(err.Error(), "only a toolgate administrator") {
		t.Errorf("a cluster administrator deleted a pin with decisions: %v", err)
	}
	if !pinExists(t, decided) {
		t.Fatal("the rejected pin is gone")
	}
	// A trusted pin without decisions is the record of what agents are
	// given: erased, the server's owner could redefine the tool before
	// the next probe trusts it on first use.
	if err := owner.Delete(t.Context(), undecided.DeepCopy()); err == nil || !strings.Contains(err.Error(), "pins the definition of tool") {
		t.Errorf("a server owner deleted a trusted pin without decisions: %v", err)
	}

	admin := userWithRole(t, "paula", "toolpin-deleter", []string{"toolpins"}, verbs, testAdminGroup)
	if err := admin.Delete(t.Context(), decided.DeepCopy()); err != nil {
		t.Fatalf("an administrator was refused: %v", err)
	}

	// A namespace being deleted takes its pins along (envtest runs no
	// namespace controller: the namespace stays terminating, and the
	// deletes it would make are made here).
	if err := env.Client.Delete(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := owner.Delete(t.Context(), flush.DeepCopy()); err != nil {
		t.Fatalf("a pin with decisions in a namespace being deleted: %v", err)
	}
}

// TestOnlyTheOperatorCreatesPins: a namespace user created a
// ToolPin by hand, classifying a tool not yet seen at L0, or taking the
// name the operator would give a tool's pin. Now nobody but the operator
// creates one.
func TestOnlyTheOperatorCreatesPins(t *testing.T) {
	ns := testNamespace(t)
	hand := func(name, tool string, override *toolgatev1alpha1.ClassificationOverride) *toolgatev1alpha1.ToolPin {
		return &toolgatev1alpha1.ToolPin{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: toolgatev1alpha1.ToolPinSpec{
				ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "files"}, ToolName: tool, Override: override,
			},
		}
	}
	owner := userWithRole(t, "quentin", "toolpin-creator", []string{"toolpins"}, []string{"get", "create", "patch"})
	for who, c := range map[string]client.Client{"a server owner": owner, "a cluster administrator": env.Client} {
		err := c.Create(t.Context(), hand("files-delete-all-0badc0de", "delete_all", &toolgatev1alpha1.ClassificationOverride{Level: toolgatev1alpha1.LevelVerified, Reason: "harmless"}))
		// Two validating webhooks refuse this one, and the API server calls
		// them in parallel: either refusal may be the one reported.
		if err == nil || !strings.Contains(err.Error(), "ToolPins are created by the toolgate operator only") && !strings.Contains(err.Error(), "spec.override is a human classification") {
			t.Errorf("%s pre-classified a tool: %v", who, err)
		}
		err = c.Create(t.Context(), hand("files-read-file-12345678", "read_file", nil))
		if err == nil || !strings.Contains(err.Error(), "created by the toolgate operator only") {
			t.Errorf("%s squatted a pin's name: %v", who, err)
		}
	}
	createAs(t, asOperator(t), hand("files-read-file-12345678", "read_file", nil))
}

// TestOverrideNeedsTheRightToDecide: anyone with patch on
// toolpins lowered a tool from L5 to L0 with spec.override, and who did
// it was recorded nowhere. Now the webhook asks the API server, with a
// SubjectAccessReview, whether the requester may decide on that pin (patch
// on toolpins/status in its namespace), and the override records who set
// it and when.
func TestOverrideNeedsTheRightToDecide(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "disk", "wipe_disk", "Wipes one disk of the machine.")
	editor := func(user string, groups ...string) client.Client {
		return userWithRole(t, user, "toolpin-editor", []string{"toolpins"}, []string{"get", "list", "watch", "update", "patch"}, groups...)
	}
	setOverride := func(c client.Client, body string) error {
		return c.Patch(t.Context(), &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pin.Name}},
			client.RawPatch(types.MergePatchType, []byte(`{"spec":{"override":`+body+`}}`)))
	}
	get := func() *toolgatev1alpha1.ToolPin {
		p, err := getPin(t, ns, "disk", "wipe_disk")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// A server owner may patch toolpins, but holds no right to decide.
	mallory := editor("mallory")
	err := setOverride(mallory, `{"level":"L0","reason":"trust me"}`)
	if err == nil || !strings.Contains(err.Error(), "mallory may not decide on this tool (patch toolpins/status in "+ns+")") {
		t.Fatalf("a person without the right to decide set an override: %v", err)
	}
	// Someone who decides in another namespace only is refused here: the
	// review asks for this pin's namespace.
	other := testNamespace(t)
	_ = approver(t, "someone-else") // the toolgate-approver ClusterRole exists from here on
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "olivia-approves", Namespace: other},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "toolgate-approver"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "olivia"}},
	}
	if err := env.Client.Create(t.Context(), binding); err != nil {
		t.Fatal(err)
	}
	olivia := editor("olivia")
	if err := setOverride(olivia, `{"level":"L0","reason":"trust me"}`); err == nil || !strings.Contains(err.Error(), "olivia may not decide on this tool") {
		t.Fatalf("an approver of another namespace set an override: %v", err)
	}

	// An approver who may also edit pins sets it, and is recorded, however
	// the stamp was forged.
	rita := editor("rita", "reviewers")
	_ = approver(t, "rita", "reviewers")
	if err := setOverride(rita, `{"level":"L3","reason":"one disk, with a confirmation prompt","setBy":"mallory","setTime":"2001-01-01T00:00:00Z"}`); err != nil {
		t.Fatalf("an approver was refused: %v", err)
	}
	o := get().Spec.Override
	if o == nil || o.SetBy != "rita" || o.SetTime == nil || time.Since(o.SetTime.Time) > time.Minute {
		t.Fatalf("override stamped %+v, want rita, now", o)
	}
	stamp := *o.DeepCopy()

	// The server owner can neither change it, nor clear it, nor take it
	// over, nor forge its author...
	for name, body := range map[string]string{
		"changing the level":  `{"level":"L0","reason":"one disk, with a confirmation prompt"}`,
		"changing the reason": `{"level":"L3","reason":"mallory was here"}`,
		"clearing it":         `null`,
	} {
		if err := setOverride(mallory, body); err == nil || !strings.Contains(err.Error(), "may not decide on this tool") {
			t.Errorf("%s as a server owner: %v", name, err)
		}
	}
	// ...and an unrelated edit keeps the stamp, forged or not.
	if err := setOverride(mallory, `{"setBy":"mallory"}`); err != nil {
		t.Fatalf("an edit that leaves the classification as it is: %v", err)
	}
	if err := mallory.Patch(t.Context(), &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pin.Name}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"example.com/note":"x"}}}`))); err != nil {
		t.Fatalf("an edit of the metadata: %v", err)
	}
	if o := get().Spec.Override; o == nil || o.SetBy != stamp.SetBy || !o.SetTime.Equal(stamp.SetTime) {
		t.Fatalf("the stamp moved: %+v, want %+v", o, stamp)
	}
	eventually(t, "the override applies", func() (bool, string) {
		p := get()
		return p.Status.Risk != nil && p.Status.Risk.Overridden && p.Status.Risk.Level == toolgatev1alpha1.LevelModerate, fmt.Sprintf("%+v", p.Status.Risk)
	})
	// The approver clears it.
	if err := setOverride(rita, `null`); err != nil {
		t.Fatalf("the approver could not clear the override: %v", err)
	}
	if get().Spec.Override != nil {
		t.Fatal("the override is still set")
	}
}

// TestDecisionLogCannotBeExhaustedByOneApprover: one approver
// appended 256 decisions in one request, after which nobody could decide
// on the tool. Now a request appends one decision, one identity appends at
// most MaxDecisionsPerIdentity on one fingerprint, and others can still
// decide.
func TestDecisionLogCannotBeExhaustedByOneApprover(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "queue", "drop_queue", "Drops one queue of the broker.")
	observed := string(pin.Status.ObservedFingerprint)
	sam := approver(t, "sam", "reviewers")

	one := map[string]any{"action": "Reject", "fingerprint": observed}
	ops := make([]map[string]any, toolgatev1alpha1.MaxDecisions)
	for i := range ops {
		ops[i] = map[string]any{"op": "add", "path": "/status/decisions/-", "value": one}
	}
	body, _ := json.Marshal(ops)
	err := sam.Status().Patch(t.Context(), &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pin.Name}}, client.RawPatch(types.JSONPatchType, body))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("append one decision per request: this request appends %d", toolgatev1alpha1.MaxDecisions)) {
		t.Fatalf("the log filled in one request: %v", err)
	}
	for i := range toolgatev1alpha1.MaxDecisionsPerIdentity {
		if err := decide(t, sam, pin, one); err != nil {
			t.Fatalf("decision %d: %v", i+1, err)
		}
	}
	err = decide(t, sam, pin, one)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("sam has already decided %d times on fingerprint %s", toolgatev1alpha1.MaxDecisionsPerIdentity, observed)) {
		t.Fatalf("one approver went past the per-identity bound: %v", err)
	}
	// Someone else still decides on the observed definition.
	if err := decide(t, approver(t, "tess", "reviewers"), pin, map[string]any{"action": "Reject", "fingerprint": observed, "comment": "agreed"}); err != nil {
		t.Fatalf("another approver was blocked: %v", err)
	}
	p, _ := getPin(t, ns, "queue", "drop_queue")
	if n := len(p.Status.Decisions); n != toolgatev1alpha1.MaxDecisionsPerIdentity+1 {
		t.Fatalf("%d decisions kept, want %d", n, toolgatev1alpha1.MaxDecisionsPerIdentity+1)
	}
}

// TestSystemIdentitiesNeverApprove: with a bad binding,
// system:anonymous and other system: identities counted as distinct
// humans for multi. Now they are refused whatever RBAC grants them.
func TestSystemIdentitiesNeverApprove(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "db", "drop_table", "Drops one table of the database.")
	observed := string(pin.Status.ObservedFingerprint)
	for _, id := range []struct {
		user   string
		groups []string
		want   string
	}{
		{"system:anonymous", []string{"system:unauthenticated"}, "system:anonymous is the anonymous user"},
		{"system:node:worker-1", []string{"system:nodes"}, "system:node:worker-1 is a node"},
		{"system:kube-scheduler", nil, "system:kube-scheduler is a Kubernetes system identity"},
		{"system:kube-controller-manager", nil, "system:kube-controller-manager is a Kubernetes system identity"},
	} {
		// Each holds the approver role: the control must not rely on RBAC.
		err := decide(t, approver(t, id.user, id.groups...), pin, map[string]any{"action": "Approve", "fingerprint": observed})
		if err == nil || !strings.Contains(err.Error(), id.want) || !strings.Contains(err.Error(), "decisions are made by people") {
			t.Errorf("%s: got %v, want a refusal containing %q", id.user, err, id.want)
		}
	}
	if err := decide(t, approver(t, "uma"), pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Fatal(err)
	}
	p := settledPin(t, ns, "db", "drop_table")
	if len(p.Status.Decisions) != 1 || p.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Fatalf("state %s with decisions %+v: system identities counted", p.Status.State, p.Status.Decisions)
	}
}

// TestImpersonationApprovesAsTheImpersonated shows what the
// record can and cannot say: an identity allowed to impersonate approved a
// multi tool as two people, and the admission request (so the record)
// names only the impersonated users. Impersonation rights are approval
// rights (docs/lifecycle.md); what the request does say beyond the name,
// the UID and the credential ID, is recorded.
func TestImpersonationApprovesAsTheImpersonated(t *testing.T) {
	ns := testNamespace(t)
	pin := changedPin(t, ns, "repo", "delete_branch", "Deletes one branch of the repository.")
	observed := string(pin.Status.ObservedFingerprint)
	_ = approver(t, "vera")
	_ = approver(t, "walt")
	file := filepath.Join(t.TempDir(), "impersonator.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: toolgate-test-impersonator}\nrules:\n"+
		"- apiGroups: ['']\n  resources: [users]\n  verbs: [impersonate]\n"+
		"- apiGroups: [authentication.k8s.io]\n  resources: [uids, userextras/authentication.kubernetes.io/credential-id]\n  verbs: [impersonate]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := env.UserBoundToClusterRole("ivan", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"vera", "walt"} {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: as, UID: as + "-uid", Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=" + as}}}
		cl, err := client.New(c, client.Options{Scheme: env.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		if err := decide(t, cl, pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
			t.Fatalf("approving as %s: %v", as, err)
		}
	}
	eventually(t, "two impersonated approvals trust the multi tool", func() (bool, string) {
		p, _ := getPin(t, ns, "repo", "delete_branch")
		return p.Status.State == toolgatev1alpha1.PinTrusted, string(p.Status.State)
	})
	p, _ := getPin(t, ns, "repo", "delete_branch")
	for i, as := range []string{"vera", "walt"} {
		d := p.Status.Decisions[i]
		if d.User != as || d.UID != as+"-uid" || d.CredentialID != "JTI="+as || slices.Contains(d.Groups, "ivan") {
			t.Errorf("decision %d records %+v: want %s as the request named them", i, d, as)
		}
	}
}
