package decide

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// CallFacts are what the gate knows of one tools/call when it decides,
// gathered before deciding. Every zero value is the fail-closed one: a
// fact left ungathered refuses the call.
type CallFacts struct {
	// Mode is the mode of the configuration in force.
	Mode gateproto.Mode
	// Server is what the configuration in force says of the call's server.
	Server ServerState
	// Tool is the configuration's entry for the tool the call names; nil
	// when the configuration has none.
	Tool *gateproto.Tool
	// Blocked is the fingerprint the server changed the tool's definition
	// to, when the gate holds a block for it (see package gate,
	// "Fingerprint mismatches are sticky"); empty when the tool is not
	// blocked.
	Blocked string
	// Observed is the live definition the gate has seen the server send.
	Observed Observation
	// Arguments is the outcome of checking the call's arguments against
	// the approved definition's inputSchema.
	Arguments ArgumentCheck
	// Approved is the configuration's entry for the tool as it was when a
	// human approved the call, when the gate decides again after the
	// approval; nil for a call not yet put to a human.
	Approved *gateproto.Tool
	// Ceiling and ApprovalLevel are the configuration's: a call its
	// arguments raise above Ceiling is refused, to ApprovalLevel or above
	// (when set) held. An empty Ceiling is gateproto.DefaultCeiling.
	Ceiling, ApprovalLevel string
	// Judgement is what the argument rules and floors say of the call.
	Judgement ArgumentJudgement
}

// ArgumentJudgement is what a call's arguments say beyond their schema:
// the argument rules that matched and the level the call rises to.
type ArgumentJudgement struct {
	// Judged says the rules and floors were applied.
	Judged bool
	// Unevaluable, when set, is a rule that applies to the tool and
	// cannot be evaluated for it (the operator found a problem): the call
	// is refused with it, as the rule could have refused it.
	Unevaluable *RuleMatch
	// Refuse and Hold are the first rules (by name) with those actions
	// that matched; nil when none did.
	Refuse, Hold *RuleMatch
	// Level is the call's level after its arguments: the tool's level, or
	// the highest a matching RaiseLevel rule or an argument floor raised
	// it to. Raised says what raised it, in words, empty when nothing did.
	Level  string
	Raised string
	// RaisedBy is the rule that raised the level, when a rule did.
	RaisedBy string
}

// RuleMatch is an argument rule that matched a call, or could not be
// evaluated for it.
type RuleMatch struct {
	// Rule is "policy/rule"; Message what the rule says, or why it could
	// not be evaluated.
	Rule, Message string
}

// HeldFor is why a call is held, when the decision holds it.
type HeldFor struct {
	// By is gateproto.HeldByDesignation, HeldByRule or HeldByLevel.
	By string
	// Rule is the rule that held it or raised its level; Level the level
	// it was raised to; Reason why, in words.
	Rule, Level, Reason string
}

// ServerState is what the configuration in force says of a server.
type ServerState int

// Server states.
const (
	// ServerGone: the configuration does not serve the server (the zero
	// value).
	ServerGone ServerState = iota
	// ServerNotReady: the configuration names the server, but exposes
	// nothing of it.
	ServerNotReady
	// ServerReady: the configuration serves the server.
	ServerReady
)

// Observation is the tool's live definition as the gate last saw the
// server send it.
type Observation struct {
	// Current says the gate saw it under the configuration in force; a
	// definition seen under an earlier one, or before the server said its
	// list changed, does not count.
	Current bool
	// Fingerprint is the definition's fingerprint; empty when the server's
	// entry could not be read as a definition.
	Fingerprint string
}

// ArgumentCheck is the outcome of checking a call's arguments.
type ArgumentCheck struct {
	// Checked says the check ran; Err is why it refused them, nil when the
	// arguments are what the schema allows.
	Checked bool
	Err     error
}

// Checked is the ArgumentCheck of a check that ran and returned err.
func Checked(err error) ArgumentCheck { return ArgumentCheck{Checked: true, Err: err} }

