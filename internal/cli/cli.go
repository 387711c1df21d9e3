package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/toolgate/toolgate/internal/cli/offline"
)

// Exit codes, documented in docs/cli.md. 0, 1 and 2 are the offline
// commands' own, so that both binaries exit alike.
const (
	// ExitOK: done — listed, shown, or the decision recorded.
	ExitOK = offline.ExitOK
	// ExitError: the command could not do what was asked — the API server
	// refused or could not answer (RBAC, the admission webhook, a pin
	// changed since it was read, nothing to decide on), or, for the
	// offline commands, their verdict (see docs/cli.md).
	ExitError = offline.ExitPolicy
	// ExitPolicy is ExitError under the offline commands' name.
	ExitPolicy = ExitError
	// ExitUsage: bad flags or arguments.
	ExitUsage = offline.ExitUsage
	// ExitUnchanged: a decision that would change nothing was not sent —
	// the definition is already trusted or rejected, the reviewer already
	// decided so, or another reviewer's rejection stands. A script can
	// tell "done" from "nothing to do" without parsing words.
	ExitUnchanged = 3
)

// displayName is how help and errors name the program: kubectl runs the
// plugin as `kubectl toolgate`, whatever the binary is called.
const displayName = "kubectl toolgate"

// exitError carries the exit code of a failed command with its error;
// main prints the error once, after cobra returns.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// failed is an error the command met (exit 1).
func failed(format string, args ...any) error {
	return &exitError{code: ExitError, err: fmt.Errorf(format, args...)}
}

// usageError is a mistake on the command line (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// options are what every command shares: the streams, the connection
// flags as kubectl has them, and the clock of the renderings.
type options struct {
	streams genericiooptions.IOStreams
	config  *genericclioptions.ConfigFlags
	now     func() time.Time
}

// NewCommand returns the root of `kubectl toolgate` writing to streams:
// the cluster verbs, the offline verbs of cmd/toolgate, version and
// completion.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	root, _ := newRoot(streams)
	return root
}

func newRoot(streams genericiooptions.IOStreams) (*cobra.Command, *options) {
	o := &options{streams: streams, config: genericclioptions.NewConfigFlags(true), now: time.Now}
	// A bound on each request, as kubectl's flag gives it; kubectl's own
	// default is none, which would let a hung API server hang a script.
	o.config.Timeout = ptrTo("30s")
	root := &cobra.Command{
		Use:   "kubectl-toolgate",
		Short: "Review MCP tools, held calls and held results in a cluster",
		Long: `kubectl toolgate lets a reviewer decide on what toolgate holds for a person:
tool definitions awaiting review, calls held for approval and tool results held
because their scan found something. It also lists MCPServers and ToolPolicies with
whether agents could walk around their gates, and runs the offline commands of
toolgate (score, diff, scan-result, check-call) on saved traffic.

Exit codes: 0 done, 1 error (the API server refused or could not answer; for the
offline commands, their verdict), 2 usage, 3 nothing changed (a decision that would
change nothing was not sent).`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: displayName},
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(streams.ErrOut)
			_ = cmd.Help()
			return &exitError{code: ExitUsage, err: errors.New("name a command")}
		},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError("%w\nSee '%s -h' for help.", err, cmd.CommandPath())
	})
	o.config.AddFlags(root.PersistentFlags())
	root.AddGroup(&cobra.Group{ID: "review", Title: "Review (in a cluster):"}, &cobra.Group{ID: "list", Title: "List (in a cluster):"},
		&cobra.Group{ID: "offline", Title: "Offline (saved traffic, no cluster):"})
	for _, c := range []*cobra.Command{newPendingCommand(o), newDescribeCommand(o)} {
		c.GroupID = "review"
		root.AddCommand(c)
	}
	for _, verb := range decisionVerbs {
		c := newDecideCommand(o, verb)
		c.GroupID = "review"
		root.AddCommand(c)
	}
	for _, name := range []string{"servers", "policies"} {
		c := newListCommand(o, name)
		c.GroupID = "list"
		root.AddCommand(c)
	}
	for _, c := range offlineCommands(streams) {
		c.GroupID = "offline"
		root.AddCommand(c)
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  noArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "kubectl-toolgate %s\n", offline.Version)
		},
	})
	return root, o
}

// offlineCommands are toolgate's offline verbs, run by package offline
// with their own flags, output and exit codes, so that plugin users lose
// nothing and both binaries judge alike.
func offlineCommands(streams genericiooptions.IOStreams) []*cobra.Command {
	var cmds []*cobra.Command
	for _, c := range []struct{ use, short string }{
		{"score [flags] [FILE...]", "Score saved tools/list results (\"-\" or no file: standard input)"},
		{"diff [flags] OLD NEW", "Explain how a catalogue changed and which tools need re-review"},
		{"scan-result [flags] FILE...", "Scan saved tool results, messages and sessions as the gate does"},
		{"check-call -policy FILE -call FILE [flags]", "Judge saved tools/call requests by ToolPolicies' argument rules, as the gate does"},
	} {
		cmds = append(cmds, &cobra.Command{
			Use:   c.use,
			Short: c.short,
			Long:  c.short + ".\n\nThe same command as toolgate's, with the same flags: run it with -h for them.",
			// The offline commands parse their own flags, exactly as
			// toolgate does.
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				code := offline.RunAs("kubectl toolgate", append([]string{cmd.Name()}, args...), streams.In, streams.Out, streams.ErrOut)
				if code != ExitOK {
					// The command has said why already.
					return &exitError{code: code}
				}
				return nil
			},
		})
	}
	return cmds
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError("unexpected argument %q\nSee '%s -h' for help.", args[0], cmd.CommandPath())
	}
	return nil
}

func onePin(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError("want one PIN, got %d arguments\nSee '%s -h' for help.", len(args), cmd.CommandPath())
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// Run runs the command line args (without the program name) and returns the
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunContext(context.Background(), args, stdin, stdout, stderr)
}

// RunContext is Run with a context that ends the cluster commands'
// requests: cancelled by an interrupt, it ends `pending --watch` with
// exit 0.
func RunContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewCommand(genericiooptions.IOStreams{In: stdin, Out: stdout, ErrOut: stderr})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// cobra's own errors are about the command line: an unknown
		// command, a missing or unknown flag.
		fmt.Fprintf(stderr, "error: %v\nSee '%s -h' for help.\n", err, displayName)
		return ExitUsage
	}
	switch {
	case ee.err == nil:
	case ee.code == ExitUnchanged:
		// "unchanged:" says it; the sentinel's words would say it twice.
		fmt.Fprintf(stderr, "unchanged: %s\n", strings.TrimPrefix(ee.err.Error(), ErrUnchanged.Error()+": "))
	default:
		fmt.Fprintf(stderr, "error: %v\n", ee.err)
	}
	return ee.code
}
