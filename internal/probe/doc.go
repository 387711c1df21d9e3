// Package probe asks an MCP server what it is and what tools it offers, with
// the official MCP Go SDK, within bounds a hostile server cannot break.
//
// It connects over streamable HTTP or SSE, initializes, and pages through
// tools/list. Every page is decoded by the probe as it arrives — off the
// wire for a plain JSON answer, event by event for server-sent events —
// into the trees package tooldef fingerprints, and the SDK is handed the
// page without its tools: the SDK's typed tool drops annotation fields it
// does not model (SEP-2793's among them), the fingerprint must cover
// everything the model would see, and a page decoded once is a page held
// once. Duplicate members are refused at every level, and so is every
// answer whose member names a case-insensitive decoder reads otherwise
// (two names that fold alike, or one of MCP's names in another case, at
// the levels package mcpshape defines): the gate refuses those, and the
// probe must not judge a message an agent reads another way.
//
// Every probe has a total deadline and a connect deadline; every HTTP
// response body, the whole probe, each string, the number of tools and
// the number of pages are capped, and what a probe decodes is charged,
// node by node before it is kept, to a per-probe budget and to a Budget
// shared by every probe of the process. Link-local and cloud metadata
// addresses are refused when the connection is made, after DNS. A failure
// carries a Reason a user can act on (Unreachable, Unauthorized, Timeout,
// InvalidResponse, TooLarge, InvalidEndpoint) for the MCPServer's
// conditions, and a message in the probe's own words: it never quotes
// what the server sent.
//
// Anonymous asks a server the same way without the configured headers —
// the credentials only the gate is given — and reads one tools/list page at
// most: whether the server lets in a client that holds none of them, so an
// agent beside its gate could call it directly. A refusal (HTTP 401 or 403,
// or a JSON-RPC error the server sent) is its answer; only what tells
// nothing (no answer, a timeout, something that is not MCP) is an error.
//
// The package owns talking to the server. It does not judge what it finds
// (package vet does) nor read Kubernetes objects (the controller resolves
// endpoints, credentials and CAs and hands them over as a Config).
package probe
