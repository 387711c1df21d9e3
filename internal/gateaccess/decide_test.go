package gateaccess

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/inject"
)

// gated is a pod as the injector leaves it: the gate as the first init
// container, the record, the agent.
func gated() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "agent-1", Annotations: map[string]string{
			toolgatev1alpha1.AnnotationInjected: `{"image":"example.com/gate:1","revision":"r"}`,
		}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: inject.ContainerName}},
			Containers:     []corev1.Container{{Name: "agent"}},
		},
	}
}

func plain() *corev1.Pod {
	p := gated()
	p.Annotations = nil
	p.Spec.InitContainers = nil
	return p
}

func TestDecide(t *testing.T) {
	withSidecar := func() *corev1.Pod {
		p := gated()
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar"})
		return p
	}
	recordOnly := func() *corev1.Pod {
		p := gated()
		p.Spec.InitContainers = nil
		return p
	}
	containerOnly := func() *corev1.Pod {
		p := gated()
		p.Annotations = nil
		return p
	}
	gateAsOnlyContainer := func() *corev1.Pod {
		p := plain()
		p.Spec.Containers = []corev1.Container{{Name: inject.ContainerName}}
		return p
	}
	ephemeralGate := func() *corev1.Pod {
		p := plain()
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: inject.ContainerName}}}
		return p
	}
	for _, tc := range []struct {
		name       string
		req        Request
		pod        *corev1.Pod
		allowed    bool
		reason     string
		mentioning []string
	}{
		{"exec into the gate", Request{Subresource: Exec, Container: inject.ContainerName, User: "alice"}, gated(), false, ReasonGateContainer,
			[]string{"exec into the gate container toolgate-gate of pod agents/agent-1", "alice", "token", "-c NAME", "recreate the pod", "ask a toolgate administrator"}},
		{"attach to the gate", Request{Subresource: Attach, Container: inject.ContainerName, User: "alice"}, gated(), false, ReasonGateContainer,
			[]string{"attach to the gate container", "ask a toolgate administrator"}},
		{"exec into the agent", Request{Subresource: Exec, Container: "agent", User: "alice"}, gated(), true, ReasonOtherContainer, nil},
		{"attach to the agent", Request{Subresource: Attach, Container: "agent", User: "alice"}, gated(), true, ReasonOtherContainer, nil},
		// The API server picks the only container, the agent: the gate is
		// an init container.
		{"exec naming no container", Request{Subresource: Exec, User: "alice"}, gated(), true, ReasonOtherContainer, nil},
		// With several containers the API server refuses an unnamed exec
		// itself.
		{"exec naming no container of several", Request{Subresource: Exec, User: "alice"}, withSidecar(), true, ReasonOtherContainer, nil},
		{"exec naming no container, the only one named like the gate", Request{Subresource: Exec, User: "alice"}, gateAsOnlyContainer(), false, ReasonGateContainer, nil},
		{"exec into a sidecar beside the gate", Request{Subresource: Exec, Container: "sidecar", User: "alice"}, withSidecar(), true, ReasonOtherContainer, nil},
		{"port-forward to a gated pod", Request{Subresource: PortForward, User: "alice"}, gated(), false, ReasonPortForward,
			[]string{"port-forward to pod agents/agent-1", "stream headers", "ask a toolgate administrator"}},
		// Either sign is enough, so that removing one does not lift the
		// guard.
		{"port-forward to a pod with the record only", Request{Subresource: PortForward, User: "alice"}, recordOnly(), false, ReasonPortForward, nil},
		{"exec into the gate of a pod with the container only", Request{Subresource: Exec, Container: inject.ContainerName, User: "alice"}, containerOnly(), false, ReasonGateContainer, nil},
		{"port-forward to a pod with an ephemeral container named like the gate", Request{Subresource: PortForward, User: "alice"}, ephemeralGate(), false, ReasonPortForward, nil},
		{"port-forward to a pod without the gate", Request{Subresource: PortForward, User: "alice"}, plain(), true, ReasonNoGate, nil},
		{"exec into a container named like the gate in a pod without it", Request{Subresource: Exec, Container: inject.ContainerName, User: "alice"}, plain(), true, ReasonNoGate, nil},
		{"an administrator's exec into the gate", Request{Subresource: Exec, Container: inject.ContainerName, User: "root", Admin: true}, gated(), true, ReasonAdmin, nil},
		{"an administrator's port-forward", Request{Subresource: PortForward, User: "root", Admin: true}, gated(), true, ReasonAdmin, nil},
		{"another subresource", Request{Subresource: "proxy", User: "alice"}, plain(), false, ReasonUnknown, []string{"pods/proxy"}},
		{"another subresource, by an administrator", Request{Subresource: "proxy", User: "root", Admin: true}, plain(), false, ReasonUnknown, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.req, tc.pod)
			if d.Allowed != tc.allowed || d.Reason != tc.reason {
				t.Errorf("allowed %v (%s), want %v (%s): %s", d.Allowed, d.Reason, tc.allowed, tc.reason, d.Message)
			}
			if d.Message == "" {
				t.Error("no message")
			}
			for _, m := range tc.mentioning {
				if !strings.Contains(d.Message, m) {
					t.Errorf("message %q does not mention %q", d.Message, m)
				}
			}
		})
	}
}

func TestCarriesGate(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"as injected", gated(), true},
		{"no sign", plain(), false},
		{"a volume named like the gate's alone", func() *corev1.Pod {
			p := plain()
			p.Spec.Volumes = []corev1.Volume{{Name: inject.VolumeName}}
			return p
		}(), false},
		{"an empty record", func() *corev1.Pod {
			p := plain()
			p.Annotations = map[string]string{toolgatev1alpha1.AnnotationInjected: ""}
			return p
		}(), true},
	} {
		if got := CarriesGate(tc.pod); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
