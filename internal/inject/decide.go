package inject

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// SystemNamespaces are never injected, whatever their labels say: the
// cluster's own pods must start when the operator cannot.
var SystemNamespaces = []string{"kube-system", "kube-public", "kube-node-lease"}

// Settings are what Decide needs to know about the installation.
type Settings struct {
	// OperatorNamespace is the operator's own namespace, never injected:
	// with failurePolicy Fail, injecting it would let the operator's own
	// pods wait on the operator.
	OperatorNamespace string
	// ExcludedNamespaces are further namespaces never injected, besides
	// SystemNamespaces.
	ExcludedNamespaces []string
}

// Reason says why Decide decided as it did.
type Reason string

// The reasons, for logs and admission messages.
const (
	// ReasonInject: an opted-in namespace, no opt-out.
	ReasonInject Reason = "Inject"
	// ReasonNamespaceNotEnabled: the namespace does not carry
	// toolgate.dev/injection=enabled.
	ReasonNamespaceNotEnabled Reason = "NamespaceNotEnabled"
	// ReasonOptedOut: the pod carries toolgate.dev/inject=false (whether
	// its creator may do so is the guard policy's business).
	ReasonOptedOut Reason = "OptedOut"
	// ReasonOperatorNamespace: the operator's own namespace.
	ReasonOperatorNamespace Reason = "OperatorNamespace"
	// ReasonSystemNamespace: a system or excluded namespace.
	ReasonSystemNamespace Reason = "SystemNamespace"
	// ReasonHostNetwork: the pod shares the node's network, where the
	// gate's loopback listener would be the node's; it is refused.
	ReasonHostNetwork Reason = "HostNetwork"
	// ReasonForeignGateToken: a volume other than the gate's asks for a
	// token of the gate's audience, which would hand the agent what the
	// gate uses to fetch upstream credentials; it is refused.
	ReasonForeignGateToken Reason = "ForeignGateToken"
	// ReasonSharedProcessNamespace: the pod's containers share one process
	// namespace, in which any of them reads the gate's token through
	// /proc/<gate's pid>/root; it is refused.
	ReasonSharedProcessNamespace Reason = "SharedProcessNamespace"
	// ReasonHostPID: the pod sees the node's processes, the gate's among
	// them, and so its token the same way; it is refused.
	ReasonHostPID Reason = "HostPID"
	// ReasonHostIPC: the pod shares the node's IPC namespace, which no
	// gated agent needs and which opens the node's shared memory to it;
	// it is refused.
	ReasonHostIPC Reason = "HostIPC"
	// ReasonHostPath: a volume of the node's file system, through which
	// the kubelet's pod directories, the gate's token among them, can be
	// reached; it is refused.
	ReasonHostPath Reason = "HostPath"
	// ReasonPrivileged: a privileged container, which can mount the
	// node's disk and read the gate's token from the kubelet's pod
	// directory; it is refused.
	ReasonPrivileged Reason = "Privileged"
	// ReasonCapability: a container given a capability that reaches past
	// its own namespaces (see escapingCapabilities); it is refused.
	ReasonCapability Reason = "Capability"
	// ReasonHostAliases: entries the pod's author writes into the one
	// /etc/hosts the kubelet gives every container of the pod, the gate's
	// included; it is refused (see nameRedirection).
	ReasonHostAliases Reason = "HostAliases"
	// ReasonCustomDNS: a resolver or search list of the pod's author's
	// choosing (dnsPolicy None, dnsConfig.nameservers or .searches), which
	// the gate would share; it is refused (see nameRedirection).
	ReasonCustomDNS Reason = "CustomDNS"
)

// escapingCapabilities are the capabilities through which a container
// reaches what another container of its pod holds: the node's disks and
// file handles (SYS_ADMIN, DAC_READ_SEARCH, SYS_RAWIO, SYS_MODULE), other
// processes (SYS_PTRACE, BPF, PERFMON), or the packets of the pod's shared
// network namespace, where the gate's requests carry the upstream
// credentials (NET_RAW, NET_ADMIN).
var escapingCapabilities = []corev1.Capability{
	"ALL", "SYS_ADMIN", "DAC_READ_SEARCH", "SYS_RAWIO", "SYS_MODULE", "SYS_PTRACE", "BPF", "PERFMON", "NET_RAW", "NET_ADMIN",
}

