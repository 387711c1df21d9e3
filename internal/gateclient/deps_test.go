package gateclient

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoKubernetes keeps the gate free of Kubernetes: it holds no
// API rights, and the client is all of the operator it links.
func TestImportsNoKubernetes(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "k8s.io/") || strings.HasPrefix(dep, "sigs.k8s.io/") {
			t.Errorf("internal/gateclient depends on %s", dep)
		}
	}
}
