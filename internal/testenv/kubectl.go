package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireKubectl is the environment variable that turns a missing kubectl
// into a failure instead of a skip, so that CI never passes without the
// tests that drive the cluster as a user does.
const RequireKubectl = "TOOLGATE_REQUIRE_KUBECTL"

// Kubectl returns the path of kubectl. Where it is not on PATH the test is
// skipped with why, or fails when RequireKubectl is set.
func Kubectl(t testing.TB, why string) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv(RequireKubectl) != "" {
			t.Fatalf("kubectl is not on PATH (%s), and %s is set", why, RequireKubectl)
		}
		t.Skipf("kubectl is not on PATH: %s (set %s=1 to make this a failure)", why, RequireKubectl)
	}
	return path
}
