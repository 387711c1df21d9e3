package approval

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Paths the webhooks are served on. The markers below write them into the
// installed webhook configurations; a path changed here alone would leave
// the API server calling the old one, and every ToolPin write failing.
const (
	// MutatePath serves the StatusStamper.
	MutatePath = "/mutate-toolpin-status"
	// ValidatePath serves the StatusValidator.
	ValidatePath = "/validate-toolpin-status"
	// ValidateSpecPath serves the OverrideValidator, which guards
	// spec.override.
	ValidateSpecPath = "/validate-toolpin"
)

// +kubebuilder:webhook:path=/mutate-toolpin-status,mutating=true,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=mtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-toolpin-status,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=vtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-toolpin,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins,verbs=create;update,versions=v1alpha1,name=vtoolpin.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10

// The identity policy reads namespaces to recognise agent namespaces.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get

// Each webhook is an admission.Handler of its own.
var (
	_ admission.Handler = (*StatusStamper)(nil)
	_ admission.Handler = (*StatusValidator)(nil)
	_ admission.Handler = (*OverrideValidator)(nil)
)

// Config says who is who.
type Config struct {
	// OperatorUsers are the identities of the operator itself, which write
	// the whole status. At least one is required: without it the
	// operator's own status writes would be judged as an approver's and
	// refused.
	OperatorUsers []string
	// ApproverServiceAccounts are service accounts allowed to decide, as
	// "system:serviceaccount:<namespace>:<name>"; any other service account
	// is refused.
	ApproverServiceAccounts []string
	// Now is the clock; time.Now unless a test replaces it.
	Now func() time.Time
}

// Setup registers the three webhooks on the manager's webhook server: the
// StatusStamper, the StatusValidator and the OverrideValidator, sharing
// one IdentityPolicy that looks namespaces up through the manager's API
// reader. It refuses a configuration under which the webhooks could not
// work, rather than serve webhooks that refuse everything.
func Setup(mgr manager.Manager, cfg Config) error {
	if len(cfg.OperatorUsers) == 0 {
		return errors.New("no operator user configured")
	}
	for _, sa := range cfg.ApproverServiceAccounts {
		if !strings.HasPrefix(sa, serviceAccountPrefix) {
			return fmt.Errorf("approver %q is not system:serviceaccount:NAMESPACE:NAME", sa)
		}
	}
	scheme := mgr.GetScheme()
	if !scheme.Recognizes(toolgatev1alpha1.GroupVersion.WithKind("ToolPin")) {
		// Every request would then fail to decode, and be refused.
		return errors.New("the manager's scheme does not know ToolPin")
	}
	ids := &IdentityPolicy{
		Operators:               cfg.OperatorUsers,
		ApproverServiceAccounts: cfg.ApproverServiceAccounts,
		Namespaces:              NamespaceLabelsFrom(mgr.GetAPIReader()),
	}
	dec := admission.NewDecoder(scheme)
	srv := mgr.GetWebhookServer()
	srv.Register(MutatePath, &webhook.Admission{Handler: &StatusStamper{Identities: ids, Decoder: dec, Now: cfg.Now}})
	srv.Register(ValidatePath, &webhook.Admission{Handler: &StatusValidator{Identities: ids, Decoder: dec}})
	srv.Register(ValidateSpecPath, &webhook.Admission{Handler: &OverrideValidator{Identities: ids, Decoder: dec}})
	return nil
}
