package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// WriteDescribe renders a pin for a reviewer: where it stands, its risk,
// the pinned and observed fingerprints, the change as a unified diff of the
// two definitions, the decisions, the pending calls and held results with
// their findings, and the calls resolved last. Ages are relative
// to now. Everything the server or an agent chose is escaped.
func WriteDescribe(w io.Writer, pin *toolgatev1alpha1.ToolPin, now time.Time) {
	st := &pin.Status
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	field := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	field("Name", pin.Name)
	field("Namespace", pin.Namespace)
	field("Server", pin.Spec.ServerRef.Name)
	field("Tool", offline.Printable(pin.Spec.ToolName))
	state := orDash(string(st.State))
	if c := readyCondition(pin); c != nil && c.Message != "" {
		if c.Reason == string(st.State) {
			state += " (" + oneLine(c.Message) + ")"
		} else {
			state += " (" + c.Reason + ": " + oneLine(c.Message) + ")"
		}
	}
	field("State", state)
	if r := st.Risk; r != nil {
		level := string(r.Level)
		if r.EffectiveLevel != "" && r.EffectiveLevel != r.Level {
			level += " (effective " + string(r.EffectiveLevel) + " when every call is approved)"
		}
		if r.Overridden {
			level += " [overridden]"
		}
		field("Level", level)
		field("Risk", fmt.Sprintf("%s, category %s, blast radius %s, reversibility %s, approval %s, min trust %d",
			r.RiskLevel, r.Category, r.BlastRadius, r.Reversibility, r.ApprovalRecommendation, r.MinTrustLevel))
		for _, f := range r.Floors {
			field("Floor", oneLine(f))
		}
		for _, f := range r.Findings {
			field("Finding", fmt.Sprintf("%s in %s: %s", f.Signal, f.Field, oneLine(f.Excerpt)))
		}
	}
	if cr := st.ComputedRisk; cr != nil && st.Risk != nil && cr.Level != st.Risk.Level {
		field("Computed level", string(cr.Level)+" (before the override)")
	}
	if o := pin.Spec.Override; o != nil {
		field("Override", fmt.Sprintf("level %s, category %s, blast radius %s, by %s: %s",
			orDash(string(o.Level)), orDash(string(o.Category)), orDash(string(o.BlastRadius)), orDash(o.SetBy), oneLine(o.Reason)))
	}
	if p := st.Pinned; p != nil {
		pinned := fmt.Sprintf("%s (%s, %s", p.Fingerprint, p.Source, p.Time.UTC().Format(time.RFC3339))
		if len(p.Approvers) > 0 {
			pinned += ", approved by " + strings.Join(p.Approvers, ", ")
		}
		field("Pinned", pinned+")")
	} else {
		field("Pinned", "nothing yet")
	}
	observed := orDash(string(st.ObservedFingerprint))
	if st.Pinned != nil && st.Pinned.Fingerprint == st.ObservedFingerprint {
		observed += " (the pinned definition)"
	}
	field("Observed", observed)
	if st.State == toolgatev1alpha1.PinAwaitingReview {
		have, needed, multi := approvalCount(pin)
		field("Approvals", approvalString(PendingItem{Approvals: have, Needed: needed, Multi: multi}))
	}
	tw.Flush()

	if ch := st.Change; ch != nil {
		kinds := make([]string, 0, len(ch.Kinds))
		for _, k := range ch.Kinds {
			kinds = append(kinds, string(k))
		}
		fmt.Fprintf(w, "\nChange %s → %s, detected %s ago: %s\n", ch.From.Short(), ch.To.Short(), age(&ch.DetectedTime, now), strings.Join(kinds, ", "))
		for _, d := range ch.Details {
			fmt.Fprintf(w, "  - %s\n", oneLine(d))
		}
	}
	if st.Pinned != nil && st.ObservedDefinition != "" && st.Pinned.Fingerprint != st.ObservedFingerprint {
		fmt.Fprintln(w)
		if st.Pinned.Definition == "" {
			fmt.Fprintln(w, "Diff: the pinned definition was not recorded; the observed one is:")
			fmt.Fprint(w, indented(st.ObservedDefinition))
		} else {
			fmt.Fprint(w, DefinitionDiff(st.Pinned.Definition, st.ObservedDefinition, st.Pinned.Fingerprint, st.ObservedFingerprint))
		}
	} else if st.Pinned == nil && st.ObservedDefinition != "" {
		fmt.Fprintln(w, "\nObserved definition (new, never pinned):")
		fmt.Fprint(w, indented(st.ObservedDefinition))
	}

	fmt.Fprintf(w, "\nDecisions (%d):\n", len(st.Decisions))
	if len(st.Decisions) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  TIME\tACTION\tON\tUSER\tCOMMENT")
		for _, d := range st.Decisions {
			when := "-"
			if d.Time != nil {
				when = d.Time.UTC().Format(time.RFC3339)
			}
			on := d.Fingerprint.Short()
			if d.CallID != "" {
				on = "call " + d.CallID
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", when, d.Action, on, orDash(d.User), clipRunes(oneLine(d.Comment), 60))
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\nPending calls (%d):\n", len(st.PendingCalls))
	if len(st.PendingCalls) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tKIND\tAGENT\tWAITING\tEXPIRES IN\tFINGERPRINT\tARGUMENTS")
		var results []toolgatev1alpha1.PendingCall
		for _, c := range st.PendingCalls {
			left := "expired"
			if d := c.ExpiryTime.Sub(now).Truncate(time.Second); d > 0 {
				left = d.String()
			}
			kind := PendingCallKind
			if c.Kind == toolgatev1alpha1.CallKindResult {
				kind = PendingResultKind
				results = append(results, c)
			}
			agent := c.Agent
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, kind, agentString(&agent), age(&c.RequestedTime, now), left, c.Fingerprint.Short(), clipRunes(oneLine(c.Arguments), 80))
		}
		tw.Flush()
		// A held call is decided knowing why it waits: the rule that held
		// it, or the level its arguments raised it to, in full.
		var held []string
		for _, c := range st.PendingCalls {
			if c.Kind == toolgatev1alpha1.CallKindResult {
				continue
			}
			it := PendingItem{HeldBy: string(c.HeldBy), Rule: c.Rule, CallLevel: string(c.Level), HeldReason: c.Reason}
			line := fmt.Sprintf("  %s: %s", c.ID, whyHeld(it))
			if c.Level != "" && c.HeldBy != toolgatev1alpha1.HeldByArgumentLevel {
				line += " (its arguments raise it to " + string(c.Level) + ")"
			}
			held = append(held, line)
		}
		if len(held) > 0 {
			fmt.Fprintf(w, "\nWhy the calls wait:\n%s\n", strings.Join(held, "\n"))
		}
		// A held result is decided on what the scan found in it: each
		// finding in full, and the digest a release lets through.
		for _, c := range results {
			fmt.Fprintf(w, "\nHeld result of call %s (release: toolgate release %s --call %s; drop: toolgate drop %s --call %s):\n",
				c.ID, pin.Name, c.ID, pin.Name, c.ID)
			fmt.Fprintf(w, "  Digest: %s\n", c.ResultDigest)
			for _, f := range c.Findings {
				fmt.Fprintf(w, "  - %s\n", findingLine(f))
			}
		}
	}

	if n := len(st.CallHistory); n > 0 {
		fmt.Fprintf(w, "\nResolved calls (latest %d of %d):\n", min(n, describeHistory), n)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tKIND\tVERDICT\tAGENT\tRESOLVED\tBY")
		for _, r := range st.CallHistory[max(0, n-describeHistory):] {
			kind := PendingCallKind
			if r.Kind == toolgatev1alpha1.CallKindResult {
				kind = PendingResultKind
			}
			var by []string
			for _, d := range r.Decisions {
				if d.User != "" && !slices.Contains(by, d.User) {
					by = append(by, d.User)
				}
			}
			agent := r.Agent
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s ago\t%s\n", r.ID, kind, r.Verdict, agentString(&agent), age(&r.ResolvedTime, now), orDash(strings.Join(by, ",")))
		}
		tw.Flush()
	}
}

