package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testenv"
)

// kubectl runs kubectl against the test control plane as a cluster
// administrator and returns its combined output. Where kubectl is not
// installed the test is skipped with a message saying so.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	path := testenv.Kubectl(t, "the cases that drive the API through kubectl")
	kubeconfig, err := env.AdminKubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestKubectlApprovalPatch runs the exact command approvers will use.
func TestKubectlApprovalPatch(t *testing.T) {
	ctx := testContext(t)
	pin := newPin(t, "kubectl-approval", "delete_repository")
	pin.Status = trustedStatus()
	pin.Status.State = toolgatev1alpha1.PinAwaitingReview
	pin.Status.ObservedFingerprint = fingerprintB
	if err := env.Client.Status().Update(ctx, pin); err != nil {
		t.Fatal(err)
	}

	out := kubectl(t, "patch", "toolpin", pin.Name, "-n", pin.Namespace, "--subresource=status", "--type=json",
		"-p", `[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":"`+string(fingerprintB)+`","comment":"reviewed the new schema"}}]`)
	t.Log(out)
	if !strings.Contains(out, "patched") {
		t.Errorf("kubectl did not report the patch: %s", out)
	}

	var got toolgatev1alpha1.ToolPin
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pin), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Decisions) != 1 {
		t.Fatalf("want 1 decision, got %+v", got.Status.Decisions)
	}
	d := got.Status.Decisions[0]
	if d.Action != toolgatev1alpha1.DecisionApprove || d.Fingerprint != fingerprintB || d.Comment != "reviewed the new schema" {
		t.Errorf("decision stored as %+v", d)
	}
	if got.Generation != pin.Generation {
		t.Errorf("a status patch changed the generation from %d to %d", pin.Generation, got.Generation)
	}
}

// TestKubectlSamplesAndColumns applies config/samples, gives the sample
// server a pin as the operator would and patches it with the reviewer's
// override of docs/examples, and checks that `kubectl get toolgate` lists
// one object of each kind with its columns.
func TestKubectlSamplesAndColumns(t *testing.T) {
	ctx := testContext(t)
	samples := filepath.Join(testenv.RepoRoot(), "config", "samples")
	out := kubectl(t, "apply", "-n", "default", "-f", samples)
	t.Log(out)
	for _, want := range []string{
		"mcpserver.toolgate.dev/kubernetes-tools created",
		"toolpolicy.toolgate.dev/agents created",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply did not say %q", want)
		}
	}
	t.Cleanup(func() {
		cleanup, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, obj := range []client.Object{
			&toolgatev1alpha1.MCPServer{}, &toolgatev1alpha1.ToolPolicy{}, &toolgatev1alpha1.ToolPin{},
		} {
			_ = env.Client.DeleteAllOf(cleanup, obj, client.InNamespace("default"))
		}
	})

	// Pins are the operator's to create: this control plane serves no
	// webhooks, so the administrator stands in for it.
	pin := toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes-tools-pods-list"},
		Spec: toolgatev1alpha1.ToolPinSpec{
			ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "kubernetes-tools"},
			ToolName:  "pods_list",
		},
	}
	if err := env.Client.Create(ctx, &pin); err != nil {
		t.Fatal(err)
	}
	// The reviewer's override, as docs/examples has it, is a valid patch.
	example := filepath.Join(testenv.RepoRoot(), "docs", "examples", "toolpin-override.yaml")
	out = kubectl(t, "patch", "toolpin", pin.Name, "-n", "default", "--type", "merge", "--patch-file", example)
	if !strings.Contains(out, "patched") {
		t.Errorf("kubectl did not patch the pin with %s: %s", example, out)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(&pin), &pin); err != nil {
		t.Fatal(err)
	}
	if o := pin.Spec.Override; o == nil || o.Level != toolgatev1alpha1.LevelSafe || o.Reason == "" {
		t.Errorf("the example's override did not land: %+v", o)
	}

	// Give the pin a status so its columns have something to show.
	pin.Status = trustedStatus()
	if err := env.Client.Status().Update(ctx, &pin); err != nil {
		t.Fatal(err)
	}

	out = kubectl(t, "get", "toolgate", "-n", "default")
	t.Logf("kubectl get toolgate:\n%s", out)
	for _, want := range []string{
		// One table per kind, each with its own columns.
		"READY", "REASON", "TRUST", "TOOLS", "HIGHEST", "SERVER RISK", "LAST PROBE",
		"MODE", "CEILING", "EXPOSED", "WITHHELD", "GATED",
		"SERVER", "TOOL", "LEVEL", "CATEGORY", "BLAST RADIUS", "STATE", "AGE",
		"mcpserver.toolgate.dev/kubernetes-tools",
		"toolpolicy.toolgate.dev/agents",
		"toolpin.toolgate.dev/kubernetes-tools-pods-list",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get toolgate lacks %q", want)
		}
	}
	// The pin's row carries its values in column order.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "toolpin.toolgate.dev/kubernetes-tools-pods-list") {
			fields := strings.Fields(line)
			want := []string{"kubernetes-tools", "pods_list", "L5", "destroy", "organization", "Trusted"}
			if len(fields) < 7 || strings.Join(fields[1:7], " ") != strings.Join(want, " ") {
				t.Errorf("pin row = %q, want columns %v", line, want)
			}
		}
	}

	// The short names reach each kind.
	for _, short := range []string{"tgserver", "tgsrv", "tgpolicy", "tgpol", "tgpin"} {
		if out := kubectl(t, "get", short, "-n", "default", "-o", "name"); strings.TrimSpace(out) == "" {
			t.Errorf("kubectl get %s listed nothing", short)
		}
	}
}
