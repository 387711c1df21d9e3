package controllers

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// guardedMCPServer is a real Go SDK MCP server behind the SDK's own
// bearer-token middleware: it answers only requests that carry the token,
// once required is set (from the start unless the test clears it).
func guardedMCPServer(t *testing.T, token string, required *atomic.Bool) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "list_files", Description: "Lists the files of a directory.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	protected := auth.RequireBearerToken(verify, nil)(inner)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if required.Load() {
			protected.ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// tokenSecret is a credentials Secret holding a bearer token.
func tokenSecret(ns, name, token string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{toolgatev1alpha1.LabelCredentials: "true"}},
		StringData: map[string]string{"token": token},
	}
}

// bypassIs waits until a server's GateBypassable condition, at its current
// generation, has the status and reason, and returns the server.
func bypassIs(t *testing.T, server *toolgatev1alpha1.MCPServer, status metav1.ConditionStatus, reason string) *toolgatev1alpha1.MCPServer {
	t.Helper()
	var got toolgatev1alpha1.MCPServer
	eventually(t, fmt.Sprintf("%s is GateBypassable=%s (%s)", server.Name, status, reason), func() (bool, string) {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(server), &got); err != nil {
			return false, err.Error()
		}
		return conditionIs(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable, status, reason, got.Generation)
	})
	return &got
}

// TestGateBypassable: the operator tells, for each MCPServer, whether an
// agent could call it without its gate — by probing it once without the
// credentials only the gate is given — and the ToolPolicies that use it
// say so too. A bypassable server stays Ready.
func TestGateBypassable(t *testing.T) {
	ns := testNamespace(t)
	required := &atomic.Bool{}
	required.Store(true)
	create(t, tokenSecret(ns, "guarded-token", "s3cret"))
	create(t, tokenSecret(ns, "open-token", "unused"))
	create(t, tokenSecret(ns, "nowhere-token", "s3cret"))
	bearer := func(secret string) *toolgatev1alpha1.MCPServerAuth {
		return &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: secret, Key: "token"}}
	}
	server := func(name, url string, a *toolgatev1alpha1.MCPServerAuth) *toolgatev1alpha1.MCPServer {
		return &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: url}, Auth: a, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
		}
	}
	open := startMCPServer(t, &mcp.Tool{Name: "get_weather", Description: "Returns the weather for a city.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	guarded := server("guarded", guardedMCPServer(t, "s3cret", required), bearer("guarded-token"))
	// A token configured, and a server that does not ask for it.
	ignoresToken := server("ignores-token", open.URL, bearer("open-token"))
	noCredentials := server("no-credentials", open.URL, nil)
	unreachable := server("unreachable", closedURL(t), bearer("nowhere-token"))
	for _, s := range []*toolgatev1alpha1.MCPServer{guarded, ignoresToken, noCredentials, unreachable} {
		create(t, s)
	}

	got := bypassIs(t, guarded, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "refused initialize with HTTP 401") {
		t.Errorf("the guarded server's message: %s", c.Message)
	}
	got = bypassIs(t, ignoresToken, metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "listed 1 tool(s)") ||
		!strings.Contains(c.Message, "NetworkPolicy") || !strings.Contains(c.Message, "docs/install.md") {
		t.Errorf("the bypassable server's message: %s", c.Message)
	}
	got = bypassIs(t, noCredentials, metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "spec.auth gives the gate no credentials") {
		t.Errorf("the server without credentials: %s", c.Message)
	}
	got = bypassIs(t, unreachable, metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "Unreachable") {
		t.Errorf("the unreachable server's message: %s", c.Message)
	}
	// The finding never makes a server not Ready: the gate still enforces
	// what passes through it.
	for _, s := range []*toolgatev1alpha1.MCPServer{guarded, ignoresToken, noCredentials} {
		waitForReady(t, s.Name+" is Ready", s, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed)
	}

	// The policies that use them.
	policy := func(name string, servers ...string) *toolgatev1alpha1.ToolPolicy {
		p := &toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		for _, s := range servers {
			p.Spec.Servers = append(p.Spec.Servers, toolgatev1alpha1.ServerReference{Namespace: ns, Name: s})
		}
		create(t, p)
		return p
	}
	mixed := policy("mixed", "guarded", "ignores-token", "no-credentials")
	onlyGuarded := policy("only-guarded", "guarded")
	withUnknown := policy("with-unknown", "guarded", "unreachable")
	bypassOf := func(status metav1.ConditionStatus, reason string, says ...string) func(*toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		return func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
			c := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionGateBypassable)
			if c == nil || c.Status != status || c.Reason != reason {
				return false, "GateBypassable"
			}
			for _, s := range says {
				if !strings.Contains(c.Message, s) {
					return false, "message lacks " + s
				}
			}
			return true, ""
		}
	}
	policyStatus(t, "the mixed policy names its bypassable servers and why", mixed, bypassOf(metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable,
		"2 of the 3", ns+"/ignores-token (ReachableWithoutCredentials)", ns+"/no-credentials (NoCredentials)"))
	policyStatus(t, "a policy on the guarded server only is not bypassable", onlyGuarded, bypassOf(metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired))
	policyStatus(t, "a policy with an unchecked server does not claim safety", withUnknown, bypassOf(metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown,
		ns+"/unreachable (CheckFailed)"))
	// Ready is the gate's business, not this finding's.
	policyStatus(t, "the mixed policy is Ready", mixed, func(st *toolgatev1alpha1.ToolPolicyStatus) (bool, string) {
		c := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady)
		return c != nil && c.Reason != toolgatev1alpha1.ReasonServersNotReady && c.Reason != toolgatev1alpha1.ReasonAwaitingEvaluation, "Ready"
	})

	// The check is made again when the credentials change: a server that
	// stops demanding them is found at once, without waiting for the
	// hourly check.
	required.Store(false)
	retryOnConflict(t, "rotating the guarded server's token", func() error {
		var s corev1.Secret
		if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "guarded-token"}, &s); err != nil {
			return err
		}
		s.Data["token"] = []byte("rotated")
		return env.Client.Update(t.Context(), &s)
	})
	bypassIs(t, guarded, metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials)
	policyStatus(t, "the policy on the guarded server follows it", onlyGuarded, bypassOf(metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable, ns+"/guarded"))
}