// describeHistory is how many resolved calls describe lists, newest last.
const describeHistory = 10

// DefinitionDiff is a unified diff of two canonical definitions, indented
// one key per line so that a change shows as the lines it touches.
// Canonical JSON sorts keys, so the same definition always lines up.
func DefinitionDiff(pinned, observed string, from, to toolgatev1alpha1.Fingerprint) string {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(indented(pinned)),
		B:        difflib.SplitLines(indented(observed)),
		FromFile: "pinned " + from.Short(),
		ToFile:   "observed " + to.Short(),
		Context:  3,
	})
	if err != nil {
		return fmt.Sprintf("Diff: %v\n", err)
	}
	if text == "" {
		return "Diff: the definitions differ only in what indentation does not show\n"
	}
	return text
}

// indented pretty-prints canonical JSON with every line escaped; text that
// is not JSON (it never should be) is shown escaped as it is.
func indented(canonical string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(canonical), "", "  "); err != nil {
		buf.Reset()
		buf.WriteString(canonical)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		out.WriteString(safeText(line))
		out.WriteByte('\n')
	}
	return out.String()
}

type describeOptions struct {
	*options
	output string
}

func newDescribeCommand(o *options) *cobra.Command {
	d := &describeOptions{options: o}
	cmd := &cobra.Command{
		Use:   "describe PIN [-n NAMESPACE] [-o text|json]",
		Short: "Show a ToolPin for review: its state, risk, the change as a diff, decisions and held calls",
		Long: `Show a ToolPin for review: where it stands, its risk, the pinned and observed fingerprints,
the change as a unified diff of the two definitions, the decisions, the calls and results held,
and the calls resolved last. Everything the server or an agent chose is shown escaped.

-o json gives the change as "toolgate diff -o json" explains it.`,
		Example:           "  kubectl toolgate describe toolbox-get-weather-0123456789abcdef -n tools",
		Args:              onePin,
		ValidArgsFunction: completePins(o),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.run(cmd.Context(), args[0])
		},
	}
	cmd.Flags().StringVarP(&d.output, "output", "o", "text", "Output format: text, or json for the change as `toolgate diff -o json` explains it.")
	return cmd
}

