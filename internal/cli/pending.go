package cli

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// Kinds of pending item.
const (
	// PendingDefinition is a pin whose observed definition awaits review.
	PendingDefinition = "definition"
	// PendingCallKind is one call held by a gate until a human decides.
	PendingCallKind = "call"
	// PendingResultKind is one call's result, held by a gate because its
	// scan found something in it, until a human releases or drops it.
	PendingResultKind = "result"
)

// PendingReport is what `kubectl toolgate pending -o json` prints, less
// the List's apiVersion and kind.
type PendingReport struct {
	Items []PendingItem `json:"items"`
}

// PendingItem is one thing a reviewer can decide: a definition awaiting
// review, a held call or a held result.
type PendingItem struct {
	// Kind is "definition", "call" or "result".
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Pin       string `json:"pin"`
	Server    string `json:"server"`
	Tool      string `json:"tool"`
	// Level is the applied level; EffectiveLevel the level shown for a
	// gated tool, when the operator reports one.
	Level          string `json:"level,omitempty"`
	EffectiveLevel string `json:"effectiveLevel,omitempty"`
	// LevelShown is the level as the table shows it, the one a reviewer
	// decides on: the applied level, then the level the call's arguments
	// raised it to (L1→L4), or else the tool's effective level when every
	// call is approved (L5→L4).
	LevelShown string `json:"levelShown,omitempty"`
	// Fingerprint is what a decision on this item names: the observed
	// fingerprint, or the fingerprint the call was made against.
	Fingerprint toolgatev1alpha1.Fingerprint `json:"fingerprint"`
	// Since is when the item started waiting: the change's detection, the
	// first sight of a new tool, or the call's request.
	Since *metav1.Time `json:"since,omitempty"`

	// Definitions only.
	Reason  string   `json:"reason,omitempty"`
	Kinds   []string `json:"kinds,omitempty"`
	Details []string `json:"details,omitempty"`
	// Approvals counts the distinct approvers so far of the observed
	// fingerprint, or of the call; Needed is how many it takes, 0 when it
	// cannot be derived from the pin (multi tools need
	// --required-approvers people, 2 by default, a flag of the operator
	// the pin records only in the Ready message of a definition under
	// review).
	Approvals int  `json:"approvals"`
	Needed    int  `json:"needed,omitempty"`
	Multi     bool `json:"multi,omitempty"`

	// Calls and results only.
	CallID          string                          `json:"callID,omitempty"`
	Agent           *toolgatev1alpha1.AgentIdentity `json:"agent,omitempty"`
	ArgumentsDigest toolgatev1alpha1.Fingerprint    `json:"argumentsDigest,omitempty"`
	Arguments       string                          `json:"arguments,omitempty"`
	Expiry          *metav1.Time                    `json:"expiry,omitempty"`

	// Calls only: why the call waits — Designation (the tool's approval
	// rules), ArgumentRule (Rule matched it) or ArgumentLevel (its
	// arguments raised it to CallLevel, where calls wait) — and the
	// gate's words for it. CallLevel is the call's level after its
	// arguments, when they raised it. Empty from a gate that does not say.
	HeldBy     string `json:"heldBy,omitempty"`
	Rule       string `json:"rule,omitempty"`
	CallLevel  string `json:"callLevel,omitempty"`
	HeldReason string `json:"heldReason,omitempty"`

	// Results only: the digest of the result a release lets through, and
	// what the scan found in it.
	ResultDigest toolgatev1alpha1.Fingerprint `json:"resultDigest,omitempty"`
	Findings     []toolgatev1alpha1.Finding   `json:"findings,omitempty"`
}

