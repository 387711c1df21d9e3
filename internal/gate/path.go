package gate

import (
	"strings"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// PathPrefix is where the gate serves its per-server endpoints.
const PathPrefix = "/mcp/"

// ServerPath is the path on the gate's listener of the server whose ID is
// "namespace/name": "/mcp/namespace/name". The injector names it in the
// agent's environment; both halves of an ID are DNS names, so the path needs
// no escaping.
func ServerPath(serverID string) string {
	return PathPrefix + serverID
}

// serverIDFromPath is the inverse of ServerPath; it refuses anything that
// is not exactly a server path.
func serverIDFromPath(p string) (string, bool) {
	id, ok := strings.CutPrefix(p, PathPrefix)
	if !ok {
		return "", false
	}
	if _, _, err := gateproto.SplitServerID(id); err != nil {
		return "", false
	}
	return id, true
}
