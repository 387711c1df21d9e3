// Package controllers holds one reconciler per toolgate kind: MCPServer,
// ToolPin and ToolPolicy.
//
// Each reconciler follows one shape: get the object, compute its new status
// in memory with small pure helpers, and write status at most once per pass,
// only when it changed, with an optimistic lock so a concurrent writer (an
// approver appending a decision, for instance) is never overwritten. The
// decisions themselves (what a probe means, what a policy exposes) belong in
// libraries, not here; this package wires them to the API server.
package controllers
