// Command toolgate vets saved MCP traffic, for CI pipelines and for people
// at a terminal: `toolgate score` judges saved tools/list results,
// `toolgate diff` explains how a catalogue changed, `toolgate scan-result`
// scans saved tool results and sessions as the gate would, and `toolgate
// check-call` judges saved calls by ToolPolicies' argument rules as the
// gate would. It links no Kubernetes client and never reads a kubeconfig:
// the commands that read a cluster are the kubectl plugin's
// (cmd/kubectl-toolgate, `kubectl toolgate`), which runs these four too.
// See docs/cli.md.
package main

import (
	"os"

	"github.com/toolgate/toolgate/internal/cli/offline"
)

func main() {
	os.Exit(offline.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
