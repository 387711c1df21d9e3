package decide

import (
	"errors"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// Tools of the tables, one per decision a configuration can take.
var (
	exposedTool = &gateproto.Tool{Name: "echo", Decision: gateproto.DecisionExposed, Pin: "pin-echo", Fingerprint: "sha256:echo", Level: "L1"}
	gatedTool   = &gateproto.Tool{Name: "deploy", Decision: gateproto.DecisionApprovalGated, Pin: "pin-deploy", Fingerprint: "sha256:deploy", Level: "L4", ApprovalRule: "minLevel L4"}
	// forwardableTool is withheld for a policy choice: Audit may forward it.
	forwardableTool = &gateproto.Tool{Name: "delete_all", Decision: gateproto.DecisionWithheld, Reason: gateproto.ReasonAboveCeiling,
		Pin: "pin-delete-all", Fingerprint: "sha256:delete", Level: "L5", AuditForwardable: true}
	// poisonedTool is withheld for what no policy changes.
	poisonedTool = &gateproto.Tool{Name: "poisoned", Decision: gateproto.DecisionWithheld, Reason: gateproto.ReasonPoisoning, Pin: "pin-poisoned", Level: "L5"}
)

// seen is a tool's approved definition observed under the configuration
// in force, with arguments the schema allows: everything a call needs
// before a human.
func seen(t *gateproto.Tool) CallFacts {
	return CallFacts{
		Server:    ServerReady,
		Tool:      t,
		Observed:  Observation{Current: true, Fingerprint: t.Fingerprint},
		Arguments: Checked(nil),
		Judgement: ArgumentJudgement{Judged: true, Level: t.Level},
	}
}

func with(f CallFacts, change func(*CallFacts)) CallFacts {
	change(&f)
	return f
}

// other returns a copy of t with change applied: the configuration's entry
// as a later configuration has it.
func other(t *gateproto.Tool, change func(*gateproto.Tool)) *gateproto.Tool {
	c := *t
	change(&c)
	return &c
}

var errSchema = errors.New(`argument "text": want a string`)

// TestCall is every outcome of a call's decision, in both modes. A row
// that names one mode's outcome only holds in that mode; the others hold
// in both.
func TestCall(t *testing.T) {
	refused := func(r Reason) Outcome { return Refusal(r) }
	for _, tc := range []struct {
		name    string
		facts   CallFacts
		enforce Outcome
		audit   *Outcome // nil: the same as in Enforce
	}{
		{
			name:    "nothing gathered",
			facts:   CallFacts{},
			enforce: refused(ReasonUnknown),
		},
		{
			name:    "a server the configuration no longer serves",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Server = ServerGone }),
			enforce: refused(ReasonUnknown),
		},
		{
			name:    "a server that is not ready",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Server = ServerNotReady }),
			enforce: refused(Reason(gateproto.ReasonServerNotReady)),
		},
		{
			name:    "an unknown tool",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Tool = nil }),
			enforce: refused(ReasonUnknown),
		},
		{
			name:    "a tool of a decision the gate does not know",
			facts:   seen(other(exposedTool, func(t *gateproto.Tool) { t.Decision = "Maybe" })),
			enforce: refused(ReasonUnknown),
		},
		{
			name:    "blocked: a rug pull the gate saw",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Blocked = "sha256:rugpull" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:rugpull", Message: NotAvailable},
		},
		{
			name: "blocked, though the server flipped back to the approved definition",
			facts: with(seen(exposedTool), func(f *CallFacts) {
				f.Blocked = "sha256:rugpull"
				f.Observed = Observation{Current: true, Fingerprint: exposedTool.Fingerprint}
			}),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:rugpull", Message: NotAvailable},
		},
		{
			name:    "blocked, of a tool Audit may forward",
			facts:   with(seen(forwardableTool), func(f *CallFacts) { f.Blocked = "sha256:rugpull" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:rugpull", Message: NotAvailable},
		},
		{
			name:    "withheld for what no policy changes",
			facts:   seen(poisonedTool),
			enforce: refused(FromConfig(gateproto.ReasonPoisoning)),
		},
		{
			name:    "withheld for a policy choice: audit-forwardable",
			facts:   seen(forwardableTool),
			enforce: refused(FromConfig(gateproto.ReasonAboveCeiling)),
			audit: &Outcome{Verdict: AuditForward, Reason: FromConfig(gateproto.ReasonAboveCeiling), EnforceWould: Refuse,
				Fingerprint: forwardableTool.Fingerprint},
		},
		{
			name:    "not observed under the configuration in force",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Observed = Observation{} }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonNotObserved, Message: NotAvailable, Missing: MissingObservation},
		},
		{
			name:    "not observed, of a tool Audit may forward",
			facts:   with(seen(forwardableTool), func(f *CallFacts) { f.Observed = Observation{} }),
			enforce: refused(FromConfig(gateproto.ReasonAboveCeiling)),
			audit:   &Outcome{Verdict: Refuse, Reason: ReasonNotObserved, Message: NotAvailable, Missing: MissingObservation},
		},
		{
			name:    "not observed, of a gated tool",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Observed = Observation{} }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonNotObserved, Message: NotAvailable, Missing: MissingObservation},
		},
		{
			name:    "a changed fingerprint",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Observed.Fingerprint = "sha256:changed" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:changed", Message: NotAvailable},
		},
		{
			name:    "a definition the gate could not read",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Observed.Fingerprint = "" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Message: NotAvailable},
		},
		{
			name:    "a changed fingerprint, of a gated tool: no human is asked",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Observed.Fingerprint = "sha256:changed" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:changed", Message: NotAvailable},
		},
		{
			name:    "a changed fingerprint, of a tool Audit may forward",
			facts:   with(seen(forwardableTool), func(f *CallFacts) { f.Observed.Fingerprint = "sha256:changed" }),
			enforce: refused(FromConfig(gateproto.ReasonAboveCeiling)),
			audit:   &Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:changed", Message: NotAvailable},
		},
		{
			name:    "arguments not checked yet",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Arguments = ArgumentCheck{} }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonInvalidArguments, Message: "toolgate: the arguments were not checked", Missing: MissingArgumentCheck},
		},
		{
			name:    "invalid arguments",
			facts:   with(seen(exposedTool), func(f *CallFacts) { f.Arguments = Checked(errSchema) }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonInvalidArguments, Message: "toolgate: " + errSchema.Error()},
		},
		{
			name:    "invalid arguments, of a gated tool: no human is asked",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Arguments = Checked(errSchema) }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonInvalidArguments, Message: "toolgate: " + errSchema.Error()},
		},
		{
			name:    "invalid arguments, of a tool Audit may forward",
			facts:   with(seen(forwardableTool), func(f *CallFacts) { f.Arguments = Checked(errSchema) }),
			enforce: refused(FromConfig(gateproto.ReasonAboveCeiling)),
			audit:   &Outcome{Verdict: Refuse, Reason: ReasonInvalidArguments, Message: "toolgate: " + errSchema.Error()},
		},
		{
			name:    "exposed",
			facts:   seen(exposedTool),
			enforce: Outcome{Verdict: Forward, Fingerprint: exposedTool.Fingerprint},
		},
		{
			name:    "approval-gated",
			facts:   seen(gatedTool),
			enforce: Outcome{Verdict: Hold, Reason: ReasonApprovalRequired, Fingerprint: gatedTool.Fingerprint, Message: "approval required"},
			audit:   &Outcome{Verdict: AuditForwardUnheld, Reason: ReasonApprovalRequired, EnforceWould: Hold, Fingerprint: gatedTool.Fingerprint},
		},

		// Decided again once a human approved the call.
		{
			name:    "approved, and the tool still offered as approved",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Approved = gatedTool }),
			enforce: Outcome{Verdict: Forward, Reason: ReasonApproved, Fingerprint: gatedTool.Fingerprint},
		},
		{
			name: "approved, and the tool since exposed at the same pin and definition",
			facts: with(seen(other(gatedTool, func(t *gateproto.Tool) { t.Decision, t.ApprovalRule = gateproto.DecisionExposed, "" })),
				func(f *CallFacts) { f.Approved = gatedTool }),
			enforce: Outcome{Verdict: Forward, Reason: ReasonApproved, Fingerprint: gatedTool.Fingerprint},
		},
		{
			name: "approved, and the tool since withheld",
			facts: with(seen(other(forwardableTool, func(t *gateproto.Tool) {
				t.Name, t.Pin, t.Fingerprint = gatedTool.Name, gatedTool.Pin, gatedTool.Fingerprint
			})),
				func(f *CallFacts) { f.Approved = gatedTool }),
			enforce: refused(FromConfig(gateproto.ReasonAboveCeiling)),
		},
		{
			name: "approved, and the configuration since approved another definition",
			facts: with(seen(other(gatedTool, func(t *gateproto.Tool) { t.Fingerprint = "sha256:reviewed-again" })),
				func(f *CallFacts) { f.Approved = gatedTool }),
			enforce: refused(ReasonFingerprintChanged),
		},
		{
			name: "approved, and the tool since pinned anew",
			facts: with(seen(other(gatedTool, func(t *gateproto.Tool) { t.Pin = "pin-deploy-2" })),
				func(f *CallFacts) { f.Approved = gatedTool }),
			enforce: refused(ReasonFingerprintChanged),
		},
		{
			name:    "approved, and the server since redefined the tool",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Approved, f.Blocked = gatedTool, "sha256:rugpull" }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonFingerprintChanged, Fingerprint: "sha256:rugpull", Message: NotAvailable},
		},
		{
			name:    "approved, and the tool not observed under a new configuration",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Approved, f.Observed = gatedTool, Observation{} }),
			enforce: Outcome{Verdict: Refuse, Reason: ReasonNotObserved, Message: NotAvailable, Missing: MissingObservation},
		},
		{
			name:    "approved, and the server since gone from the configuration",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Approved, f.Server, f.Tool = gatedTool, ServerGone, nil }),
			enforce: refused(ReasonUnknown),
		},
		{
			name:    "approved, and the server since not ready",
			facts:   with(seen(gatedTool), func(f *CallFacts) { f.Approved, f.Server = gatedTool, ServerNotReady }),
			enforce: refused(Reason(gateproto.ReasonServerNotReady)),
		},
	} {
		for _, mode := range []gateproto.Mode{gateproto.ModeEnforce, gateproto.ModeAudit} {
			t.Run(tc.name+"/"+string(mode), func(t *testing.T) {
				want := tc.enforce
				if mode == gateproto.ModeAudit && tc.audit != nil {
					want = *tc.audit
				}
				f := tc.facts
				f.Mode = mode
				if got := Call(f); got != want {
					t.Errorf("Call:\n got %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

// TestCallInvariants decides every combination of a few values of each
// fact, and checks what must hold whatever the order of the steps: the
// gate forwards only what it has seen the server send as approved, with
// arguments the schema allows; Enforce never forwards what the
// configuration withholds, nor a gated call without a human; Audit never
// holds; a decision that waits on a fact refuses until it has it; and
// gathering a fact a decision waited on never leaves it waiting on it.
func TestCallInvariants(t *testing.T) {
	tools := []*gateproto.Tool{nil, exposedTool, gatedTool, forwardableTool, poisonedTool}
	observations := []Observation{{}, {Fingerprint: "sha256:stale"}, {Current: true}, {Current: true, Fingerprint: "sha256:changed"}, {Current: true, Fingerprint: "match"}}
	arguments := []ArgumentCheck{{}, Checked(nil), Checked(errSchema)}
	judgements := []ArgumentJudgement{
		{},
		{Judged: true},
		{Judged: true, Refuse: &RuleMatch{Rule: "p/no-force"}},
		{Judged: true, Hold: &RuleMatch{Rule: "p/ask"}},
		{Judged: true, Unevaluable: &RuleMatch{Rule: "p/broken", Message: "no such argument"}},
		{Judged: true, Level: "L5", Raised: "floor force"},
		{Judged: true, Level: "L3", Raised: "floor wide reach"},
	}
	n := 0
	for _, mode := range []gateproto.Mode{gateproto.ModeEnforce, gateproto.ModeAudit} {
		for _, server := range []ServerState{ServerGone, ServerNotReady, ServerReady} {
			for _, tool := range tools {
				for _, blocked := range []string{"", "sha256:rugpull"} {
					for _, obs := range observations {
						for _, args := range arguments {
							for _, approved := range []*gateproto.Tool{nil, tool, gatedTool} {
								for _, judged := range judgements {
									if obs.Fingerprint == "match" {
										obs.Fingerprint = ""
										if tool != nil {
											obs.Fingerprint = tool.Fingerprint
										}
									}
									f := CallFacts{Mode: mode, Server: server, Tool: tool, Blocked: blocked, Observed: obs, Arguments: args, Approved: approved,
										Judgement: judged, Ceiling: "L3", ApprovalLevel: "L3"}
									checkInvariants(t, f)
									n++
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}

func checkInvariants(t *testing.T, f CallFacts) {
	t.Helper()
	out := Call(f)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s\nfacts %+v (tool %+v, approved %+v)\noutcome %+v", fmt.Sprintf(format, args...), f, f.Tool, f.Approved, out)
	}
	audit := f.Mode == gateproto.ModeAudit
	switch out.Verdict {
	case Forward, AuditForward, AuditForwardUnheld, Hold:
		tool := f.Tool
		switch {
		case f.Server != ServerReady || tool == nil:
			fail("a call past the configuration of a server or tool it does not serve")
		case f.Blocked != "":
			fail("a call past the gate's block")
		case !f.Observed.Current || f.Observed.Fingerprint != tool.Fingerprint:
			fail("a call past a definition not seen as approved")
		case !f.Arguments.Checked || f.Arguments.Err != nil:
			fail("a call past its arguments")
		case f.Approved != nil && (f.Approved.Pin != tool.Pin || f.Approved.Fingerprint != tool.Fingerprint):
			fail("an approval carried over to another pin or definition")
		case out.Fingerprint != tool.Fingerprint:
			fail("the outcome names fingerprint %q, not the approved one", out.Fingerprint)
		}
		if !out.Verdict.Forwards() && out.Verdict != Hold {
			fail("verdict %q does not say whether the call goes on", out.Verdict)
		}
	case Refuse:
		if out.Message == "" || out.Reason == "" {
			fail("a refusal without a reason or a message for the agent")
		}
	default:
		fail("verdict %q is not one a call can have", out.Verdict)
	}
	if out.Missing != NothingMissing && out.Verdict != Refuse {
		fail("a decision waiting on a fact did not refuse")
	}
	if f.Tool != nil && f.Tool.Decision == gateproto.DecisionWithheld && out.Verdict.Forwards() && (!audit || f.Approved != nil) {
		fail("a withheld tool's call forwarded outside Audit's own rule")
	}
	if !audit && (out.Verdict == AuditForward || out.Verdict == AuditForwardUnheld || out.EnforceWould != "") {
		fail("an Audit verdict in Enforce")
	}
	if audit && out.Verdict == Hold {
		fail("Audit held a call")
	}
	j := f.Judgement
	heldByArguments := j.Hold != nil || (j.Raised != "" && j.Level >= f.ApprovalLevel)
	if out.Verdict == Hold && (f.Approved != nil || (f.Tool.Decision != gateproto.DecisionApprovalGated && !heldByArguments)) {
		fail("held a call that is not an unapproved gated one, nor one its arguments hold")
	}
	if out.Verdict == Forward && f.Approved == nil && (f.Tool.Decision != gateproto.DecisionExposed || heldByArguments) {
		fail("forwarded a call the configuration or its arguments hold without a human")
	}
	// Arguments only tighten: a rule that refuses, a rule that cannot be
	// evaluated, and a level over the ceiling each stop the call in
	// Enforce, even once a human approved it.
	refusedByArguments := j.Refuse != nil || j.Unevaluable != nil || (j.Raised != "" && j.Level > f.Ceiling)
	if !audit && refusedByArguments && out.Verdict != Refuse {
		fail("a call its arguments refuse was not refused")
	}
	// Gathering what the decision waited on moves it on.
	switch out.Missing {
	case MissingObservation:
		g := f
		g.Observed = Observation{Current: true, Fingerprint: f.Tool.Fingerprint}
		if Call(g).Missing == MissingObservation {
			fail("still waiting on the observation once observed")
		}
	case MissingArgumentCheck:
		g := f
		g.Arguments = Checked(nil)
		g.Judgement.Judged = true
		if Call(g).Missing != NothingMissing {
			fail("still waiting once the arguments were checked")
		}
	case MissingArgumentJudgement:
		g := f
		g.Judgement.Judged = true
		if Call(g).Missing != NothingMissing {
			fail("still waiting once the arguments were judged")
		}
	}
}

// TestAnswer maps every answer an approver can give to what comes of the
// held call.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer ApproverAnswer
		want   Outcome
	}{
		{"no approver", ApproverAnswer{NoApprover: true}, Outcome{Verdict: Refuse, Reason: ReasonApprovalRequired, Message: "approval required"}},
		{"the approver failed", ApproverAnswer{Failed: true}, Outcome{Verdict: Refuse, Reason: ReasonApprovalUnavailable, Message: "approval required"}},
		{"an approval that failed its binding", ApproverAnswer{Failed: true, Verdict: gateproto.CallApproved},
			Outcome{Verdict: Refuse, Reason: ReasonApprovalUnavailable, Message: "approval required"}},
		{"approved", ApproverAnswer{Verdict: gateproto.CallApproved}, Outcome{Verdict: Forward, Reason: ReasonApproved}},
		{"rejected", ApproverAnswer{Verdict: gateproto.CallRejected}, Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "call not approved"}},
		{"expired", ApproverAnswer{Verdict: gateproto.CallExpired}, Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "approval timed out"}},
		{"a verdict this gate does not know", ApproverAnswer{Verdict: "Maybe"}, Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "call not approved"}},
		{"no verdict", ApproverAnswer{}, Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "call not approved"}},
	} {
		if got := Answer(tc.answer); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestShown is what a list shows, by the configuration's decision, the
// gate's block and the definition the server listed, in both modes.
func TestShown(t *testing.T) {
	for _, tc := range []struct {
		name          string
		tool          *gateproto.Tool
		blocked       bool
		listed        string
		enforce, audi bool
	}{
		{"unknown", nil, false, "sha256:x", false, false},
		{"exposed", exposedTool, false, exposedTool.Fingerprint, true, true},
		{"exposed, blocked", exposedTool, true, exposedTool.Fingerprint, false, false},
		{"exposed, changed", exposedTool, false, "sha256:changed", false, false},
		{"exposed, unreadable", exposedTool, false, "", false, false},
		{"gated", gatedTool, false, gatedTool.Fingerprint, true, true},
		{"gated, changed", gatedTool, false, "sha256:changed", false, false},
		{"withheld for a policy choice", forwardableTool, false, forwardableTool.Fingerprint, false, true},
		{"withheld for a policy choice, blocked", forwardableTool, true, forwardableTool.Fingerprint, false, false},
		{"withheld for a policy choice, changed", forwardableTool, false, "sha256:changed", false, false},
		{"withheld for what no policy changes", poisonedTool, false, "", false, false},
		{"withheld for what no policy changes, listed", poisonedTool, false, "sha256:poisoned", false, false},
		{"a decision the gate does not know", other(exposedTool, func(t *gateproto.Tool) { t.Decision = "Maybe" }), false, exposedTool.Fingerprint, false, false},
	} {
		if got := Shown(gateproto.ModeEnforce, tc.tool, tc.blocked, tc.listed); got != tc.enforce {
			t.Errorf("%s, Enforce: shown %v, want %v", tc.name, got, tc.enforce)
		}
		if got := Shown(gateproto.ModeAudit, tc.tool, tc.blocked, tc.listed); got != tc.audi {
			t.Errorf("%s, Audit: shown %v, want %v", tc.name, got, tc.audi)
		}
	}
}
