package gateconfig

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// WatchInvalidations calls invalidate with every agent namespace whose gate
// configurations an event may have changed: a ToolPolicy's own namespace;
// for an MCPServer, a ToolPin, or a credentials Secret or CA ConfigMap an
// MCPServer reads, the namespaces of the policies that reference the
// server; for a Namespace, itself. An empty namespace means every
// namespace: it is passed when the affected namespaces cannot be told.
//
// The handlers are added to the manager's informers directly, not through
// a controller, so that they run on every replica and not only on the
// leader; the gate server of each replica serves its own gates.
func WatchInvalidations(mgr ctrl.Manager, invalidate func(namespace string)) error {
	ctx := context.Background()
	reader := mgr.GetCache()
	log := mgr.GetLogger().WithName("gate-invalidation")
	affected := func(what string, nss []string, err error) {
		if err != nil {
			log.Error(err, "finding the namespaces an event affects; invalidating every namespace", "object", what)
			invalidate("")
			return
		}
		for _, ns := range nss {
			invalidate(ns)
		}
	}
	add := func(obj client.Object, changed func(old, cur client.Object) bool, namespaces func(client.Object)) error {
		inf, err := mgr.GetCache().GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("getting the informer of %T: %w", obj, err)
		}
		_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(o any) {
				if co, ok := o.(client.Object); ok {
					namespaces(co)
				}
			},
			UpdateFunc: func(old, cur any) {
				o, okOld := old.(client.Object)
				c, okCur := cur.(client.Object)
				if okOld && okCur && (changed == nil || changed(o, c)) {
					namespaces(o) // what it was: a policy referenced a server the new one may not
					namespaces(c)
				}
			},
			DeleteFunc: func(o any) {
				if tomb, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
					o = tomb.Obj
				}
				if co, ok := o.(client.Object); ok {
					namespaces(co)
				} else {
					invalidate("")
				}
			},
		})
		if err != nil {
			return fmt.Errorf("adding an event handler for %T: %w", obj, err)
		}
		return nil
	}
	usersOf := func(ns, name string) {
		nss, err := NamespacesUsing(ctx, reader, ns, name)
		affected("MCPServer "+ns+"/"+name, nss, err)
	}
	return errors.Join(
		// A policy's status is no input of any configuration: only its
		// spec and labels are.
		add(&toolgatev1alpha1.ToolPolicy{}, func(old, cur client.Object) bool {
			return old.GetGeneration() != cur.GetGeneration() || !maps.Equal(old.GetLabels(), cur.GetLabels())
		}, func(o client.Object) { invalidate(o.GetNamespace()) }),
		add(&toolgatev1alpha1.MCPServer{}, nil, func(o client.Object) { usersOf(o.GetNamespace(), o.GetName()) }),
		add(&toolgatev1alpha1.ToolPin{}, func(old, cur client.Object) bool {
			return PinMatters(old.(*toolgatev1alpha1.ToolPin), cur.(*toolgatev1alpha1.ToolPin))
		}, func(o client.Object) { usersOf(o.GetNamespace(), o.(*toolgatev1alpha1.ToolPin).Spec.ServerRef.Name) }),
		// The cache holds only credentials Secrets (the manager's cache
		// options).
		add(&corev1.Secret{}, nil, func(o client.Object) {
			nss, err := namespacesUsingReference(ctx, reader, "secret", o.GetNamespace(), o.GetName())
			affected("Secret "+o.GetNamespace()+"/"+o.GetName(), nss, err)
		}),
		add(&corev1.ConfigMap{}, nil, func(o client.Object) {
			nss, err := namespacesUsingReference(ctx, reader, "configmap", o.GetNamespace(), o.GetName())
			affected("ConfigMap "+o.GetNamespace()+"/"+o.GetName(), nss, err)
		}),
		add(&corev1.Namespace{}, func(old, cur client.Object) bool {
			return !maps.Equal(old.GetLabels(), cur.GetLabels())
		}, func(o client.Object) { invalidate(o.GetName()) }),
	)
}

// WatchPinChanges calls changed with the namespace and name of every
// ToolPin that is added or updated in the manager's cache, whatever
// changed: a decision on a pending call is a change of status.decisions
// alone, which WatchInvalidations rightly ignores. changed must not block.
func WatchPinChanges(mgr ctrl.Manager, changed func(namespace, name string)) error {
	inf, err := mgr.GetCache().GetInformer(context.Background(), &toolgatev1alpha1.ToolPin{})
	if err != nil {
		return fmt.Errorf("getting the ToolPin informer: %w", err)
	}
	notify := func(o any) {
		if co, ok := o.(client.Object); ok {
			changed(co.GetNamespace(), co.GetName())
		}
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    notify,
		UpdateFunc: func(_, cur any) { notify(cur) },
	})
	if err != nil {
		return fmt.Errorf("adding a ToolPin event handler: %w", err)
	}
	return nil
}

// NamespacesUsing returns the namespaces whose ToolPolicies reference the
// MCPServer, sorted.
func NamespacesUsing(ctx context.Context, c client.Reader, serverNamespace, serverName string) ([]string, error) {
	var list toolgatev1alpha1.ToolPolicyList
	if err := c.List(ctx, &list, client.MatchingFields{PolicyServerIndex: serverNamespace + "/" + serverName}); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range list.Items {
		if !slices.Contains(out, p.Namespace) {
			out = append(out, p.Namespace)
		}
	}
	slices.Sort(out)
	return out, nil
}

// namespacesUsingReference returns the namespaces whose policies reference
// an MCPServer that reads the Secret or ConfigMap ("secret" or
// "configmap").
func namespacesUsingReference(ctx context.Context, c client.Reader, kind, namespace, name string) ([]string, error) {
	var servers toolgatev1alpha1.MCPServerList
	if err := c.List(ctx, &servers, client.InNamespace(namespace), client.MatchingFields{ServerReferenceIndex: kind + "/" + name}); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range servers.Items {
		nss, err := NamespacesUsing(ctx, c, s.Namespace, s.Name)
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			if !slices.Contains(out, ns) {
				out = append(out, ns)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// PinMatters reports whether a change of a pin can change a decision:
// anything but what a probe touches on every pass (lastSeenTime) or what
// per-call approval writes (pendingCalls, call decisions).
func PinMatters(old, cur *toolgatev1alpha1.ToolPin) bool {
	o, n := old.Status, cur.Status
	return o.State != n.State || o.ObservedFingerprint != n.ObservedFingerprint ||
		!equalPinned(o.Pinned, n.Pinned) || !equalRisk(o.Risk, n.Risk) ||
		old.Spec.ToolName != cur.Spec.ToolName || !old.DeletionTimestamp.Equal(cur.DeletionTimestamp)
}

func equalPinned(a, b *toolgatev1alpha1.PinnedDefinition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Fingerprint == b.Fingerprint && a.Source == b.Source
}

// equalRisk compares the whole risk, not the fields evaluation reads today:
// the gate's configuration carries more of it with each feature (argument
// rules read the blast radius and reversibility), and a field left out here
// is a change the gates would not see until their next resync. A risk
// changes only when a tool is judged anew, so comparing all of it costs
// nothing on the probes' routine passes.
func equalRisk(a, b *toolgatev1alpha1.ToolRisk) bool {
	return equality.Semantic.DeepEqual(a, b)
}
