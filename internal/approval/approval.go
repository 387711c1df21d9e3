package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Paths the webhooks are served on.
const (
	MutatePath   = "/mutate-toolpin-status"
	ValidatePath = "/validate-toolpin-status"
	// ValidateSpecPath guards spec.override.
	ValidateSpecPath = "/validate-toolpin"
)

// Config says who is who.
type Config struct {
	// OperatorUsers are the identities of the operator itself, which write
	// the whole status.
	OperatorUsers []string
	// ApproverServiceAccounts are service accounts allowed to decide, as
	// "system:serviceaccount:<namespace>:<name>"; any other service account
	// is refused.
	ApproverServiceAccounts []string
	// Now is the clock; time.Now unless a test replaces it.
	Now func() time.Time
}

// Webhook checks and stamps updates of ToolPin status.
type Webhook struct {
	Config  Config
	Reader  client.Reader
	Decoder admission.Decoder
	// Mutating selects the stamping pass; otherwise the webhook only
	// validates.
	Mutating bool
}

// +kubebuilder:webhook:path=/mutate-toolpin-status,mutating=true,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=mtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-toolpin-status,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=vtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-toolpin,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins,verbs=create;update,versions=v1alpha1,name=vtoolpin.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10

// The webhook reads namespaces to recognise agent namespaces.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get

// Handle implements admission.Handler.
func (w *Webhook) Handle(ctx context.Context, req admission.Request) admission.Response {
	if slices.Contains(w.Config.OperatorUsers, req.UserInfo.Username) {
		return admission.Allowed("the operator writes the record")
	}
	if req.SubResource == "" && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update) {
		return w.handleSpec(ctx, req)
	}
	if req.Operation != admissionv1.Update || req.SubResource != "status" {
		return admission.Allowed("not a status update")
	}
	var oldPin, newPin toolgatev1alpha1.ToolPin
	if err := w.Decoder.DecodeRaw(req.OldObject, &oldPin); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if err := w.Decoder.DecodeRaw(req.Object, &newPin); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}

	// Only decisions may change, and only by appending.
	oldRest, newRest := oldPin.Status.DeepCopy(), newPin.Status.DeepCopy()
	oldRest.Decisions, newRest.Decisions = nil, nil
	if !equality.Semantic.DeepEqual(oldRest, newRest) {
		return admission.Denied("only the toolgate operator writes ToolPin status; approvers may only append to status.decisions")
	}
	past := oldPin.Status.Decisions
	if oldPin.Status.Decisions != nil && newPin.Status.Decisions == nil {
		// Dropping the (empty) list would break every approver's "add
		// /status/decisions/-" until the operator wrote the pin again.
		return admission.Denied("status.decisions cannot be removed; append to it")
	}
	if len(newPin.Status.Decisions) < len(past) || !equality.Semantic.DeepEqual(past, newPin.Status.Decisions[:len(past)]) {
		return admission.Denied("status.decisions is append-only: a past decision cannot be changed or removed")
	}
	appended := newPin.Status.Decisions[len(past):]
	if len(appended) == 0 {
		return admission.Allowed("no decision appended")
	}

	if reason, ok := w.mayDecide(ctx, req.UserInfo.Username); !ok {
		return admission.Denied(reason)
	}

	now := metav1.NewTime(w.now().UTC().Truncate(time.Second))
	for i := range appended {
		d := &appended[i]
		if msg := checkFingerprint(&oldPin, d); msg != "" {
			return admission.Denied(msg)
		}
		if w.Mutating {
			d.User = req.UserInfo.Username
			d.Groups = stampGroups(req.UserInfo.Groups)
			d.Time = &now
			continue
		}
		// Validating: whatever ran between the two passes must not have
		// changed who decided.
		if d.User != req.UserInfo.Username || !slices.Equal(d.Groups, stampGroups(req.UserInfo.Groups)) || d.Time == nil {
			return admission.Denied(fmt.Sprintf("decision %d is not stamped with the requester's identity (%s)", len(past)+i, req.UserInfo.Username))
		}
	}
	if !w.Mutating {
		return admission.Allowed("decisions appended and stamped")
	}
	marshaled, err := json.Marshal(&newPin)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, marshaled)
}

