package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testenv"
)

// TestOperatorRestartLosesNothing kills the operator process half-way
// through pinning five servers, records decisions while it is down, starts
// it again and checks that every pin exists once and every decision
// stands: the state lives in the API server, not in the process.
func TestOperatorRestartLosesNothing(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()
	admin := env.Client

	const servers, tools = 5, 30
	mux := http.NewServeMux()
	for i := range servers {
		s := mcp.NewServer(&mcp.Implementation{Name: fmt.Sprintf("svc-%d", i), Version: "1"}, nil)
		for j := range tools {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("update_record_%02d", j), Description: fmt.Sprintf("Updates one record of store %d by its id.", i),
				InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		mux.Handle(fmt.Sprintf("/s/%d/mcp", i), mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()
	for i := range servers {
		if err := admin.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i), Namespace: "default"},
			// Every new tool waits for a human, so decisions matter.
			Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fmt.Sprintf("%s/s/%d/mcp", ts.URL, i)}, FirstUse: toolgatev1alpha1.FirstUseReview},
		}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	aliceConfig, err := env.KubeconfigFor(dir, "alice", filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	alice := clientFor(t, env, aliceConfig)
	start := func(name string) *exec.Cmd {
		// Slow on purpose, so that it can be killed half-way.
		return startOperator(t, op, dir, name, "--probe-concurrency", "1", "--kube-api-qps", "20")
	}
	observedPins := func() []toolgatev1alpha1.ToolPin {
		var list toolgatev1alpha1.ToolPinList
		if err := admin.List(ctx, &list, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		var out []toolgatev1alpha1.ToolPin
		for _, p := range list.Items {
			if p.Status.ObservedFingerprint != "" {
				out = append(out, p)
			}
		}
		return out
	}

	first := start("first")
	deadline := time.Now().Add(2 * time.Minute)
	for len(observedPins()) < 40 {
		if time.Now().After(deadline) {
			t.Fatalf("the operator observed only %d pins", len(observedPins()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = first.Process.Kill() // no chance to clean up
	_ = first.Wait()
	half := observedPins()
	if len(half) >= servers*tools {
		t.Fatalf("the operator finished before it was killed (%d pins); the test needs it half-way", len(half))
	}

	// While the operator is down, alice approves three pins.
	approved := map[string]bool{}
	for _, p := range half[:3] {
		patch := fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q}}]`, p.Status.ObservedFingerprint)
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
		// The webhooks are served by the operator, which is down: the
		// approval is refused, not silently unchecked (failurePolicy Fail).
		if err := alice.Status().Patch(ctx, target, client.RawPatch(types.JSONPatchType, []byte(patch))); err == nil {
			t.Fatal("a decision was accepted while the webhooks were down")
		}
		approved[p.Name] = true
	}

	start("second")
	deadline = time.Now().Add(2 * time.Minute)
	for len(observedPins()) < servers*tools {
		if time.Now().After(deadline) {
			t.Fatalf("after the restart only %d of %d pins were observed", len(observedPins()), servers*tools)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The webhooks are back: the approvals go through and take effect.
	for name := range approved {
		var p toolgatev1alpha1.ToolPin
		if err := admin.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, &p); err != nil {
			t.Fatal(err)
		}
		patch := fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q}}]`, p.Status.ObservedFingerprint)
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		// The webhook server may still be starting.
		eventually(t, 30*time.Second, "approving "+name+" after the restart", func() error {
			return alice.Status().Patch(ctx, target, client.RawPatch(types.JSONPatchType, []byte(patch)))
		})
	}
	deadline = time.Now().Add(time.Minute)
	for {
		all := observedPins()
		trusted, awaiting := 0, 0
		names := map[string]bool{}
		for _, p := range all {
			names[p.Spec.ServerRef.Name+"/"+p.Spec.ToolName] = true
			switch p.Status.State {
			case toolgatev1alpha1.PinTrusted:
				trusted++
				if !approved[p.Name] || len(p.Status.Decisions) != 1 || p.Status.Decisions[0].User != "alice" {
					t.Fatalf("pin %s trusted without alice's approval: %+v", p.Name, p.Status.Decisions)
				}
			case toolgatev1alpha1.PinAwaitingReview:
				awaiting++
			}
		}
		if len(all) != servers*tools || len(names) != servers*tools {
			t.Fatalf("%d pins for %d distinct tools, want %d of each", len(all), len(names), servers*tools)
		}
		if trusted == 3 && awaiting == servers*tools-3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trusted %d, awaiting %d", trusted, awaiting)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func clientFor(t *testing.T, env *testenv.Env, kubeconfig string) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
