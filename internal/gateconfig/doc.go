// Package gateconfig builds what each gate is served: for one agent pod,
// the ToolPolicies that select it, evaluated (package policy) over the
// MCPServers they reference, those servers' ToolPins and the namespace's
// labels, with each server's upstream resolved to the address, credentials
// and CA a gate reaches it at.
//
// It owns reading those inputs from the manager's cache, and nothing else:
// one Builder gathers a namespace's inputs for the ToolPolicy reconciler,
// which writes what they mean into status, and for the gate server, which
// serves them to gates; both therefore judge under the same cluster
// ceilings (policy.Ceilings), set once on the Builder. It also owns the
// cache's field indexes both read through, the resolution of an MCPServer's
// endpoint (which the MCPServer reconciler's probe shares, so that a gate
// reaches exactly what the probe judged), and the informer handlers that
// tell the gate server which namespaces' configurations an event changed.
//
// For the gate server it remembers each group's evaluation — the pods of a
// namespace that match the same policies are served the same configuration
// but for their own name — until the informer handlers invalidate the
// namespace, so that a change that reaches thousands of gates costs one
// evaluation per group. The group's configuration is encoded once too:
// each pod's encoding and revision are derived from it, and the gate
// server writes them into the frame as they are.
//
// It decides nothing: what a policy exposes is package policy's, the
// stream and its authentication are package gateserver's, and status is
// the reconcilers'. It only reads; it never writes to the API server.
package gateconfig
