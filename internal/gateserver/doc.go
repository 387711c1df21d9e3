// Package gateserver is the operator's side of the configuration stream:
// an HTTPS server, HTTP/2 on, that every replica of the operator runs
// beside its webhook server, with the same certificate. A gate opens one
// long-lived GET of gateproto.ConfigPath with its pod's projected token;
// the server proves who the gate is with a TokenReview and the pod the
// token is bound to, sends the pod's configuration at once, then
// heartbeats, and pushes a new configuration when Invalidate says
// something it depends on changed and the revision moved.
//
// A stream asked for over HTTP/1.1 (the gate client's way) is taken over
// from the HTTP server once its gate is authenticated and written as a
// chunked response from the stream's own timers, so that no goroutine
// and no HTTP/2 state is held per gate between frames; one asked for over
// HTTP/2 is served the same way while its handler waits for its end.
//
// Over the same server a gate opens pending calls (gateproto.CallsPath):
// a call to an approval-gated tool, or the result of a call whose tool's
// ResultAction is Hold, which the server records on the tool's ToolPin
// (through pinwriter) and holds open until people decide, the record's
// end being the outcome. A gate also reports findings of its scan it
// acted on without holding (gateproto.FindingsPath), which the server
// marks with a Warning Event on the pin or the MCPServer. Both are checked
// against the pod's own configuration, built afresh, and rate-limited
// per pod.
//
// A fleet of gates is served at a bounded cost to the API server: a gate
// that connects costs a TokenReview (reused until its token expires, within
// bounds) and a read of its pod, and only so many connect at once, the others
// told when to come back; a change of policy costs no request, the pod being
// read again only at each periodic resync. A configuration whose Builder
// encoded it (an EncodingBuilder) is sent from that encoding, neither
// validated nor encoded again.
//
// The gate's identity — namespace, pod, pod UID, service account — comes
// from the verified token alone, never from anything the gate sends. The
// package owns authentication, the stream and its bounds; it does not
// decide what a configuration holds (a Builder does, from policy
// evaluation) nor when one is stale (the informer handlers that call
// Invalidate do).
package gateserver
