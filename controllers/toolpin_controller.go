package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
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
// effect; keeps the record of a pin whose server is gone; and resolves as
// Expired the pending calls a dead gate server left behind, looking again
// when the next pending call comes due.
func (r *ToolPinReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var pin toolgatev1alpha1.ToolPin
	if err := r.Get(ctx, req.NamespacedName, &pin); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	now := r.now()
	var expired []string
	var next time.Time
	// expire is applied to the status each path computes, before its one
	// write, so that the expired calls leave in that write.
	expire := func(st *toolgatev1alpha1.ToolPinStatus) { expired, next = lifecycle.ExpireCalls(st, now) }
	if err := r.reconcile(ctx, &pin, now, expire); err != nil {
		return ctrl.Result{}, err
	}
	for _, id := range expired {
		if r.Recorder != nil {
			r.Recorder.Eventf(&pin, nil, corev1.EventTypeWarning, reasonCallResolved, "Resolve",
				"call %s: Expired; nobody decided before its expiry and the gate server holding it is gone", id)
		}
	}
	if next.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: max(next.Sub(now.Time), time.Second)}, nil
}

// reasonCallResolved is the reason of the Event of a resolved call, as the
// gate server records it.
const reasonCallResolved = "CallResolved"

func (r *ToolPinReconciler) reconcile(ctx context.Context, pin *toolgatev1alpha1.ToolPin, now metav1.Time, expire func(*toolgatev1alpha1.ToolPinStatus)) error {
	log := logf.FromContext(ctx)
	var server toolgatev1alpha1.MCPServer
	if err := r.Get(ctx, client.ObjectKey{Namespace: pin.Namespace, Name: pin.Spec.ServerRef.Name}, &server); apierrors.IsNotFound(err) {
		return r.orphaned(ctx, pin, now, expire)
	} else if err != nil {
		return err
	}

	if pin.Status.State == "" && pin.Labels[toolgatev1alpha1.LabelState] != "" {
		// Created by the MCPServer controller (with the labels of its first
		// decision), which is writing its first observation right now;
		// writing too would only conflict. (It has no pending calls: a
		// call is only opened on a Trusted pin.)
		return nil
	}
	if pin.Status.ObservedDefinition == "" || pin.Status.State == toolgatev1alpha1.PinRemoved {
		// Never observed (or gone): nothing to decide on; keep the record
		// well-formed so approvers can append to it.
		return r.keepRecord(ctx, pin, expire)
	}

	tool, err := tooldef.ParseTool([]byte(pin.Status.ObservedDefinition))
	if err != nil {
		// The definition was written by the controller; if it no longer
		// parses, the pin cannot be trusted until the next probe. Its
		// record is still kept, and its stale calls still expire.
		log.Error(err, "the observed definition does not parse")
		return r.keepRecord(ctx, pin, expire)
	}
	// No new judgement: the computed risk in status stands.
	out := lifecycle.Next(lifecycle.Input{
		Status: pin.Status, Tool: tool, Risk: nil, FirstUse: server.Spec.FirstUse, Origin: pin.Status.ObservedOrigin,
		RequiredApprovers: r.RequiredApprovers, Now: now,
	})
	// A decision never changes when the tool was last seen.
	out.Status.LastSeenTime = pin.Status.LastSeenTime
	expire(&out.Status)
	return writePin(ctx, r.Client, r.Recorder, &server, pin, out)
}

// keepRecord gives a pin with nothing to decide on a well-formed status.
func (r *ToolPinReconciler) keepRecord(ctx context.Context, pin *toolgatev1alpha1.ToolPin, expire func(*toolgatev1alpha1.ToolPinStatus)) error {
	orig := pin.DeepCopy()
	expire(&pin.Status)
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
// history. A trusted pin without decisions is kept too: the definition it
// pins is what the re-created server's tools are compared with, and were
// it deleted, whoever may delete and create MCPServers could redefine a
// tool in between and have it trusted on first use. Every pin is marked
// Removed and stays until the removed-pin retention expires it.
func (r *ToolPinReconciler) orphaned(ctx context.Context, pin *toolgatev1alpha1.ToolPin, now metav1.Time, expire func(*toolgatev1alpha1.ToolPinStatus)) error {
	if pin.Status.State == "" || pin.Status.State == toolgatev1alpha1.PinRemoved {
		return r.keepRecord(ctx, pin, expire)
	}
	out := lifecycle.Next(lifecycle.Input{Status: pin.Status, Tool: nil, Now: now})
	out.Message = "the tool's MCPServer is gone; the pin keeps its review record for a server re-created under the same name"
	expire(&out.Status)
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
