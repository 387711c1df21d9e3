package podconnect

import (
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/gateaccess"
	"github.com/toolgate/toolgate/internal/inject"
)

// TestExecIntoGateRefused: kubectl exec or attach naming the gate of a pod
// created a moment ago is refused, with what to do instead — for a user
// whom RBAC lets exec into every container.
func TestExecIntoGateRefused(t *testing.T) {
	ns := namespace(t, "exec-gate", true)
	pod := gatedPod(t, ns)
	// At once: the guard reads the pod from the API server, not a cache.
	requireRefused(t, "exec into the gate", exec(t, user, pod, inject.ContainerName),
		"exec into the gate container toolgate-gate of pod "+ns+"/agent", userName, "-c NAME", "recreate the pod", "ask a toolgate administrator")
	requireRefused(t, "attach to the gate", connect(t, user, pod, "attach", "container", inject.ContainerName, "stdout", "true"),
		"attach to the gate container toolgate-gate")
}

// TestExecIntoAgentAllowed: exec and attach into the agent's own container
// pass the guard, named or left for the API server to pick.
func TestExecIntoAgentAllowed(t *testing.T) {
	ns := namespace(t, "exec-agent", true)
	pod := gatedPod(t, ns)
	requirePassed(t, "exec into the agent", exec(t, user, pod, "agent"))
	requirePassed(t, "exec naming no container", exec(t, user, pod, ""))
	requirePassed(t, "attach to the agent", connect(t, user, pod, "attach", "container", "agent", "stdout", "true"))
}

// TestAdministratorsReachTheGate: the operator's administrators, by name
// or by group, may exec into and port-forward to the gate.
func TestAdministratorsReachTheGate(t *testing.T) {
	ns := namespace(t, "exec-admin", true)
	pod := gatedPod(t, ns)
	requirePassed(t, "an administrator's exec into the gate", exec(t, admin, pod, inject.ContainerName))
	requirePassed(t, "an administrator-by-group's exec into the gate", exec(t, adminByGroup, pod, inject.ContainerName))
	requirePassed(t, "an administrator's port-forward", connect(t, admin, pod, "portforward"))
}

// TestPortForwardToGatedPodRefused: a port-forward to a pod carrying the
// gate is refused whatever port it names, kubectl's (none in the request)
// or the agent's; one to an opted-out pod in the same namespace passes.
func TestPortForwardToGatedPodRefused(t *testing.T) {
	ns := namespace(t, "portforward", true)
	pod := gatedPod(t, ns)
	requireRefused(t, "a port-forward as kubectl sends it", connect(t, user, pod, "portforward"),
		"port-forward to pod "+ns+"/agent", "stream headers", "ask a toolgate administrator")
	requireRefused(t, "a port-forward naming the agent's port", connect(t, user, pod, "portforward", "ports", "8080"), "port-forward to pod")

	// The policy's plugin sees the trust list's new entry shortly after
	// it is written.
	var optedOut *corev1.Pod
	deadline := time.Now().Add(30 * time.Second)
	for {
		optedOut = agentPod(ns, "opted-out")
		optedOut.Labels[toolgatev1alpha1.LabelInject] = toolgatev1alpha1.InjectOptOut
		err := trusted.Create(t.Context(), optedOut)
		if err == nil {
			break
		}
		if !apierrors.IsForbidden(err) || time.Now().After(deadline) {
			t.Fatalf("a trusted identity's opted-out pod: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if gateaccess.CarriesGate(optedOut) {
		t.Fatal("the opted-out pod was injected")
	}
	requirePassed(t, "a port-forward to an opted-out pod", connect(t, user, optedOut, "portforward"))
}

// TestNamespaceNotEnabledNotGuarded: in a namespace without injection the
// webhook is not called. The pod there shows both signs of the gate, so
// the handler would refuse the exec; the API server admits it.
func TestNamespaceNotEnabledNotGuarded(t *testing.T) {
	ns := namespace(t, "exec-plain", false)
	lookalike := agentPod(ns, "lookalike")
	lookalike.Annotations = map[string]string{toolgatev1alpha1.AnnotationInjected: `{"image":"example.com/other:1"}`}
	lookalike.Spec.InitContainers = []corev1.Container{{Name: inject.ContainerName, Image: "example.com/other:1"}}
	if err := env.Client.Create(t.Context(), lookalike); err != nil {
		t.Fatal(err)
	}
	if d := gateaccess.Decide(gateaccess.Request{Subresource: gateaccess.Exec, Container: inject.ContainerName, User: userName}, lookalike); d.Allowed {
		t.Fatalf("the guard would let the exec through, so this test could not tell: %s", d.Message)
	}
	requirePassed(t, "exec into a container named like the gate in a plain namespace", exec(t, user, lookalike, inject.ContainerName))
	requirePassed(t, "port-forward in a plain namespace", connect(t, user, lookalike, "portforward"))
}

// TestUnreadablePodRefused: a pod the guard cannot read is refused with a
// message saying so — one that does not exist through the API server, and
// one the guard has no right to read, asked of the handler directly with
// a reader of an identity without that right.
func TestUnreadablePodRefused(t *testing.T) {
	ns := namespace(t, "exec-unreadable", true)
	requireRefused(t, "exec into a pod that does not exist", exec(t, user, agentPod(ns, "missing"), "agent"),
		"cannot read pod "+ns+"/missing", "try again")

	pod := gatedPod(t, ns)
	blindCfg, err := env.UserBoundToClusterRole("no-pod-rights", writeRole(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: namespace-reader
rules:
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get]
`))
	if err != nil {
		t.Fatal(err)
	}
	blind, err := client.New(blindCfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Pods: blind, Identities: &approval.IdentityPolicy{}}
	opts := runtime.RawExtension{Raw: []byte(`{"kind":"PodExecOptions","apiVersion":"v1","container":"agent","command":["sh"],"stdout":true}`)}
	resp := h.Handle(t.Context(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Connect, Namespace: ns, Name: pod.Name, SubResource: gateaccess.Exec,
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Kind:     metav1.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"},
		UserInfo: authenticationv1.UserInfo{Username: userName}, Object: opts,
	}})
	if resp.Allowed || !strings.Contains(resp.Result.Message, "cannot read pod "+ns+"/agent") || !strings.Contains(resp.Result.Message, "forbidden") {
		t.Errorf("a pod the guard may not read: allowed %v, %q", resp.Allowed, resp.Result.Message)
	}
}