// Call decides a tools/call. The order is the gate's policy and is kept
// here alone:
//
//  1. the configuration: a server it no longer serves or that is not
//     ready, a tool it does not name (Unknown);
//  2. the gate's own block of a changed definition (FingerprintChanged),
//     which no mode and no human lifts;
//  3. the configuration's decision: a Withheld tool is refused with the
//     configuration's reason, unless Audit may forward it (AuditForward);
//     an approved call must still find the tool at the pin and
//     fingerprint the human approved;
//  4. the live definition: the gate must have seen the server send the
//     approved fingerprint under the configuration in force (NotObserved,
//     FingerprintChanged);
//  5. the arguments, against the approved definition's inputSchema
//     (InvalidArguments), in Audit too, since a schema is no policy choice;
//  6. a human: an ApprovalGated call is held (Hold) in Enforce and
//     forwarded unheld in Audit; an approved one is forwarded (Approved).
//
// A step that needs a fact not gathered yet refuses, and says which fact
// in Outcome.Missing; the gate gathers it and calls Call again.
func Call(f CallFacts) Outcome {
	switch f.Server {
	case ServerReady:
	case ServerNotReady:
		return Refusal(FromConfig(gateproto.ReasonServerNotReady))
	default:
		return Refusal(ReasonUnknown)
	}
	t := f.Tool
	if t == nil {
		return Refusal(ReasonUnknown)
	}
	if f.Blocked != "" {
		return changed(f.Blocked)
	}
	forward := Outcome{Verdict: Forward, Fingerprint: t.Fingerprint}
	switch t.Decision {
	case gateproto.DecisionExposed, gateproto.DecisionApprovalGated:
	case gateproto.DecisionWithheld:
		// An approval was given for a tool the configuration offered; it
		// does not carry over to one it withholds, whatever the mode.
		if f.Mode != gateproto.ModeAudit || !t.AuditForwardable || f.Approved != nil {
			return Refusal(FromConfig(t.Reason))
		}
		forward = Outcome{Verdict: AuditForward, Reason: FromConfig(t.Reason), EnforceWould: Refuse, Fingerprint: t.Fingerprint}
	default:
		// Validate admits no other decision; one it did would not be one
		// the gate knows how to enforce.
		return Refusal(ReasonUnknown)
	}
	if a := f.Approved; a != nil && (t.Pin != a.Pin || t.Fingerprint != a.Fingerprint) {
		return Refusal(ReasonFingerprintChanged)
	}
	switch {
	case !f.Observed.Current:
		r := Refusal(ReasonNotObserved)
		r.Missing = MissingObservation
		return r
	case f.Observed.Fingerprint != t.Fingerprint:
		return changed(f.Observed.Fingerprint)
	}
	switch {
	case !f.Arguments.Checked:
		r := Refusal(ReasonInvalidArguments)
		r.Message = "toolgate: the arguments were not checked"
		r.Missing = MissingArgumentCheck
		return r
	case f.Arguments.Err != nil:
		// Arguments the reviewer never saw, or of another shape than the
		// definition approved, reach neither the server nor a human.
		r := Refusal(ReasonInvalidArguments)
		r.Message = "toolgate: " + f.Arguments.Err.Error()
		return r
	}
	j := f.Judgement
	if !j.Judged {
		r := Refusal(ReasonArgumentRule)
		r.Message = "toolgate: the arguments were not judged"
		r.Missing = MissingArgumentJudgement
		return r
	}
	if refusal, refused := judgeRefuses(j, f.Ceiling, t.Fingerprint); refused {
		if f.Mode != gateproto.ModeAudit {
			return refusal
		}
		// The rules and floors are a policy's choice (a policy sets the
		// ceiling, writes the rules, may turn the floors off), which
		// Audit lifts and records.
		return Outcome{Verdict: AuditForward, Reason: refusal.Reason, EnforceWould: Refuse, Fingerprint: t.Fingerprint}
	}
	held := j.Hold != nil || (f.ApprovalLevel != "" && j.Raised != "" && j.Level >= f.ApprovalLevel)
	switch {
	case f.Approved != nil:
		forward.Reason = ReasonApproved
		return forward
	case t.Decision != gateproto.DecisionApprovalGated && !held:
		return forward
	case f.Mode == gateproto.ModeAudit:
		// Recorded as Enforce would have held it: the rule's reason, and a
		// verdict and enforceWould that say a human was skipped.
		return Outcome{Verdict: AuditForwardUnheld, Reason: ReasonApprovalRequired, EnforceWould: Hold, Fingerprint: t.Fingerprint}
	}
	return Outcome{Verdict: Hold, Reason: ReasonApprovalRequired, Fingerprint: t.Fingerprint, Message: "approval required"}
}

