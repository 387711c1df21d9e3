package gateproto

import "testing"

func TestServerPathRoundTrip(t *testing.T) {
	for _, id := range []string{"tools/github", "a/b", "agents-1/mcp.server-2"} {
		p := ServerPath(id)
		if want := "/mcp/" + id; p != want {
			t.Errorf("ServerPath(%q) = %q, want %q", id, p, want)
		}
		got, ok := ServerIDFromPath(p)
		if !ok || got != id {
			t.Errorf("ServerIDFromPath(%q) = %q, %v; want %q", p, got, ok, id)
		}
	}
}

// A path names a server only when it is exactly a server path: anything a
// server's ID could be smuggled through in another spelling is refused.
func TestServerIDFromPathRefuses(t *testing.T) {
	for _, p := range []string{
		"", "/", "/mcp", "/mcp/", "/mcp/tools", "/mcp/tools/", "/mcp//github",
		"/mcp/tools/github/", "/mcp/tools/github/extra", "/mcp/Tools/github",
		"/mcp/tools%2Fgithub", "/MCP/tools/github", "mcp/tools/github", "/other/tools/github",
		"/mcp/../tools/github", "/mcp/tools/../github",
	} {
		if id, ok := ServerIDFromPath(p); ok {
			t.Errorf("ServerIDFromPath(%q) = %q, want refused", p, id)
		}
	}
}
