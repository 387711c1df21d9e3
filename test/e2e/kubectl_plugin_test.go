package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// pluginRunner runs `kubectl toolgate …` as a reviewer would: kubectl on
// the PATH finds the built kubectl-toolgate beside it, and the reviewer's
// kubeconfig comes from $KUBECONFIG.
type pluginRunner struct {
	kubectl    string
	pathEnv    string
	kubeconfig string
}

func newPluginRunner(t *testing.T, dir, kubeconfig string) *pluginRunner {
	t.Helper()
	kubectl := testenv.Kubectl(t, "the plugin is tested through kubectl")
	bin := filepath.Join(dir, "plugin-bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-toolgate"), "github.com/toolgate/toolgate/cmd/kubectl-toolgate").CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-toolgate: %v\n%s", err, out)
	}
	return &pluginRunner{kubectl: kubectl, pathEnv: bin + string(os.PathListSeparator) + os.Getenv("PATH"), kubeconfig: kubeconfig}
}

// run returns the combined output and the error of kubectl args.
func (p *pluginRunner) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.kubectl, args...)
	cmd.Env = append(os.Environ(), "PATH="+p.pathEnv, "KUBECONFIG="+p.kubeconfig)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (p *pluginRunner) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := p.run(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestKubectlToolgate drives `kubectl toolgate` as an approver against the
// operator binary, its webhooks and a real Go SDK server: pending lists
// what awaits review, approve and reject decide with the identity the API
// server stamps, describe shows a rug pull as a diff, the raw kubectl patch
// keeps working, and a decision on a pin redefined since it was read is
// refused.
func TestKubectlToolgate(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()
	admin := env.Client
	dir := t.TempDir()
	tb := startToolbox(t)

	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tools"}}); err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: "toolbox-token", Labels: map[string]string{toolgatev1alpha1.LabelCredentials: "true"}},
		StringData: map[string]string{"token": upstreamToken},
	}); err != nil {
		t.Fatal(err)
	}
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: "toolbox"},
		Spec: toolgatev1alpha1.MCPServerSpec{
			Endpoint:     toolgatev1alpha1.MCPEndpoint{URL: tb.URL + "/session"},
			Auth:         &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "toolbox-token", Key: "token"}},
			CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
			FirstUse:     toolgatev1alpha1.FirstUseReview,
			Probe:        toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}},
		},
	}
	if err := admin.Create(ctx, server); err != nil {
		t.Fatal(err)
	}
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	startOperator(t, op, dir, "operator")
	aliceConfig, err := env.KubeconfigFor(dir, "alice", filepath.Join(testenv.RepoRoot(), "config", "rbac", "approver_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plugin := newPluginRunner(t, dir, aliceConfig)

	weather, files := lifecycle.PinName("toolbox", "get_weather"), lifecycle.PinName("toolbox", "list_files")
	pin := func(name string) *toolgatev1alpha1.ToolPin {
		var p toolgatev1alpha1.ToolPin
		if err := admin.Get(ctx, types.NamespacedName{Namespace: "tools", Name: name}, &p); err != nil {
			return nil
		}
		return &p
	}
	waitState := func(name string, state toolgatev1alpha1.PinState, what string) *toolgatev1alpha1.ToolPin {
		t.Helper()
		var got *toolgatev1alpha1.ToolPin
		eventually(t, time.Minute, what, func() error {
			got = pin(name)
			if got == nil || got.Status.State != state {
				return fmt.Errorf("pin %s: %+v", name, got)
			}
			return nil
		})
		return got
	}
	first := waitState(weather, toolgatev1alpha1.PinAwaitingReview, "get_weather awaits its first review")
	waitState(files, toolgatev1alpha1.PinAwaitingReview, "list_files awaits its first review")

	t.Log("pending lists the pins awaiting review, in table and JSON")
	var out string
	// The approver's RBAC binding reaches the API server's authorizer
	// through an informer; retry until it has.
	eventually(t, 30*time.Second, "kubectl toolgate pending", func() error {
		var err error
		if out, err = plugin.run(t, "toolgate", "pending", "-n", "tools"); err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		return nil
	})
	t.Logf("kubectl toolgate pending:\n%s", out)
	for _, want := range []string{"PIN", "APPROVALS", weather, files, "get_weather", "list_files", "new tool", "0/2+ (multi)"} {
		if !strings.Contains(out, want) {
			t.Errorf("pending lacks %q", want)
		}
	}
	if js := plugin.must(t, "toolgate", "pending", "-A", "-o", "json"); !strings.Contains(js, `"fingerprint": "`+string(first.Status.ObservedFingerprint)+`"`) {
		t.Errorf("pending -o json lacks get_weather's observed fingerprint:\n%s", js)
	}

	t.Log("servers says whether agents could call each server around their gate: the toolbox demands the gate's token")
	eventually(t, time.Minute, "kubectl toolgate servers shows the toolbox refusing callers without the gate's token", func() error {
		out, err := plugin.run(t, "toolgate", "servers", "-n", "tools")
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		if !regexp.MustCompile(`(?m)^toolbox\s+\S+ \(\S+\)\s+3\s+\S+\s+no \(CredentialsRequired\)$`).MatchString(out) {
			return fmt.Errorf("servers:\n%s", out)
		}
		return nil
	})
	if js := plugin.must(t, "toolgate", "servers", "-n", "tools", "-o", "json"); !strings.Contains(js, `"reason": "CredentialsRequired"`) ||
		!strings.Contains(js, "refused initialize with HTTP 401") {
		t.Errorf("servers -o json lacks the toolbox's GateBypassable condition:\n%s", js)
	}

	t.Log("approve names the observed fingerprint, and the pin is trusted with the identity the API server saw")
	out = plugin.must(t, "toolgate", "approve", weather, "-n", "tools", "--comment", "reviewed the schema")
	t.Logf("kubectl toolgate approve:\n%s", out)
	for _, want := range []string{"fingerprint " + string(first.Status.ObservedFingerprint), "equivalent: kubectl patch toolpin " + weather, "recorded: Approve by alice"} {
		if !strings.Contains(out, want) {
			t.Errorf("approve output lacks %q", want)
		}
	}
	trusted := waitState(weather, toolgatev1alpha1.PinTrusted, "the approval trusts get_weather")
	if trusted.Status.Pinned == nil || trusted.Status.Pinned.Source != toolgatev1alpha1.PinnedByApproval ||
		strings.Join(trusted.Status.Pinned.Approvers, ",") != "alice" || trusted.Status.Pinned.Fingerprint != first.Status.ObservedFingerprint {
		t.Errorf("pinned = %+v, want the observed fingerprint approved by alice", trusted.Status.Pinned)
	}
	if d := trusted.Status.Decisions; len(d) != 1 || d[0].User != "alice" || d[0].Comment != "reviewed the schema" || d[0].Time == nil {
		t.Errorf("decisions = %+v, want alice's stamped approval", d)
	}

	t.Log("approve refuses when there is nothing to decide")
	if out, err := plugin.run(t, "toolgate", "approve", weather, "-n", "tools"); err == nil || !strings.Contains(out, "status.state is Trusted") {
		t.Errorf("approving a trusted pin: %v\n%s", err, out)
	}
	if out, err := plugin.run(t, "toolgate", "approve", weather, "-n", "tools", "--call", "no-such-call"); err == nil || !strings.Contains(out, `no call "no-such-call" in status.pendingCalls`) {
		t.Errorf("approving an unknown call: %v\n%s", err, out)
	}

	t.Log("reject rejects")
	plugin.must(t, "toolgate", "reject", files, "-n", "tools", "--comment", "not needed")
	rejected := waitState(files, toolgatev1alpha1.PinRejected, "the rejection rejects list_files")
	if d := rejected.Status.Decisions; len(d) != 1 || d[0].User != "alice" || d[0].Action != toolgatev1alpha1.DecisionReject {
		t.Errorf("decisions = %+v, want alice's rejection", d)
	}

	reprobe := func() {
		t.Helper()
		var s toolgatev1alpha1.MCPServer
		if err := admin.Get(ctx, client.ObjectKeyFromObject(server), &s); err != nil {
			t.Fatal(err)
		}
		// A patch: the operator's status writes race an Update.
		base := s.DeepCopy()
		s.Spec.Probe.Interval = &metav1.Duration{Duration: s.Spec.Probe.Interval.Duration - time.Minute} // a new generation probes at once
		if err := admin.Patch(ctx, &s, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	observedOther := func(than toolgatev1alpha1.Fingerprint) *toolgatev1alpha1.ToolPin {
		t.Helper()
		var got *toolgatev1alpha1.ToolPin
		eventually(t, time.Minute, "the operator sees the redefinition", func() error {
			got = pin(weather)
			if got == nil || got.Status.State != toolgatev1alpha1.PinAwaitingReview || got.Status.ObservedFingerprint == than {
				return fmt.Errorf("pin %+v", got)
			}
			return nil
		})
		return got
	}

	t.Log("describe shows a rug pull as a diff of the pinned and observed definitions")
	tb.define("get_weather", weatherV2, `"city":{"type":"string"},"units":{"type":"string"}`, true)
	reprobe()
	pulled := observedOther(trusted.Status.Pinned.Fingerprint)
	out = plugin.must(t, "toolgate", "describe", weather, "-n", "tools")
	t.Logf("kubectl toolgate describe:\n%s", out)
	for _, want := range []string{
		"State:     AwaitingReview",
		"Pinned:    " + string(trusted.Status.Pinned.Fingerprint),
		"Observed:  " + string(pulled.Status.ObservedFingerprint),
		"--- pinned " + trusted.Status.Pinned.Fingerprint.Short(),
		"+++ observed " + pulled.Status.ObservedFingerprint.Short(),
		`-  "description": "` + weatherV1 + `",`,
		`+  "description": "` + weatherV2 + `",`,
		`+      "units": {`,
		"alice", "reviewed the schema",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q", want)
		}
	}
	if out := plugin.must(t, "toolgate", "pending", "-n", "tools"); !strings.Contains(out, "DescriptionChanged") {
		t.Errorf("pending does not say what changed:\n%s", out)
	}

	t.Log("a decision on a pin redefined after it was read is refused")
	tb.define("get_weather", weatherV2+" Also returns the wind.", `"city":{"type":"string"},"units":{"type":"string"}`, true)
	reprobe()
	again := observedOther(pulled.Status.ObservedFingerprint)
	// By the reviewer who describes, then approves what they read.
	out, err = plugin.run(t, "toolgate", "approve", weather, "-n", "tools", "--fingerprint", string(pulled.Status.ObservedFingerprint))
	if err == nil || !strings.Contains(out, "not the "+string(pulled.Status.ObservedFingerprint)+" you reviewed") {
		t.Errorf("approving the fingerprint reviewed before the redefinition: %v\n%s", err, out)
	}
	// By the API server, for a pin read before the redefinition and
	// patched after: the patch's test operations fail. Without them the
	// webhook would refuse too, but as a denial (403), never the 422 that
	// ErrChangedSinceRead stands for.
	aliceClient := clientFor(t, env, aliceConfig)
	_, _, err = cli.PatchDecision(ctx, aliceClient, pulled, cli.DecisionRequest{Action: toolgatev1alpha1.DecisionApprove})
	if !errors.Is(err, cli.ErrChangedSinceRead) {
		t.Errorf("a decision built from a stale read: %v, want ErrChangedSinceRead", err)
	}
	if p := pin(weather); len(p.Status.Decisions) != 1 {
		t.Errorf("a refused decision was recorded: %+v", p.Status.Decisions)
	}

	t.Log("the raw kubectl patch keeps working")
	patch := fmt.Sprintf(`[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q}}]`, again.Status.ObservedFingerprint)
	plugin.must(t, "patch", "toolpin", weather, "-n", "tools", "--subresource=status", "--type=json", "-p", patch)
	if p := waitState(weather, toolgatev1alpha1.PinTrusted, "the raw patch approves"); p.Status.Pinned.Fingerprint != again.Status.ObservedFingerprint {
		t.Errorf("pinned %s, want %s", p.Status.Pinned.Fingerprint, again.Status.ObservedFingerprint)
	}
	// delete_repository, never decided on, is all that is left.
	if out := plugin.must(t, "toolgate", "pending", "-n", "tools"); strings.Contains(out, weather) || strings.Contains(out, files) || !strings.Contains(out, "delete_repository") {
		t.Errorf("pending after the decisions:\n%s", out)
	}
}
