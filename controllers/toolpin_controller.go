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
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/pinwriter"
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
	// APIReader reads past the cache when the cache says the pin's
	// server is gone; the cache alone when nil.
	APIReader client.Reader
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins/status,verbs=get;update;patch

// Reconcile re-runs the lifecycle of a pin on its last observation, so that
// a decision appended to its status or an override in its spec takes
// effect; keeps the record of a pin whose server is gone; and resolves as
// Expired the pending calls a dead gate server left behind, looking again
// when the next pending call comes due. What the pin becomes is
// pinrecord.Decide's; pinwriter.Writer writes it, reading the pin again
// and deciding again when another writer got there first.
func (r *ToolPinReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var pin toolgatev1alpha1.ToolPin
	if err := r.Get(ctx, req.NamespacedName, &pin); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	w := pinwriter.Writer{Client: r.Client, Recorder: r.Recorder}
	learn := func(ctx context.Context) (pinrecord.Change, runtime.Object, error) {
		var server toolgatev1alpha1.MCPServer
		key := client.ObjectKey{Namespace: pin.Namespace, Name: pin.Spec.ServerRef.Name}
		err := r.Get(ctx, key, &server)
		if apierrors.IsNotFound(err) && r.APIReader != nil {
			// The cache may not have seen a server re-created under the
			// same name, whose probe may already have written this pin:
			// the deletion is replayed only if the API server agrees.
			err = r.APIReader.Get(ctx, key, &server)
		}
		switch {
		case apierrors.IsNotFound(err):
			// The review record stays for a server re-created under the
			// same name to meet: deleting and re-creating a server must not
			// trust its tools on first use again with an empty history. A
			// trusted pin without decisions is kept too: the definition it
			// pins is what the re-created server's tools are compared with,
			// and were it deleted, whoever may delete and create MCPServers
			// could redefine a tool in between and have it trusted on first
			// use. Every pin is marked Removed and stays until the
			// removed-pin retention expires it.
			return pinrecord.Gone{ServerDeleted: true}, nil, nil
		case err != nil:
			return nil, nil, err
		}
		return pinrecord.Reviewed{FirstUse: server.Spec.FirstUse, RequiredApprovers: r.RequiredApprovers}, &server, nil
	}
	res, err := w.WriteLearned(ctx, &pin, learn, r.now())
	if res.Problem != nil {
		logf.FromContext(ctx).Error(res.Problem, "the pin's record is kept as it is")
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
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
		if err := mgr.GetClient().List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{gateconfig.PinServerIndex: o.GetName()}); err != nil {
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
