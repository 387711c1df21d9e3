package controllers

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/pinwriter"
	"github.com/toolgate/toolgate/internal/testenv"
)

// operatorClient acts as the operator, the only writer of pending calls:
// here it stands in for a gate server replica that opened calls and died.
func operatorClient(t *testing.T) client.Client {
	t.Helper()
	cfg, err := env.UserBoundToClusterRole(testenv.OperatorUser, filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Client.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExpiredCallsLeaveWithoutAnotherCall: calls left pending by a gate
// server that died are resolved Expired by the ToolPin controller shortly
// after their expiry, with no other write on the pin to trigger it; a call
// whose time has not come stays.
func TestExpiredCallsLeaveWithoutAnotherCall(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t, &mcp.Tool{Name: "deploy", Description: "Deploys the service."})
	create(t, &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "ops", Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	})
	var pin *toolgatev1alpha1.ToolPin
	eventually(t, "the tool is trusted on first use", func() (bool, string) {
		p, err := getPin(t, ns, "ops", "deploy")
		pin = p
		return err == nil && p.Status.State == toolgatev1alpha1.PinTrusted, fmt.Sprint(err)
	})

	now := time.Now().UTC().Truncate(time.Second)
	call := func(id string, expiry time.Time) toolgatev1alpha1.PendingCall {
		return toolgatev1alpha1.PendingCall{
			ID: id, Fingerprint: pin.Status.ObservedFingerprint,
			ArgumentsDigest: "sha256:2222222222222222222222222222222222222222222222222222222222222222",
			Agent:           toolgatev1alpha1.AgentIdentity{Namespace: "agents", Pod: "agent-0", ServiceAccount: "agent"},
			RequestedTime:   metav1.NewTime(now.Add(-time.Minute)), ExpiryTime: metav1.NewTime(expiry),
		}
	}
	dueSoon := now.Add(3 * time.Second)
	// Opened as a gate server replica opens them, through the one writer
	// of pins: the controllers may still be writing the pin they just
	// trusted, and the writer reads it again and decides again on a
	// conflict, as in the operator.
	pins := pinwriter.Writer{Client: operatorClient(t)}
	for _, c := range []toolgatev1alpha1.PendingCall{call("left-by-a-dead-replica", dueSoon), call("still-waiting", now.Add(time.Hour))} {
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: pin.Namespace, Name: pin.Name}}
		if _, err := pins.Write(t.Context(), target, pinrecord.CallOpened{Call: c}, metav1.NewTime(now)); err != nil {
			t.Fatalf("recording pending call %s: %v", c.ID, err)
		}
	}

	var st toolgatev1alpha1.ToolPinStatus
	eventually(t, "the expired call leaves the pending list", func() (bool, string) {
		p, err := getPin(t, ns, "ops", "deploy")
		if err != nil {
			return false, err.Error()
		}
		st = p.Status
		return lifecycle.PendingCall(&st, "left-by-a-dead-replica") == nil, fmt.Sprintf("%d pending", len(st.PendingCalls))
	})
	r := lifecycle.ResolvedCall(&st, "left-by-a-dead-replica")
	if r == nil || r.Verdict != toolgatev1alpha1.CallExpired {
		t.Fatalf("the record of the expired call: %+v, want Expired", r)
	}
	if due := dueSoon.Add(lifecycle.CallExpiryGrace); r.ResolvedTime.Before(&metav1.Time{Time: due.Add(-time.Second)}) {
		t.Fatalf("resolved at %v, before its expiry and grace (%v): the replica holding it had no time to", r.ResolvedTime, due)
	}
	if lifecycle.PendingCall(&st, "still-waiting") == nil {
		t.Fatal("a call whose expiry is an hour away left the pending list")
	}
	if st.State != toolgatev1alpha1.PinTrusted {
		t.Fatalf("expiring a call changed the pin's state to %s", st.State)
	}
	eventually(t, "an Event says the call expired", func() (bool, string) {
		var list eventsv1.EventList
		if err := env.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Reason == toolgatev1alpha1.ReasonCallResolved && e.Regarding.Name == pin.Name {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(list.Items))
	})
}
