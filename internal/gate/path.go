package gate

import "github.com/toolgate/toolgate/internal/gateproto"

// PathPrefix is where the gate serves its per-server endpoints:
// gateproto.GatePathPrefix, which the contract owns so that the injector
// can name it without linking the proxy.
const PathPrefix = gateproto.GatePathPrefix

// ServerPath is gateproto.ServerPath: the path on the gate's listener of
// the server whose ID is "namespace/name".
func ServerPath(serverID string) string { return gateproto.ServerPath(serverID) }
