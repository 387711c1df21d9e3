package offline

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// DiffReport is the JSON shape of `toolgate diff`.
type DiffReport struct {
	Tools []ToolDiff `json:"tools"`
}

// ToolDiff is one tool's change between two catalogues.
type ToolDiff struct {
	Name string `json:"name"`
	// Status is unchanged, changed, added or removed.
	Status string `json:"status"`
	// Review is true when the tool must be reviewed again before it is
	// trusted: any change of fingerprint, and any tool new to the catalogue.
	Review bool          `json:"review"`
	Diff   *tooldef.Diff `json:"diff,omitempty"`
}

func runDiff(program string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolgate diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var in inputFlags
	output := fs.String("o", "table", "output format: table or json")
	in.register(fs)
	if code, ok := parseFlags(program, fs, args, stderr, "Usage: toolgate diff [flags] OLD NEW\n\nExplains how each tool changed between two saved tools/list results of one server.\nExit status 1 when any tool must be re-reviewed.", output); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "toolgate diff: want two files, OLD and NEW; got %d\n", fs.NArg())
		return ExitUsage
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" {
		fmt.Fprintln(stderr, "toolgate diff: only one of OLD and NEW can be standard input")
		return ExitUsage
	}
	oldCat, err := readCatalogue(fs.Arg(0), stdin, in.limits())
	if err != nil {
		fmt.Fprintf(stderr, "toolgate diff: %v\n", err)
		return ExitUsage
	}
	newCat, err := readCatalogue(fs.Arg(1), stdin, in.limits())
	if err != nil {
		fmt.Fprintf(stderr, "toolgate diff: %v\n", err)
		return ExitUsage
	}

	report := compareCatalogues(oldCat, newCat)
	review := false
	for _, t := range report.Tools {
		review = review || t.Review
	}
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	} else {
		writeDiffTable(stdout, report)
	}
	if review {
		return ExitPolicy
	}
	return ExitOK
}

func compareCatalogues(oldCat, newCat *tooldef.Catalogue) DiffReport {
	report := DiffReport{Tools: []ToolDiff{}}
	old := map[string]*tooldef.Tool{}
	for _, t := range oldCat.Tools {
		old[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range newCat.Tools {
		seen[t.Name] = true
		prev, ok := old[t.Name]
		switch {
		case !ok:
			report.Tools = append(report.Tools, ToolDiff{Name: t.Name, Status: "added", Review: true})
		default:
			if d := tooldef.Compare(prev, t); d != nil {
				report.Tools = append(report.Tools, ToolDiff{Name: t.Name, Status: "changed", Review: true, Diff: d})
			} else {
				report.Tools = append(report.Tools, ToolDiff{Name: t.Name, Status: "unchanged"})
			}
		}
	}
	for _, t := range oldCat.Tools {
		if !seen[t.Name] {
			report.Tools = append(report.Tools, ToolDiff{Name: t.Name, Status: "removed"})
		}
	}
	return report
}

func writeDiffTable(w io.Writer, r DiffReport) {
	counts := map[string]int{}
	for _, t := range r.Tools {
		counts[t.Status]++
		if t.Status == "unchanged" {
			continue
		}
		line := fmt.Sprintf("%-9s %s", t.Status, Printable(t.Name))
		if t.Review {
			line += "  [re-review]"
		}
		fmt.Fprintln(w, line)
		if t.Diff != nil {
			fmt.Fprintf(w, "          %s → %s\n", toolgatev1alpha1.Fingerprint(t.Diff.From).Short(), toolgatev1alpha1.Fingerprint(t.Diff.To).Short())
			fmt.Fprintf(w, "          kinds: %s\n", strings.Join(t.Diff.Kinds, ", "))
			if t.Diff.LowersDeclaredRisk {
				fmt.Fprintln(w, "          WARNING: the server now declares this tool less risky than before")
			}
			for _, d := range t.Diff.Details {
				fmt.Fprintf(w, "          - %s\n", d)
			}
		}
	}
	fmt.Fprintf(w, "%d unchanged, %d changed, %d added, %d removed\n", counts["unchanged"], counts["changed"], counts["added"], counts["removed"])
}
