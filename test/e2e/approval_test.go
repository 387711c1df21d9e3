package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// TestCallApprovalEndToEnd holds gated calls in the gate binary, configured
// by the operator binary against a real API server, between a Go SDK agent
// and a Go SDK server, and decides them as people do, with kubectl patch.
//
// TOOLGATE_APPROVAL_SAMPLES (default 5) sets how many approvals are timed
// for docs/performance.md.
func TestCallApprovalEndToEnd(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()
	admin := env.Client
	dir := t.TempDir()
	tb := startToolbox(t)

	createToolboxNamespaces(t, admin)
	if err := admin.Create(ctx, &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: "toolbox"},
		Spec: toolgatev1alpha1.MCPServerSpec{
			Endpoint:     toolgatev1alpha1.MCPEndpoint{URL: tb.URL + "/session"},
			Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "toolbox-token", Key: "token"}},
			CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
			Consumers:    toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll},
			Probe:        toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	const timeout = 10 * time.Second // the shortest the API allows
	policy := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agents"},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			Servers:         []toolgatev1alpha1.ServerReference{{Namespace: "tools", Name: "toolbox"}},
			MaxLevel:        toolgatev1alpha1.LevelCritical,
			AgentTrustLevel: 5,
			Approval: &toolgatev1alpha1.CallApprovalRules{
				Tools:   []toolgatev1alpha1.ToolReference{{Name: "list_files"}, {Name: "delete_repository"}},
				Timeout: &metav1.Duration{Duration: timeout},
			},
		},
	}
	if err := admin.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}

	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	// This test's agent pod is created without the injection webhook (the
	// gate test covers injection); the operator is told to serve its
	// hand-run gate, which it refuses by default.
	startOperator(t, op, dir, "operator", "--gate-serve-uninjected-pods")
	approverRole := filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml")
	kubeconfigs := map[string]string{}
	for _, who := range []string{"alice", "bob"} {
		if kubeconfigs[who], err = env.KubeconfigFor(dir, who, approverRole); err != nil {
			t.Fatal(err)
		}
	}
	pinKey := func(tool string) types.NamespacedName {
		return types.NamespacedName{Namespace: "tools", Name: lifecycle.PinName("toolbox", tool)}
	}
	getPin := func(tool string) *toolgatev1alpha1.ToolPin {
		t.Helper()
		var p toolgatev1alpha1.ToolPin
		if err := admin.Get(ctx, pinKey(tool), &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	eventually(t, 2*time.Minute, "the policy gates two tools", func() error {
		var p toolgatev1alpha1.ToolPolicy
		if err := admin.Get(ctx, client.ObjectKeyFromObject(policy), &p); err != nil {
			return err
		}
		if p.Status.ApprovalGated != 2 {
			return fmt.Errorf("gated %d: %+v", p.Status.ApprovalGated, p.Status.Tools)
		}
		for _, d := range p.Status.Tools {
			if d.Decision == toolgatev1alpha1.ToolApprovalGated && (d.Level == "" || d.EffectiveLevel == "") {
				return fmt.Errorf("%s is gated without both levels: %+v", d.Tool, d)
			}
		}
		return nil
	})

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
	tokenFile := mintToken(t, env, pod, gateproto.Audience, filepath.Join(dir, "token"))
	caFile := filepath.Join(dir, "operator-ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		t.Fatal(err)
	}
	g := startGateProcess(t, buildGate(t, dir), dir, "gate", gateVolume(t, tokenFile, fmt.Sprintf("https://127.0.0.1:%d", op.GatePort), caFile)...)
	eventually(t, time.Minute, "the gate gets its configuration", func() error {
		if g.ready() == "" {
			return fmt.Errorf("not ready; log:\n%s", g.logText(t))
		}
		return nil
	})

	var progress atomic.Int64
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	connectCtx, cancelConnect := context.WithTimeout(ctx, 20*time.Second)
	cs, err := c.Connect(connectCtx, &mcp.StreamableClientTransport{Endpoint: g.url("tools/toolbox")}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	cancelConnect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	agent := &agentSession{cs: cs}
	expectTools(t, agent, "the gated tools are listed", "delete_repository", "get_weather", "list_files")

	// A call whose member names a case-insensitive server (encoding/json,
	// mcp-go) reads otherwise than the gate is refused before anything is
	// asked of a human or run: a gated call carrying a second arguments
	// (the human would approve one, the server run the other), an exposed
	// tool's name hiding a gated one.
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"list_files","arguments":{"path":"/work"},"Arguments":{"path":"/"}}}`,
		`{"jsonrpc":"2.0","id":"w2","method":"tools/call","params":{"name":"list_files","arguments":{"path":"/work"},"argumentſ":{"path":"/"}}}`,
		`{"jsonrpc":"2.0","id":"w3","method":"tools/call","params":{"name":"get_weather","Name":"delete_repository","arguments":{}}}`,
	} {
		out := postRaw(t, g.url("tools/toolbox"), body)
		if !strings.Contains(out, `"code":-32600`) {
			t.Fatalf("ambiguous call %d answered %s", i, out)
		}
	}
	for _, tool := range []string{"list_files", "delete_repository"} {
		if p := getPin(tool); len(p.Status.PendingCalls) != 0 || len(p.Status.CallHistory) != 0 || tb.called(tool) != 0 {
			t.Fatalf("an ambiguous call of %s reached a human or the server: pending %v, history %v, ran %d",
				tool, p.Status.PendingCalls, p.Status.CallHistory, tb.called(tool))
		}
	}

	// callWithin bounds how long a decided call takes to reach the agent
	// through the API server, the operator, the gate and the upstream, on a
	// loaded machine; the latency itself is measured below, not asserted.
	const callWithin = 30 * time.Second
	type result struct {
		text string
		err  error
		at   time.Time
	}
	// hold calls the tool in the background and returns the pending call
	// the operator recorded, and where the result will arrive.
	seq := 0
	hold := func(ctx context.Context, tool string) (toolgatev1alpha1.PendingCall, <-chan result) {
		t.Helper()
		seq++
		before := len(getPin(tool).Status.PendingCalls)
		done := make(chan result, 1)
		go func() {
			// Arguments of the tool's own schema (the gate refuses others),
			// distinct from call to call.
			args := map[string]any{"path": "/work/" + strconv.Itoa(seq)}
			if tool == "delete_repository" {
				args = map[string]any{"repo": "r" + strconv.Itoa(seq)}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args,
				Meta: mcp.Meta{"progressToken": "p" + strconv.Itoa(seq)}})
			r := result{err: err, at: time.Now()}
			if err == nil {
				if res.IsError || len(res.Content) == 0 {
					r.err = fmt.Errorf("tool error: %+v", res.Content)
				} else if text, ok := res.Content[0].(*mcp.TextContent); ok {
					r.text = text.Text
				}
			}
			done <- r
		}()
		var call toolgatev1alpha1.PendingCall
		eventually(t, 30*time.Second, "the call is pending on the pin", func() error {
			p := getPin(tool)
			if len(p.Status.PendingCalls) <= before {
				return fmt.Errorf("pending %d", len(p.Status.PendingCalls))
			}
			call = p.Status.PendingCalls[len(p.Status.PendingCalls)-1]
			return nil
		})
		return call, done
	}
	patchCmd := func(action toolgatev1alpha1.DecisionAction, call toolgatev1alpha1.PendingCall) string {
		return fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":%q,"fingerprint":%q,"callID":%q}}]`, action, call.Fingerprint, call.ID)
	}
	kubectl := func(who, tool, patch string) error {
		out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfigs[who], "patch", "toolpin", pinKey(tool).Name,
			"-n", "tools", "--subresource=status", "--type=json", "-p", patch).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		return nil
	}
	wait := func(done <-chan result, within time.Duration) result {
		t.Helper()
		select {
		case r := <-done:
			return r
		case <-time.After(within):
			t.Fatalf("the call did not end within %s; gate log:\n%s", within, g.logText(t))
		}
		return result{}
	}
	lastRecord := func(tool string) toolgatev1alpha1.CallRecord {
		h := getPin(tool).Status.CallHistory
		if len(h) == 0 {
			t.Fatal("no call history")
		}
		return h[len(h)-1]
	}
	expectRecord := func(tool, id string, verdict toolgatev1alpha1.CallVerdict) {
		t.Helper()
		eventually(t, 30*time.Second, "the call is on record as "+string(verdict), func() error {
			p := getPin(tool)
			if lifecycle.PendingCall(&p.Status, id) != nil {
				return errors.New("still pending")
			}
			r := lifecycle.ResolvedCall(&p.Status, id)
			if r == nil || r.Verdict != verdict {
				return fmt.Errorf("record %+v", r)
			}
			for _, d := range p.Status.Decisions {
				if d.CallID == id {
					return fmt.Errorf("a decision on the resolved call stayed in status.decisions: %+v", d)
				}
			}
			return nil
		})
	}

	t.Log("a gated call is held, recorded with the token's identity, approved with kubectl patch, and completes")
	call, done := hold(ctx, "list_files")
	if call.Agent != (toolgatev1alpha1.AgentIdentity{Namespace: "agents", Pod: "agent-0", ServiceAccount: "agent"}) ||
		!strings.Contains(call.Arguments, `"/work/`) || call.ArgumentsDigest == "" || !call.ExpiryTime.After(call.RequestedTime.Time) {
		t.Fatalf("pending call %+v", call)
	}
	time.Sleep(time.Second)
	if n := tb.called("list_files"); n != 0 {
		t.Fatalf("the held call reached the server %d times before approval", n)
	}
	if progress.Load() == 0 {
		t.Error("the waiting agent heard no progress notification")
	}

	t.Log("the agent's service account cannot approve: RBAC refuses its token, and the webhook would")
	agentToken := mintToken(t, env, pod, "", filepath.Join(dir, "agent-token"))
	agentCfg := rest.CopyConfig(env.Config)
	agentCfg.CertData, agentCfg.KeyData, agentCfg.Username, agentCfg.Password = nil, nil, "", ""
	agentCfg.BearerTokenFile = agentToken
	agentClient, err := client.New(agentCfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	selfApprove := func() error {
		return agentClient.Status().Patch(ctx, &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: pinKey("list_files").Name}},
			client.RawPatch(types.JSONPatchType, []byte(patchCmd(toolgatev1alpha1.DecisionApprove, call))))
	}
	if err := selfApprove(); !apierrors.IsForbidden(err) {
		t.Fatalf("the agent's token patching pin status: %v, want forbidden by RBAC", err)
	}
	if err := admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "mistaken-agent-approver"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "toolgate-approver"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "agents", Name: "agent"}},
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "with RBAC granted by mistake, the webhook still refuses the agent", func() error {
		err := selfApprove()
		if err == nil {
			return backoffStop(t, "the agent approved its own call")
		}
		if !strings.Contains(err.Error(), "agents never decide on tools") {
			return err
		}
		return nil
	})

	start := time.Now()
	if err := kubectl("alice", "list_files", patchCmd(toolgatev1alpha1.DecisionApprove, call)); err != nil {
		t.Fatal(err)
	}
	if r := wait(done, callWithin); r.err != nil || r.text != "list_files done" {
		t.Fatalf("the approved call: %q, %v", r.text, r.err)
	}
	t.Logf("approved → completed in %s", time.Since(start))
	if n := tb.called("list_files"); n != 1 {
		t.Fatalf("the approved call reached the server %d times", n)
	}
	expectRecord("list_files", call.ID, toolgatev1alpha1.CallApproved)
	if r := lastRecord("list_files"); len(r.Decisions) != 1 || r.Decisions[0].User != "alice" {
		t.Fatalf("record %+v", r)
	}
	if err := kubectl("bob", "list_files", patchCmd(toolgatev1alpha1.DecisionApprove, call)); err == nil || !strings.Contains(err.Error(), "no longer pending") {
		t.Fatalf("a decision on a resolved call: %v", err)
	}

	t.Log("a rejected call fails")
	call, done = hold(ctx, "list_files")
	if err := kubectl("bob", "list_files", patchCmd(toolgatev1alpha1.DecisionReject, call)); err != nil {
		t.Fatal(err)
	}
	if r := wait(done, callWithin); r.err == nil || !strings.Contains(r.err.Error(), "not approved") {
		t.Fatalf("the rejected call: %q, %v", r.text, r.err)
	}
	expectRecord("list_files", call.ID, toolgatev1alpha1.CallRejected)

	t.Log("kubectl toolgate shows the held call and approves it by its id")
	plugin := newPluginRunner(t, dir, kubeconfigs["alice"])
	call, done = hold(ctx, "list_files")
	if out := plugin.must(t, "toolgate", "pending", "-A"); !strings.Contains(out, call.ID) || !strings.Contains(out, "list_files") {
		t.Fatalf("pending does not show the held call %s:\n%s", call.ID, out)
	}
	if out := plugin.must(t, "toolgate", "approve", pinKey("list_files").Name, "-n", pinKey("list_files").Namespace,
		"--call", call.ID, "--comment", "reading the workspace is fine"); !strings.Contains(out, string(call.Fingerprint)) {
		t.Fatalf("approve does not name the fingerprint it approves:\n%s", out)
	}
	if r := wait(done, callWithin); r.err != nil || r.text != "list_files done" {
		t.Fatalf("the call approved with kubectl toolgate: %q, %v", r.text, r.err)
	}
	expectRecord("list_files", call.ID, toolgatev1alpha1.CallApproved)
	if r := lastRecord("list_files"); len(r.Decisions) != 1 || r.Decisions[0].User != "alice" {
		t.Fatalf("record %+v", r)
	}

	t.Log("an agent that gives up has its call withdrawn, never forwarded later")
	// It gives up once its call is held: a deadline set before the call
	// could pass before a loaded machine had even recorded it.
	giveUp, stop := context.WithCancel(ctx)
	call, done = hold(giveUp, "list_files")
	stop()
	if r := wait(done, callWithin); r.err == nil {
		t.Fatalf("the abandoned call returned %q", r.text)
	}
	expectRecord("list_files", call.ID, toolgatev1alpha1.CallWithdrawn)
	if err := kubectl("alice", "list_files", patchCmd(toolgatev1alpha1.DecisionApprove, call)); err == nil || !strings.Contains(err.Error(), "Withdrawn") {
		t.Fatalf("approving a withdrawn call: %v", err)
	}
	time.Sleep(2 * time.Second)
	if n := tb.called("list_files"); n != 2 {
		t.Fatalf("list_files reached the server %d times; only the two approved calls should have", n)
	}

	t.Log("a call nobody decides is refused at the timeout")
	call, done = hold(ctx, "list_files")
	if r := wait(done, timeout+callWithin); r.err == nil || !strings.Contains(r.err.Error(), "timed out") {
		t.Fatalf("the undecided call: %q, %v", r.text, r.err)
	}
	expectRecord("list_files", call.ID, toolgatev1alpha1.CallExpired)

	t.Log("a multi tool needs two people")
	if rec := getPin("delete_repository").Status.ComputedRiskOrApplied(); rec == nil || rec.ApprovalRecommendation != toolgatev1alpha1.ApprovalMulti {
		t.Fatalf("delete_repository is not multi: %+v", rec)
	}
	call, done = hold(ctx, "delete_repository")
	if err := kubectl("alice", "delete_repository", patchCmd(toolgatev1alpha1.DecisionApprove, call)); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		t.Fatalf("one approval of a multi tool's call let it end: %q, %v", r.text, r.err)
	case <-time.After(2 * time.Second):
	}
	if err := kubectl("bob", "delete_repository", patchCmd(toolgatev1alpha1.DecisionApprove, call)); err != nil {
		t.Fatal(err)
	}
	if r := wait(done, callWithin); r.err != nil || r.text != "delete_repository done" {
		t.Fatalf("the call approved by two: %q, %v", r.text, r.err)
	}
	expectRecord("delete_repository", call.ID, toolgatev1alpha1.CallApproved)

	t.Log("timing: a person's status patch to the held call completing")
	samples := 5
	if v, err := strconv.Atoi(os.Getenv("TOOLGATE_APPROVAL_SAMPLES")); err == nil && v > 0 {
		samples = v
	}
	alice := clientFor(t, env, kubeconfigs["alice"])
	var took []time.Duration
	for range samples {
		call, done := hold(ctx, "list_files")
		start := time.Now()
		if err := alice.Status().Patch(ctx, &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: pinKey("list_files").Name}},
			client.RawPatch(types.JSONPatchType, []byte(patchCmd(toolgatev1alpha1.DecisionApprove, call)))); err != nil {
			t.Fatal(err)
		}
		r := wait(done, callWithin)
		if r.err != nil {
			t.Fatal(r.err)
		}
		took = append(took, r.at.Sub(start))
	}
	slices.Sort(took)
	t.Logf("APPROVAL LATENCY n=%d p50=%s p99=%s max=%s", len(took), took[len(took)/2], took[(len(took)*99)/100], took[len(took)-1])
}

// backoffStop makes eventually fail at once with why.
// postRaw posts one JSON-RPC message to the gate as an MCP client would,
// and returns the body of the answer.
func postRaw(t *testing.T, url, body string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return string(out)
}

func backoffStop(t *testing.T, why string) error {
	t.Helper()
	t.Fatal(why)
	return nil
}