// PendingItems returns what awaits a decision on the pins, sorted by
// namespace, pin and call: every pin in AwaitingReview and every pending
// call or held result, on pins in any state.
func PendingItems(pins []toolgatev1alpha1.ToolPin) []PendingItem {
	items := []PendingItem{}
	for i := range pins {
		p := &pins[i]
		base := PendingItem{Namespace: p.Namespace, Pin: p.Name, Server: p.Spec.ServerRef.Name, Tool: p.Spec.ToolName}
		if r := p.Status.Risk; r != nil {
			base.Level, base.EffectiveLevel = string(r.Level), string(r.EffectiveLevel)
		}
		if p.Status.State == toolgatev1alpha1.PinAwaitingReview {
			it := base
			it.Kind = PendingDefinition
			it.Fingerprint = p.Status.ObservedFingerprint
			if c := readyCondition(p); c != nil {
				it.Reason = c.Reason
			}
			switch {
			case p.Status.Change != nil:
				it.Since = p.Status.Change.DetectedTime.DeepCopy()
				for _, k := range p.Status.Change.Kinds {
					it.Kinds = append(it.Kinds, string(k))
				}
				it.Details = p.Status.Change.Details
			case p.Status.FirstSeenTime != nil:
				it.Since = p.Status.FirstSeenTime.DeepCopy()
			}
			it.Approvals, it.Needed, it.Multi = approvalCount(p)
			it.LevelShown = levelString(it)
			items = append(items, it)
		}
		for _, call := range p.Status.PendingCalls {
			it := base
			it.Kind = PendingCallKind
			it.Fingerprint = call.Fingerprint
			it.CallID = call.ID
			agent := call.Agent
			it.Agent = &agent
			it.ArgumentsDigest = call.ArgumentsDigest
			it.Arguments = call.Arguments
			it.Since = call.RequestedTime.DeepCopy()
			it.Expiry = call.ExpiryTime.DeepCopy()
			it.Approvals, it.Needed, it.Multi = callApprovalCount(p, &call)
			if call.Kind == toolgatev1alpha1.CallKindResult {
				it.Kind, it.ResultDigest, it.Findings = PendingResultKind, call.ResultDigest, call.Findings
			} else {
				it.HeldBy, it.Rule, it.CallLevel, it.HeldReason = string(call.HeldBy), call.Rule, string(call.Level), call.Reason
			}
			it.LevelShown = levelString(it)
			items = append(items, it)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Pin != b.Pin {
			return a.Pin < b.Pin
		}
		return a.CallID < b.CallID
	})
	return items
}

func readyCondition(p *toolgatev1alpha1.ToolPin) *metav1.Condition {
	return meta.FindStatusCondition(p.Status.Conditions, toolgatev1alpha1.ConditionReady)
}

// approvalsOf matches the operator's account of approvals in the Ready
// message ("…; 1 of 2 approvals"), the one place the pin records how many
// its operator requires.
var approvalsOf = regexp.MustCompile(`(\d+) of (\d+) approvals`)

// approvalCount counts the distinct identities whose latest decision on the
// observed definition approves it, as the operator counts them (people
// only, for multi), and how many are needed when the pin says.
func approvalCount(p *toolgatev1alpha1.ToolPin) (have, needed int, multi bool) {
	multi = p.Status.ComputedRiskOrApplied() != nil && p.Status.ComputedRiskOrApplied().ApprovalRecommendation == toolgatev1alpha1.ApprovalMulti
	have = approvers(p.Status.Decisions, multi, func(d *toolgatev1alpha1.Decision) bool {
		return d.CallID == "" && d.Fingerprint == p.Status.ObservedFingerprint
	})
	if !multi {
		return have, 1, false
	}
	if c := readyCondition(p); c != nil {
		if m := approvalsOf.FindStringSubmatch(c.Message); m != nil {
			needed, _ = strconv.Atoi(m[2])
		}
	}
	return have, needed, true
}

// approvers counts the identities whose latest decision among those that
// count is an approval; for multi, people only (no service account).
func approvers(decisions []toolgatev1alpha1.Decision, multi bool, counts func(*toolgatev1alpha1.Decision) bool) int {
	latest := map[string]toolgatev1alpha1.DecisionAction{}
	for i := range decisions {
		d := &decisions[i]
		if d.User == "" || !counts(d) || multi && strings.HasPrefix(d.User, "system:serviceaccount:") {
			continue
		}
		latest[d.User] = d.Action
	}
	n := 0
	for _, a := range latest {
		if a == toolgatev1alpha1.DecisionApprove {
			n++
		}
	}
	return n
}

// callApprovalCount counts the approvals of one pending call as the
// operator counts them (lifecycle.DecideCall): the latest decision of each
// person on the call at its fingerprint, people only for multi, and
// identities that are never a person left out. For multi the number
// needed is the operator's flag, which the pin does not record: 0.
func callApprovalCount(p *toolgatev1alpha1.ToolPin, call *toolgatev1alpha1.PendingCall) (have, needed int, multi bool) {
	needed, multi = lifecycle.CallApprovalsNeeded(&p.Status, 0)
	have = approvers(p.Status.Decisions, multi, func(d *toolgatev1alpha1.Decision) bool {
		return d.CallID == call.ID && d.Fingerprint == call.Fingerprint && lifecycle.NeverAPerson(d.User, d.Groups) == ""
	})
	if multi {
		needed = 0
	}
	return have, needed, multi
}

// WritePendingTable renders items for people; ages are relative to now.
func WritePendingTable(w io.Writer, items []PendingItem, allNamespaces bool, now time.Time) {
	WritePendingRows(w, items, PendingTableOptions{AllNamespaces: allNamespaces}, now)
}