// stampGroups records at most 64 groups of at most 256 bytes, as the API
// bounds them: a person in many groups (common with OIDC) can still decide.
func stampGroups(groups []string) []string {
	var out []string
	for _, g := range groups {
		if len(out) == 64 {
			break
		}
		if len(g) <= 256 {
			out = append(out, g)
		}
	}
	return out
}

// handleSpec guards spec.override, a human classification that can lower a
// tool's level: the same identities that may decide may set it, never an
// agent.
func (w *Webhook) handleSpec(ctx context.Context, req admission.Request) admission.Response {
	var newPin toolgatev1alpha1.ToolPin
	if err := w.Decoder.DecodeRaw(req.Object, &newPin); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	var oldOverride *toolgatev1alpha1.ClassificationOverride
	if req.Operation == admissionv1.Update {
		var oldPin toolgatev1alpha1.ToolPin
		if err := w.Decoder.DecodeRaw(req.OldObject, &oldPin); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		oldOverride = oldPin.Spec.Override
	}
	if equality.Semantic.DeepEqual(oldOverride, newPin.Spec.Override) {
		return admission.Allowed("spec.override unchanged")
	}
	if reason, ok := w.mayDecide(ctx, req.UserInfo.Username); !ok {
		return admission.Denied("spec.override is a human classification: " + reason)
	}
	return admission.Allowed("override set by " + req.UserInfo.Username)
}

// mayDecide refuses service accounts that are not configured approvers, and
// always those of agent namespaces.
func (w *Webhook) mayDecide(ctx context.Context, user string) (string, bool) {
	rest, isSA := strings.CutPrefix(user, "system:serviceaccount:")
	if !isSA {
		return "", true
	}
	ns, _, _ := strings.Cut(rest, ":")
	var namespace corev1.Namespace
	if err := w.Reader.Get(ctx, client.ObjectKey{Name: ns}, &namespace); err == nil && namespace.Labels[toolgatev1alpha1.LabelInjection] == toolgatev1alpha1.InjectionEnabled {
		return fmt.Sprintf("%s belongs to an agent namespace: agents never decide on tools", user), false
	} else if err != nil && client.IgnoreNotFound(err) != nil {
		return fmt.Sprintf("cannot tell whether %s belongs to an agent namespace: %v", user, err), false
	}
	if !slices.Contains(w.Config.ApproverServiceAccounts, user) {
		return fmt.Sprintf("%s is a service account and not a configured approver: decisions are made by people", user), false
	}
	return "", true
}

// checkFingerprint refuses a decision on anything but what is observed now.
func checkFingerprint(pin *toolgatev1alpha1.ToolPin, d *toolgatev1alpha1.Decision) string {
	if d.CallID != "" {
		for _, c := range pin.Status.PendingCalls {
			if c.ID == d.CallID {
				if c.Fingerprint != d.Fingerprint {
					return fmt.Sprintf("decision on call %s names fingerprint %s, but the call was made against %s", d.CallID, d.Fingerprint, c.Fingerprint)
				}
				return ""
			}
		}
		return fmt.Sprintf("no pending call %q on this tool", d.CallID)
	}
	if pin.Status.ObservedFingerprint == "" {
		return "the tool has not been observed yet: there is nothing to decide on"
	}
	if d.Fingerprint != pin.Status.ObservedFingerprint {
		return fmt.Sprintf("decision names fingerprint %s, but the definition observed now is %s: review the current definition", d.Fingerprint, pin.Status.ObservedFingerprint)
	}
	return ""
}

func (w *Webhook) now() time.Time {
	if w.Config.Now != nil {
		return w.Config.Now()
	}
	return time.Now()
}

// Register serves both webhooks on the manager's webhook server.
func Register(mgr manager.Manager, cfg Config) {
	dec := admission.NewDecoder(mgr.GetScheme())
	srv := mgr.GetWebhookServer()
	srv.Register(MutatePath, &webhook.Admission{Handler: &Webhook{Config: cfg, Reader: mgr.GetAPIReader(), Decoder: dec, Mutating: true}})
	srv.Register(ValidatePath, &webhook.Admission{Handler: &Webhook{Config: cfg, Reader: mgr.GetAPIReader(), Decoder: dec}})
	srv.Register(ValidateSpecPath, &webhook.Admission{Handler: &Webhook{Config: cfg, Reader: mgr.GetAPIReader(), Decoder: dec}})
}
