// Package cli implements the kubectl plugin `kubectl toolgate`
// (cmd/kubectl-toolgate): `pending`, `describe`, `approve`, `reject`,
// `revoke`, `release` and `drop` let a reviewer decide on what toolgate
// holds for a person in a cluster — definitions, held calls and held
// results — and `servers` and `policies` show MCPServers and ToolPolicies
// with whether agents could walk around their gates (GateBypassable).
// `score`, `diff`, `scan-result` and `check-call`, which judge saved
// catalogues, tool results and calls offline, are package offline's, run
// from here unchanged; cmd/toolgate runs them alone, without this package.
//
// It owns the commands (cobra), kubectl's connection flags and printers
// (k8s.io/cli-runtime), the table, text and list renderings (pure
// functions, golden tested), the reviewer's status patch, and the
// prediction that a decision would change nothing; the rules a decision
// must meet are the admission webhook's (internal/approval), and what a
// decision does is the operator's (internal/lifecycle), never this
// package's. cmd/kubectl-toolgate only calls RunContext.
package cli
