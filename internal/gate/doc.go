// Package gate is the MCP proxy that runs beside an agent: one endpoint per
// upstream server on a loopback port (see ServerPath), in front of the
// servers the operator's configuration names, enforcing that configuration
// on every message.
//
// What it owns:
//
//   - tools/list responses: tools the configuration does not expose are cut
//     out of the array, the kept tools' bytes are spliced back exactly as
//     the server sent them, and every tool's fingerprint is recomputed
//     (pkg/tooldef) on every list; a definition that does not match its
//     approved fingerprint is withheld at once, without waiting for the
//     operator, and the agent is told its list changed;
//   - tools/call requests: refused unless the tool is exposed (or gated and
//     approved, see Approver) and the gate has checked its live definition
//     since the configuration was applied — listing the server itself first
//     when it has not. The decision is package decide's, a pure function of
//     what the gate gathered; the gate gathers (call.go), asks the human,
//     and acts;
//   - the audit line of every decision and the metrics (gatemetrics), in
//     package decide's words.
//
// What it passes through untouched: every other message (resources,
// prompts, completions, logging, the agent's answers to server requests),
// allowed calls and their results, streamed event by event. Resources and
// prompts are not judged yet: the operator does not review them.
//
// What it never passes: a message it cannot read. Every event of a stream
// is scanned as a JSON-RPC message, and one the gate cannot read (or that
// answers another request than the stream's) is dropped or replaced by an
// error, since the agent's client may read it otherwise; a stream that ends
// inside an event has that event judged, not copied; an answer of a media
// type MCP does not use is refused; a judged method written in another case
// is refused; and a tools/list is decoded within a memory budget.
//
// What it does not do: fetch its configuration (gateclient does, and calls
// Apply), decide policy (the operator does), or hold Kubernetes rights.
//
// # Fingerprint mismatches are sticky
//
// Once a server has sent a definition of a tool other than the approved
// one, the tool stays withheld until a configuration arrives whose
// fingerprint for that tool is the definition the server changed to — that
// is, until a human has reviewed what the server now sends. A server that
// flips back to the approved definition stays blocked: flip-flopping
// between a reviewed and an unreviewed definition is how a rug pull would
// hide from a probe, and the gate has no way to know which one the model
// will be shown next. The block lives in the gate's memory, per server and
// tool, and survives configuration updates; a restart forgets it, and the
// next list re-establishes it if the server still sends the changed
// definition.
//
// # Protocol generations
//
// The gate speaks to the agent in whatever generation the agent uses and
// forwards it to the server, per Upstream.Transport: the session-based
// streamable HTTP transport (Mcp-Session-Id, the GET stream, DELETE), the
// stateless 2026-07-28 revision (per-request protocol version, the
// subscriptions/listen stream, the cache fields of list results, which the
// gate makes private), and the older SSE transport (2024-11-05), whose
// endpoint event the gate rewrites to point at itself.
package gate