// Decision is Decide's answer. At most one of Inject and Deny is true;
// neither means the pod is admitted as it is.
type Decision struct {
	// Inject: Mutate the pod.
	Inject bool
	// Deny: refuse the pod; in an opted-in namespace it could not run
	// behind the gate safely.
	Deny bool
	// Reason is why.
	Reason Reason
	// Message is a sentence for the person who created the pod.
	Message string
}

// Decide says whether a pod created in namespace, whose labels are
// namespaceLabels, gets the gate. It does not judge whether the pod
// already carries the gate: Mutate is idempotent, so a pod that carries
// exactly this gate comes out of Mutate unchanged, and one that carries
// something named like it (a forged container, a copied annotation) gets
// the real one — trusting a name or an annotation the pod's author wrote
// would be an opt-out nobody guards.
func Decide(pod *corev1.Pod, namespace string, namespaceLabels map[string]string, s Settings) Decision {
	switch {
	case namespace == s.OperatorNamespace && namespace != "":
		return Decision{Reason: ReasonOperatorNamespace, Message: "the operator's own namespace is never injected"}
	case slices.Contains(SystemNamespaces, namespace) || slices.Contains(s.ExcludedNamespaces, namespace):
		return Decision{Reason: ReasonSystemNamespace, Message: fmt.Sprintf("namespace %s is never injected", namespace)}
	case namespaceLabels[toolgatev1alpha1.LabelInjection] != toolgatev1alpha1.InjectionEnabled:
		return Decision{Reason: ReasonNamespaceNotEnabled, Message: fmt.Sprintf("namespace %s does not carry %s=%s",
			namespace, toolgatev1alpha1.LabelInjection, toolgatev1alpha1.InjectionEnabled)}
	case pod.Labels[toolgatev1alpha1.LabelInject] == toolgatev1alpha1.InjectOptOut:
		return Decision{Reason: ReasonOptedOut, Message: fmt.Sprintf("the pod carries %s=%s", toolgatev1alpha1.LabelInject, toolgatev1alpha1.InjectOptOut)}
	}
	if d, refused := refusal(pod); refused {
		return d
	}
	return Decision{Inject: true, Reason: ReasonInject, Message: "the namespace is opted in"}
}

// optOutHint ends the message of every refusal: a pod that really needs
// one of these is run ungated, by someone trusted with the opt-out.
func optOutHint() string {
	return fmt.Sprintf("or have an identity trusted with the opt-out create it with %s=%s",
		toolgatev1alpha1.LabelInject, toolgatev1alpha1.InjectOptOut)
}

