// Package scale measures how the operator copes with a fleet: 200
// MCPServers of 50 tools each, served by real SDK servers over HTTP, probed
// by the operator binary running as its own process against a real API
// server. It runs only when TOOLGATE_SCALE is set (make scale), because it
// takes a minute of both cores.
package scale
