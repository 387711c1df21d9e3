// Command toolgate-offline is toolgate (cmd/toolgate) under its former
// name, kept for one release so that pipelines that call it keep working:
// the same offline commands, flags, output and exit codes, from the same
// code. It links no Kubernetes client. Call toolgate instead; this name
// goes in the next release. See docs/cli.md.
package main

import (
	"os"

	"github.com/toolgate/toolgate/internal/cli/offline"
)

func main() {
	os.Exit(offline.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
