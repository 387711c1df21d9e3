package gateproto

import "strings"

// GatePathPrefix is where a gate serves its per-server endpoints on its
// listener in the agent's pod.
//
// The path is part of the contract, not of the gate alone: the injector
// writes it into the agent's environment, and the gate serves it. Keeping
// it here lets the operator name it without linking the proxy.
const GatePathPrefix = "/mcp/"

// ServerPath is the path on the gate's listener of the server whose ID is
// "namespace/name": "/mcp/namespace/name". The injector names it in the
// agent's environment; both halves of an ID are DNS names, so the path needs
// no escaping.
func ServerPath(serverID string) string {
	return GatePathPrefix + serverID
}

// ServerIDFromPath is the inverse of ServerPath: the server ID a gate path
// names. It refuses anything that is not exactly a server path — another
// prefix, or an ID that SplitServerID does not accept (a third segment, an
// escaped or upper-case name) — so that one server has one path.
func ServerIDFromPath(p string) (string, bool) {
	id, ok := strings.CutPrefix(p, GatePathPrefix)
	if !ok {
		return "", false
	}
	if _, _, err := SplitServerID(id); err != nil {
		return "", false
	}
	return id, true
}
