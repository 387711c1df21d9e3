package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// upstreamToken is the credential the toolbox server demands. It lives in
// a Secret of the servers' namespace; only the gate ever holds it.
const upstreamToken = "toolbox-s3cret"

const (
	weatherV1 = "Returns the current weather for a city."
	weatherV2 = "Returns the current weather for a city, in metric units."
)

// toolbox is a real Go SDK server over HTTP, served in both protocol
// generations: session-based streamable HTTP on /session and the stateless
// revision on /stateless. Requests without the bearer token are refused.
type toolbox struct {
	*httptest.Server
	mcp *mcp.Server

	mu    sync.Mutex
	calls map[string]int // calls that reached each tool
}

// called returns how many calls reached the tool.
func (tb *toolbox) called(name string) int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.calls[name]
}

func startToolbox(t *testing.T) *toolbox {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "toolbox", Version: "1.0.0"}, nil)
	tb := &toolbox{mcp: s, calls: map[string]int{}}
	tb.define("get_weather", weatherV1, `"city":{"type":"string"}`, true)
	tb.define("list_files", "Lists the files of a directory in the workspace.", `"path":{"type":"string"}`, true)
	tb.define("delete_repository", "Deletes a repository and all of its history.", `"repo":{"type":"string"}`, false)
	session := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	tb.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+upstreamToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/session":
			session.ServeHTTP(w, r)
		case "/stateless":
			stateless.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(tb.Close)
	return tb
}

// define adds or replaces a tool; a replacement tells open sessions that
// the list changed, as a server that redefines a tool would.
func (tb *toolbox) define(name, description, props string, readOnly bool) {
	tool := &mcp.Tool{Name: name, Description: description,
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + props + `}}`)}
	if readOnly {
		tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	tb.mcp.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tb.mu.Lock()
		tb.calls[name]++
		tb.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil
	})
}

// gateProcess is the gate binary running as its own process.
type gateProcess struct {
	cmd     *exec.Cmd
	listen  string
	metrics string
	log     string
}

func buildGate(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "gate")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate/cmd/gate").CombinedOutput(); err != nil {
		t.Fatalf("building the gate: %v\n%s", err, out)
	}
	return bin
}

func startGateProcess(t *testing.T, bin, dir, name string, args ...string) *gateProcess {
	t.Helper()
	g := &gateProcess{log: filepath.Join(dir, name+".log")}
	log, err := os.Create(g.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	g.cmd = exec.Command(bin, append([]string{"--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, args...)...)
	g.cmd.Stdout, g.cmd.Stderr = log, log
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.cmd.Process.Kill(); _ = g.cmd.Wait() })
	g.learnAddrs(t)
	return g
}

// learnAddrs reads the addresses the gate bound on port 0 from its log
// (testenv.GateListening says why the test does not choose them).
func (g *gateProcess) learnAddrs(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	listen, metrics, err := testenv.GateListening(ctx, g.log, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.listen, g.metrics = listen, metrics
}

// ready returns the revision the gate enforces, or "" while it has none.
func (g *gateProcess) ready() string {
	resp, err := http.Get("http://" + g.metrics + "/readyz")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), "ok"))
}

func (g *gateProcess) url(serverID string) string {
	return "http://" + g.listen + gate.ServerPath(serverID)
}

func (g *gateProcess) logText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(g.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// agentSession is a real Go SDK client, the agent, connected through the gate.
type agentSession struct {
	cs      *mcp.ClientSession
	mu      sync.Mutex
	changes int
}

// connectAgent connects in the given protocol version; "" is the SDK's
// latest, the stateless revision.
func connectAgent(t *testing.T, endpoint, version string) *agentSession {
	t.Helper()
	a := &agentSession{}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			a.mu.Lock()
			a.changes++
			a.mu.Unlock()
		},
	})
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, opts)
	if err != nil {
		t.Fatalf("agent connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	a.cs = cs
	return a
}

func (a *agentSession) names(t *testing.T) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out, nil
}

func (a *agentSession) call(t *testing.T, name string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		return "", fmt.Errorf("no text in %+v", res.Content)
	}
	return text.Text, nil
}

// eventually retries f until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// expectTools waits until the agent's list is exactly want.
func expectTools(t *testing.T, a *agentSession, what string, want ...string) {
	t.Helper()
	slices.Sort(want)
	eventually(t, 30*time.Second, what, func() error {
		got, err := a.names(t)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("tools %v, want %v", got, want)
		}
		return nil
	})
}

