// Package mcpshape describes, for package namefold, the levels of an MCP
// message whose member names MCP defines: a JSON-RPC message, the params of
// a request, the results of initialize and tools/list, a tool and its
// annotations.
//
// The gate and the operator's probe both check what a server answers (and
// the gate what an agent asks) against these levels, so that a member whose
// name a case-insensitive decoder reads as a defined one ("Tools",
// "toolſ", a tool's "Description" beside its "description") is refused by
// both the same way: a server cannot show the probe one catalogue and an
// agent another. The levels are defined here once, and both sides import
// them.
//
// The package owns those descriptions only. It does not check a message
// (namefold does), nor decide what to do with one that fails (the gate
// refuses it, the probe reports it). It imports nothing but namefold, so
// the gate links no Kubernetes code through it.
package mcpshape
