package v1alpha1

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoController keeps the API package light: the gate and the
// CLI import these types, and must not link controller-runtime through
// them.
func TestImportsNoController(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime") {
			t.Errorf("api/v1alpha1 depends on %s", dep)
		}
	}
}
