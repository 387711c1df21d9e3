// Command kubectl-toolgate is the kubectl plugin `kubectl toolgate`: with
// the binary on the PATH, kubectl runs it for a reviewer. `pending`,
// `describe`, `approve`, `reject`, `revoke`, `release` and `drop` decide
// on what toolgate holds for a person; `servers` and `policies` list
// MCPServers and ToolPolicies with whether agents could walk around their
// gates; `score`, `diff`, `scan-result` and `check-call` are toolgate's
// offline commands, unchanged. Connection flags, printers and completion
// are kubectl's own (k8s.io/cli-runtime). See docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/internal/cli"
)

func main() {
	// The client library's own logs are no reviewer's business: errors
	// reach the reviewer as the command's.
	logf.SetLogger(logr.Discard())
	// An interrupt cancels the requests, and ends `pending --watch` with
	// exit 0, as kubectl get --watch ends.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.RunContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
