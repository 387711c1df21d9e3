// Command toolgate vets MCP tools: offline, `toolgate score` judges saved
// tools/list results, `toolgate diff` explains how a catalogue changed,
// `toolgate scan-result` scans saved tool results as the gate would and
// `toolgate check-call` judges saved calls by ToolPolicies' argument rules
// as the gate would; in a
// cluster, `pending`, `describe`, `approve` and `reject` help a
// reviewer decide on ToolPins. Built as kubectl-toolgate it is the kubectl
// plugin `kubectl toolgate`. cmd/toolgate-offline is the offline commands alone,
// without a Kubernetes client. See docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolgate/toolgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.RunContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
