// Package gateserver is the operator's side of the configuration stream:
// an HTTPS server, HTTP/2 on, that every replica of the operator runs
// beside its webhook server, with the same certificate. A gate opens one
// long-lived GET of gateproto.ConfigPath with its pod's projected token;
// the server proves who the gate is with a TokenReview and the pod the
// token is bound to, sends the pod's configuration at once, then
// heartbeats, and pushes a new configuration when Invalidate says
// something it depends on changed and the revision moved.
//
// The gate's identity — namespace, pod, pod UID, service account — comes
// from the verified token alone, never from anything the gate sends. The
// package owns authentication, the stream and its bounds; it does not
// decide what a configuration holds (a Builder does, from policy
// evaluation) nor when one is stale (the informer handlers that call
// Invalidate do).
package gateserver
