// Package cli implements the toolgate command: `toolgate score` vets saved
// tools/list results offline and `toolgate diff` explains how a server's
// catalogue changed; `pending`, `describe`, `approve` and `reject` help a
// reviewer decide on ToolPins in a cluster, and `servers` and `policies`
// show MCPServers and ToolPolicies with whether agents could walk around
// their gates (GateBypassable), also as the kubectl plugin
// `kubectl toolgate`. It owns argument parsing, reading input within
// limits, the table, text and JSON renderings (pure functions, golden
// tested) and the reviewer's status patch; the verdict itself comes from
// package vet, and the rules a decision must meet are the admission
// webhook's (internal/approval), never this package's. The offline
// commands never load a kubeconfig. cmd/toolgate only calls RunContext.
package cli
