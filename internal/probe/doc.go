// Package probe asks an MCP server what it is and what tools it offers, with
// the official MCP Go SDK, within bounds a hostile server cannot break.
//
// It connects over streamable HTTP or SSE, initializes, and pages through
// tools/list, keeping the raw JSON of every page: the SDK's typed tool drops
// annotation fields it does not model (SEP-2793's among them), and the
// fingerprint must cover everything the model would see. Every probe has a
// total deadline and a connect deadline; every HTTP response body, the
// whole probe, each string, the number of tools and the number of pages are
// capped. A failure carries a Reason a user can act on (Unreachable,
// Unauthorized, Timeout, InvalidResponse, TooLarge) for the MCPServer's
// conditions.
//
// The package owns talking to the server. It does not judge what it finds
// (package vet does) nor read Kubernetes objects (the controller resolves
// endpoints, credentials and CAs and hands them over as a Config).
package probe
