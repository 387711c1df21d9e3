// Package inject decides whether a pod gets the gate and adds it: the pure
// half of the injection webhook, in the manner of Istio's injector.
//
// Decide reads only the pod, its namespace's labels and the injector's
// settings; Mutate reads only the pod, a Template and the servers the
// pod's ToolPolicies reference; CheckGate reads only the pod. None touches
// the network, a clock or a client, so they are tested with tables, golden
// files and an idempotency check (Mutate of its own output changes
// nothing).
//
// What Mutate adds:
//
//   - the gate as a native sidecar: the first init container, with
//     restartPolicy Always, so it starts before every other container —
//     its startup probe on /readyz holds the agent back until the gate has
//     a configuration — and stops after them;
//   - one projected volume, mounted read-only into the gate only, holding
//     the pod's service-account token for the toolgate audience (short
//     lived, renewed by the kubelet) and the operator's CA, projected from
//     a pod annotation by the downward API;
//   - in every other container, the environment variables naming the
//     gate's endpoint for each server (see EnvName), and nothing else;
//   - the annotation that records the gate's image and the template's
//     revision.
//
// # Why the CA travels in an annotation
//
// A pod can mount only Secrets and ConfigMaps of its own namespace, and the
// operator's CA lives in the operator's. Copying it into every agent
// namespace would need a controller with write rights there; passing it as
// an environment variable would need a gate flag for inline PEM and would
// show it to `kubectl describe` of every container. The CA is public, a
// pod annotation is written by this webhook at creation, and the downward
// API projects it as a file next to the token, where the gate already
// reads it. The guard policy refuses any later change of that annotation.
//
// # Checking a live pod
//
// CheckGate applies to a running pod what Mutate wrote and Decide
// refuses: the operator calls it before it serves a gate, so that a pod
// changed after admission (a swapped gate image, an ephemeral container
// beside the gate) gets no configuration even where the guard policy that
// refuses those changes is missing.
//
// The package owns no admission plumbing (internal/injector does) and no
// Kubernetes access.
package inject
