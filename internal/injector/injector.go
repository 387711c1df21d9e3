package injector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/policy"
)

// Path is where the webhook is served; config/webhook/injection names it.
const Path = "/inject-pod"

// The handler reads namespaces and the namespace's policies from the
// cache; the controllers already watch both.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpolicies,verbs=get;list;watch

var _ admission.Handler = (*Handler)(nil)

// Config is what the injector injects and where it never does.
type Config struct {
	// Template is the gate to inject.
	Template inject.Template
	// Settings say which namespaces are never injected.
	Settings inject.Settings
}

// Setup registers the injection webhook on the manager's webhook server,
// reading from the manager's cache. It refuses a template that could not
// inject a working gate: serving a webhook that injects a broken gate
// would hold every agent pod at its startup probe.
func Setup(mgr manager.Manager, cfg Config) error {
	if err := cfg.Template.Validate(); err != nil {
		return err
	}
	if cfg.Settings.OperatorNamespace == "" {
		return errors.New("no operator namespace: the operator's own pods could be injected")
	}
	mgr.GetWebhookServer().Register(Path, &webhook.Admission{Handler: &Handler{
		Decoder: admission.NewDecoder(mgr.GetScheme()), Reader: mgr.GetClient(),
		Template: cfg.Template, Settings: cfg.Settings,
	}})
	return nil
}

// Handler is the injection webhook.
type Handler struct {
	// Decoder decodes the pod.
	Decoder admission.Decoder
	// Reader reads namespaces and ToolPolicies; the manager's cache.
	Reader client.Reader
	// Template is the gate to inject.
	Template inject.Template
	// Settings say which namespaces are never injected.
	Settings inject.Settings
}

// Handle injects the gate into a pod being created. Any error reading
// what it needs is an error response, which the webhook's failurePolicy
// Fail turns into a refused pod: a pod is never admitted ungated because
// a cache could not answer.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create || req.Kind.Kind != "Pod" || req.SubResource != "" {
		return admission.Allowed("only pod creations are injected")
	}
	pod := &corev1.Pod{}
	if err := h.Decoder.Decode(req, pod); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the pod: %w", err))
	}
	ns := &corev1.Namespace{}
	if err := h.Reader.Get(ctx, client.ObjectKey{Name: req.Namespace}, ns); err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("reading namespace %s: %w", req.Namespace, err))
	}
	d := inject.Decide(pod, req.Namespace, ns.Labels, h.Settings)
	log := logf.FromContext(ctx).WithValues("namespace", req.Namespace, "pod", podName(pod), "reason", d.Reason)
	switch {
	case d.Deny:
		log.Info("refusing pod", "message", d.Message)
		return admission.Denied(d.Message)
	case !d.Inject:
		return admission.Allowed(d.Message)
	}
	servers, err := h.servers(ctx, req.Namespace, pod.Labels)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	out, err := inject.Mutate(pod, h.Template, servers)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if equality.Semantic.DeepEqual(out, pod) {
		return admission.Allowed("the pod already carries this gate")
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	log.V(1).Info("injecting the gate", "servers", len(servers), "revision", h.Template.Revision())
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}

// servers are the IDs of the servers the policies that select the pod
// reference, sorted and without repeats.
func (h *Handler) servers(ctx context.Context, namespace string, podLabels map[string]string) ([]string, error) {
	var list toolgatev1alpha1.ToolPolicyList
	if err := h.Reader.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the ToolPolicies of %s: %w", namespace, err)
	}
	var ids []string
	for _, p := range policy.Matching(list.Items, podLabels) {
		for _, s := range p.Spec.Servers {
			ids = append(ids, s.Namespace+"/"+s.Name)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

func podName(p *corev1.Pod) string {
	if p.Name != "" {
		return p.Name
	}
	return p.GenerateName + "*"
}
