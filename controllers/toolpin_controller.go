package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// ToolPinReconciler applies human decisions and overrides to ToolPins. The
// MCPServer reconciler records what probes observe; this one reacts to
// what people write, without probing the server again.
type ToolPinReconciler struct {
	client.Client
	Scheme            *runtime.Scheme
	Recorder          events.EventRecorder
	Now               func() metav1.Time
	RequiredApprovers int
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins/status,verbs=get;update;patch

// Reconcile re-runs the lifecycle of a pin on its last observation, so that
// a decision appended to its status or an override in its spec takes
// effect.
func (r *ToolPinReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var pin toolgatev1alpha1.ToolPin
	if err := r.Get(ctx, req.NamespacedName, &pin); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if pin.Status.ObservedDefinition == "" && metav1.GetControllerOf(&pin) != nil {
		// Created by the MCPServer controller, which is writing its first
		// observation right now; writing too would only conflict.
		return ctrl.Result{}, nil
	}
	if pin.Status.ObservedDefinition == "" || pin.Status.State == toolgatev1alpha1.PinRemoved {
		// Never observed (or gone): nothing to decide on; keep the record
		// well-formed so approvers can append to it.
		orig := pin.DeepCopy()
		if pin.Status.Decisions == nil {
			pin.Status.Decisions = []toolgatev1alpha1.Decision{}
		}
		if pin.Status.State == "" {
			ensureCondition(&pin.Status.Conditions, pin.Generation, toolgatev1alpha1.ConditionReady, toolgatev1alpha1.ReasonAwaitingProbe,
				"the tool has not been observed on its server yet; it is withheld until it is")
		}
		pin.Status.ObservedGeneration = pin.Generation
		return ctrl.Result{}, patchStatusIfChanged(ctx, r.Client, orig, &pin, orig.Status, pin.Status)
	}

	tool, err := tooldef.ParseTool([]byte(pin.Status.ObservedDefinition))
	if err != nil {
		// The definition was written by the controller; if it no longer
		// parses, the pin cannot be trusted until the next probe.
		log.Error(err, "the observed definition does not parse")
		return ctrl.Result{}, nil
	}
	var server toolgatev1alpha1.MCPServer
	// An event about the pin names its server, when there is one: an empty
	// object would make the event's related reference meaningless.
	var related runtime.Object
	firstUse := toolgatev1alpha1.FirstUseReview
	if err := r.Get(ctx, client.ObjectKey{Namespace: pin.Namespace, Name: pin.Spec.ServerRef.Name}, &server); err == nil {
		firstUse, related = server.Spec.FirstUse, &server
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	// No new judgement: the computed risk in status stands.
	out := lifecycle.Next(lifecycle.Input{
		Status: pin.Status, Tool: tool, Risk: nil, FirstUse: firstUse,
		RequiredApprovers: r.RequiredApprovers, Now: r.now(),
	})
	// A decision never changes when the tool was last seen.
	out.Status.LastSeenTime = pin.Status.LastSeenTime
	return ctrl.Result{}, writePin(ctx, r.Client, r.Recorder, related, &pin, out)
}

func (r *ToolPinReconciler) now() metav1.Time {
	if r.Now != nil {
		return r.Now()
	}
	return metav1.Now()
}

// SetupWithManager registers the reconciler with the manager.
func (r *ToolPinReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.ToolPin{}).
		Named("toolpin").
		Complete(r)
}
