// Command toolgate-offline vets saved MCP traffic for CI pipelines:
// `toolgate-offline score` judges saved tools/list results,
// `toolgate-offline diff` explains how a catalogue changed,
// `toolgate-offline scan-result` scans saved tool results and sessions and
// `toolgate-offline check-call` judges saved calls by ToolPolicies'
// argument rules, exactly as `toolgate score`, `toolgate diff`,
// `toolgate scan-result` and `toolgate check-call` do. It links no Kubernetes client
// and never reads a kubeconfig; the commands that read a cluster are in
// toolgate (cmd/toolgate). See docs/cli.md.
package main

import (
	"os"

	"github.com/toolgate/toolgate/internal/cli/offline"
)

func main() {
	os.Exit(offline.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
