package inject

import (
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// CheckGate says whether a live pod still runs the gate it was injected
// with. The injection is judged when the pod is created; a pod can change
// afterwards (an image is mutable, ephemeral containers can be added), and
// the guard policy that refuses those changes may be missing or edited.
// The operator calls CheckGate before it serves a gate, so that a gate
// whose image was swapped, or whose token another container can read,
// never receives a configuration.
//
// A pod that shows no sign of the gate (no toolgate.dev/injected record, no
// container named like the gate) returns injected false and no error: it
// was not injected, and whether it may be served is the caller's to say.
// A pod that shows either sign must show the whole gate: the record, the
// gate container running the recorded image with the gate's volume
// mounted, that volume holding the gate's token, no other container able
// to read it, and none of the pod settings Decide refuses.
func CheckGate(pod *corev1.Pod) (injected bool, err error) {
	raw, recorded := pod.Annotations[toolgatev1alpha1.AnnotationInjected]
	gate, gates := findGate(pod)
	if !recorded && gates == 0 {
		return false, nil
	}
	if !recorded {
		return true, fmt.Errorf("container %s is there but the annotation %s is not", ContainerName, toolgatev1alpha1.AnnotationInjected)
	}
	var rec Record
	if err := json.Unmarshal([]byte(raw), &rec); err != nil || rec.Image == "" {
		return true, fmt.Errorf("the annotation %s does not record the gate's image", toolgatev1alpha1.AnnotationInjected)
	}
	switch {
	case gates != 1 || gate == nil:
		return true, fmt.Errorf("the pod has no init container %s, the gate its annotation records", ContainerName)
	case gate.Image != rec.Image:
		return true, fmt.Errorf("the gate container runs image %q, not the injected %q", gate.Image, rec.Image)
	case !mountsGateVolume(gate):
		return true, fmt.Errorf("the gate container does not mount its volume %s read-only at %s", VolumeName, MountPath)
	}
	if err := checkGateVolume(pod); err != nil {
		return true, err
	}
	if c := otherReader(pod); c != "" {
		return true, fmt.Errorf("container %s can read the gate's token", c)
	}
	if d, refused := refusal(pod); refused {
		return true, errors.New(d.Message)
	}
	return true, nil
}

// findGate returns the init container named like the gate, and how many
// containers of any kind carry that name (the API server keeps names
// unique; a pod written past it must not pick the harmless one).
func findGate(pod *corev1.Pod) (*corev1.Container, int) {
	var gate *corev1.Container
	n := 0
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == ContainerName {
			gate = &pod.Spec.InitContainers[i]
			n++
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == ContainerName {
			n++
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == ContainerName {
			n++
		}
	}
	return gate, n
}

func mountsGateVolume(c *corev1.Container) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == VolumeName && m.MountPath == MountPath && m.ReadOnly && m.SubPath == "" && m.SubPathExpr == "" {
			return true
		}
	}
	return false
}

// checkGateVolume checks that the gate's volume is the projected token of
// the gate's audience Mutate wrote: a gate reading its token from anywhere
// else is not the injected gate.
func checkGateVolume(pod *corev1.Pod) error {
	for _, v := range pod.Spec.Volumes {
		if v.Name != VolumeName {
			continue
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if t := src.ServiceAccountToken; t != nil && t.Audience == gateproto.Audience && t.Path == TokenFile {
					return nil
				}
			}
		}
		return fmt.Errorf("volume %s does not project the gate's token", VolumeName)
	}
	return fmt.Errorf("the pod has no volume %s", VolumeName)
}

// otherReader names a container, other than the gate, that mounts the
// gate's volume or, as an ephemeral container, targets the gate and so
// shares its process namespace (and its token through /proc).
func otherReader(pod *corev1.Pod) string {
	mounts := func(ms []corev1.VolumeMount) bool {
		for _, m := range ms {
			if m.Name == VolumeName {
				return true
			}
		}
		return false
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name != ContainerName && mounts(c.VolumeMounts) {
			return c.Name
		}
	}
	for _, c := range pod.Spec.Containers {
		if mounts(c.VolumeMounts) {
			return c.Name
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if mounts(c.VolumeMounts) || c.TargetContainerName == ContainerName {
			return c.Name
		}
	}
	return ""
}
