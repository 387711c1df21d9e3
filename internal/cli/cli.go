package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/toolgate/toolgate/internal/cli/offline"
)

// Exit codes, documented in docs/cli.md: the offline commands' own, so
// that both binaries exit alike.
const (
	ExitOK     = offline.ExitOK
	ExitPolicy = offline.ExitPolicy
	ExitUsage  = offline.ExitUsage
)

const usage = `toolgate vets MCP tools before an agent can see or call them.

Usage:
  toolgate score [flags] [FILE...]   score saved tools/list results ("-" or no file: standard input)
  toolgate diff [flags] OLD NEW      explain how a catalogue changed and which tools need re-review
  toolgate scan-result [flags] FILE...
                                     scan saved tool results, messages and sessions as the gate does
  toolgate check-call -policy FILE -call FILE [flags]
                                     judge saved tools/call requests by ToolPolicies' argument rules, as the gate does
  toolgate version

In a cluster (also as "kubectl toolgate", with the binary on the PATH as kubectl-toolgate):
  toolgate pending [-n NS | -A]                  pins awaiting review, calls awaiting approval, results held for release
  toolgate servers [-n NS | -A]                  MCPServers, and whether agents could call them without their gate
  toolgate policies [-n NS | -A]                 ToolPolicies, what they expose, and whether their agents could bypass the gate
  toolgate describe PIN [-n NS]                  a pin, with its change as a diff
  toolgate approve PIN [-n NS] [--call ID] [--comment TEXT]
  toolgate reject PIN [-n NS] [--call ID] [--comment TEXT]
                                                 append a decision to the pin's status, as kubectl patch does
  toolgate release PIN --call ID [-n NS] [--comment TEXT]
  toolgate drop PIN --call ID [-n NS] [--comment TEXT]
                                                 approve or reject a held result, and nothing else

Run "toolgate COMMAND -h" for its flags. See docs/cli.md.
`

// Run runs the command line args (without the program name) and returns the
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunContext(context.Background(), args, stdin, stdout, stderr)
}

// RunContext is Run with a context that ends the cluster subcommands'
// requests, such as one cancelled by an interrupt.
func RunContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "score", "diff", "scan-result", "check-call":
		return offline.Run(args, stdin, stdout, stderr)
	case "pending":
		return runPending(ctx, args[1:], stdout, stderr, time.Now)
	case "describe":
		return runDescribe(ctx, args[1:], stdout, stderr, time.Now)
	case "servers", "policies":
		return runList(ctx, args[0], args[1:], stdout, stderr)
	case "approve", "reject", "release", "drop":
		return runDecide(ctx, args[0], args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "toolgate %s\n", offline.Version)
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "toolgate: unknown command %q\n\n%s", args[0], usage)
	return ExitUsage
}
