package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The gate runs in every agent pod: it must stay small and hold no
// Kubernetes machinery, nor the risk engine's or the poisoning scan's
// lexicons (megabytes of heap in every sidecar, and a garbage collector
// that runs more often under the gate's soft memory limit). Its dependencies are read from the build graph, so
// an import added anywhere below it fails here.
func TestGateImportsNoKubernetes(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "k8s.io/apimachinery", "k8s.io/api/",
			"github.com/toolgate/toolgate/controllers", "github.com/toolgate/toolgate/api/",
			"github.com/toolgate/toolgate/pkg/scan", "github.com/toolgate/toolgate/pkg/risk", "github.com/toolgate/toolgate/pkg/vet",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the gate binary depends on %s", dep)
			}
		}
	}
}
