package gateproto

import (
	"time"
)

// Version is the protocol version this package speaks. It changes when a
// frame or a field changes meaning; a field added with a safe zero value
// does not change it.
const Version = "toolgate.dev/gate/v1"

// Audience is the audience of the projected service-account token a gate
// presents to the operator. A token of any other audience (the API server's
// own, say) is refused, so a token meant for something else cannot be
// replayed here.
const Audience = "toolgate.dev/gate"

// Paths the operator serves gates on.
const (
	// ConfigPath streams Frames, newline-delimited JSON, for as long as the
	// gate holds the connection.
	ConfigPath = "/gate/v1/config"
	// CallsPath is where a gate opens a pending call: it POSTs a
	// CallRequest, over the HTTP/2 connection that carries its
	// configuration stream, and reads the response as a stream of Frames
	// (heartbeats, then one FrameCallOutcome) for as long as the call
	// waits. Closing the request withdraws the call: a call whose gate has
	// gone is never approved later.
	CallsPath = "/gate/v1/calls"
	// FindingsPath is where a gate reports a finding of its scan of a
	// server's answer that it passed, redacted or withheld (a held result
	// goes to CallsPath instead): it POSTs one FindingReport, and the
	// operator answers 202 Accepted and marks the tool's ToolPin (or the
	// MCPServer) with a Warning Event. The report is best-effort: the
	// gate never waits on it before answering the agent.
	FindingsPath = "/gate/v1/findings"
)

// StreamContentType is the media type of the configuration stream.
const StreamContentType = "application/x-ndjson"

// FrameType says what a Frame carries.
type FrameType string

// Frame types.
const (
	// FrameConfig carries a whole configuration; it replaces the previous one.
	FrameConfig FrameType = "config"
	// FrameHeartbeat keeps the stream alive and proves the operator is there.
	FrameHeartbeat FrameType = "heartbeat"
	// FrameError says why the operator is about to close the stream.
	FrameError FrameType = "error"
	// FrameCallOutcome carries the decision on a pending call.
	FrameCallOutcome FrameType = "callOutcome"
)

// Frame is one line of the configuration stream.
type Frame struct {
	// Version is the protocol version of the frame.
	Version string `json:"version"`
	// Type says which of the fields below is set.
	Type FrameType `json:"type"`
	// Time is when the operator sent the frame.
	Time time.Time `json:"time"`
	// Config is set on FrameConfig.
	Config *Config `json:"config,omitempty"`
	// Error is set on FrameError.
	Error string `json:"error,omitempty"`
	// Outcome is set on FrameCallOutcome.
	Outcome *CallOutcome `json:"outcome,omitempty"`
}

// Mode is what the gate does with a tool the policy withholds.
type Mode string

// Modes.
const (
	// ModeEnforce withholds and refuses what the configuration withholds.
	ModeEnforce Mode = "Enforce"
	// ModeAudit forwards, and logs as Enforce would have decided, every
	// withheld tool whose Tool.AuditForwardable is true. Tools whose pin is
	// not Trusted are never forwardable.
	ModeAudit Mode = "Audit"
)

// Decision is what the configuration says of one tool.
type Decision string

// Decisions.
const (
	// DecisionExposed: listed and callable.
	DecisionExposed Decision = "Exposed"
	// DecisionApprovalGated: listed; each call waits for a human.
	DecisionApprovalGated Decision = "ApprovalGated"
	// DecisionWithheld: neither listed nor callable.
	DecisionWithheld Decision = "Withheld"
)

// Reason says why a tool is withheld. Each withheld tool has exactly one.
type Reason string

// Reasons a tool is withheld, in the order evaluation checks them: the first
// that applies is the one given.
const (
	ReasonNotAdmitted    Reason = "NotAdmitted"    // the server does not admit this namespace
	ReasonServerNotReady Reason = "ServerNotReady" // the server is missing, unreachable or misconfigured
	ReasonNotListed      Reason = "NotListed"      // the policy's tool list does not name it
	ReasonRemoved        Reason = "Removed"        // the server no longer offers it
	ReasonRejected       Reason = "Rejected"       // a human rejected its definition
	ReasonAwaitingReview Reason = "AwaitingReview" // no Trusted pin at the definition seen now
	ReasonPoisoning      Reason = "PoisoningFinding"
	ReasonAboveCeiling   Reason = "AboveCeiling"
	ReasonTrustLevel     Reason = "TrustLevel" // its minTrustLevel is above the agents' trust
)

