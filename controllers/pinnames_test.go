package controllers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// TestServersWhoseNamesSlugAlikeKeepTheirOwnPins: MCPServers of one
// namespace whose names slug alike ("my.db", "my-db", "my--db", …) and
// that offer the same tool all end Ready, each with a pin of its own under
// its own first name. Were a pin's name the slug and a hash of the tool
// name alone, they would share every candidate name: each server would
// take one of another's, and the fifth would find them all held and stay
// not Ready (PinWriteFailed) — one server holding another's future pins.
func TestServersWhoseNamesSlugAlikeKeepTheirOwnPins(t *testing.T) {
	ns := testNamespace(t)
	fixture := startMCPServer(t,
		&mcp.Tool{Name: "query", Description: "Runs one read-only query against the database."},
		&mcp.Tool{Name: "count_rows", Description: "Counts the rows of one table."},
	)
	names := []string{"my.db", "my-db", "my--db", "my---db", "my----db"}
	if n := lifecycle.PinNameCandidates; len(names) <= n {
		t.Fatalf("the test needs more servers (%d) than a tool has candidate names (%d)", len(names), n)
	}
	servers := make([]*toolgatev1alpha1.MCPServer, len(names))
	for i, name := range names {
		servers[i] = &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
		}
		create(t, servers[i])
	}
	for _, s := range servers {
		eventually(t, s.Name+" is Ready", func() (bool, string) {
			c, err := serverReady(t, s)
			if err != nil {
				return false, err.Error()
			}
			return c.Status == metav1.ConditionTrue && c.Reason == toolgatev1alpha1.ReasonProbed, c.Reason + ": " + c.Message
		})
	}
	owner := map[string]string{}
	for _, s := range servers {
		for _, tool := range []string{"query", "count_rows"} {
			var pin *toolgatev1alpha1.ToolPin
			eventually(t, "the pin of "+s.Name+" "+tool, func() (bool, string) {
				p, err := pinOf(t, ns, s.Name, tool)
				pin = p
				if err != nil {
					return false, err.Error()
				}
				return p.Status.State == toolgatev1alpha1.PinTrusted, string(p.Status.State)
			})
			if want := lifecycle.PinName(s.Name, tool); pin.Name != want {
				t.Errorf("the pin of %s %s is %s, not its own first name %s", s.Name, tool, pin.Name, want)
			}
			if other, dup := owner[pin.Name]; dup {
				t.Errorf("%s and %s %s share the pin %s", other, s.Name, tool, pin.Name)
			}
			owner[pin.Name] = s.Name + " " + tool
		}
	}
}

// earlierPinName is the name an earlier operator gave the pin of tool
// get_balance of server ledger: the slug, and a hash of the tool name
// alone.
func earlierPinName() string {
	sum := sha256.Sum256([]byte("get_balance"))
	return "ledger-get-balance-" + hex.EncodeToString(sum[:])[:16]
}

// TestAPinNamedTheEarlierWayKeepsServingItsTool: pins are found by their
// spec, not their name, so a pin an earlier operator created under the
// earlier naming keeps serving its tool after the upgrade: the next probe
// judges the tool against it (a definition other than the one it pinned
// goes to review) and no second pin appears under the new name, which
// would have trusted the changed definition on first use.
func TestAPinNamedTheEarlierWayKeepsServingItsTool(t *testing.T) {
	ns := testNamespace(t)
	const server, tool = "ledger", "get_balance"
	name := earlierPinName()
	if name == lifecycle.PinName(server, tool) {
		t.Fatalf("the earlier name %s is the name of now", name)
	}
	earlier := "sha256:" + strings.Repeat("ab", 32)

	// The server exists before its pin, as it did before the upgrade (the
	// ToolPin controller deletes the pins of a server that is gone), but
	// its probes fail until the pin is in place.
	fixture := startMCPServer(t, &mcp.Tool{Name: tool, Description: "Reads the balance of one account."})
	fixture.setRewrite(func([]byte) []byte { return []byte("not a JSON-RPC answer") })
	s := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: server, Namespace: ns},
		Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL}},
	}
	create(t, s)
	eventually(t, "the first probe fails", func() (bool, string) {
		c, err := serverReady(t, s)
		if err != nil {
			return false, err.Error()
		}
		return c.Status == metav1.ConditionFalse && c.ObservedGeneration == 1, c.Reason + ": " + c.Message
	})

	op := operatorClient(t)
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{toolgatev1alpha1.LabelServer: server}},
		Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: server}, ToolName: tool},
	}
	if err := op.Create(t.Context(), pin); err != nil {
		t.Fatalf("creating the pin as an earlier operator did: %v", err)
	}
	// The ToolPin controller writes the new pin's status too.
	retryOnConflict(t, "writing the earlier pin's status", func() error {
		if err := op.Get(t.Context(), client.ObjectKeyFromObject(pin), pin); err != nil {
			return err
		}
		pin.Status.State = toolgatev1alpha1.PinTrusted
		pin.Status.Pinned = &toolgatev1alpha1.PinnedDefinition{Fingerprint: toolgatev1alpha1.Fingerprint(earlier), Time: metav1.Now(), Source: toolgatev1alpha1.PinnedOnFirstUse}
		pin.Status.ObservedFingerprint = toolgatev1alpha1.Fingerprint(earlier)
		if pin.Status.Decisions == nil {
			pin.Status.Decisions = []toolgatev1alpha1.Decision{}
		}
		return op.Status().Update(t.Context(), pin)
	})

	fixture.setRewrite(func(b []byte) []byte { return b })
	reprobe(t, s, "6m")
	eventually(t, "the probe judges the tool against the earlier pin", func() (bool, string) {
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(pin), &got); err != nil {
			return false, err.Error()
		}
		return got.Status.State == toolgatev1alpha1.PinAwaitingReview && got.Status.ObservedFingerprint != toolgatev1alpha1.Fingerprint(earlier) &&
				got.Status.Pinned != nil && string(got.Status.Pinned.Fingerprint) == earlier,
			fmt.Sprintf("%s, observed %s", got.Status.State, got.Status.ObservedFingerprint)
	})
	eventually(t, "the server is probed", func() (bool, string) {
		c, err := serverReady(t, s)
		if err != nil {
			return false, err.Error()
		}
		return c.Reason == toolgatev1alpha1.ReasonProbed && c.ObservedGeneration == 2, c.Reason + ": " + c.Message
	})
	var pins toolgatev1alpha1.ToolPinList
	if err := env.Client.List(t.Context(), &pins, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pins.Items {
		if p.Spec.ToolName == tool && p.Name != name {
			t.Errorf("a second pin %s (%s) was made for the tool beside the earlier %s", p.Name, p.Status.State, name)
		}
	}
}
