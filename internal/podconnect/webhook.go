package podconnect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/gateaccess"
)

// Path is where the webhook is served; config/webhook/injection names it.
const Path = "/validate-pod-connect"

// DefaultReadTimeout bounds the read of the pod, under the webhook
// configuration's timeoutSeconds (5), so that a slow API server gets the
// guard's own refusal rather than the API server's timeout.
const DefaultReadTimeout = 3 * time.Second

// The handler reads the pod a connection names.
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get

var _ admission.Handler = (*Handler)(nil)

// Config says who may reach the gate regardless.
type Config struct {
	// AdminUsers and AdminGroups are toolgate's administrators, the same
	// as the approval webhooks'.
	AdminUsers, AdminGroups []string
}

// Setup registers the webhook on the manager's webhook server, reading
// pods through the manager's API reader.
func Setup(mgr manager.Manager, cfg Config) error {
	for _, a := range append(append([]string{}, cfg.AdminUsers...), cfg.AdminGroups...) {
		if a == "" {
			return errors.New("an empty administrator user or group")
		}
	}
	mgr.GetWebhookServer().Register(Path, &webhook.Admission{Handler: &Handler{
		Pods:       mgr.GetAPIReader(),
		Identities: &approval.IdentityPolicy{AdminUsers: cfg.AdminUsers, AdminGroups: cfg.AdminGroups},
	}})
	return nil
}

// Handler is the gate-access webhook.
type Handler struct {
	// Pods reads the pod a connection names: the API reader.
	Pods client.Reader
	// Identities says who is an administrator.
	Identities *approval.IdentityPolicy
	// ReadTimeout bounds the read of the pod; DefaultReadTimeout when
	// zero.
	ReadTimeout time.Duration
}

// Handle judges a CONNECT on a pod's exec, attach or portforward.
// Anything else that reaches it is allowed: the webhook configuration
// sends only connections, and other operations on pods are the injector's
// and the guard policy's.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Connect {
		return admission.Allowed("only connections into pods are judged here")
	}
	if req.Resource.Group != "" || req.Resource.Resource != "pods" {
		return admission.Denied(fmt.Sprintf("%s/%s is not a pod's: toolgate's gate-access guard judges only connections into pods",
			req.Resource.Resource, req.SubResource))
	}
	container, err := namedContainer(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	pod, err := h.readPod(ctx, req.Namespace, req.Name)
	if err != nil {
		logf.FromContext(ctx).Info("refusing a connection to a pod that cannot be read",
			"namespace", req.Namespace, "pod", req.Name, "subresource", req.SubResource, "user", req.UserInfo.Username, "error", err.Error())
		return admission.Denied(fmt.Sprintf(
			"cannot read pod %s/%s to tell whether it carries toolgate's gate, so pods/%s is refused: %v; try again, "+
				"and if this persists, ask a toolgate administrator", req.Namespace, req.Name, req.SubResource, err))
	}
	d := gateaccess.Decide(gateaccess.Request{
		Subresource: req.SubResource, Container: container,
		User: req.UserInfo.Username, Admin: h.Identities.IsAdmin(req.UserInfo),
	}, pod)
	log := logf.FromContext(ctx).WithValues("namespace", req.Namespace, "pod", req.Name, "subresource", req.SubResource,
		"container", container, "user", req.UserInfo.Username, "reason", d.Reason)
	if !d.Allowed {
		log.Info("refusing a connection to the gate")
		return admission.Denied(d.Message)
	}
	if d.Reason == gateaccess.ReasonAdmin {
		// An administrator reaching a gated pod is worth a trace.
		log.Info("an administrator connects to a pod")
	}
	return admission.Allowed(d.Message)
}

// namedContainer is the container the exec or attach options name;
// empty for a port-forward, whose options name none.
func namedContainer(req admission.Request) (string, error) {
	var opts any
	var container *string
	switch req.SubResource {
	case gateaccess.Exec:
		o := &corev1.PodExecOptions{}
		opts, container = o, &o.Container
	case gateaccess.Attach:
		o := &corev1.PodAttachOptions{}
		opts, container = o, &o.Container
	default:
		return "", nil
	}
	if err := json.Unmarshal(req.Object.Raw, opts); err != nil {
		return "", fmt.Errorf("decoding the pods/%s options: %w", req.SubResource, err)
	}
	return *container, nil
}

func (h *Handler) readPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	timeout := h.ReadTimeout
	if timeout <= 0 {
		timeout = DefaultReadTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pod := &corev1.Pod{}
	if err := h.Pods.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, pod); err != nil {
		return nil, err
	}
	return pod, nil
}
