// Package podconnect serves the validating admission webhook on CONNECT of
// pods/exec, pods/attach and pods/portforward in namespaces with injection
// enabled: kubectl exec, attach and port-forward. It reads the pod those
// name from the API server and asks internal/gateaccess whether the
// connection may reach the gate; refused, the requester gets gateaccess's
// message.
//
// The pod is read through the manager's API reader, not its cache: a pod
// created a moment ago must already count, and the operator does not watch
// pods. A pod that cannot be read is refused (fail closed): a guard that
// cannot tell whether a pod carries the gate does not let a connection
// through on a guess.
//
// The webhook configuration (config/webhook/injection/gate-access.yaml)
// selects the namespaces by the injection label; the handler does not look
// at the namespace again, since a gated pod is worth guarding wherever it
// is, and a selector edited by hand can then only narrow what the guard
// sees, never make it refuse a pod without the gate.
//
// Why a webhook and not a ValidatingAdmissionPolicy: the API server does
// evaluate a policy on CONNECT (its object is the PodExecOptions,
// PodAttachOptions or PodPortForwardOptions), but a policy sees only that
// object, which names the pod and the container, never the pod itself. It
// cannot tell whether the pod carries the gate, and so could only refuse
// every port-forward in an opted-in namespace, opted-out pods' included.
//
// It owns no decision (internal/gateaccess does) and reuses the
// administrator identities of the approval webhooks
// (approval.IdentityPolicy.IsAdmin): the identities that may delete a
// ToolPin holding decisions may also reach the gate.
package podconnect
