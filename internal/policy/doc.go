// Package policy decides what the ToolPolicies of a namespace expose: for
// a set of policies, the MCPServers they reference and those servers'
// ToolPins, the decision on every tool — exposed, approval-gated or
// withheld with exactly one reason — and the gate configuration that
// carries it.
//
// Everything here is pure: no client, no clock, no network. The ToolPolicy
// reconciler evaluates each policy on its own for that policy's status; the
// gate configuration builder evaluates the policies that select one pod
// together. Both gather their inputs from the informer cache and call
// Evaluate; neither decides anything itself.
//
// # Combining policies
//
// Several policies that select one pod combine to the most restrictive of
// them: the lowest ceiling (maxLevel), the lowest agentTrustLevel, every
// approval rule of every policy (a call waits when any rule matches) with
// the shortest timeout, and Enforce unless every policy says Audit.
//
// The servers are the union of those the policies reference: a policy
// speaks for the servers it names and says nothing of the others, and each
// server is still judged under the combined ceiling and trust. A tool list
// on a reference narrows that server for everyone: when several policies
// reference one server, a tool must be named by the list of each of them
// that has a list; a reference without a list does not narrow. The
// alternative, the union of the lists, would let a second policy widen
// what a first one deliberately narrowed.
//
// # What a tool needs to be exposed
//
// Its server must admit the agents' namespace (spec.consumers) and be Ready
// at its current generation, with an upstream whose credentials resolve.
// The policies' tool lists, where given, must name it. Its pin must be
// Trusted with the pinned fingerprint equal to the observed one — the
// fingerprint the gate then compares every live definition against — and
// judged (status.risk, which already includes a human override). Its
// applied level must be at most the ceiling and its minTrustLevel at most
// the agents' trust. Each other tool is withheld with the first reason that
// applies, in the order of gateproto's Reason constants.
//
// # Poisoning findings
//
// A tool whose applied risk carries poisoning-scan findings is withheld
// (PoisoningFinding), unless its pinned definition — the exact fingerprint
// observed — was pinned by a human approval: the approver saw the findings
// in the pin's status and accepted them for that definition, and any
// change of it sends the tool back to review. Trust on first use is no one
// having looked, so it does not clear a finding. A finding always forfeits
// the approval gate's one-band credit, as do findings in the server's
// instructions.
//
// # Instructions
//
// A ready server's configuration carries what its probe reviewed of its
// initialize instructions: the fingerprint status.serverInfo records of
// the text the probe read and scanned, or None when it read none. A status
// without serverInfo claims nothing (nil), and a server that is not ready
// carries nothing. Instructions the scan found poisoning in claim nothing
// either: the gate then takes them out of every answer an agent gets
// (their findings also floor every tool of the server to L5 and forfeit
// the approval gate's credit).
//
// # Approval gating
//
// An exposed tool that matches an approval rule (minLevel, a category, or
// a tool by name, optionally on one "namespace/name" server) is
// ApprovalGated and names the first rule that matched: rules are taken
// policy by policy in name order, and within a policy minLevel, then
// categories, then tools, as written. Its effective level is one band below
// its level unless it has findings; the ceiling is always compared with the
// inherent level, so the credit never lifts a tool over a ceiling.
//
// # Audit
//
// Audit is a namespace's word, so it lifts only what a namespace's policy
// could have chosen, and never what no policy could expose. It changes no
// decision: it sets the configuration's mode and marks AuditForwardable a
// tool withheld for a reason a policy chose — NotListed, AboveCeiling
// within the cluster's cap (Ceilings.Cap), TrustLevel — and only when the
// tool would pass every check no policy setting changes: a ready server
// that admits the namespace, one pin Trusted at the fingerprint observed
// now, a judged risk, no poisoning finding a human has not approved, a
// level at most the cap, and a minTrustLevel an agent can be given. A tool
// withheld for a poisoning finding, above the cap, not judged, or whose pin
// is not Trusted (awaiting review, rejected, removed, claimed twice) is
// never forwardable, whatever other reason it was withheld for first: the
// reason given is the first that applies, and NotListed comes before the
// pin is looked at, so forwardability is decided on its own.
//
// Approval-gated tools keep their decision in Audit: the gate forwards
// their calls without waiting for a human and records each as one Enforce
// would have held.
//
// # Findings in what servers answer
//
// The gate scans what servers say — tool results, log lines, the requests
// a server makes of the agent, prompts and resources — and acts on a
// finding as the configuration says: Tool.ResultAction for a tool's
// results, Server.MessageAction for the rest. Each policy resolves an
// action on its own: the most specific of its spec.resultScan overrides
// (server and tool, then tool, then server), else its action, else the
// default; a policy in Audit mode resolves Record, and its Ready condition
// says so. The policies that select a pod combine to the strictest:
// Record, Redact, Hold, Withhold. Hold on a server's messages has no pin
// to wait on and is carried as Withhold.
//
// The default follows what the agents can reach (Reach), not what the
// tool that answered does: text in an answer steers the model's next
// call, so a finding in the result of a harmless fetch tool matters as
// much as the most dangerous tool the same agent can call. A tool's
// results are recorded when the tool is at most L2 and nothing reachable
// (exposed, approval-gated, or forwarded in Audit) is L4 or above; a
// server's messages when nothing reachable is L4 or above and the
// server's own reachable tools are below L3; otherwise findings are
// redacted. A tool of unknown level ranks as L5.
//
// # Gate bypass
//
// A policy's GateBypassable condition (GateBypass) summarises the
// GateBypassable conditions of the servers it references, as Ready
// summarises their readiness: True names each server an agent could call
// without its gate, and why. It changes no decision and never makes a
// policy not Ready: the gate enforces what passes through it either way;
// the condition tells the user when something need not pass.
//
// The package owns no Kubernetes access and no transport: the upstreams
// (URLs, credentials) are resolved by the caller and passed in.
package policy
