// Package gateaccess decides whether a connection into a pod — kubectl
// exec, attach or port-forward, which the API server admits as CONNECT on
// pods/exec, pods/attach and pods/portforward — may reach the gate.
//
// The gate holds the pod's projected token for the operator, and with it
// fetches the pod's configuration, upstream credentials included. A process
// started in the gate's container (kubectl exec -c toolgate-gate -- /gate
// --operator-url https://elsewhere) would present that token to any URL;
// a port-forward reaches the gate's listeners on the pod's loopback, where
// anyone forwarding calls the agent's tools with the gate's credentials.
// RBAC cannot tell these apart from exec into the agent: the built-in edit
// role grants pods/exec for every container of every pod in a namespace.
//
// Decide is a pure function of what admission knows (the subresource, the
// container named in the options, whether the requester is one of
// toolgate's administrators) and of the live pod. It refuses, for everyone
// but the administrators:
//
//   - exec and attach naming the gate container of a pod that carries the
//     gate (an empty container name is resolved as the API server resolves
//     it, to the pod's only container, which is never the gate: the gate
//     is an init container);
//   - any port-forward to a pod that carries the gate. kubectl's SPDY and
//     websocket port-forward send the ports in stream headers, not in the
//     URL, so admission never learns the port and cannot spare the agent's
//     own ports.
//
// Exec and attach into the agent's other containers stay allowed. The
// package owns no admission plumbing (internal/podconnect serves the
// webhook and reads the pod) and no Kubernetes access.
package gateaccess
