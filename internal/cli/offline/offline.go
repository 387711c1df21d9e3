package offline

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// Exit codes, documented in docs/cli.md; the cluster commands (package
// cli) exit with the same.
const (
	ExitOK = 0
	// ExitPolicy: a tool is above --max-level (score), a tool must be
	// re-reviewed (diff), a server said something flagged or too long to
	// scan (scan-result), a call is judged otherwise than -expect says
	// (check-call); for the plugin's cluster commands, the cluster
	// refused or could not answer.
	ExitPolicy = 1
	// ExitUsage: bad arguments or unreadable input.
	ExitUsage = 2
)

// Version is set at build time.
var Version = "dev"

const usage = `toolgate vets saved MCP tool catalogues and what servers said; it never reads a kubeconfig.

Usage:
  toolgate score [flags] [FILE...]     score saved tools/list results ("-" or no file: standard input)
  toolgate diff [flags] OLD NEW        explain how a catalogue changed and which tools need re-review
  toolgate scan-result [flags] FILE... scan saved tool results, messages and sessions as the gate does
  toolgate check-call -policy FILE -call FILE [flags]
                                       judge saved tools/call requests by ToolPolicies' argument rules, as the gate does
  toolgate version

The commands that read a cluster are the kubectl plugin's, "kubectl toolgate" (kubectl-toolgate),
which runs these four too.

Run "toolgate COMMAND -h" for its flags. See docs/cli.md.
`

// Run runs the offline command line args (without the program name) and
// returns the exit code. It knows score, diff, scan-result, check-call and version, and reads
// nothing but its arguments, standard input and the files named.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunAs("toolgate", args, stdin, stdout, stderr)
}

// RunAs is Run for a program that carries these commands under another
// name ("kubectl toolgate"): each command's usage line names it, so that
// what the help shows can be typed as it is.
func RunAs(program string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "score":
		return runScore(program, args[1:], stdin, stdout, stderr)
	case "diff":
		return runDiff(program, args[1:], stdin, stdout, stderr)
	case "scan-result":
		return runScanResult(program, args[1:], stdin, stdout, stderr)
	case "check-call":
		return runCheckCall(program, args[1:], stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "toolgate %s\n", Version)
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "toolgate: unknown command %q\n\n%s", args[0], usage)
	return ExitUsage
}

type inputFlags struct {
	maxBytes int64
	maxTools int
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&f.maxBytes, "max-bytes", tooldef.DefaultLimits.MaxBytes, "largest input file accepted, in bytes")
	fs.IntVar(&f.maxTools, "max-tools", tooldef.DefaultLimits.MaxTools, "most tools accepted in one file")
}

func (f *inputFlags) limits() tooldef.Limits {
	return tooldef.Limits{MaxBytes: f.maxBytes, MaxTools: f.maxTools}
}

// parseFlags parses a subcommand's flags with its usage text and checks the
// output format. It returns false, with the exit code, when the command
// should stop: after -h (0) or on bad flags (2).
func parseFlags(program string, fs *flag.FlagSet, args []string, stderr io.Writer, usage string, output *string) (int, bool) {
	fs.Usage = func() {
		fmt.Fprint(stderr, usageAs(program, usage)+"\n\nFlags:\n")
		printFlags(fs, stderr)
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if *output != "table" && *output != "json" {
		fmt.Fprintf(stderr, "%s: -o %q: want table or json\n", fs.Name(), *output)
		return ExitUsage, false
	}
	return 0, true
}

// readCatalogue reads one file ("-" is stdin) within the limits; errors
// name the file.
func readCatalogue(name string, stdin io.Reader, limits tooldef.Limits) (*tooldef.Catalogue, error) {
	var r io.Reader
	display := name
	if name == "-" {
		r, display = stdin, "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, unwrapPathError(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: is a directory, want a JSON file", name)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limits.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if int64(len(data)) > limits.MaxBytes {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes (--max-bytes)", display, limits.MaxBytes)
	}
	cat, err := tooldef.ParseCatalogue(data, limits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	return cat, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// serverName names a file's server in reports: its base name without
// extension, or "stdin".
func serverName(file string, used map[string]int) string {
	name := "stdin"
	if file != "-" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	used[name]++
	if used[name] > 1 {
		name = fmt.Sprintf("%s#%d", name, used[name])
	}
	return name
}

func runScore(program string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolgate score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		in            inputFlags
		output        = fs.String("o", "table", "output format: table or json")
		maxLevel      = fs.String("max-level", "", "exit 1 when any tool is above this level (L0–L5)")
		serverURL     = fs.String("url", "", "the server's URL, for its posture (applies to every file)")
		transport     = fs.String("transport", "", "the server's transport: stdio, streamable-http or sse")
		authenticated = fs.Bool("authenticated", false, "the client authenticates to the server")
		trust         = fs.String("trust", "", "catalogue trust: Unknown, Community, Vendor or Internal")
		gated         = fs.String("approval-gated", "", "comma-separated tools whose every call waits for a human")
		reachFlag     = fs.String("reach", "", "what the server's own identity may do, as the operator finds for an in-cluster server: cluster-wide, secrets (comma-separated)")
	)
	in.register(fs)
	if code, ok := parseFlags(program, fs, args, stderr, "Usage: toolgate score [flags] [FILE...]\n\nScores every tool of saved tools/list results. Several files are several servers offered to one agent.", output); !ok {
		return code
	}
	var ceiling risk.Level = -1
	if *maxLevel != "" {
		l, err := risk.ParseLevel(*maxLevel)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate score: --max-level: %v\n", err)
			return ExitUsage
		}
		ceiling = l
	}
	switch *trust {
	case "", "Unknown", "Community", "Vendor", "Internal":
	default:
		fmt.Fprintf(stderr, "toolgate score: --trust %q: want Unknown, Community, Vendor or Internal\n", *trust)
		return ExitUsage
	}
	reach, err := risk.ParseReach(*reachFlag)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate score: --reach: %v\n", err)
		return ExitUsage
	}
	switch *transport {
	case "", risk.TransportStdio, risk.TransportStreamableHTTP, risk.TransportSSE:
	default:
		fmt.Fprintf(stderr, "toolgate score: --transport %q: want stdio, streamable-http or sse\n", *transport)
		return ExitUsage
	}
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
	}
	gatedSet := map[string]bool{}
	for _, g := range strings.Split(*gated, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gatedSet[g] = true
		}
	}

	var servers []vet.Server
	used := map[string]int{}
	for _, file := range files {
		cat, err := readCatalogue(file, stdin, in.limits())
		if err != nil {
			fmt.Fprintf(stderr, "toolgate score: %v\n", err)
			return ExitUsage
		}
		servers = append(servers, vet.Server{
			Name: serverName(file, used), Catalogue: cat, ApprovalGated: gatedSet,
			Posture: risk.Posture{URL: *serverURL, Transport: *transport, Authenticated: *authenticated, Trust: *trust, Reach: reach},
		})
	}
	report := vet.Vet(servers)

	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			fmt.Fprintf(stderr, "toolgate score: %v\n", err)
			return ExitUsage
		}
	} else {
		writeScoreTable(stdout, report)
	}

	if ceiling >= 0 {
		var above []string
		for _, t := range report.Tools {
			if t.LevelValue() > ceiling {
				above = append(above, fmt.Sprintf("%s/%s (%s)", t.Server, t.Name, t.Level))
			}
		}
		if len(above) > 0 {
			fmt.Fprintf(stderr, "toolgate score: %d tool(s) above %s: %s\n", len(above), ceiling, strings.Join(above, ", "))
			return ExitPolicy
		}
	}
	return ExitOK
}

