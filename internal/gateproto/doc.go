// Package gateproto is the contract between the operator and its gates: the
// configuration the operator serves each gate, the frames of the stream that
// carries it, the messages of per-call approval (a call held before it is
// forwarded, or a tool's result held before it is answered), and the
// report of a finding the gate's scan of a server's answer made.
//
// Both sides import this package and nothing else of each other, so the
// contract lives in one place and is versioned: a gate refuses a frame whose
// version it does not speak, and a configuration that fails Validate is
// refused whole, the last good one kept. The package has no Kubernetes
// imports; it does not decide anything — the operator's policy evaluation
// fills a Config, the gate enforces it. Encoded and Group let the operator
// encode a configuration the pods of a group share once, and derive each
// pod's encoding and revision from it, byte for byte what json.Marshal and
// ComputeRevision make, so that a gate checks them as any other.
package gateproto
