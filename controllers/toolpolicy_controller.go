package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// ToolPolicyReconciler reconciles ToolPolicy objects.
type ToolPolicyReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpolicies/status,verbs=get;update;patch

// Reconcile brings a ToolPolicy's status in line with what is known of it.
// Policy evaluation is not part of this version: the reconciler records that
// the policy has not been evaluated, and the gate, failing closed, exposes
// nothing for it.
func (r *ToolPolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var policy toolgatev1alpha1.ToolPolicy
	if err := r.Get(ctx, req.NamespacedName, &policy); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	orig := policy.DeepCopy()

	status := &policy.Status
	ensureCondition(&status.Conditions, policy.Generation, toolgatev1alpha1.ConditionReady, toolgatev1alpha1.ReasonAwaitingEvaluation,
		"the policy has not been evaluated yet; agents it selects see no tools until it is")
	status.ObservedGeneration = policy.Generation

	if err := patchStatusIfChanged(ctx, r.Client, orig, &policy, orig.Status, policy.Status); err != nil {
		return ctrl.Result{}, err
	}
	log.V(1).Info("reconciled", "generation", policy.Generation)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler with the manager.
func (r *ToolPolicyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.ToolPolicy{}).
		Named("toolpolicy").
		Complete(r)
}
