package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestSamplesApplyWithTheWebhooks applies config/samples as a whole, as the
// README tells a newcomer to, against an API server that calls toolgate's
// admission webhooks served by the operator, as in a cluster installed from
// the chart. Every object must be admitted: a sample the webhooks refuse
// (a ToolPin, which only the operator may create) belongs in docs/examples.
func TestSamplesApplyWithTheWebhooks(t *testing.T) {
	kubectl := testenv.Kubectl(t, "the samples are applied as a user would")
	env := startControlPlane(t)
	dir := t.TempDir()
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	startOperator(t, op, dir, "operator")
	if err := env.WaitForWebhookServer(); err != nil {
		t.Fatalf("the operator does not serve its webhooks: %v", err)
	}
	admin, err := env.AdminKubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("samples-%d", time.Now().UnixNano())
	if err := env.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	samples := filepath.Join(testenv.RepoRoot(), "config", "samples")
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", admin, "apply", "-n", ns, "-f", samples+"/").CombinedOutput()
	t.Logf("kubectl apply -f config/samples/:\n%s", out)
	if err != nil {
		t.Fatalf("kubectl apply -f config/samples/ failed: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(samples, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if created := strings.Count(string(out), " created"); created != len(files) {
		t.Errorf("kubectl created %d objects from %d sample files; want one each", created, len(files))
	}
}
