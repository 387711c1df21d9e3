// Command toolgate-offline vets saved MCP traffic for CI pipelines:
// `toolgate-offline score` judges saved tools/list results,
// `toolgate-offline diff` explains how a catalogue changed and
// `toolgate-offline scan-result` scans saved tool results and sessions,
// exactly as `toolgate score`, `toolgate diff` and `toolgate scan-result`
// do. It links no Kubernetes client
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