// FindingAction is what a gate does when its scan of a server's answer
// finds something: a tool result, a log notification, a request the
// server makes of the client, a prompt or a resource. An empty action (in
// a configuration from an operator older than the scan) is FindingRecord.
type FindingAction string

// Finding actions, from the most permissive to the strictest.
const (
	// FindingRecord passes the answer as it is; the gate writes an audit
	// line, counts the finding in its metrics and reports it so the
	// operator marks the ToolPin with an Event.
	FindingRecord FindingAction = "Record"
	// FindingRedact replaces each flagged span by a marker the model can
	// read, and records as FindingRecord does.
	FindingRedact FindingAction = "Redact"
	// FindingWithhold answers the agent with a JSON-RPC error instead of
	// the answer, and records.
	FindingWithhold FindingAction = "Withhold"
	// FindingHold holds a tool's result until a person releases or drops
	// it, through the same pending path as a held call (a CallRequest of
	// Kind CallKindResult). Only a tool's result has a pin to hold on: on
	// Server.MessageAction the gate treats FindingHold as FindingWithhold.
	FindingHold FindingAction = "Hold"
)

// OrRecord is the action a gate applies: the action itself, or
// FindingRecord when it is empty.
func (a FindingAction) OrRecord() FindingAction {
	if a == "" {
		return FindingRecord
	}
	return a
}

// Finding is one thing a gate's scan found in a server's answer, as a
// person deciding on it sees it.
type Finding struct {
	// Signal names what was found (for example "hidden-instruction").
	Signal string `json:"signal"`
	// Field says where in the answer, for example "content[0].text" or
	// "structuredContent.body"; empty when the answer is one text.
	Field string `json:"field,omitempty"`
	// Excerpt is the flagged span with some context, as Excerpt renders
	// it: at most MaxFindingExcerptBytes of valid UTF-8 in which every
	// invisible or control character is written out as an escape, so what
	// was hidden from a reader is visible to the person deciding.
	Excerpt string `json:"excerpt,omitempty"`
}

// Config is everything one gate enforces. It is private to the pod it was
// made for: it carries upstream credentials.
type Config struct {
	// Version is the protocol version.
	Version string `json:"version"`
	// Revision identifies the content: two configs with the same content
	// have the same revision (see ComputeRevision).
	Revision string `json:"revision"`
	// Namespace and Pod name the pod the configuration was made for, from
	// its token, never from what the gate said.
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	// Policies are the names of the ToolPolicies whose pod selectors match
	// the pod, sorted. No policy means nothing is exposed.
	Policies []string `json:"policies,omitempty"`
	// Mode is Enforce unless every matching policy says Audit.
	Mode Mode `json:"mode"`
	// ApprovalTimeout is how long a gated call waits for a human.
	ApprovalTimeout Duration `json:"approvalTimeout,omitempty"`
	// Servers are the upstreams this pod's agents may reach, by ID.
	Servers []Server `json:"servers,omitempty"`
	// Agent is what argument rules see of the pod besides Namespace and
	// Pod; nil when the operator knows no more.
	Agent *Agent `json:"agent,omitempty"`
	// Ceiling is the ceiling in force, L0 … L5: a call its arguments raise
	// above it is refused, as a tool above it is withheld. Empty is
	// DefaultCeiling.
	Ceiling string `json:"ceiling,omitempty"`
	// ApprovalLevel is the lowest approval.minLevel of the policies: a call
	// its arguments raise to it or above waits for a person. Empty: no
	// policy holds calls by level.
	ApprovalLevel string `json:"approvalLevel,omitempty"`
	// ArgumentRules are the argument rules of every policy that selects
	// the pod, by name; each Tool.Rules names those that apply to it. The
	// gate compiles them once per configuration.
	ArgumentRules []ArgumentRule `json:"argumentRules,omitempty"`
	// ArgumentFloorsOff turns the built-in argument floors off: every
	// policy that selects the pod says so. The zero value keeps them on.
	ArgumentFloorsOff bool `json:"argumentFloorsOff,omitempty"`
}