// PendingTableOptions shape the pending table as kubectl's flags do.
type PendingTableOptions struct {
	// AllNamespaces adds the NAMESPACE column (-A).
	AllNamespaces bool
	// Wide adds the fingerprint decided on, what held a call and the
	// rule, and gives WHY whole (-o wide).
	Wide bool
	// NoHeaders leaves out the header, for the rows `--watch` prints as
	// pins change.
	NoHeaders bool
	// Gone marks rows of items no longer pending (by call id, or "" for a
	// definition, within a pin), which `--watch` prints once as such.
	Gone bool
}

// WritePendingRows renders items as the pending table's rows; with no
// items and a header it says that nothing awaits a decision.
func WritePendingRows(w io.Writer, items []PendingItem, o PendingTableOptions, now time.Time) {
	if len(items) == 0 {
		if !o.NoHeaders {
			fmt.Fprintln(w, "nothing awaits a decision")
		}
		return
	}
	var widths []int
	writeColumns(w, pendingRows(items, o, now), &widths)
}

// pendingRows are the table's cells: the header unless NoHeaders, then a
// row per item.
func pendingRows(items []PendingItem, o PendingTableOptions, now time.Time) [][]string {
	var rows [][]string
	if !o.NoHeaders {
		var h []string
		if o.AllNamespaces {
			h = append(h, "NAMESPACE")
		}
		h = append(h, "PIN", "KIND", "SERVER", "TOOL", "LEVEL", "WAITING", "REQUESTED BY", "APPROVALS")
		if o.Wide {
			h = append(h, "FINGERPRINT", "HELD BY", "RULE")
		}
		rows = append(rows, append(h, "WHY", "WHAT"))
	}
	for _, it := range items {
		var r []string
		if o.AllNamespaces {
			r = append(r, it.Namespace)
		}
		kind, by, why := it.Kind, "-", "-"
		if it.Kind == PendingCallKind || it.Kind == PendingResultKind {
			kind = it.Kind + " " + it.CallID
			by = agentString(it.Agent)
		}
		if it.Kind == PendingCallKind {
			why = whyHeld(it)
			if !o.Wide {
				why = clipRunes(why, whyWidth)
			}
		}
		approvals, waiting, whatText := approvalString(it), age(it.Since, now), what(it, now)
		if o.Gone {
			approvals, waiting, why, whatText = "-", "-", "-", "no longer pending: decided, withdrawn, expired or redefined"
		}
		r = append(r, it.Pin, offline.Printable(kind), it.Server, offline.Printable(it.Tool), levelString(it), waiting, by, approvals)
		if o.Wide {
			r = append(r, orDash(it.Fingerprint.Short()), orDash(it.HeldBy), orDash(oneLine(it.Rule)))
		}
		rows = append(rows, append(r, why, whatText))
	}
	return rows
}

