// Package sse reads and writes server-sent events as a proxy needs them:
// each event is returned with its raw bytes, so that an event the proxy does
// not change is written out exactly as it came, and its data, so that the
// proxy can judge the JSON-RPC message inside.
//
// It bounds the size of one event, and it knows nothing of MCP.
package sse
