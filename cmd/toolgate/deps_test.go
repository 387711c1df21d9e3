package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// toolgate runs in CI pipelines that judge a catalogue before anything is
// deployed: it must link no Kubernetes client (nor the operator's
// machinery, nor the kubectl plugin's), so that it cannot reach a cluster
// and a pipeline builds and trusts less. Its dependencies are read from
// the build graph, so an import added anywhere below it fails here; the
// same holds of toolgate-offline, its former name.
func TestOfflineCLILinksNoKubernetesClient(t *testing.T) {
	for _, pkg := range []string{".", "../toolgate-offline"} {
		t.Run(pkg, func(t *testing.T) { linksNoKubernetesClient(t, pkg) })
	}
}

func linksNoKubernetesClient(t *testing.T, pkg string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
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
			"k8s.io/client-go", "sigs.k8s.io/controller-runtime", "k8s.io/cli-runtime", "github.com/spf13/cobra",
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
