// Command toolgate vets MCP tools offline: `toolgate score` judges saved
// tools/list results and `toolgate diff` explains how a catalogue changed.
// See docs/cli.md.
package main

import (
	"os"

	"github.com/toolgate/toolgate/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