// DefaultCeiling is the ceiling of a configuration that names none.
const DefaultCeiling = "L3"

// Agent is the pod's identity as argument rules see it.
type Agent struct {
	// ServiceAccount is the pod's service account.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// Labels are the pod's labels.
	Labels map[string]string `json:"labels,omitempty"`
}

// RuleAction is what an argument rule does with a call it matches.
type RuleAction string

// Rule actions; each only tightens.
const (
	// RuleRefuse refuses the call with a JSON-RPC error naming the rule.
	RuleRefuse RuleAction = "Refuse"
	// RuleHold holds the call for a person, as an approval-gated call.
	RuleHold RuleAction = "Hold"
	// RuleRaiseLevel raises the call's level to ArgumentRule.Level.
	RuleRaiseLevel RuleAction = "RaiseLevel"
)

// ArgumentRule is one argument rule of one policy.
type ArgumentRule struct {
	// Name is "policy/rule": unique in a configuration.
	Name string `json:"name"`
	// Expression is the rule's CEL expression over args, tool and agent.
	Expression string `json:"expression"`
	// Action is Refuse, Hold or RaiseLevel; Level is RaiseLevel's level.
	Action RuleAction `json:"action"`
	Level  string     `json:"level,omitempty"`
	// Message says why, to the agent and to the person asked.
	Message string `json:"message,omitempty"`
}

// ToolRule names an argument rule that applies to a tool's calls.
type ToolRule struct {
	// Rule is an ArgumentRule's Name.
	Rule string `json:"rule"`
	// Problem, when set, is why the operator found the rule cannot be
	// evaluated for this tool (it names an argument the pinned inputSchema
	// does not have, say): the gate refuses the tool's calls with it.
	Problem string `json:"problem,omitempty"`
}

