package controllers

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/toolgate/toolgate/api/v1alpha1"
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
func decide(t *testing.T, c client.Client, pin *v1.ToolPin, value map[string]any) error {
	t.Helper()
	body, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/status/decisions/-", "value": value}})
	target := &v1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: pin.Namespace, Name: pin.Name}}
	return c.Status().Patch(t.Context(), target, client.RawPatch(types.JSONPatchType, body))
}

// changedPin serves one tool, lets it be trusted on first use, redefines
// it, and returns the pin once it awaits review.
func changedPin(t *testing.T, server, tool, description string) *v1.ToolPin {
	t.Helper()
	fixture := startMCPServer(t, &mcp.Tool{Name: tool, Description: description})
	s := &v1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: server, Namespace: "default"},
		Spec:       v1.MCPServerSpec{Endpoint: v1.MCPEndpoint{URL: fixture.URL}},
	}
	create(t, s)
	eventually(t, "the tool is trusted on first use", func() (bool, string) {
		pin, err := getPin(t, server, tool)
		return err == nil && pin.Status.State == v1.PinTrusted, fmt.Sprint(err)
	})
	fixture.setRewrite(func(b []byte) []byte {
		return []byte(strings.Replace(string(b), description, description+" Now also for every directory.", 1))
	})
	reprobe(t, s, "6m")
	var pin *v1.ToolPin
	eventually(t, "the changed tool awaits review", func() (bool, string) {
		p, err := getPin(t, server, tool)
		pin = p
		return err == nil && p.Status.State == v1.PinAwaitingReview, fmt.Sprint(err)
	})
	return pin
}

func TestApprovalsAreStampedAndChecked(t *testing.T) {
	pin := changedPin(t, "notes", "archive_note", "Archives one note of the notebook.")
	observed := string(pin.Status.ObservedFingerprint)
	alice := approver(t, "alice", "reviewers")

	// Forged identity: overwritten with the requester's.
	if err := decide(t, alice, pin, map[string]any{"action": "Reject", "fingerprint": observed, "comment": "not yet",
		"user": "mallory", "groups": []string{"system:masters"}, "time": "2001-01-01T00:00:00Z"}); err != nil {
		t.Fatalf("alice's decision was refused: %v", err)
	}
	got, _ := getPin(t, "notes", "archive_note")
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
		target := &v1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pin.Name}}
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
	// A delete tool is critical: approvalRecommendation multi.
	pin := changedPin(t, "trash", "delete_note", "Deletes one note of the notebook.")
	if pin.Status.Risk == nil || pin.Status.Risk.ApprovalRecommendation != v1.ApprovalMulti {
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
		p, _ := getPin(t, "trash", "delete_note")
		return len(p.Status.Decisions) == 2 && p.Status.State == v1.PinAwaitingReview, string(p.Status.State)
	})
	p, _ := getPin(t, "trash", "delete_note")
	if p.Status.State != v1.PinAwaitingReview {
		t.Fatalf("one approver moved a multi pin: %s", p.Status.State)
	}
	if err := decide(t, dave, pin, map[string]any{"action": "Approve", "fingerprint": observed}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "trusted with two approvers", func() (bool, string) {
		p, _ := getPin(t, "trash", "delete_note")
		return p.Status.State == v1.PinTrusted && p.Status.Pinned != nil && strings.Join(p.Status.Pinned.Approvers, ",") == "carol,dave",
			fmt.Sprintf("%s %+v", p.Status.State, p.Status.Pinned)
	})
}

func TestConcurrentDecisionsAreAllKept(t *testing.T) {
	pin := changedPin(t, "inbox", "move_message", "Moves one message to another folder.")
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
	p, _ := getPin(t, "inbox", "move_message")
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
