package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// ToolPinReconciler reconciles ToolPin objects.
type ToolPinReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins/status,verbs=get;update;patch

// Reconcile brings a ToolPin's status in line with what is known of it. In
// this version that is only an Unknown Ready condition and an empty
// decisions list: the list must exist for approvers to append to it with a
// JSON patch ("add" to "/status/decisions/-" fails on an absent list).
func (r *ToolPinReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var pin toolgatev1alpha1.ToolPin
	if err := r.Get(ctx, req.NamespacedName, &pin); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	orig := pin.DeepCopy()

	status := &pin.Status
	ensureCondition(&status.Conditions, pin.Generation, toolgatev1alpha1.ConditionReady, ReasonAwaitingProbe,
		"the tool has not been observed on its server yet; it is withheld until it is")
	if status.Decisions == nil {
		status.Decisions = []toolgatev1alpha1.Decision{}
	}
	status.ObservedGeneration = pin.Generation

	if err := patchStatusIfChanged(ctx, r.Client, orig, &pin, orig.Status, pin.Status); err != nil {
		return ctrl.Result{}, err
	}
	log.V(1).Info("reconciled", "generation", pin.Generation)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler with the manager.
func (r *ToolPinReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.ToolPin{}).
		Named("toolpin").
		Complete(r)
}