func writeScoreTable(w io.Writer, r vet.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOL\tLEVEL\tRISK\tCATEGORY\tBLAST RADIUS\tREVERSIBLE\tAPPROVAL\tTRUST\tFINDINGS\tFINGERPRINT")
	for _, t := range r.Tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", t.Server, Printable(t.Name), t.Level, t.Risk.RiskLevel,
			t.Risk.Category, t.Risk.BlastRadius, t.Risk.Reversibility, t.Risk.ApprovalRecommendation,
			t.Risk.MinTrustLevel, len(t.Findings), toolgatev1alpha1.Fingerprint(t.Fingerprint).Short())
	}
	tw.Flush()

	counts := map[string]int{}
	for _, t := range r.Tools {
		counts[t.Level]++
	}
	var parts []string
	for l := risk.L0; l <= risk.L5; l++ {
		parts = append(parts, fmt.Sprintf("%s %d", l, counts[l.String()]))
	}
	fmt.Fprintf(w, "\n%d tools on %d server(s): %s\n", len(r.Tools), len(r.Servers), strings.Join(parts, ", "))

	for _, s := range r.Servers {
		if s.Floor != "" || len(s.Findings) > 0 {
			fmt.Fprintf(w, "\nserver %s: %s", s.Server, s.Level)
			if s.Floor != "" {
				fmt.Fprintf(w, " (floor: %s)", s.Floor)
			}
			fmt.Fprintln(w)
			for _, f := range s.Findings {
				fmt.Fprintf(w, "  finding %s in %s: %s\n", f.Signal, f.Field, f.Excerpt)
			}
		}
	}
	// Explain the tools a reviewer must look at: floors and findings.
	notable := make([]vet.ToolReport, 0)
	for _, t := range r.Tools {
		if len(t.Floors) > 0 || len(t.Findings) > 0 || len(t.Disagreements) > 0 {
			notable = append(notable, t)
		}
	}
	sort.SliceStable(notable, func(i, j int) bool { return notable[i].LevelValue() > notable[j].LevelValue() })
	for _, t := range notable {
		fmt.Fprintf(w, "\n%s/%s: %s\n", t.Server, Printable(t.Name), t.Level)
		for _, f := range t.Floors {
			fmt.Fprintf(w, "  floor: %s\n", f)
		}
		for _, f := range t.Findings {
			fmt.Fprintf(w, "  finding %s in %s: %s\n", f.Signal, f.Field, f.Excerpt)
		}
		for _, d := range t.Disagreements {
			fmt.Fprintf(w, "  disagreement: %s\n", d)
		}
	}
}

// Printable escapes what a terminal would interpret or hide in a name.
func Printable(s string) string {
	q := fmt.Sprintf("%+q", s)
	q = q[1 : len(q)-1]
	if q == s {
		return s
	}
	return q
}

// usageAs names program, instead of toolgate, in a command's usage line.
func usageAs(program, usage string) string {
	if rest, ok := strings.CutPrefix(usage, "Usage: toolgate "); ok {
		return "Usage: " + program + " " + rest
	}
	return usage
}
