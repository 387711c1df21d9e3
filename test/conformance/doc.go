// Package conformance is the gate's differential conformance suite: it
// proves from outside that the gate and the real MCP peers on either side
// of it never read one message two ways.
//
// The gate binary runs as a process, configured with --config-file, between
// real implementations of MCP: the official Go SDK, mark3labs/mcp-go and
// the TypeScript SDK (installed from npm into the cache by the suite), each
// as a server and as a client, in every protocol generation it speaks.
// Hostile messages are not a fixed list: a seeded grammar spells the names
// MCP defines (name, arguments, params, method, id, tools, instructions,
// nextCursor, description, inputSchema, result, and the arguments' own
// names) as a case-insensitive decoder still reads them — other cases,
// Unicode simple-fold partners (ſ for s, K for k), \u escapes, exact
// duplicates — and places each before, after or instead of the real
// member, at every level of a request or an answer.
//
// The oracles are what the peers did, never what the gate says it did:
//
//   - agent side: each real server records every tool it runs and the
//     arguments it received; a withheld tool never runs, a gated tool never
//     runs (a gate run from a file has no approver, so every gated call is
//     refused), and the exposed tool runs only with the arguments the gate
//     judged;
//   - argument rules: with a Refuse rule on one value of the exposed
//     tool's argument, a call with another value runs, the plain call
//     with that value runs nowhere and the agent reads a JSON-RPC error
//     naming the rule, and no hostile spelling of a call carrying that
//     value — the argument's name spelled otherwise or duplicated, the
//     value in \u escapes, the value in second arguments or params, behind
//     another method or id, in an Mcp-Param header — makes a server run
//     the tool with the value as the server read it;
//   - server side: a hostile upstream writes the generated members into its
//     initialize, server/discover and tools/list answers; the tools each
//     real client library parsed are exactly pinned definitions the gate
//     exposes, and the instructions it parsed are the reviewed ones or none;
//   - what servers say: a hostile upstream answers tool calls with an
//     injection the scan flags on its own — spelled plainly, with \u
//     escapes, split by a zero-width space or in full-width letters — in a
//     text or resource item, structured content, a member name, a second
//     text or content member spelled by the grammar, the error, a bare
//     result, a log line or a sampling request; under Redact and under
//     Withhold, no library parsed the payload's words anywhere, an answer
//     the gate must refuse reached it as an error, and the gate wrote its
//     toolgate.finding audit line.
//
// The package owns no production code, only its tests and the TypeScript
// peers under testdata/node. It does not test the gate's decisions on
// policy (internal/gate and test/e2e do), nor the operator.
package conformance
