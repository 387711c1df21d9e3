// Package bypass decides whether agents could reach an MCP server around
// their gate, from what the server answered a probe that carried none of the
// credentials only the gate holds.
//
// An agent runs beside its gate in one pod and shares its network
// namespace: whatever the gate can reach, the agent can too. What keeps an
// agent from calling the server directly is that the server demands
// credentials the operator gives the gate and never the agent's namespace
// (spec.auth), or a NetworkPolicy that keeps the pod off the server. The
// operator checks the first; the second it cannot see from where it runs.
//
// Decide turns the outcome of probe.Anonymous into the MCPServer's
// GateBypassable condition:
//
//   - no credentials configured: True, NoCredentials, without probing;
//   - the server answered initialize without them: True,
//     ReachableWithoutCredentials;
//   - it refused (HTTP 401 or 403, or an MCP error): False,
//     CredentialsRequired;
//   - nothing that tells (the network, a timeout, an answer that is not
//     MCP): Unknown, CheckFailed.
//
// Due says when to check again. The check rides along a probe already
// due, in the same probe slot: at the first probe of a configuration
// (endpoint, transport, credentials, CA, spec generation — a rotated Secret
// included) and after an operator restart, at every probe while the last
// check could not tell, and otherwise once per Recheck. Not at every
// probe: a server's authentication changes far less often than its
// catalogue, and each check is a second connection to it; yet once in a
// while, because a server can stop demanding credentials without anything
// in the cluster changing. The condition never touches Ready: the gate still
// enforces everything that passes through it.
//
// Everything here is pure: no client, no clock, no network. It owns the
// decision, not the probe (package probe) nor the status write (the
// MCPServer reconciler, through package serverstatus).
package bypass
