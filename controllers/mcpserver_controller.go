package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// ConditionReachable says whether the last probe of an MCPServer returned a
// valid catalogue.
const ConditionReachable = "Reachable"

// MCPServerReconciler reconciles MCPServer objects.
type MCPServerReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile brings an MCPServer's status in line with what is known of it.
// The probe is not part of this version: the reconciler only records that
// the server has not been probed, so nothing reads Ready as True.
func (r *MCPServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var server toolgatev1alpha1.MCPServer
	if err := r.Get(ctx, req.NamespacedName, &server); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	orig := server.DeepCopy()

	status := &server.Status
	ensureCondition(&status.Conditions, server.Generation, toolgatev1alpha1.ConditionReady, ReasonAwaitingProbe,
		"the server has not been probed yet; none of its tools is exposed")
	ensureCondition(&status.Conditions, server.Generation, ConditionReachable, ReasonAwaitingProbe,
		"the server has not been probed yet")
	status.ObservedGeneration = server.Generation

	if err := patchStatusIfChanged(ctx, r.Client, orig, &server, orig.Status, server.Status); err != nil {
		return ctrl.Result{}, err
	}
	log.V(1).Info("reconciled", "generation", server.Generation)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler with the manager.
func (r *MCPServerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.MCPServer{}).
		Named("mcpserver").
		Complete(r)
}
