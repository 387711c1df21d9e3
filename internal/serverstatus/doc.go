// Package serverstatus decides what a probe pass means for an MCPServer:
// when the server is due for a probe, what its pins add up to, and the
// status and events that follow from a configuration error, a failed probe
// or a judged catalogue.
//
// Every function here is pure — no client, no clock, no network — so the
// MCPServer reconciler only gathers inputs (the spec, the Secrets, the
// probe, the access reviews, the pins) and writes what this package
// returns, once. The judgement itself is the risk engine's (pkg/vet); the
// lifecycle of each pin is internal/lifecycle's.
package serverstatus
