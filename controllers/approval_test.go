package controllers

import (
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
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
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
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
	return c.Status().Patch(t.Context(), target, client.RawPatch(types.JSONPatchType, body))
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
	p, _ := getPin(t, ns, "trash", "delete_note")
	if p.Status.State != toolgatev1alpha1.PinAwaitingReview {
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
	time.Sleep(500 * time.Millisecond)
	p, _ := getPin(t, ns, "vault", "delete_secret")
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
	var pin *toolgatev1alpha1.ToolPin
	eventually(t, "trusted", func() (bool, string) {
		p, err := getPin(t, ns, "contacts", "export_contacts")
		pin = p
		return err == nil && p.Status.State == toolgatev1alpha1.PinTrusted, fmt.Sprint(err)
	})
	if err := decide(t, approver(t, "liam"), pin, map[string]any{"action": "Reject", "fingerprint": string(pin.Status.ObservedFingerprint)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "rejected", func() (bool, string) {
		p, _ := getPin(t, ns, "contacts", "export_contacts")
		return p.Status.State == toolgatev1alpha1.PinRejected, string(p.Status.State)
	})
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
