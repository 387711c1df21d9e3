// Package decide is the gate's decision on a tools/call and on a listed
// tool, and the one vocabulary the gate records its decisions in.
//
// What it owns:
//
//   - the verdict words (Verdict) and reasons (Reason) of the audit line
//     and of the decision label of toolgate_gate_calls_total, each defined
//     once and documented in docs/gate.md ("The audit line");
//   - the mapping of the contract's words to them: a tool's
//     gateproto.Decision to what the gate does with a call (Call) or a
//     listed tool (Shown), a withholding gateproto.Reason to the reason
//     recorded (FromConfig, verbatim), and a pending call's
//     gateproto.CallVerdict to what comes of the held call (Answer);
//   - the order in which a call is judged: what the configuration says
//     first, then the gate's own block of a changed definition, then what
//     the server sends now, then the arguments, and only then a human, who
//     is never asked about a definition that changed.
//
// What it does not do: gather. Every function here is pure — no I/O, no
// clock, no lock — and decides from facts the gate has gathered
// (CallFacts). When a decision waits on a fact the gate has not gathered
// yet, the outcome says which (Outcome.Missing), and the gate fetches it —
// listing the server to observe a definition, checking the arguments
// against the approved schema — and decides again. The gate, not this
// package, asks the human, writes the audit line and counts.
package decide
