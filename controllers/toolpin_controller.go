package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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
// effect; and keeps the record of a pin whose server is gone.
func (r *ToolPinReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var pin toolgatev1alpha1.ToolPin
	if err := r.Get(ctx, req.NamespacedName, &pin); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var server toolgatev1alpha1.MCPServer
	if err := r.Get(ctx, client.ObjectKey{Namespace: pin.Namespace, Name: pin.Spec.ServerRef.Name}, &server); apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.orphaned(ctx, &pin)
	} else if err != nil {
		return ctrl.Result{}, err
	}

	if pin.Status.State == "" && pin.Labels[toolgatev1alpha1.LabelState] != "" {
		// Created by the MCPServer controller (with the labels of its first
		// decision), which is writing its first observation right now;
		// writing too would only conflict.
		return ctrl.Result{}, nil
	}
	if pin.Status.ObservedDefinition == "" || pin.Status.State == toolgatev1alpha1.PinRemoved {
		// Never observed (or gone): nothing to decide on; keep the record
		// well-formed so approvers can append to it.
		return ctrl.Result{}, r.keepRecord(ctx, &pin)
	}

	tool, err := tooldef.ParseTool([]byte(pin.Status.ObservedDefinition))
	if err != nil {
		// The definition was written by the controller; if it no longer
		// parses, the pin cannot be trusted until the next probe.
		log.Error(err, "the observed definition does not parse")
		return ctrl.Result{}, nil
	}
	// No new judgement: the computed risk in status stands.
	out := lifecycle.Next(lifecycle.Input{
		Status: pin.Status, Tool: tool, Risk: nil, FirstUse: server.Spec.FirstUse, Origin: pin.Status.ObservedOrigin,
		RequiredApprovers: r.RequiredApprovers, Now: r.now(),
	})
	// A decision never changes when the tool was last seen.
	out.Status.LastSeenTime = pin.Status.LastSeenTime
	return ctrl.Result{}, writePin(ctx, r.Client, r.Recorder, &server, &pin, out)
}

// keepRecord gives a pin with nothing to decide on a well-formed status.
func (r *ToolPinReconciler) keepRecord(ctx context.Context, pin *toolgatev1alpha1.ToolPin) error {
	orig := pin.DeepCopy()
	if pin.Status.Decisions == nil {
		pin.Status.Decisions = []toolgatev1alpha1.Decision{}
	}
	if pin.Status.State == "" {
		ensureCondition(&pin.Status.Conditions, pin.Generation, toolgatev1alpha1.ConditionReady, toolgatev1alpha1.ReasonAwaitingProbe,
			"the tool has not been observed on its server yet; it is withheld until it is")
	}
	pin.Status.ObservedGeneration = pin.Generation
	return patchStatusIfChanged(ctx, r.Client, orig, pin, orig.Status, pin.Status)
}

// orphaned keeps the review record of a pin whose MCPServer is gone, for a
// server re-created under the same name to meet: deleting and re-creating
// a server must not trust its tools on first use again with an empty
// history. A pin that holds nothing worth keeping — observed, no
// decision, and a definition that was trusted — is deleted; any other is
// marked Removed and stays.
func (r *ToolPinReconciler) orphaned(ctx context.Context, pin *toolgatev1alpha1.ToolPin) error {
	if pin.Status.State != "" && len(pin.Status.Decisions) == 0 && !lifecycle.Untrusted(pin.Status) {
		uid, version := pin.UID, pin.ResourceVersion
		err := r.Delete(ctx, pin, client.Preconditions{UID: &uid, ResourceVersion: &version})
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil // written meanwhile, and reconciled again; or gone
		}
		return err
	}
	if pin.Status.State == "" || pin.Status.State == toolgatev1alpha1.PinRemoved {
		return r.keepRecord(ctx, pin)
	}
	out := lifecycle.Next(lifecycle.Input{Status: pin.Status, Tool: nil, Now: r.now()})
	out.Message = "the tool's MCPServer is gone; the pin keeps its review record for a server re-created under the same name"
	return writePin(ctx, r.Client, r.Recorder, nil, pin, out)
}

func (r *ToolPinReconciler) now() metav1.Time {
	if r.Now != nil {
		return r.Now()
	}
	return metav1.Now()
}

// SetupWithManager registers the reconciler with the manager. A change of
// an MCPServer (its deletion above all) reaches its pins.
func (r *ToolPinReconciler) SetupWithManager(mgr ctrl.Manager) error {
	pinsOf := func(ctx context.Context, o client.Object) []reconcile.Request {
		var list toolgatev1alpha1.ToolPinList
		if err := mgr.GetClient().List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{pinServerIndex: o.GetName()}); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, len(list.Items))
		for i, p := range list.Items {
			reqs[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)}
		}
		return reqs
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.ToolPin{}).
		Watches(&toolgatev1alpha1.MCPServer{}, handler.EnqueueRequestsFromMapFunc(pinsOf),
			builder.WithPredicates(predicate.Funcs{
				CreateFunc:  func(event.CreateEvent) bool { return false },
				UpdateFunc:  func(event.UpdateEvent) bool { return false },
				DeleteFunc:  func(event.DeleteEvent) bool { return true },
				GenericFunc: func(event.GenericEvent) bool { return false },
			})).
		Named("toolpin").
		Complete(r)
}
