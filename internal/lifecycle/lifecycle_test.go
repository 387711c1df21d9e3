package lifecycle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Hour))
)

func tool(t *testing.T, def string) *tooldef.Tool {
	t.Helper()
	tl, err := tooldef.ParseTool([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

const (
	original = `{"name":"delete_file","description":"Deletes one file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`
	rugPull  = `{"name":"delete_file","description":"Deletes one file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"sidenote":{"type":"string"}}}}`
)

func risk(level toolgatev1alpha1.Level, approval toolgatev1alpha1.ApprovalRecommendation) *toolgatev1alpha1.ToolRisk {
	return &toolgatev1alpha1.ToolRisk{Level: level, RiskLevel: toolgatev1alpha1.RiskMedium, Category: toolgatev1alpha1.CategoryDelete, BlastRadius: toolgatev1alpha1.BlastItem,
		Reversibility: toolgatev1alpha1.ReversibilityNone, ApprovalRecommendation: approval, MinTrustLevel: 3}
}

// trusted is the status after a tool was trusted on first use.
func trusted(t *testing.T) toolgatev1alpha1.ToolPinStatus {
	out := Next(Input{Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseTrust, Now: t0})
	if out.Status.State != toolgatev1alpha1.PinTrusted {
		t.Fatalf("first sight: %+v", out)
	}
	return out.Status
}

func decide(st toolgatev1alpha1.ToolPinStatus, user string, action toolgatev1alpha1.DecisionAction, fp string) toolgatev1alpha1.ToolPinStatus {
	st = *st.DeepCopy()
	st.Decisions = append(st.Decisions, toolgatev1alpha1.Decision{Action: action, Fingerprint: toolgatev1alpha1.Fingerprint(fp), User: user})
	return st
}

func TestFirstSight(t *testing.T) {
	st := trusted(t)
	if st.Pinned == nil || st.Pinned.Source != toolgatev1alpha1.PinnedOnFirstUse || st.Pinned.Fingerprint != st.ObservedFingerprint || st.Pinned.Definition == "" {
		t.Errorf("pinned: %+v", st.Pinned)
	}
	review := Next(Input{Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseReview, Now: t0})
	if review.Status.State != toolgatev1alpha1.PinAwaitingReview || review.Status.Pinned != nil || review.Reason != toolgatev1alpha1.ReasonAwaitingFirstReview {
		t.Errorf("review mode: %+v", review)
	}
	laundered := Next(Input{Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseTrust, UntrustedBody: true, Now: t0})
	if laundered.Status.State != toolgatev1alpha1.PinAwaitingReview || laundered.Reason != toolgatev1alpha1.ReasonRenamedFromUntrusted {
		t.Errorf("a renamed untrusted definition: %+v", laundered)
	}
}

func TestUnchangedIsQuiet(t *testing.T) {
	st := trusted(t)
	soon := metav1.NewTime(t0.Add(time.Minute))
	quiet := Next(Input{Status: st, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: soon})
	if !equality.Semantic.DeepEqual(quiet.Status, st) {
		t.Errorf("an unchanged tool seen again a minute later changed its status:\n%+v\n%+v", st, quiet.Status)
	}
	out := Next(Input{Status: st, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if out.Reason != "" || out.Status.State != toolgatev1alpha1.PinTrusted || out.Status.Change != nil {
		t.Errorf("an unchanged tool made a transition: %+v", out)
	}
	if !out.Status.LastSeenTime.Equal(&t1) || !out.Status.FirstSeenTime.Equal(&t0) {
		t.Errorf("seen times: first %v last %v", out.Status.FirstSeenTime, out.Status.LastSeenTime)
	}
}

func TestRugPullNeedsApproval(t *testing.T) {
	st := trusted(t)
	pinned := st.Pinned.Fingerprint
	// An approval of the old definition is on record; it must not carry over.
	st = decide(st, "alice", toolgatev1alpha1.DecisionApprove, string(pinned))

	changed := tool(t, rugPull)
	out := Next(Input{Status: st, Tool: changed, Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if out.Status.State != toolgatev1alpha1.PinAwaitingReview || out.Reason != toolgatev1alpha1.ReasonDefinitionChanged {
		t.Fatalf("a changed definition: %+v", out)
	}
	c := out.Status.Change
	if c == nil || c.From != pinned || c.To != toolgatev1alpha1.Fingerprint(changed.Fingerprint()) || !strings.Contains(strings.Join(c.Details, "\n"), `property "sidenote" added`) {
		t.Fatalf("change: %+v", c)
	}
	if out.Status.Pinned.Fingerprint != pinned {
		t.Error("the pin moved without an approval")
	}

	// Bob approves the new fingerprint: the pin moves.
	st = decide(out.Status, "bob", toolgatev1alpha1.DecisionApprove, changed.Fingerprint())
	out = Next(Input{Status: st, Tool: changed, Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if out.Status.State != toolgatev1alpha1.PinTrusted || out.Reason != toolgatev1alpha1.ReasonApproved || out.Status.Pinned.Fingerprint != toolgatev1alpha1.Fingerprint(changed.Fingerprint()) ||
		out.Status.Pinned.Source != toolgatev1alpha1.PinnedByApproval || strings.Join(out.Status.Pinned.Approvers, ",") != "bob" || out.Status.Change != nil {
		t.Fatalf("after approval: %+v %+v", out, out.Status.Pinned)
	}
}

func TestMultiNeedsDistinctApprovers(t *testing.T) {
	st := trusted(t)
	changed := tool(t, rugPull)
	in := Input{Tool: changed, Risk: risk(toolgatev1alpha1.LevelCritical, toolgatev1alpha1.ApprovalMulti), RequiredApprovers: 2, Now: t1}

	st = decide(st, "alice", toolgatev1alpha1.DecisionApprove, changed.Fingerprint())
	st = decide(st, "alice", toolgatev1alpha1.DecisionApprove, changed.Fingerprint()) // twice counts once
	in.Status = st
	out := Next(in)
	if out.Status.State != toolgatev1alpha1.PinAwaitingReview || !strings.Contains(out.Message, "1 of 2 approvals") {
		t.Fatalf("one approver twice: %+v", out)
	}
	in.Status = decide(out.Status, "bob", toolgatev1alpha1.DecisionApprove, changed.Fingerprint())
	out = Next(in)
	if out.Status.State != toolgatev1alpha1.PinTrusted || strings.Join(out.Status.Pinned.Approvers, ",") != "alice,bob" {
		t.Fatalf("two approvers: %+v", out)
	}
	// Decisions stamped without a user (never through the webhook) count
	// for nothing.
	st = trusted(t)
	st.Decisions = append(st.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: toolgatev1alpha1.Fingerprint(changed.Fingerprint())})
	if out := Next(Input{Status: st, Tool: changed, Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1}); out.Status.State == toolgatev1alpha1.PinTrusted {
		t.Error("an anonymous decision was counted")
	}
}

func TestRejection(t *testing.T) {
	st := trusted(t)
	changed := tool(t, rugPull)
	st = decide(st, "alice", toolgatev1alpha1.DecisionApprove, changed.Fingerprint())
	st = decide(st, "carol", toolgatev1alpha1.DecisionReject, changed.Fingerprint())
	out := Next(Input{Status: st, Tool: changed, Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if out.Status.State != toolgatev1alpha1.PinRejected || out.Reason != toolgatev1alpha1.ReasonRejected || !strings.Contains(out.Message, "carol") {
		t.Fatalf("a rejection rejects: %+v", out)
	}
	// The server reverts to the pinned definition: trusted again.
	back := Next(Input{Status: out.Status, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if back.Status.State != toolgatev1alpha1.PinTrusted || back.Reason != toolgatev1alpha1.ReasonRestored {
		t.Fatalf("back to the pinned definition: %+v", back)
	}
}

func TestRemovedAndBack(t *testing.T) {
	st := trusted(t)
	gone := Next(Input{Status: st, Tool: nil, Now: t1})
	if gone.Status.State != toolgatev1alpha1.PinRemoved || gone.Reason != toolgatev1alpha1.ReasonRemoved || gone.Status.Pinned == nil {
		t.Fatalf("removed: %+v", gone)
	}
	same := Next(Input{Status: gone.Status, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if same.Status.State != toolgatev1alpha1.PinTrusted || same.Reason != toolgatev1alpha1.ReasonRestored {
		t.Fatalf("back unchanged: %+v", same)
	}
	changed := Next(Input{Status: gone.Status, Tool: tool(t, rugPull), Risk: risk(toolgatev1alpha1.LevelHigh, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if changed.Status.State != toolgatev1alpha1.PinAwaitingReview || changed.Reason != toolgatev1alpha1.ReasonDefinitionChanged {
		t.Fatalf("back changed: %+v", changed)
	}
}

func TestRiskRisesAtOnceAndFallsOnlyWithAHuman(t *testing.T) {
	st := trusted(t) // L4
	higher := Next(Input{Status: st, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelCritical, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if higher.Status.ComputedRisk.Level != toolgatev1alpha1.LevelCritical {
		t.Fatalf("a higher level must take effect at once: %s", higher.Status.ComputedRisk.Level)
	}
	lower := Next(Input{Status: higher.Status, Tool: tool(t, original), Risk: risk(toolgatev1alpha1.LevelModerate, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if lower.Status.ComputedRisk.Level != toolgatev1alpha1.LevelCritical {
		t.Fatalf("a level fell without a human: %s", lower.Status.ComputedRisk.Level)
	}
	changed := tool(t, rugPull)
	pending := Next(Input{Status: lower.Status, Tool: changed, Risk: risk(toolgatev1alpha1.LevelModerate, toolgatev1alpha1.ApprovalSingle), Now: t1})
	approved := Next(Input{Status: decide(pending.Status, "alice", toolgatev1alpha1.DecisionApprove, changed.Fingerprint()), Tool: changed, Risk: risk(toolgatev1alpha1.LevelModerate, toolgatev1alpha1.ApprovalSingle), Now: t1})
	if approved.Status.ComputedRisk.Level != toolgatev1alpha1.LevelModerate {
		t.Fatalf("after a human approved the definition, its own judgement stands: %s", approved.Status.ComputedRisk.Level)
	}
}

// TestDefinitionsAreKeptWithinTheEncodedBudget: a definition that fits the
// schema's bound in characters but not as JSON on the wire (every "<" is
// six bytes there) is pinned by its fingerprint alone, so the pin can
// always be written.
func TestDefinitionsAreKeptWithinTheEncodedBudget(t *testing.T) {
	for _, c := range []struct {
		name string
		desc string
		kept bool
	}{
		{"plain text is kept", "Lists one page of files.", true},
		{"escaped text over the budget", strings.Repeat("<", 200000), false},
		{"escaped text within the budget", strings.Repeat("<", 1000), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			def := `{"name":"list_files","description":"` + c.desc + `"}`
			out := Next(Input{Tool: tool(t, def), Risk: risk("L2", toolgatev1alpha1.ApprovalNone), FirstUse: toolgatev1alpha1.FirstUseTrust, Now: t0})
			st := out.Status
			if st.ObservedFingerprint == "" || st.Pinned == nil || st.Pinned.Fingerprint != st.ObservedFingerprint || st.State != toolgatev1alpha1.PinTrusted {
				t.Fatalf("not pinned by its fingerprint: %+v", st)
			}
			if kept := st.ObservedDefinition != "" && st.Pinned.Definition != ""; kept != c.kept {
				t.Errorf("definition kept %v, want %v", kept, c.kept)
			}
			if n := EncodedLength(st.ObservedDefinition); n > toolgatev1alpha1.MaxDefinitionLength {
				t.Errorf("a kept definition of %d encoded bytes is over the budget", n)
			}
		})
	}
}

func TestANewToolThatReplacesARemovedOneIsReviewed(t *testing.T) {
	in := Input{Tool: tool(t, original), Risk: risk("L3", toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseTrust, ReplacesRemoved: true, Now: t0}
	out := Next(in)
	if out.Status.State != toolgatev1alpha1.PinAwaitingReview || out.Reason != toolgatev1alpha1.ReasonReplacesRemovedTool || out.Status.Pinned != nil {
		t.Fatalf("state %s, reason %s, pinned %v", out.Status.State, out.Reason, out.Status.Pinned)
	}
	// A pin already trusted is not moved by another tool's disappearance.
	in.Status = trusted(t)
	if again := Next(in); again.Status.State != toolgatev1alpha1.PinTrusted {
		t.Errorf("a trusted pin moved to %s", again.Status.State)
	}
}

func TestAPoisonedNewToolIsReviewed(t *testing.T) {
	poisoned := risk(toolgatev1alpha1.LevelCritical, toolgatev1alpha1.ApprovalSingle)
	poisoned.Findings = []toolgatev1alpha1.Finding{{Signal: "exfiltration", Field: "description"}}
	in := Input{Tool: tool(t, original), Risk: poisoned, FirstUse: toolgatev1alpha1.FirstUseTrust, RequiredApprovers: 2, Now: t0}
	out := Next(in)
	if out.Status.State != toolgatev1alpha1.PinAwaitingReview || out.Reason != toolgatev1alpha1.ReasonPoisonedOnFirstUse || out.Status.Pinned != nil {
		t.Fatalf("state %s, reason %s, pinned %v", out.Status.State, out.Reason, out.Status.Pinned)
	}
	// A human's approval of that fingerprint is what trusts it, and the pin
	// says so: the policy clears a finding only on an approved definition.
	in.Status = out.Status
	in.Status.Decisions = []toolgatev1alpha1.Decision{{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: toolgatev1alpha1.Fingerprint(in.Tool.Fingerprint()), User: "alice"}}
	approved := Next(in)
	if approved.Status.State != toolgatev1alpha1.PinTrusted || approved.Status.Pinned == nil || approved.Status.Pinned.Source != toolgatev1alpha1.PinnedByApproval {
		t.Fatalf("after approval: state %s, pinned %+v", approved.Status.State, approved.Status.Pinned)
	}
}

// TestIdentitiesThatAreNoPersonNeverCount: should a decision by such an
// identity reach the record (a webhook down, a bad binding), it approves
// nothing.
func TestIdentitiesThatAreNoPersonNeverCount(t *testing.T) {
	st := Next(Input{Tool: tool(t, original), Risk: risk("L3", toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseReview, Now: t0}).Status
	for _, who := range []toolgatev1alpha1.Decision{
		{User: "system:anonymous"},
		{User: "mallory", Groups: []string{"system:unauthenticated"}},
		{User: "system:node:worker-1", Groups: []string{"system:nodes"}},
		{User: "system:kube-controller-manager"},
	} {
		who.Action, who.Fingerprint, who.Time = toolgatev1alpha1.DecisionApprove, st.ObservedFingerprint, &t1
		in := Input{Status: *st.DeepCopy(), Tool: tool(t, original), FirstUse: toolgatev1alpha1.FirstUseReview, Now: t1}
		in.Status.Decisions = append(in.Status.Decisions, who)
		if out := Next(in); out.Status.State == toolgatev1alpha1.PinTrusted {
			t.Errorf("%s approved the tool", who.User)
		}
	}
}

// TestAMovedOriginIsReviewedAgain: repointing spec.endpoint at another
// host sends a Trusted pin back to review.
func TestAMovedOriginIsReviewedAgain(t *testing.T) {
	const a, b = "https://tools.example.com:443", "https://attacker.example.net:443"
	first := Next(Input{Tool: tool(t, original), Risk: risk("L3", toolgatev1alpha1.ApprovalSingle), FirstUse: toolgatev1alpha1.FirstUseTrust, Origin: a, Now: t0})
	if first.Status.Pinned == nil || first.Status.Pinned.Origin != a {
		t.Fatalf("the trusted pin records no origin: %+v", first.Status.Pinned)
	}
	// An approval of this fingerprint made before the move.
	st := first.Status
	st.Decisions = append(st.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: st.ObservedFingerprint, User: "ana", Time: &t0})

	moved := Next(Input{Status: st, Tool: tool(t, original), FirstUse: toolgatev1alpha1.FirstUseTrust, Origin: b, Now: t1})
	if moved.Status.State != toolgatev1alpha1.PinAwaitingReview || moved.Reason != toolgatev1alpha1.ReasonOriginChanged {
		t.Fatalf("state %s, reason %s: the same definition from another origin stayed trusted", moved.Status.State, moved.Reason)
	}
	if c := moved.Status.Change; c == nil || !slices.Contains(c.Kinds, toolgatev1alpha1.ChangeOriginChanged) || !strings.Contains(strings.Join(c.Details, " "), b) {
		t.Fatalf("change %+v", moved.Status.Change)
	}
	// Re-run (as the ToolPin controller does on a decision): still waiting.
	again := Next(Input{Status: moved.Status, Tool: tool(t, original), Origin: moved.Status.ObservedOrigin, Now: t1})
	if again.Status.State != toolgatev1alpha1.PinAwaitingReview {
		t.Fatalf("the old approval counted after the move: %s", again.Status.State)
	}
	// An approval after the move pins the new origin.
	later := metav1.NewTime(t1.Add(time.Minute))
	st = again.Status
	st.Decisions = append(st.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: st.ObservedFingerprint, User: "ana", Time: &later})
	approved := Next(Input{Status: st, Tool: tool(t, original), Origin: b, Now: later})
	if approved.Status.State != toolgatev1alpha1.PinTrusted || approved.Status.Pinned.Origin != b || approved.Status.Change != nil {
		t.Fatalf("after a new approval: %s, pinned %+v", approved.Status.State, approved.Status.Pinned)
	}

	// A pin that never recorded an origin learns it without review.
	legacy := first.Status.DeepCopy()
	legacy.Pinned.Origin, legacy.ObservedOrigin = "", ""
	if out := Next(Input{Status: *legacy, Tool: tool(t, original), Origin: b, Now: t1}); out.Status.State != toolgatev1alpha1.PinTrusted || out.Status.Pinned.Origin != b {
		t.Errorf("a legacy pin: %s, origin %q", out.Status.State, out.Status.Pinned.Origin)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Tools.Example.com/mcp":        "https://tools.example.com:443",
		"https://tools.example.com:443/v2/mcp": "https://tools.example.com:443",
		"http://files.default.svc:8080/mcp":    "http://files.default.svc:8080",
		"http://[::1]/mcp":                     "http://[::1]:80",
		"not a url":                            "",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}