// expectRefused checks that a call is refused as unavailable.
func expectRefused(t *testing.T, a *agentSession, tool, why string) {
	t.Helper()
	out, err := a.call(t, tool)
	if err == nil {
		t.Fatalf("%s: the call to %s went through: %q", why, tool, out)
	}
	if !strings.Contains(strings.ToLower(err.Error()), "not available") {
		t.Fatalf("%s: the call to %s failed, but not as unavailable: %v", why, tool, err)
	}
}

func expectCall(t *testing.T, a *agentSession, tool string) {
	t.Helper()
	out, err := a.call(t, tool)
	if err != nil || out != tool+" done" {
		t.Fatalf("calling %s: %q, %v", tool, out, err)
	}
}

// mintToken asks the TokenRequest API for a token bound to the pod, as the
// kubelet would project it, and writes it to a file. An empty audience is
// the API server's own, the audience of a pod's default token.
func mintToken(t *testing.T, env *testenv.Env, pod *corev1.Pod, audience, path string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	expiry := int64(3600)
	var audiences []string // none: the API server's own, as a pod's default token
	if audience != "" {
		audiences = []string{audience}
	}
	tr, err := cs.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(t.Context(), pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: audiences, ExpirationSeconds: &expiry,
			BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("minting a token: %v", err)
	}
	if err := os.WriteFile(path, []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGateEndToEnd runs the gate binary between real Go SDK agents of both
// protocol generations and a real Go SDK server, with its configuration
// served by the operator binary against a real API server.
func TestGateEndToEnd(t *testing.T) {
	env := startControlPlaneWith(t, testenv.Options{Webhooks: true, Injection: true})
	ctx := t.Context()
	admin := env.Client
	dir := t.TempDir()
	tb := startToolbox(t)
	caFile := filepath.Join(dir, "operator-ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		t.Fatal(err)
	}

	createToolboxNamespaces(t, admin)
	server := func(name, path string) *toolgatev1alpha1.MCPServer {
		return &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: name},
			Spec: toolgatev1alpha1.MCPServerSpec{
				Endpoint:     toolgatev1alpha1.MCPEndpoint{URL: tb.URL + path},
				Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "toolbox-token", Key: "token"}},
				CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
				Consumers:    toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll},
				// Long enough that only the test makes the operator look again.
				Probe: toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}},
			},
		}
	}
	for _, s := range []*toolgatev1alpha1.MCPServer{server("toolbox", "/session"), server("toolbox-next", "/stateless")} {
		if err := admin.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	policy := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agents"},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers:  []toolgatev1alpha1.ServerReference{{Namespace: "tools", Name: "toolbox"}, {Namespace: "tools", Name: "toolbox-next"}},
			MaxLevel: toolgatev1alpha1.LevelModerate,
		},
	}
	if err := admin.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}

	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Two replicas, as the chart runs them: the leader reconciles, both
	// serve gates.
	grantLeaderElection(t, env, "toolgate-system")
	replica := []string{"--leader-elect", "--leader-election-namespace", "toolgate-system",
		"--gate-image", "ghcr.io/toolgate/gate:e2e", "--operator-ca-file", caFile, "--operator-namespace", "toolgate-system",
		// One URL for both replicas, as the chart gives them: each serves
		// only the gate it would inject itself, and the follower's own
		// --gate-port below would otherwise make another.
		"--gate-operator-url", "https://toolgate-operator.toolgate-system.svc:9444"}
	operator := startOperator(t, op, dir, "operator", replica...)
	aliceConfig, err := env.KubeconfigFor(dir, "alice", filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	pin := func(server, tool string) *toolgatev1alpha1.ToolPin {
		var p toolgatev1alpha1.ToolPin
		if err := admin.Get(ctx, types.NamespacedName{Namespace: "tools", Name: lifecycle.PinName(server, tool)}, &p); err != nil {
			return nil
		}
		return &p
	}
	eventually(t, 2*time.Minute, "the policy is evaluated", func() error {
		var p toolgatev1alpha1.ToolPolicy
		if err := admin.Get(ctx, client.ObjectKeyFromObject(policy), &p); err != nil {
			return err
		}
		if p.Status.Exposed != 4 || p.Status.Withheld != 2 {
			return fmt.Errorf("exposed %d, withheld %d: %+v", p.Status.Exposed, p.Status.Withheld, p.Status.Tools)
		}
		return nil
	})

	// The second replica starts once the first leads (it has evaluated the
	// policy): it never reconciles while the first lives, yet serves gates.
	followerGatePort := testenv.MustReservePort(t)
	startOperator(t, op, dir, "operator-follower", append(replica,
		"--webhook-port", strconv.Itoa(testenv.MustReservePort(t)), "--gate-port", strconv.Itoa(followerGatePort))...)

	// The agent's pod: no kubelet runs it, but its token is the one the
	// kubelet would project into the gate container.
	if err := admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agent"}}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agent-0", Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{ServiceAccountName: "agent", Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
	}
	if err := admin.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	expectInjected(t, pod, map[string]string{"TOOLGATE_MCP_TOOLBOX_URL": "tools/toolbox", "TOOLGATE_MCP_TOOLBOX_NEXT_URL": "tools/toolbox-next"})
	expectOptOutGuarded(t, env)
	tokenFile := mintToken(t, env, pod, gateproto.Audience, filepath.Join(dir, "token"))
	gateBin := buildGate(t, dir)
	operatorURL := fmt.Sprintf("https://127.0.0.1:%d", op.GatePort)
	gateArgs := func(token string) []string {
		return gateVolume(t, token, operatorURL, caFile)
	}
	g := startGateProcess(t, gateBin, dir, "gate", gateArgs(tokenFile)...)
	eventually(t, time.Minute, "the gate gets its configuration", func() error {
		if g.ready() == "" {
			return fmt.Errorf("not ready; log:\n%s", g.logText(t))
		}
		return nil
	})

	follower := startGateProcess(t, gateBin, dir, "gate-follower", gateVolume(t, tokenFile, fmt.Sprintf("https://127.0.0.1:%d", followerGatePort), caFile)...)
	eventually(t, time.Minute, "a replica that does not lead serves a gate", func() error {
		if rev := follower.ready(); rev != g.ready() {
			return fmt.Errorf("the follower's gate enforces %q, the leader's %q", rev, g.ready())
		}
		return nil
	})

	session := connectAgent(t, g.url("tools/toolbox"), "2025-11-25")
	stateless := connectAgent(t, g.url("tools/toolbox-next"), "")

	t.Log("the ceiling withholds the L5 tool from the list and from the call, in both generations")
	for _, a := range []*agentSession{session, stateless} {
		expectTools(t, a, "the first list", "get_weather", "list_files")
		expectRefused(t, a, "delete_repository", "an L5 tool above the ceiling")
		expectRefused(t, a, "drop_everything", "a tool nobody listed")
		expectCall(t, a, "get_weather")
	}
	// The agent's side holds nothing that reaches the server: the
	// credential is the gate's.
	if resp, err := http.Post(tb.URL+"/session", "application/json", strings.NewReader(`{}`)); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("the upstream answered %d without credentials", resp.StatusCode)
		}
	}

	t.Log("a rug pull is withheld at once, with the configuration stale")
	revBefore := g.ready()
	tb.define("get_weather", weatherV2, `"city":{"type":"string"}`, true)
	for _, a := range []*agentSession{session, stateless} {
		expectTools(t, a, "the list after the rug pull", "list_files")
		expectRefused(t, a, "get_weather", "a redefined tool")
	}
	if p := pin("toolbox", "get_weather"); p == nil || p.Status.State != toolgatev1alpha1.PinTrusted {
		t.Fatalf("the operator moved before the gate was tested alone: %+v", p)
	}
	if g.ready() != revBefore {
		t.Fatal("the configuration changed: the gate did not act on its own")
	}

	t.Log("the new definition comes back once approved with kubectl patch")
	for _, name := range []string{"toolbox", "toolbox-next"} {
		var s toolgatev1alpha1.MCPServer
		if err := admin.Get(ctx, types.NamespacedName{Namespace: "tools", Name: name}, &s); err != nil {
			t.Fatal(err)
		}
		// A patch: the operator's status writes race an Update.
		base := s.DeepCopy()
		s.Spec.Probe.Interval = &metav1.Duration{Duration: 59 * time.Minute} // due at once
		if err := admin.Patch(ctx, &s, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"toolbox", "toolbox-next"} {
		var observed toolgatev1alpha1.Fingerprint
		eventually(t, time.Minute, "the operator sees the rug pull", func() error {
			p := pin(name, "get_weather")
			if p == nil || p.Status.State != toolgatev1alpha1.PinAwaitingReview {
				return fmt.Errorf("pin %+v", p)
			}
			observed = p.Status.ObservedFingerprint
			return nil
		})
		patch := fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q,"comment":"metric units are fine"}}]`, observed)
		eventually(t, 30*time.Second, "alice approves with kubectl", func() error {
			out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", aliceConfig, "patch", "toolpin", lifecycle.PinName(name, "get_weather"),
				"-n", "tools", "--subresource=status", "--type=json", "-p", patch).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		})
	}
	for _, a := range []*agentSession{session, stateless} {
		// The same sessions: a new configuration does not drop them.
		expectTools(t, a, "the list after the approval", "get_weather", "list_files")
		expectCall(t, a, "get_weather")
	}
	eventually(t, 30*time.Second, "the replica that does not lead pushes the approval too", func() error {
		if rev := follower.ready(); rev == revBefore || rev != g.ready() {
			return fmt.Errorf("the follower's gate enforces %q, the leader's %q (before the approval %q)", rev, g.ready(), revBefore)
		}
		return nil
	})

	t.Log("Audit forwards what is pinned and Trusted, and logs what Enforce would have done")
	setMode := func(mode toolgatev1alpha1.PolicyMode) {
		patch := fmt.Sprintf(`{"spec":{"mode":%q}}`, mode)
		if err := admin.Patch(ctx, policy, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	setMode(toolgatev1alpha1.PolicyAudit)
	eventually(t, 30*time.Second, "audit mode forwards the tool above the ceiling", func() error {
		_, err := session.call(t, "delete_repository")
		return err
	})
	// Earlier refusals of the same tool are logged too: look for the line
	// of the forwarded call, with what Enforce would have done.
	// The line is written once the answer has gone back to the agent, so
	// it may land a moment after the call returns.
	eventually(t, 30*time.Second, "the audit line of the forwarded call", func() error {
		if !auditLineFor(g.logText(t), "delete_repository", "audit-forward") {
			return fmt.Errorf("missing")
		}
		return nil
	})
	setMode(toolgatev1alpha1.PolicyEnforce)
	eventually(t, 30*time.Second, "enforce again", func() error {
		if _, err := session.call(t, "delete_repository"); err == nil {
			return fmt.Errorf("still forwarded")
		}
		return nil
	})

	t.Log("a token of another audience gets nothing")
	wrongAudience := mintToken(t, env, pod, "https://kubernetes.default.svc", filepath.Join(dir, "token-api"))
	intruder := startGateProcess(t, gateBin, dir, "gate-wrong-audience", gateArgs(wrongAudience)...)

	t.Log("the operator goes away: the running gate keeps its configuration, a new one exposes nothing")
	_ = operator.Process.Kill()
	_ = operator.Wait()
	expectTools(t, session, "the list with the operator down", "get_weather", "list_files")
	expectCall(t, session, "get_weather")
	late := startGateProcess(t, gateBin, dir, "gate-late", gateArgs(tokenFile)...)
	for _, gp := range []*gateProcess{late, intruder} {
		// What a gate serves is checked once it has tried the operator and
		// failed, not after a pause a loaded machine may not fill.
		eventually(t, 30*time.Second, gp.log+" tried the operator and failed", func() error {
			if !strings.Contains(gp.logText(t), "configuration stream ended; reconnecting") {
				return fmt.Errorf("no failed attempt logged yet")
			}
			return nil
		})
	}
	for _, gp := range []*gateProcess{late, intruder} {
		if rev := gp.ready(); rev != "" {
			t.Fatalf("%s is ready with %s", gp.log, rev)
		}
		if a, err := tryConnect(t, gp.url("tools/toolbox")); err == nil {
			if names, err := a.names(t); err == nil && len(names) > 0 {
				t.Fatalf("a gate without a configuration exposes %v", names)
			}
		}
	}
	startOperator(t, op, dir, "operator-again")
	eventually(t, time.Minute, "the late gate gets its configuration once the operator is back", func() error {
		if late.ready() == "" {
			return fmt.Errorf("not ready")
		}
		return nil
	})
	if intruder.ready() != "" {
		t.Error("a gate with a token of another audience got a configuration")
	}

	t.Log("the upstream goes away: calls fail clearly, the gate stays up")
	// Close would wait for the gate's open streams; a server that dies
	// drops them.
	tb.Listener.Close()
	tb.CloseClientConnections()
	if _, err := session.call(t, "get_weather"); err == nil {
		t.Error("a call to a server that is down succeeded")
	}
	if g.cmd.ProcessState != nil {
		t.Fatal("the gate exited")
	}
	if g.ready() == "" {
		t.Error("the gate lost its configuration when the upstream went down")
	}
}

// grantLeaderElection gives the operator's identity what leader election
// needs in ns, as the chart's Role does.
func grantLeaderElection(t *testing.T, env *testenv.Env, ns string) {
	t.Helper()
	ctx := t.Context()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "toolgate-leader-election"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "toolgate-leader-election"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "toolgate-leader-election"},
			Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: testenv.OperatorUser}}},
	}
	for _, o := range objs {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// expectInjected checks the pod as the API server returned it: the gate
// added by the operator's webhook as a native sidecar, its token only in
// the gate, and the agent told where each server is (servers maps the
// agent's variable to the server's namespace/name).
func expectInjected(t *testing.T, pod *corev1.Pod, servers map[string]string) {
	t.Helper()
	var gateC *corev1.Container
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; c.Image == "ghcr.io/toolgate/gate:e2e" {
			gateC = c
		}
	}
	if gateC == nil || gateC.RestartPolicy == nil || *gateC.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Fatalf("no native sidecar gate in the pod the API server returned: %+v", pod.Spec.InitContainers)
	}
	if pod.Annotations[toolgatev1alpha1.AnnotationInjected] == "" {
		t.Error("the injected annotation is missing")
	}
	gateMounts := map[string]bool{}
	for _, m := range gateC.VolumeMounts {
		gateMounts[m.Name] = true
	}
	agent := pod.Spec.Containers[0]
	for _, m := range agent.VolumeMounts {
		if gateMounts[m.Name] {
			t.Errorf("the agent mounts the gate's volume %s", m.Name)
		}
	}
	env := map[string]string{}
	for _, e := range agent.Env {
		env[e.Name] = e.Value
	}
	for name, server := range servers {
		if want := "http://127.0.0.1:15001" + gate.ServerPath(server); env[name] != want {
			t.Errorf("the agent's %s is %q, want %q", name, env[name], want)
		}
	}
}

// expectOptOutGuarded checks that someone allowed to create pods in the
// agents' namespace, but not trusted with the opt-out, cannot create a pod
// without the gate there.
func expectOptOutGuarded(t *testing.T, env *testenv.Env) {
	t.Helper()
	ctx := t.Context()
	dev, _, err := env.User("dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "pod-creator"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "get"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "dev-creates-pods"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-creator"},
			Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "dev"}}},
	} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	optOut := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: name, Labels: map[string]string{toolgatev1alpha1.LabelInject: toolgatev1alpha1.InjectOptOut}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
		}
	}
	// Only the guard's own refusal counts: any other error (RBAC, a
	// webhook that is down, a malformed pod) would pass for it otherwise.
	const guardMessage = "only identities toolgate trusts may create a Pod that opts out of the gate"
	var err2 error
	eventually(t, 30*time.Second, "dev is refused the opt-out by the guard", func() error {
		err2 = dev.Create(ctx, optOut("no-gate"))
		switch {
		case err2 == nil:
			return nil
		case apierrors.IsForbidden(err2) && strings.Contains(err2.Error(), guardMessage):
			return nil
		}
		return err2 // RBAC not yet in force, or not the guard
	})
	if err2 == nil {
		t.Fatal("an untrusted creator made a pod that opts out of the gate")
	}
	if !strings.Contains(err2.Error(), "toolgate-inject-opt-out") || !strings.Contains(err2.Error(), "dev is not one of them") {
		t.Fatalf("the opt-out was refused, but not by the guard for dev: %v", err2)
	}
	t.Logf("the opt-out refused: %v", err2)
}

// createToolboxNamespaces creates the servers' namespace, with the
// toolbox's credentials Secret, and the agents' namespace, opted in to
// injection.
func createToolboxNamespaces(t *testing.T, admin client.Client) {
	t.Helper()
	ctx := t.Context()
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tools"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "agents", Labels: map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: "toolbox-token", Labels: map[string]string{toolgatev1alpha1.LabelCredentials: "true"}},
			StringData: map[string]string{"token": upstreamToken},
		},
	} {
		if err := admin.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
}

// auditLineFor reports whether the gate's log holds a decision line on
// tool with the given decision, saying what Enforce would have done.
func auditLineFor(log, tool, decision string) bool {
	for _, line := range strings.Split(log, "\n") {
		var l struct {
			Msg, Tool, Decision, EnforceWould string
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "toolgate.decision" &&
			l.Tool == tool && l.Decision == decision && l.EnforceWould != "" {
			return true
		}
	}
	return false
}

// tryConnect connects an agent, returning the error instead of failing.
func tryConnect(t *testing.T, endpoint string) (*agentSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &agentSession{cs: cs}, nil
}
