// Package rpcmsg reads and rewrites JSON-RPC messages of MCP at the byte
// level, for a proxy that must pass what it does not judge through
// untouched.
//
// It never decodes a message into SDK types and encodes it again: those
// types drop the fields they do not model, and a proxy that re-encoded would
// change what the agent's model reads. Instead it scans a request for the
// few members a decision needs (id, method, params.name, params.arguments,
// params._meta), and it filters a tools/list result by splicing the raw bytes
// of the kept tools back into the array, leaving every other byte as the
// server sent it.
//
// Both readers refuse what two JSON parsers could read differently —
// duplicate member names, invalid UTF-8 — because the proxy and the server
// behind it must agree on which tool a call names. The package owns no
// policy: the caller says which tools to keep.
package rpcmsg
