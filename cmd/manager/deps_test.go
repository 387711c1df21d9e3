package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The operator names the gate's endpoints (the injector writes them into
// agents' environment) but never runs the proxy: the path is part of the
// contract (internal/gateproto), and the gate's packages — the proxy, its
// JSON-RPC reader, its argument checker — stay out of the operator's
// binary. Its dependencies are read from the build graph, so an import
// added anywhere below it fails here.
func TestManagerLinksNoGate(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const gate = "github.com/toolgate/toolgate/internal/gate"
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, dep := range deps {
		if dep == gate || strings.HasPrefix(dep, gate+"/") {
			t.Errorf("the manager binary depends on %s", dep)
		}
	}
}
