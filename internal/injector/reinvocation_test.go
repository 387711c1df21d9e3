package injector

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/inject"
)

// laterSidecarPath serves a webhook that stands for another injector
// installed beside toolgate's: called after it (its configuration sorts
// after toolgate-injection), it adds a log shipper that mounts every
// volume of the pod, the gate's among them, to pods carrying
// laterSidecarLabel.
const (
	laterSidecarPath  = "/test-later-sidecar"
	laterSidecarLabel = "test.toolgate.dev/later-sidecar"
)

type laterSidecar struct{ decoder admission.Decoder }

func (h laterSidecar) Handle(_ context.Context, req admission.Request) admission.Response {
	pod := &corev1.Pod{}
	if err := h.decoder.Decode(req, pod); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == "log-shipper" }) {
		return admission.Allowed("already added")
	}
	c := corev1.Container{Name: "log-shipper", Image: "example.com/log-shipper:1"}
	for _, v := range pod.Spec.Volumes {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: "/volumes/" + v.Name, ReadOnly: true})
	}
	pod.Spec.Containers = append(pod.Spec.Containers, c)
	raw, err := json.Marshal(pod)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}

// registerLaterSidecar serves the later webhook on the manager's webhook
// server; TestReinvokedAfterALaterWebhook installs its configuration.
func registerLaterSidecar(srv webhook.Server, decoder admission.Decoder) {
	srv.Register(laterSidecarPath, &webhook.Admission{Handler: laterSidecar{decoder: decoder}})
}

// TestReinvokedAfterALaterWebhook: a container another webhook adds after
// the injection is seen by the injector too (reinvocationPolicy
// IfNeeded): it loses its mount of the gate's volume and gets the
// endpoints, and the second pass leaves the gate as the first wrote it.
func TestReinvokedAfterALaterWebhook(t *testing.T) {
	ns := namespace(t, "agents-reinvoked", enabledLabels())
	policyFor(t, ns, toolgatev1alpha1.ServerReference{Namespace: "tools", Name: "github"})
	host, port, _ := env.WebhookServer()
	url := "https://" + host + ":" + strconv.Itoa(port) + laterSidecarPath
	fail, none, never := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.NeverReinvocationPolicy
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "zz-later-sidecar"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "later-sidecar.test.toolgate.dev",
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: env.WebhookCA()},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			ObjectSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{laterSidecarLabel: "true"}},
			FailurePolicy:      &fail,
			SideEffects:        &none,
			ReinvocationPolicy: &never,
		}},
	}
	if err := env.Client.Create(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cfg) })

	var pod *corev1.Pod
	eventually(t, "the later webhook adds its sidecar and the endpoints reach it", func() (bool, string) {
		p := agentPod(ns, "")
		p.GenerateName = "agent-"
		p.Labels[laterSidecarLabel] = "true"
		if err := untrusted.Create(t.Context(), p); err != nil {
			t.Fatalf("creating the pod: %v", err)
		}
		pod = p
		return len(p.Spec.Containers) == 2 && len(p.Spec.Containers[1].Env) == 1,
			"containers " + strconv.Itoa(len(p.Spec.Containers))
	})
	shipper := pod.Spec.Containers[1]
	for _, m := range shipper.VolumeMounts {
		if m.Name == inject.VolumeName {
			t.Errorf("the later sidecar kept its mount of the gate's volume")
		}
	}
	if shipper.Env[0].Name != "TOOLGATE_MCP_GITHUB_URL" {
		t.Errorf("the later sidecar's env: %v", envNames(shipper))
	}
	if g := gateOf(pod); g == nil || len(pod.Spec.InitContainers) != 1 {
		t.Fatalf("init containers after the second pass: %+v", pod.Spec.InitContainers)
	}
	if injected, err := inject.CheckGate(pod); !injected || err != nil {
		t.Errorf("the operator would refuse the pod: injected %v, %v", injected, err)
	}
}
