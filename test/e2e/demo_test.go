package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestDemo runs the README's main-job command as a newcomer would and checks
// that real tools were scored and pinned.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH; the demo drives the cluster with it")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(testenv.RepoRoot(), "hack", "demo.sh"))
	cmd.Dir = testenv.RepoRoot()
	cmd.Env = append(os.Environ(), "DEMO_EXIT=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the demo failed: %v", err)
	}
	text := string(out)
	if !regexp.MustCompile(`mcpserver.toolgate.dev/demo\s+True\s+Probed\s+Internal\s+6\s+L5`).MatchString(text) {
		t.Error("the demo's MCPServer is not Ready with six tools")
	}
	for _, want := range []string{
		`demo-delete-repository-\w+\s+demo\s+delete_repository\s+L5\s+destroy`,
		`demo-get-weather-\w+\s+demo\s+get_weather\s+L2\s+read`,
		`demo-run-query-\w+\s+demo\s+run_query\s+L5\s+mutate`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("kubectl get toolgate lacks a row matching %s", want)
		}
	}
	if strings.Count(text, "Trusted") < 6 {
		t.Error("not every tool was trusted on first use")
	}
	if !strings.Contains(text, "kubectl patch toolpin") {
		t.Error("the demo does not show the approval command")
	}
}