// judgeRefuses is the refusal the argument judgement makes, if any: a rule
// that cannot be evaluated, then a Refuse rule, then a level above the
// ceiling. Each names what refused, since the agent can then call
// otherwise.
func judgeRefuses(j ArgumentJudgement, ceiling, fingerprint string) (Outcome, bool) {
	if ceiling == "" {
		ceiling = gateproto.DefaultCeiling
	}
	var r Outcome
	switch {
	case j.Unevaluable != nil:
		r = Refusal(ReasonArgumentRule)
		r.Message = fmt.Sprintf("toolgate: argument rule %s cannot be evaluated for this tool: %s", j.Unevaluable.Rule, j.Unevaluable.Message)
	case j.Refuse != nil:
		r = Refusal(ReasonArgumentRule)
		r.Message = "toolgate: refused by argument rule " + j.Refuse.Rule
		if j.Refuse.Message != "" {
			r.Message += ": " + j.Refuse.Message
		}
	case j.Raised != "" && j.Level > ceiling:
		r = Refusal(ReasonArgumentLevel)
		r.Message = fmt.Sprintf("toolgate: these arguments raise the call to %s (%s), above the ceiling %s", j.Level, j.Raised, ceiling)
	default:
		return Outcome{}, false
	}
	r.Fingerprint = fingerprint
	return r, true
}

// Held says why a held call is held: the first Hold rule that matched,
// else the level its arguments raised it to, else the tool's designation.
func Held(f CallFacts) HeldFor {
	j := f.Judgement
	switch {
	case j.Hold != nil:
		reason := "argument rule " + j.Hold.Rule
		if j.Hold.Message != "" {
			reason += ": " + j.Hold.Message
		}
		return HeldFor{By: gateproto.HeldByRule, Rule: j.Hold.Rule, Level: raisedLevel(j), Reason: reason}
	case f.ApprovalLevel != "" && j.Raised != "" && j.Level >= f.ApprovalLevel:
		return HeldFor{By: gateproto.HeldByLevel, Rule: j.RaisedBy, Level: j.Level,
			Reason: fmt.Sprintf("these arguments raise the call to %s (%s); calls at %s or above wait for approval", j.Level, j.Raised, f.ApprovalLevel)}
	}
	h := HeldFor{By: gateproto.HeldByDesignation, Level: raisedLevel(j)}
	if f.Tool != nil {
		h.Reason = "the tool's calls wait for approval (" + f.Tool.ApprovalRule + ")"
	}
	if j.Raised != "" {
		h.Reason += fmt.Sprintf("; these arguments raise the call to %s (%s)", j.Level, j.Raised)
	}
	return h
}

func raisedLevel(j ArgumentJudgement) string {
	if j.Raised == "" {
		return ""
	}
	return j.Level
}

// changed refuses a call whose tool the server redefined, recording the
// definition it changed to.
func changed(fingerprint string) Outcome {
	r := Refusal(ReasonFingerprintChanged)
	r.Fingerprint = fingerprint
	return r
}

// ApproverAnswer is what the gate heard from its approver about a held
// call. The zero value is an answer with no verdict: not approved.
type ApproverAnswer struct {
	// NoApprover says the gate has no approver to put the call to: it
	// refuses every gated call.
	NoApprover bool
	// Failed says the approver could not be asked or heard, its answer
	// named another call or other arguments, or the agent withdrew the
	// call while it waited.
	Failed bool
	// Verdict is the operator's record of the call, when neither.
	Verdict gateproto.CallVerdict
}

// Answer is what comes of a held call from its approver's answer. An
// approval is not final: the gate decides the call again (Call, with
// CallFacts.Approved) under what it knows then, since the human may have
// taken minutes, and forwards it only if that still forwards it.
func Answer(a ApproverAnswer) Outcome {
	switch {
	case a.NoApprover:
		return Outcome{Verdict: Refuse, Reason: ReasonApprovalRequired, Message: "approval required"}
	case a.Failed:
		return Outcome{Verdict: Refuse, Reason: ReasonApprovalUnavailable, Message: "approval required"}
	case a.Verdict == gateproto.CallApproved:
		return Outcome{Verdict: Forward, Reason: ReasonApproved}
	case a.Verdict == gateproto.CallExpired:
		return Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "approval timed out"}
	}
	return Outcome{Verdict: Refuse, Reason: ReasonNotApproved, Message: "call not approved"}
}

// Shown reports whether a tools/list may show the agent a tool the server
// listed with the fingerprint listed: the configuration offers the tool
// (Exposed or ApprovalGated, or Withheld but forwardable in Audit), the
// gate holds no block for it, and the server sends exactly the approved
// definition. t is the configuration's entry, nil when it has none.
func Shown(mode gateproto.Mode, t *gateproto.Tool, blocked bool, listed string) bool {
	if t == nil || blocked || listed != t.Fingerprint {
		return false
	}
	switch t.Decision {
	case gateproto.DecisionExposed, gateproto.DecisionApprovalGated:
		return true
	case gateproto.DecisionWithheld:
		return mode == gateproto.ModeAudit && t.AuditForwardable
	}
	return false
}