// TestGateBypassNotCheckedWhenCredentialsCannotBeRead: a server whose
// Secret is missing is not checked, and says why; one without spec.auth is
// bypassable whatever else fails.
func TestGateBypassNotCheckedWhenCredentialsCannotBeRead(t *testing.T) {
	ns := testNamespace(t)
	missing := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "missing-secret", Namespace: ns},
		Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: closedURL(t)},
			Auth: &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "absent", Key: "token"}}},
	}
	create(t, missing)
	got := bypassIs(t, missing, metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassNotChecked)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "secret absent not found") {
		t.Errorf("message: %s", c.Message)
	}
}

// TestCredentialsBesideTheAgentsAreBypassable: an MCPServer whose
// credentials' Secret sits in a namespace where agents run behind the gate
// is bypassable however firmly the server demands the credentials: the
// namespace's users (the edit role may read Secrets) hold what the gate
// holds. Moved out of an agent namespace's reach — the label gone — the
// same server is not; labelled again, it is again. Each answer follows the
// label at once, with no change to the server and long before its next
// probe is due: the operator watches namespaces.
func TestCredentialsBesideTheAgentsAreBypassable(t *testing.T) {
	ns := testNamespace(t)
	labelInjection := func(on bool) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			var n corev1.Namespace
			if err := env.Client.Get(t.Context(), client.ObjectKey{Name: ns}, &n); err != nil {
				return err
			}
			if on {
				n.Labels = map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
			} else {
				delete(n.Labels, toolgatev1alpha1.LabelInjection)
			}
			return env.Client.Update(t.Context(), &n)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	labelInjection(true)
	required := &atomic.Bool{}
	required.Store(true)
	create(t, tokenSecret(ns, "beside-token", "s3cret"))
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "beside", Namespace: ns},
		Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: guardedMCPServer(t, "s3cret", required)},
			Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "beside-token", Key: "token"}},
			CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
			// An interval far beyond the test's wait: only the namespace
			// watch can bring the answers below in time.
			Probe: toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}}},
	}
	create(t, server)
	got := bypassIs(t, server, metav1.ConditionTrue, toolgatev1alpha1.ReasonCredentialsReadableByAgents)
	if c := meta.FindStatusCondition(got.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable); !strings.Contains(c.Message, "Secret in namespace "+ns) {
		t.Errorf("the message: %s", c.Message)
	}
	generation := got.Generation
	labelInjection(false)
	bypassIs(t, server, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired)
	labelInjection(true)
	got = bypassIs(t, server, metav1.ConditionTrue, toolgatev1alpha1.ReasonCredentialsReadableByAgents)
	if got.Generation != generation {
		t.Errorf("the server's spec changed (generation %d → %d); the answers must come from the label alone", generation, got.Generation)
	}
}
