package controllers

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/policy"
)

// ToolPolicyReconciler evaluates the ToolPolicies of a namespace and writes
// what each exposes into its status. It reconciles namespaces, not single
// policies: the policies of a namespace share their inputs (the servers,
// their pins, the namespace's labels), which one pass reads once.
type ToolPolicyReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	// Gates gathers a namespace's inputs, under the cluster's ceilings,
	// exactly as the gates' configurations are built: a policy's status
	// then says what its gates are served.
	Gates *gateconfig.Builder
	// RequireInjection marks policies of namespaces not labelled for
	// injection not Ready: the gate server serves no gate there.
	RequireInjection bool
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpolicies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch

// Reconcile evaluates every ToolPolicy of the request's namespace (the
// request's Namespace; its Name is empty): gather the servers, pins and
// namespace once, evaluate each policy on its own (policy.Status), and
// write each policy's status once, only if it changed. A policy that fails
// to patch does not keep the others from theirs; the error requeues the
// namespace.
func (r *ToolPolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var list toolgatev1alpha1.ToolPolicyList
	if err := r.List(ctx, &list, client.InNamespace(req.Namespace)); err != nil {
		return ctrl.Result{}, err
	}
	if len(list.Items) == 0 {
		return ctrl.Result{}, nil
	}
	in, err := r.Gates.Gather(ctx, req.Namespace, list.Items)
	if err != nil {
		return ctrl.Result{}, err
	}
	in.RequireInjection = r.RequireInjection
	var errs []error
	for i := range list.Items {
		p := &list.Items[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		orig := p.DeepCopy()
		next := policy.Status(p, in)
		// Conditions are merged into the old ones so that a condition
		// whose status stays keeps its transition time.
		conds := p.Status.Conditions
		for _, c := range next.Conditions {
			meta.SetStatusCondition(&conds, c)
		}
		next.Conditions = conds
		p.Status = next
		if err := patchStatusIfChanged(ctx, r.Client, orig, p, orig.Status, p.Status); err != nil {
			errs = append(errs, err)
			continue
		}
		r.emit(orig, p)
		log.V(1).Info("evaluated", "policy", p.Name, "exposed", p.Status.Exposed, "gated", p.Status.ApprovalGated, "withheld", p.Status.Withheld)
	}
	return ctrl.Result{}, errors.Join(errs...)
}

// emit records an Event for each condition that changed status or reason:
// transitions only, so that a namespace evaluated again and again does not
// repeat itself.
func (r *ToolPolicyReconciler) emit(old, cur *toolgatev1alpha1.ToolPolicy) {
	if r.Recorder == nil {
		return
	}
	for _, t := range []string{toolgatev1alpha1.ConditionAccepted, toolgatev1alpha1.ConditionReady, toolgatev1alpha1.ConditionGateBypassable, toolgatev1alpha1.ConditionArgumentRules} {
		c := meta.FindStatusCondition(cur.Status.Conditions, t)
		if c == nil {
			continue
		}
		if o := meta.FindStatusCondition(old.Status.Conditions, t); o != nil && o.Status == c.Status && o.Reason == c.Reason {
			continue
		}
		kind := corev1.EventTypeNormal
		// GateBypassable warns when True; the others when not.
		if (c.Status == metav1.ConditionTrue) == (t == toolgatev1alpha1.ConditionGateBypassable) {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(cur, nil, kind, c.Reason, "Evaluate", "%s", c.Message)
	}
}

// namespaceRequest is the request that evaluates one namespace's policies.
func namespaceRequest(ns string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns}}
}

// SetupWithManager registers the reconciler. Every watch maps to the
// namespaces whose decisions an event can change, so a pin approval, a rug
// pull, a server's change, a namespace's labels or a policy edit is
// evaluated at once rather than at the next resync.
func (r *ToolPolicyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	reader := mgr.GetClient()
	usersOf := func(ctx context.Context, ns, name string) []reconcile.Request {
		nss, err := gateconfig.NamespacesUsing(ctx, reader, ns, name)
		if err != nil {
			logf.FromContext(ctx).Error(err, "finding the policies that reference a server", "server", ns+"/"+name)
			return nil
		}
		reqs := make([]reconcile.Request, len(nss))
		for i, n := range nss {
			reqs[i] = namespaceRequest(n)
		}
		return reqs
	}
	policies := source.Kind(mgr.GetCache(), &toolgatev1alpha1.ToolPolicy{},
		handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, p *toolgatev1alpha1.ToolPolicy) []reconcile.Request {
			return []reconcile.Request{namespaceRequest(p.Namespace)}
		}),
		// The reconciler's own status writes do not bring it back.
		predicate.TypedGenerationChangedPredicate[*toolgatev1alpha1.ToolPolicy]{})
	servers := source.Kind(mgr.GetCache(), &toolgatev1alpha1.MCPServer{},
		handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, s *toolgatev1alpha1.MCPServer) []reconcile.Request {
			return usersOf(ctx, s.Namespace, s.Name)
		}))
	pins := source.Kind(mgr.GetCache(), &toolgatev1alpha1.ToolPin{},
		handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, p *toolgatev1alpha1.ToolPin) []reconcile.Request {
			return usersOf(ctx, p.Namespace, p.Spec.ServerRef.Name)
		}),
		predicate.TypedFuncs[*toolgatev1alpha1.ToolPin]{
			UpdateFunc: func(e event.TypedUpdateEvent[*toolgatev1alpha1.ToolPin]) bool {
				return gateconfig.PinMatters(e.ObjectOld, e.ObjectNew)
			},
		})
	namespaces := source.Kind(mgr.GetCache(), &corev1.Namespace{},
		handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, ns *corev1.Namespace) []reconcile.Request {
			return []reconcile.Request{namespaceRequest(ns.Name)}
		}),
		predicate.TypedLabelChangedPredicate[*corev1.Namespace]{})
	return ctrl.NewControllerManagedBy(mgr).
		Named("toolpolicy").
		WatchesRawSource(policies).
		WatchesRawSource(servers).
		WatchesRawSource(pins).
		WatchesRawSource(namespaces).
		Complete(r)
}