// Server is one upstream MCP server as the gate fronts it.
type Server struct {
	// ID is "namespace/name" of the MCPServer.
	ID string `json:"id"`
	// Ready is false when the gate must expose nothing of the server;
	// Reason and Message say why (NotAdmitted or ServerNotReady).
	Ready   bool   `json:"ready"`
	Reason  Reason `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Upstream is how to reach the server; set only when Ready.
	Upstream *Upstream `json:"upstream,omitempty"`
	// Tools are the server's tools and the decision on each, exposed and
	// gated first, then withheld, each group sorted by name.
	Tools []Tool `json:"tools,omitempty"`
	// MessageAction is what the gate does on a finding in whatever of the
	// server is not tied to one tool: notifications/message, the
	// sampling/createMessage and elicitation/create requests the server
	// sends, prompts/get and resources/read results. Hold is treated as
	// Withhold: there is no pin to hold on. Empty is Record.
	MessageAction FindingAction `json:"messageAction,omitempty"`
	// Instructions are what the operator reviewed of the server's
	// initialize instructions, from the probe the server is Ready by; set
	// only when Ready. Nil says nothing was reviewed or the operator does
	// not know: it is not "no instructions" (Instructions.None is).
	Instructions *Instructions `json:"instructions,omitempty"`
}

// Instructions are the server's initialize instructions as the operator's
// probe read and scanned them: exactly one of Fingerprint and None is set.
// The gate compares what the server sends an agent with it, computing
// tooldef.InstructionsFingerprint of the instructions it reads (an empty
// text being none).
type Instructions struct {
	// Fingerprint is tooldef.InstructionsFingerprint of the instructions
	// reviewed: "sha256:" and the hex SHA-256 of their exact UTF-8 text.
	Fingerprint string `json:"fingerprint,omitempty"`
	// None says the server sent no instructions (or an empty text) when
	// it was probed.
	None bool `json:"none,omitempty"`
}

// Upstream is the address and credentials of an MCP server.
type Upstream struct {
	// URL is the server's MCP endpoint.
	URL string `json:"url"`
	// Transport is "StreamableHTTP" or "SSE".
	Transport string `json:"transport"`
	// Headers are sent on every request to the server: the credentials from
	// the MCPServer's Secrets. They never reach the agent.
	Headers map[string]string `json:"headers,omitempty"`
	// CAPEM, when set, is the only CA the gate trusts for the server.
	CAPEM string `json:"caPEM,omitempty"`
	// ServerName overrides the TLS server name.
	ServerName string `json:"serverName,omitempty"`
	// Timeout bounds one request to the server (a streamed response may
	// last longer as long as bytes keep flowing).
	Timeout Duration `json:"timeout,omitempty"`
	// Addresses are the IP addresses the operator's probe resolved the
	// URL's host to. When set, the gate dials only these, at the URL's
	// port, and never resolves the host: an agent's pod shares the gate's
	// /etc/hosts and resolver, and must not decide where the credentials
	// in Headers go. TLS is still verified against the URL's host (or
	// ServerName). Empty only in a configuration written by hand, where
	// the gate resolves the host.
	Addresses []string `json:"addresses,omitempty"`
}

// Tool is the configuration's decision on one tool.
type Tool struct {
	// Name is the tool's name exactly as the server sends it.
	Name string `json:"name"`
	// Pin is the name of the tool's ToolPin (empty when there is none).
	Pin string `json:"pin,omitempty"`
	// Fingerprint is the approved definition's fingerprint: the gate
	// exposes the tool only while what the server sends has exactly this
	// fingerprint. Empty when no definition is approved.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Level is the tool's applied level, L0 … L5.
	Level string `json:"level,omitempty"`
	// EffectiveLevel is the level after the approval gate's credit, shown
	// beside Level for gated tools.
	EffectiveLevel string `json:"effectiveLevel,omitempty"`
	// Decision is Exposed, ApprovalGated or Withheld.
	Decision Decision `json:"decision"`
	// Reason and Message say why a tool is withheld.
	Reason  Reason `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ApprovalRule names the rule that gated the tool, for example
	// "minLevel L4" or "category destroy".
	ApprovalRule string `json:"approvalRule,omitempty"`
	// AuditForwardable is true when the tool is withheld only for a policy
	// choice (tool list, a ceiling within the cluster's cap, trust level)
	// and passes everything else — Trusted at Fingerprint, judged, no
	// poisoning finding a human has not approved: in Audit mode the gate
	// forwards it and logs.
	AuditForwardable bool `json:"auditForwardable,omitempty"`
	// ResultAction is what the gate does on a finding in this tool's
	// tools/call results. Empty is Record.
	ResultAction FindingAction `json:"resultAction,omitempty"`
	// Category, BlastRadius and Reversibility are the tool's pinned
	// risk, as argument rules and floors see it.
	Category      string `json:"category,omitempty"`
	BlastRadius   string `json:"blastRadius,omitempty"`
	Reversibility string `json:"reversibility,omitempty"`
	// Rules are the argument rules that apply to the tool's calls.
	Rules []ToolRule `json:"rules,omitempty"`
}

// Kinds of pending call a CallRequest opens.
const (
	// CallKindCall (empty) holds a call to an approval-gated tool before
	// it is forwarded.
	CallKindCall = ""
	// CallKindResult holds a tool's result, in which the gate's scan
	// found something, before it reaches the agent. The operator accepts
	// it only for a tool whose ResultAction is FindingHold. Approval
	// releases exactly the bytes named by ResultDigest; rejection or
	// expiry drops them and the agent gets a JSON-RPC error.
	CallKindResult = "result"
)

