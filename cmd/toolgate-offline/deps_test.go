package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The offline CLI runs in CI pipelines that judge a catalogue before
// anything is deployed: it must link no Kubernetes client (nor the
// operator's machinery), so that it cannot reach a cluster and a pipeline
// builds and trusts less. Its dependencies are read from the build graph,
// so an import added anywhere below it fails here.
func TestOfflineCLILinksNoKubernetesClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const offlinePkg = "github.com/toolgate/toolgate/internal/cli/offline"
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		if dep == offlinePkg {
			continue
		}
		for _, banned := range []string{
			"k8s.io/client-go", "sigs.k8s.io/controller-runtime",
			"github.com/toolgate/toolgate/controllers",
			// The cluster commands, and what they read a cluster with.
			"github.com/toolgate/toolgate/internal/cli", "github.com/toolgate/toolgate/internal/lifecycle",
		} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("the offline CLI depends on %s", dep)
			}
		}
	}
	// The judgement is the operator's own: the risk engine and the scan,
	// through the offline commands; and the gate's, for what servers say.
	for _, want := range []string{"github.com/toolgate/toolgate/pkg/vet", "github.com/toolgate/toolgate/pkg/resultscan", offlinePkg} {
		if !slices.Contains(deps, want) {
			t.Errorf("the offline CLI does not link %s: is this still the offline CLI?", want)
		}
	}
}
