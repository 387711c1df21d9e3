package inject

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// CheckServed says why the operator must not serve the gate of pod, whose
// namespace carries namespaceLabels, or nil when it may: the pod must be
// one this injector injects under s (its namespace opted in, not excluded,
// the pod not opted out, none of the refused settings), it must pass
// CheckGate, and its gate must be the one t makes — t's image or one of
// acceptedImages (gates injected before the operator's image changed),
// the injector's own flags unchanged, nothing but tunable flags besides,
// and the gate's security context.
//
// CheckGate alone compares a pod with its own record, which whoever
// creates a pod writes: a pod created before its namespace was labelled,
// or in a namespace the webhook skips, could carry a "gate" of its
// author's image with a matching record, and be handed the upstream
// credentials. Comparing with the operator's own template closes that.
func CheckServed(pod *corev1.Pod, namespaceLabels map[string]string, t Template, s Settings, acceptedImages []string) error {
	if d := Decide(pod, pod.Namespace, namespaceLabels, s); !d.Inject {
		return fmt.Errorf("the injector does not inject this pod: %s", d.Message)
	}
	injected, err := CheckGate(pod)
	switch {
	case err != nil:
		return err
	case !injected:
		return errors.New("the pod was not injected with the gate")
	}
	// The gate presents its token to the operator the pod names; a pod
	// that names another was not injected by this operator, however it
	// reached it.
	if got := pod.Annotations[toolgatev1alpha1.AnnotationOperatorURL]; got != t.OperatorURL {
		return fmt.Errorf("the pod's annotation %s names the operator %q; this operator is %q", toolgatev1alpha1.AnnotationOperatorURL, got, t.OperatorURL)
	}
	gate, _ := findGate(pod)
	want := gateContainer(t.withDefaults())
	if gate.Image != want.Image && !slices.Contains(acceptedImages, gate.Image) {
		return fmt.Errorf("the gate runs image %q; this operator injects %q", gate.Image, want.Image)
	}
	own := want.Args[len(t.Args):] // the injector's flags, after the tunable ones
	for _, a := range own {
		if !slices.Contains(gate.Args, a) {
			return fmt.Errorf("the gate lacks the injector's flag %s", a)
		}
	}
	for _, a := range gate.Args {
		if !slices.Contains(own, a) && CheckGateArg(a) != nil {
			return fmt.Errorf("the gate carries a flag the injector never adds: %q", a)
		}
	}
	if len(gate.Command) > 0 {
		return fmt.Errorf("the gate's command is replaced by %q", gate.Command)
	}
	if !equality.Semantic.DeepEqual(gate.SecurityContext, want.SecurityContext) {
		return errors.New("the gate's security context is not the one the injector sets")
	}
	return nil
}