// refusal says whether pod could not run behind the gate safely: each
// case either breaks the gate or hands an agent container a way to the
// gate's token, which fetches upstream credentials. It is the part of
// Decide that CheckGate applies again to a live pod.
func refusal(pod *corev1.Pod) (Decision, bool) {
	deny := func(r Reason, format string, args ...any) (Decision, bool) {
		return Decision{Deny: true, Reason: r, Message: fmt.Sprintf(format, args...) + ", " + optOutHint()}, true
	}
	spec := &pod.Spec
	switch {
	case spec.HostNetwork:
		return deny(ReasonHostNetwork,
			"a pod on the host network (spec.hostNetwork) cannot run behind the gate, whose loopback listener would be the node's; drop hostNetwork")
	case spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace:
		return deny(ReasonSharedProcessNamespace,
			"a pod whose containers share a process namespace (spec.shareProcessNamespace) cannot run behind the gate: every container could read the gate's token through /proc; drop shareProcessNamespace")
	case spec.HostPID:
		return deny(ReasonHostPID,
			"a pod in the node's process namespace (spec.hostPID) cannot run behind the gate: it could read the gate's token through /proc; drop hostPID")
	case spec.HostIPC:
		return deny(ReasonHostIPC,
			"a pod in the node's IPC namespace (spec.hostIPC) cannot run behind the gate; drop hostIPC")
	}
	if d, refused := nameRedirection(spec, deny); refused {
		return d, true
	}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			return deny(ReasonHostPath,
				"volume %s is a hostPath volume (spec.volumes[].hostPath), through which the kubelet's pod directories and the gate's token can be reached; a pod behind the gate may not mount the node's file system; drop it", v.Name)
		}
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			if c.Name == ContainerName || c.SecurityContext == nil {
				continue
			}
			if sc := c.SecurityContext; sc.Privileged != nil && *sc.Privileged {
				return deny(ReasonPrivileged,
					"container %s is privileged (securityContext.privileged): it could mount the node's disk and read the gate's token; drop privileged", c.Name)
			}
			if caps := c.SecurityContext.Capabilities; caps != nil {
				for _, a := range caps.Add {
					if slices.Contains(escapingCapabilities, corev1.Capability(strings.TrimPrefix(strings.ToUpper(string(a)), "CAP_"))) {
						return deny(ReasonCapability,
							"container %s adds capability %s (securityContext.capabilities.add), through which it could reach the gate's token or its credentials; drop it", c.Name, a)
					}
				}
			}
		}
	}
	if v := foreignGateToken(pod); v != "" {
		return deny(ReasonForeignGateToken,
			"volume %s requests a service-account token of audience %s, which only the injected gate may hold; drop it", v, gateproto.Audience)
	}
	return Decision{}, false
}

// nameRedirection refuses the pod-wide settings through which a pod's
// author decides what the names the gate dials resolve to. The kubelet
// writes one /etc/hosts and one /etc/resolv.conf for all the containers of
// a pod, so an alias or a nameserver of the author's choosing would send
// the gate — with the upstream credentials the operator gives it — to an
// address of the author's choosing. The gate dials the addresses the
// operator resolved rather than resolving names itself, so these settings
// no longer steer it; they are refused all the same, since a pod that
// needs them is not one the gate can vouch for, and an older gate, or one
// whose configuration carries no addresses, still resolves. dnsConfig's
// options (ndots, timeouts) name no server and pass.
func nameRedirection(spec *corev1.PodSpec, deny func(Reason, string, ...any) (Decision, bool)) (Decision, bool) {
	const why = "which the kubelet writes for every container of the pod, the gate's included, so it would decide where the gate sends the upstream credentials"
	switch {
	case len(spec.HostAliases) > 0:
		return deny(ReasonHostAliases,
			"a pod behind the gate may not set spec.hostAliases: they are entries of the pod's one /etc/hosts, %s; drop them (give the MCPServer a URL that resolves in the cluster)", why)
	case spec.DNSPolicy == corev1.DNSNone:
		return deny(ReasonCustomDNS,
			"a pod behind the gate may not set spec.dnsPolicy None: its dnsConfig becomes the pod's one /etc/resolv.conf, %s; use ClusterFirst or Default", why)
	case spec.DNSConfig != nil && len(spec.DNSConfig.Nameservers) > 0:
		return deny(ReasonCustomDNS,
			"a pod behind the gate may not set spec.dnsConfig.nameservers: they go into the pod's one /etc/resolv.conf, %s; drop them (dnsConfig.options may stay)", why)
	case spec.DNSConfig != nil && len(spec.DNSConfig.Searches) > 0:
		return deny(ReasonCustomDNS,
			"a pod behind the gate may not set spec.dnsConfig.searches: they go into the pod's one /etc/resolv.conf, where a short name could resolve in a domain of the pod author's choosing, %s; drop them (dnsConfig.options may stay)", why)
	}
	return Decision{}, false
}

// foreignGateToken names a volume, other than the gate's own, that
// projects a token of the gate's audience.
func foreignGateToken(pod *corev1.Pod) string {
	for _, v := range pod.Spec.Volumes {
		if v.Name == VolumeName || v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.Audience == gateproto.Audience {
				return v.Name
			}
		}
	}
	return ""
}