// CallRequest asks the operator to open a pending call, one held for a
// human: a call before it is forwarded, or (Kind CallKindResult) a call's
// result before it is answered. The agent's identity is not in it: the
// operator takes it from the token.
type CallRequest struct {
	Version string `json:"version"`
	// CallID is chosen by the gate, unique per call.
	CallID string `json:"callID"`
	// Server is the Server.ID, Tool and Pin name the tool.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Pin    string `json:"pin"`
	// Fingerprint is the fingerprint of the definition being called.
	Fingerprint string `json:"fingerprint"`
	// ArgumentsDigest is "sha256:…" of the arguments' canonical JSON.
	ArgumentsDigest string `json:"argumentsDigest"`
	// ArgumentsPreview is a bounded preview, secret-looking values redacted.
	ArgumentsPreview string `json:"argumentsPreview,omitempty"`
	// ArgumentsComplete says the preview shows every argument in full.
	ArgumentsComplete bool `json:"argumentsComplete,omitempty"`
	// Kind is CallKindCall (empty) or CallKindResult. For a result, the
	// fields above describe the call that produced it.
	Kind string `json:"kind,omitempty"`
	// ResultDigest is "sha256:" and the hex SHA-256 of the result's bytes
	// exactly as the server sent them; set only on a result.
	ResultDigest string `json:"resultDigest,omitempty"`
	// Findings are what the scan found in the result, 1 to MaxFindings;
	// set only on a result.
	Findings []Finding `json:"findings,omitempty"`
	// HeldBy says why a call is held: empty for the tool's approval
	// designation (the tool is ApprovalGated), HeldByRule for an argument
	// rule (Rule names it), HeldByLevel for a level its arguments raised
	// it to (Level) at or above the configuration's ApprovalLevel.
	HeldBy string `json:"heldBy,omitempty"`
	// Rule is the argument rule that held or raised the call.
	Rule string `json:"rule,omitempty"`
	// Level is the call's level after its arguments, when they raised it.
	Level string `json:"level,omitempty"`
	// Reason is why, in words, for the person asked.
	Reason string `json:"reason,omitempty"`
}

// Why a call is held (CallRequest.HeldBy).
const (
	// HeldByDesignation: the tool is ApprovalGated (the empty value).
	HeldByDesignation = ""
	// HeldByRule: an argument rule with action Hold matched.
	HeldByRule = "rule"
	// HeldByLevel: the arguments raised the call to ApprovalLevel or above.
	HeldByLevel = "level"
)

// CallVerdict is the outcome of a pending call.
type CallVerdict string

// Call verdicts.
const (
	CallApproved CallVerdict = "Approved"
	CallRejected CallVerdict = "Rejected"
	CallExpired  CallVerdict = "Expired"
)

// CallOutcome is the decision on a pending call.
type CallOutcome struct {
	CallID  string      `json:"callID"`
	Verdict CallVerdict `json:"verdict"`
	// ArgumentsDigest repeats the digest the decision covers: the gate
	// forwards only when it is the digest of the call it holds.
	ArgumentsDigest string `json:"argumentsDigest,omitempty"`
	// ResultDigest, on a held result, repeats the digest of the result
	// the decision covers: the gate releases only the bytes it names.
	ResultDigest string `json:"resultDigest,omitempty"`
	// By is who decided, for the audit line.
	By      string `json:"by,omitempty"`
	Comment string `json:"comment,omitempty"`
}

// FindingReport tells the operator of a finding the gate acted on without
// holding anything (Record, Redact or Withhold), so that a person sees it
// on the tool's ToolPin, or on the MCPServer when no one tool is
// concerned. The pod is not in it: the operator takes it from the token.
type FindingReport struct {
	Version string `json:"version"`
	// Server is the Server.ID the answer came from.
	Server string `json:"server"`
	// Tool names the tool whose result was scanned; empty for what is not
	// tied to one tool (Server.MessageAction's scope).
	Tool string `json:"tool,omitempty"`
	// Method is the MCP method of the scanned message, for example
	// "tools/call" or "notifications/message".
	Method string `json:"method"`
	// Action is what the gate did: Record, Redact or Withhold.
	Action FindingAction `json:"action"`
	// Findings are what the scan found, 1 to MaxFindings.
	Findings []Finding `json:"findings"`
}
