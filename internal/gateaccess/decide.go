package gateaccess

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/inject"
)

// The subresources of a pod that open a connection into it, as admission
// names them.
const (
	Exec        = "exec"
	Attach      = "attach"
	PortForward = "portforward"
)

// Request is what admission knows about a connection into a pod.
type Request struct {
	// Subresource is Exec, Attach or PortForward.
	Subresource string
	// Container is the container named in the exec or attach options,
	// empty when none was named; unused for a port-forward.
	Container string
	// User is the requester's name, for the message.
	User string
	// Admin says whether the requester is one of toolgate's
	// administrators (approval.IdentityPolicy.IsAdmin).
	Admin bool
}

// Decision is the verdict on a connection.
type Decision struct {
	// Allowed is whether the connection may proceed.
	Allowed bool
	// Reason is a short machine-readable word for logs.
	Reason string
	// Message says why, and when refused, what to do instead.
	Message string
}

// Reasons a Decision gives.
const (
	ReasonAdmin          = "Administrator"
	ReasonNoGate         = "NoGate"
	ReasonOtherContainer = "OtherContainer"
	ReasonGateContainer  = "GateContainer"
	ReasonPortForward    = "PortForwardToGatedPod"
	ReasonUnknown        = "UnknownSubresource"
)

// askAdmin names who may still connect, in every refusal.
const askAdmin = "or ask a toolgate administrator (an identity named in the operator's --admin-users or --admin-groups)"

// Decide says whether req may connect to pod. The pod is the live one,
// read from the API server, never a copy the requester sent.
func Decide(req Request, pod *corev1.Pod) Decision {
	where := pod.Namespace + "/" + pod.Name
	switch req.Subresource {
	case Exec, Attach, PortForward:
	default:
		// Only the three connecting subresources are sent here; another
		// means the webhook's rules were edited, and a guard that cannot
		// tell what it admits refuses.
		return Decision{Reason: ReasonUnknown, Message: fmt.Sprintf(
			"pods/%s of pod %s is not a connection toolgate's gate-access guard knows how to judge; %s", req.Subresource, where, askAdmin)}
	}
	if req.Admin {
		return Decision{Allowed: true, Reason: ReasonAdmin, Message: req.User + " is a toolgate administrator"}
	}
	if !CarriesGate(pod) {
		return Decision{Allowed: true, Reason: ReasonNoGate, Message: "pod " + where + " does not carry the gate"}
	}
	if req.Subresource == PortForward {
		return Decision{Reason: ReasonPortForward, Message: fmt.Sprintf(
			"port-forward to pod %s is refused for %s: the pod carries the gate (%s), whose listeners on the pod's loopback answer "+
				"with the gate's upstream credentials, and admission cannot tell which port a port-forward opens (kubectl sends the "+
				"ports in stream headers, not in the request), so every port of a gated pod is refused; forward to a pod without "+
				"the gate, %s", where, req.User, inject.ContainerName, askAdmin)}
	}
	container := targetContainer(req.Container, pod)
	if container != inject.ContainerName {
		return Decision{Allowed: true, Reason: ReasonOtherContainer, Message: "container " + container + " is not the gate"}
	}
	into := map[string]string{Exec: "exec into", Attach: "attach to"}[req.Subresource]
	return Decision{Reason: ReasonGateContainer, Message: fmt.Sprintf(
		"%s the gate container %s of pod %s is refused for %s: a process there holds the pod's token for the toolgate "+
			"operator and could present it elsewhere, receiving the gate's upstream credentials; %s the agent's own "+
			"containers instead (-c NAME), read the gate with kubectl logs -c %s, recreate the pod to run the gate anew, %s",
		into, inject.ContainerName, where, req.User, into, inject.ContainerName, askAdmin)}
}

// targetContainer is the container an exec or attach reaches: the one
// named, or, when none is, the one the API server picks — the pod's only
// container. With several it refuses the request itself, so what is
// returned then is only a name that is not the gate's.
func targetContainer(named string, pod *corev1.Pod) string {
	if named != "" {
		return named
	}
	if len(pod.Spec.Containers) == 1 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

// CarriesGate reports whether pod shows a sign of the gate: the injector's
// record (toolgate.dev/injected) or a container of any kind named like the
// gate. These are the signs by which the operator takes a pod for an
// injected one (inject.CheckGate) and then, once the rest checks out,
// serves it; either alone is enough here, so that removing one does not
// lift the guard.
func CarriesGate(pod *corev1.Pod) bool {
	if _, ok := pod.Annotations[toolgatev1alpha1.AnnotationInjected]; ok {
		return true
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == inject.ContainerName {
			return true
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == inject.ContainerName {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == inject.ContainerName {
			return true
		}
	}
	return false
}
