// Command toolgate-offline vets saved MCP tool catalogues for CI pipelines:
// `toolgate-offline score` judges saved tools/list results and
// `toolgate-offline diff` explains how a catalogue changed, exactly as
// `toolgate score` and `toolgate diff` do. It links no Kubernetes client
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
