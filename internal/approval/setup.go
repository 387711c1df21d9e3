package approval

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	// MutateSpecPath serves the OverrideStamper, which records who set
	// spec.override.
	MutateSpecPath = "/mutate-toolpin"
	// ValidateSpecPath serves the OverrideValidator, which guards
	// spec.override.
	ValidateSpecPath = "/validate-toolpin"
	// ValidateRecordPath serves the RecordValidator, which guards the
	// creation and deletion of ToolPins.
	ValidateRecordPath = "/validate-toolpin-record"
)

// +kubebuilder:webhook:path=/mutate-toolpin-status,mutating=true,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=mtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"matchConditions":[{"name":"not-the-operator","expression":"true"}]}`
// +kubebuilder:webhook:path=/validate-toolpin-status,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins/status,verbs=update,versions=v1alpha1,name=vtoolpinstatus.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"matchConditions":[{"name":"not-the-operator","expression":"true"}]}`
// +kubebuilder:webhook:path=/mutate-toolpin,mutating=true,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins,verbs=create;update,versions=v1alpha1,name=mtoolpin.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"matchConditions":[{"name":"sets-an-override","expression":"has(object.spec) && has(object.spec.override)"}]}`
// +kubebuilder:webhook:path=/validate-toolpin,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins,verbs=create;update,versions=v1alpha1,name=vtoolpin.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"matchConditions":[{"name":"not-the-operator","expression":"true"}]}`
// +kubebuilder:webhook:path=/validate-toolpin-record,mutating=false,failurePolicy=fail,sideEffects=None,groups=toolgate.dev,resources=toolpins,verbs=create;delete,versions=v1alpha1,name=vtoolpinrecord.toolgate.dev,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"matchConditions":[{"name":"not-the-operator","expression":"true"}]}`

// OperatorMatchCondition names the match condition that four of the five
// webhooks carry: every handler but the OverrideStamper allows the
// operator's own identity at once, without reading the request, so the API
// server need not call them for it. The generated configurations hold the
// condition with the expression "true" (always call), which is right for
// any installation; the chart and the test control plane put in
// OperatorMatchExpression of the operator's user name, which only the
// operator's own writes fail. Each pin the operator creates and scores then
// costs the API server no webhook round trip, where it cost five. The
// condition is exact equality with one user name: a user it wrongly let
// past would write ToolPins unchecked, so nothing broader (a group, a
// prefix) may stand in for it.
const OperatorMatchCondition = "not-the-operator"

// OperatorMatchExpression is the CEL expression of OperatorMatchCondition
// for an operator running as user: true, and so the webhook called, for
// every requester but that one.
func OperatorMatchExpression(user string) string {
	return "request.userInfo.username != " + strconv.Quote(user)
}

// The OverrideStamper's own condition ("sets-an-override") skips writes
// without spec.override, which it would allow unchanged: the operator's
// creates among them, for any installation.

// The identity policy reads namespaces to recognise agent namespaces, and
// asks the API server whether a requester may decide before it lets them
// override.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Each webhook is an admission.Handler of its own.
var (
	_ admission.Handler = (*StatusStamper)(nil)
	_ admission.Handler = (*StatusValidator)(nil)
	_ admission.Handler = (*OverrideStamper)(nil)
	_ admission.Handler = (*OverrideValidator)(nil)
	_ admission.Handler = (*RecordValidator)(nil)
)

// Config says who is who.
type Config struct {
	// OperatorUsers are the identities of the operator itself, which write
	// the whole status, create ToolPins and delete them. At least one is
	// required: without it the operator's own writes would be judged as
	// an approver's and refused.
	OperatorUsers []string
	// AdminUsers and AdminGroups may delete a ToolPin that is part of a
	// review: one that holds decisions or is not Trusted. None by default:
	// such a pin then outlives everything but the operator's own clean-up.
	AdminUsers, AdminGroups []string
	// ApproverServiceAccounts are service accounts allowed to decide, as
	// "system:serviceaccount:<namespace>:<name>"; any other service account
	// is refused.
	ApproverServiceAccounts []string
	// Now is the clock; time.Now unless a test replaces it.
	Now func() time.Time
}

// Setup registers the five webhooks on the manager's webhook server: the
// StatusStamper and StatusValidator on toolpins/status, the
// OverrideStamper and OverrideValidator on spec.override, and the
// RecordValidator on creates and deletes, sharing one IdentityPolicy that
// looks namespaces up through the manager's API reader and asks access
// reviews through its client. It refuses a configuration under which the
// webhooks could not work, rather than serve webhooks that refuse
// everything.
func Setup(mgr manager.Manager, cfg Config) error {
	if len(cfg.OperatorUsers) == 0 {
		return errors.New("no operator user configured")
	}
	for _, sa := range cfg.ApproverServiceAccounts {
		if !strings.HasPrefix(sa, serviceAccountPrefix) {
			return fmt.Errorf("approver %q is not system:serviceaccount:NAMESPACE:NAME", sa)
		}
	}
	for _, a := range append(slices.Clone(cfg.AdminUsers), cfg.AdminGroups...) {
		if a == "" {
			return errors.New("an empty administrator user or group")
		}
	}
	scheme := mgr.GetScheme()
	if !scheme.Recognizes(toolgatev1alpha1.GroupVersion.WithKind("ToolPin")) {
		// Every request would then fail to decode, and be refused.
		return errors.New("the manager's scheme does not know ToolPin")
	}
	ids := &IdentityPolicy{
		Operators:               cfg.OperatorUsers,
		AdminUsers:              cfg.AdminUsers,
		AdminGroups:             cfg.AdminGroups,
		ApproverServiceAccounts: cfg.ApproverServiceAccounts,
		Namespaces:              NamespaceLabelsFrom(mgr.GetAPIReader()),
		AccessReviews:           AccessReviewsFrom(mgr.GetClient()),
	}
	dec := admission.NewDecoder(scheme)
	srv := mgr.GetWebhookServer()
	srv.Register(MutatePath, &webhook.Admission{Handler: &StatusStamper{Identities: ids, Decoder: dec, Now: cfg.Now}})
	srv.Register(ValidatePath, &webhook.Admission{Handler: &StatusValidator{Identities: ids, Decoder: dec}})
	srv.Register(MutateSpecPath, &webhook.Admission{Handler: &OverrideStamper{Decoder: dec, Now: cfg.Now}})
	srv.Register(ValidateSpecPath, &webhook.Admission{Handler: &OverrideValidator{Identities: ids, Decoder: dec}})
	srv.Register(ValidateRecordPath, &webhook.Admission{Handler: &RecordValidator{Identities: ids, Terminating: NamespaceTerminatingFrom(mgr.GetAPIReader()), Decoder: dec}})
	return nil
}