func (d *describeOptions) run(ctx context.Context, name string) error {
	if d.output != "text" && d.output != "json" {
		return usageError("-o %q: want text or json", d.output)
	}
	c, ns, err := d.client()
	if err != nil {
		return failed("%w", err)
	}
	var pin toolgatev1alpha1.ToolPin
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &pin); err != nil {
		return failed("reading toolpin %s/%s: %w", ns, name, err)
	}
	if d.output == "json" {
		diff, err := pinDiff(&pin)
		if err != nil {
			return failed("toolpin %s/%s: %w", ns, name, err)
		}
		enc := json.NewEncoder(d.streams.Out)
		enc.SetIndent("", "  ")
		status := diffStatus(diff)
		if pin.Status.Pinned == nil {
			status = "added"
		}
		if err := enc.Encode(offline.ToolDiff{Name: pin.Spec.ToolName, Status: status, Review: pin.Status.State == toolgatev1alpha1.PinAwaitingReview, Diff: diff}); err != nil {
			return failed("%w", err)
		}
		return nil
	}
	WriteDescribe(d.streams.Out, &pin, d.now())
	return nil
}

// pinDiff compares the pin's pinned and observed definitions with the same
// machinery as `toolgate diff`; nil when they are the same.
func pinDiff(pin *toolgatev1alpha1.ToolPin) (*tooldef.Diff, error) {
	st := &pin.Status
	if st.Pinned == nil || st.Pinned.Definition == "" || st.ObservedDefinition == "" {
		return nil, nil
	}
	a, err := tooldef.ParseTool([]byte(st.Pinned.Definition))
	if err != nil {
		return nil, fmt.Errorf("status.pinned.definition: %w", err)
	}
	b, err := tooldef.ParseTool([]byte(st.ObservedDefinition))
	if err != nil {
		return nil, fmt.Errorf("status.observedDefinition: %w", err)
	}
	return tooldef.Compare(a, b), nil
}

func diffStatus(d *tooldef.Diff) string {
	if d == nil {
		return "unchanged"
	}
	return "changed"
}