// writeColumns writes rows as aligned columns two spaces apart, the last
// one unpadded, as text/tabwriter does. widths carries the columns' widths
// from one call to the next, so that the rows `--watch` prints later line
// up under the table, widening a column only when a cell needs it.
func writeColumns(w io.Writer, rows [][]string, widths *[]int) {
	for _, r := range rows {
		for i, cell := range r {
			if i >= len(*widths) {
				*widths = append(*widths, 0)
			}
			(*widths)[i] = max((*widths)[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, cell := range r {
			b.WriteString(cell)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", (*widths)[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(w, b.String())
	}
}

// levelString is an item's level: the applied level, then the level its
// arguments raised a held call to, or else the effective level of an
// approval-gated tool.
func levelString(it PendingItem) string {
	level := orDash(it.Level)
	switch {
	case it.CallLevel != "" && it.CallLevel != it.Level:
		level += "→" + it.CallLevel
	case it.CallLevel == "" && it.EffectiveLevel != "" && it.EffectiveLevel != it.Level:
		level += "→" + it.EffectiveLevel
	}
	return level
}

// whyWidth bounds the WHY column; describe shows the whole text.
const whyWidth = 48

// whyHeld says why a held call waits, in one line: the rule that held
// it, the level its arguments raised it to, or the tool's own approval
// rules — with the gate's reason, less what the line already says. The
// reason is escaped: a rule's message and the argument paths a floor
// names are not the reviewer's words.
func whyHeld(it PendingItem) string {
	reason := oneLine(it.HeldReason)
	switch toolgatev1alpha1.HeldBy(it.HeldBy) {
	case toolgatev1alpha1.HeldByArgumentRule:
		s := "rule " + oneLine(it.Rule)
		if r := strings.TrimPrefix(strings.TrimPrefix(reason, "argument rule "+oneLine(it.Rule)), ":"); strings.TrimSpace(r) != "" {
			s += ": " + strings.TrimSpace(r)
		}
		return s
	case toolgatev1alpha1.HeldByArgumentLevel:
		s := "arguments raise it to " + orDash(it.CallLevel)
		if r := raisedBy(reason, it.CallLevel); r != "" {
			s += ": " + r
		}
		return s
	}
	if reason == "" {
		return "the tool's calls wait for approval"
	}
	return reason
}

// raisedBy is what raised a call's level, from the gate's reason
// ("these arguments raise the call to L4 (argument floor force at
// force); calls at L4 or above wait for approval"): the words in
// parentheses, or the whole reason when it reads otherwise.
func raisedBy(reason, level string) string {
	rest, ok := strings.CutPrefix(reason, "these arguments raise the call to "+level+" (")
	if !ok {
		return reason
	}
	depth := 1
	for i, r := range rest {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return rest[:i]
			}
		}
	}
	return reason
}

func approvalString(it PendingItem) string {
	switch {
	case it.Needed > 0 && it.Multi:
		return fmt.Sprintf("%d/%d (multi)", it.Approvals, it.Needed)
	case it.Multi:
		return fmt.Sprintf("%d/2+ (multi)", it.Approvals)
	default:
		return fmt.Sprintf("%d/%d", it.Approvals, it.Needed)
	}
}

func agentString(a *toolgatev1alpha1.AgentIdentity) string {
	if a == nil {
		return "-"
	}
	s := a.Namespace + "/" + a.Pod
	if a.ServiceAccount != "" {
		s += " (sa " + a.ServiceAccount + ")"
	}
	return s
}

// whatWidth bounds the last column, so one long change detail or argument
// preview does not push the table off every screen.
const whatWidth = 80

// resultWhatWidth is the last column's bound for a held result, which
// says more: the signals, an excerpt of the text that tried to steer the
// model (what the decision is about) and the digest a release covers.
const resultWhatWidth = 120

// what says what a reviewer decides on: the change, the arguments, or
// what the scan found in a held result.
func what(it PendingItem, now time.Time) string {
	var s string
	switch {
	case it.Kind == PendingCallKind || it.Kind == PendingResultKind:
		prefix := ""
		if it.Expiry != nil {
			left := it.Expiry.Sub(now).Truncate(time.Second)
			if left <= 0 {
				prefix = "EXPIRED "
			} else {
				prefix = "expires in " + left.String() + ": "
			}
		}
		if it.Kind == PendingResultKind {
			return prefix + resultSummary(it, resultWhatWidth-utf8.RuneCountInString(prefix))
		}
		s = prefix + "args " + oneLine(it.Arguments)
	case len(it.Kinds) > 0:
		s = strings.Join(it.Kinds, ",")
		if len(it.Details) > 0 {
			s += ": " + oneLine(it.Details[0])
			if len(it.Details) > 1 {
				s += fmt.Sprintf(" (+%d more)", len(it.Details)-1)
			}
		}
	default:
		s = "new tool"
		if it.Reason != "" && it.Reason != string(toolgatev1alpha1.PinAwaitingReview) {
			s += " (" + it.Reason + ")"
		}
	}
	return clipRunes(s, whatWidth)
}

// resultSummary says, in at most width runes, what a held result is
// decided on: the signals found, each once, the first excerpt as far as
// it fits, and the digest of the result, which always shows.
func resultSummary(it PendingItem, width int) string {
	var signals []string
	for _, f := range it.Findings {
		if sig := oneLine(f.Signal); !slices.Contains(signals, sig) {
			signals = append(signals, sig)
		}
	}
	head, tail := strings.Join(signals, ","), " ("+it.ResultDigest.Short()+")"
	room := width - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail) - len(` ""`)
	if len(it.Findings) > 0 && it.Findings[0].Excerpt != "" && room >= 8 {
		head += ` "` + clipRunes(oneLine(it.Findings[0].Excerpt), room) + `"`
	}
	return clipRunes(head, max(width-utf8.RuneCountInString(tail), 1)) + tail
}

// oneLine escapes what a terminal would interpret and folds the text onto
// one line: previews and details come from the MCP server or the agent.
func oneLine(s string) string {
	return safeText(strings.Join(strings.Fields(s), " "))
}

// safeText escapes control, format (bidirectional overrides, zero-width)
// and other unprintable characters, keeping the rest readable: the text of
// a definition or a call is chosen by whoever serves or makes it.
func safeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\t' || (unicode.IsPrint(r) && !unicode.Is(unicode.Bidi_Control, r)) {
			b.WriteRune(r)
			continue
		}
		if r == unicode.ReplacementChar {
			b.WriteString(`\uFFFD`)
			continue
		}
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	return b.String()
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// age renders how long ago t was, as kubectl does: the largest unit or two.
func age(t *metav1.Time, now time.Time) string {
	if t == nil {
		return "-"
	}
	d := now.Sub(t.Time)
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
