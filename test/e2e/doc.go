// Package e2e runs toolgate's binaries as real processes: the README's
// demo command, end to end, with a real control plane, the operator and a
// sample MCP server built with the Go SDK.
package e2e
