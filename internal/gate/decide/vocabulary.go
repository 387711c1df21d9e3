package decide

import "github.com/toolgate/toolgate/internal/gateproto"

// Verdict is what the gate did with a call, a listed tool or a server's
// instructions: the decision field of the audit line and the decision
// label of toolgate_gate_calls_total. The words are documented (docs/gate.md,
// "The audit line") and log pipelines and dashboards match on them: a word
// does not change its spelling or its meaning.
//
// The configuration's decision on a tool (gateproto.Decision) says what
// the operator allows; a verdict says what the gate did with one message.
// Call maps the one to the other:
//
//	Exposed        Forward
//	ApprovalGated  Hold, then Forward or Refuse (Enforce); AuditForwardUnheld (Audit)
//	Withheld       Refuse (Enforce); AuditForward when audit-forwardable (Audit)
//
// and any of them is refused when what the server sends is not the
// approved definition, or the arguments are not what it allows. A list
// shows a tool as Shown says; Withhold records a tool taken out of lists
// for a changed definition, which the configuration did not decide.
type Verdict string

// Verdicts.
const (
	// Forward: the call went to the server.
	Forward Verdict = "forward"
	// Refuse: the call was answered with an error and never reached the
	// server (or, with ReasonBadAnswer, its answer never reached the agent).
	Refuse Verdict = "refuse"
	// Withhold: a tool taken out of the lists an agent reads for a
	// definition other than the approved one, or a server's instructions
	// taken out of its answer.
	Withhold Verdict = "withhold"
	// Hold: the call waits for a human (Enforce mode). It is never the
	// decision of an audit line, which records what came of the wait; it
	// is the enforceWould of an approval-gated call forwarded in Audit.
	Hold Verdict = "hold"
	// AuditForward: forwarded in Audit mode, where Enforce would have
	// refused the call (enforceWould Refuse).
	AuditForward Verdict = "audit-forward"
	// AuditForwardUnheld: an approval-gated call forwarded in Audit mode
	// without a human, where Enforce would have held it (enforceWould
	// Hold). A verdict of its own, not AuditForward, so that the calls
	// metric, which has no enforceWould, still tells a call Enforce would
	// refuse from one it would put before a human.
	AuditForwardUnheld Verdict = "audit-forward-unheld"
)

// Forwards reports whether the verdict sends the call to the server.
func (v Verdict) Forwards() bool {
	return v == Forward || v == AuditForward || v == AuditForwardUnheld
}

// Reason says why: the reason field of the audit line. A tool the
// configuration withholds is recorded with the configuration's own reason,
// verbatim (FromConfig); the reasons below are the gate's, and none of them
// spells a configuration reason, so a reader can tell who decided.
type Reason string

// Reasons of the gate's own.
const (
	// ReasonUnknown: the configuration in force has no such tool (or no
	// longer serves the server).
	ReasonUnknown Reason = "Unknown"
	// ReasonFingerprintChanged: the server sends a definition other than
	// the approved one, now or since the gate blocked the tool; or, for an
	// approved call, the configuration no longer offers the tool at the
	// pin and fingerprint the human approved.
	ReasonFingerprintChanged Reason = "FingerprintChanged"
	// ReasonNotObserved: the gate could not see the tool's live definition
	// under the configuration in force, even after listing the server.
	ReasonNotObserved Reason = "NotObserved"
	// ReasonApprovalRequired: the tool is approval-gated and no human
	// approved the call: the gate has no approver to put it to (it refuses
	// every gated call), or, in Audit, the human was skipped.
	ReasonApprovalRequired Reason = "ApprovalRequired"
	// ReasonApproved: a human approved the call, and it still stood when
	// the gate checked again.
	ReasonApproved Reason = "Approved"
	// ReasonNotApproved: a human rejected the call, or nobody decided in
	// time.
	ReasonNotApproved Reason = "NotApproved"
	// ReasonApprovalUnavailable: the operator could not be asked or heard,
	// its answer named another call or other arguments, or the agent
	// withdrew the call while it waited.
	ReasonApprovalUnavailable Reason = "ApprovalUnavailable"
	// ReasonBadAnswer: the call was forwarded, but the server's answer was
	// not the one response to it, and did not reach the agent whole.
	ReasonBadAnswer Reason = "BadAnswer"
	// ReasonAmbiguousMessage: the message had member names a peer could
	// read as other members, so which tool it names, or with which
	// arguments, cannot be told.
	ReasonAmbiguousMessage Reason = "AmbiguousMessage"
	// ReasonInvalidArguments: the call's arguments are not what the
	// approved definition's inputSchema allows.
	ReasonInvalidArguments Reason = "InvalidArguments"
	// ReasonInstructionsChanged: the instructions a server sent an agent
	// are not the ones the operator reviewed, and were taken out.
	ReasonInstructionsChanged Reason = "InstructionsChanged"
	// ReasonArgumentRule: an argument rule with action Refuse matched the
	// call, or a rule that applies to the tool cannot be evaluated.
	ReasonArgumentRule Reason = "ArgumentRule"
	// ReasonArgumentLevel: the call's arguments raised its level above
	// the ceiling.
	ReasonArgumentLevel Reason = "ArgumentLevel"
)

// FromConfig is the reason recorded for a tool (or server) the
// configuration withholds: the configuration's own word, verbatim, so that
// the audit line and the ToolPin and ToolPolicy say the same.
func FromConfig(r gateproto.Reason) Reason { return Reason(r) }

// NotAvailable is the one answer to a call of a tool the agent may not
// reach, whatever the reason: the model learns nothing it could use to get
// around the gate.
const NotAvailable = "tool not available"

// Outcome is a decision, as the gate acts on it and records it.
type Outcome struct {
	// Verdict is what the gate does (Hold: ask a human first).
	Verdict Verdict
	// Reason says why.
	Reason Reason
	// EnforceWould is, in Audit mode, what Enforce would have done with a
	// call forwarded (Refuse or Hold); empty otherwise.
	EnforceWould Verdict
	// Fingerprint is the definition the decision is about, for the audit
	// line: the approved one of a call forwarded or held, the one the
	// server changed to of a call refused for it; empty otherwise.
	Fingerprint string
	// Message is what the agent is told of a refusal.
	Message string
	// Missing names the fact the decision waits on, which the gate has not
	// gathered yet: the outcome is then the refusal that stands if the
	// gate cannot gather it.
	Missing Fact
}

// Fact is a fact a decision may wait on.
type Fact int

// Facts the gate gathers only when a decision waits on them, since
// gathering them costs: the first goes to the server.
const (
	// NothingMissing: the outcome is final.
	NothingMissing Fact = iota
	// MissingObservation: the gate has not seen the tool's live definition
	// under the configuration in force; it lists the server to see it.
	MissingObservation
	// MissingArgumentCheck: the call's arguments have not been checked
	// against the approved definition's inputSchema.
	MissingArgumentCheck
	// MissingArgumentJudgement: the call's arguments have not been judged
	// by the argument rules and floors.
	MissingArgumentJudgement
)

// Refusal is the refusal of a call for reason r, with the answer that
// tells the model nothing (NotAvailable).
func Refusal(r Reason) Outcome {
	return Outcome{Verdict: Refuse, Reason: r, Message: NotAvailable}
}
