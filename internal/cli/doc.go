// Package cli implements the toolgate command, also the kubectl plugin
// `kubectl toolgate`: `pending`, `describe`, `approve` and `reject` help a
// reviewer decide on ToolPins in a cluster — definitions, held calls and
// held results, which `release` and `drop` decide on alone — and
// `servers` and `policies`
// show MCPServers and ToolPolicies with whether agents could walk around
// their gates (GateBypassable). `score`, `diff`, `scan-result` and
// `check-call`, which judge saved catalogues, tool results and calls
// offline, are package offline's,
// run from here unchanged.
//
// It owns the cluster commands' argument parsing, the kubeconfig, the
// table, text and JSON renderings (pure functions, golden tested) and the
// reviewer's status patch; the rules a decision must meet are the
// admission webhook's (internal/approval), never this package's.
// cmd/toolgate only calls RunContext.
package cli
