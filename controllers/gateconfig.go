package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/policy"
)

// GateConfigBuilder makes the configuration of one agent pod's gate from
// the informer cache. The gate server calls it on every replica, leader or
// not: it only reads, and the cache runs on every replica.
type GateConfigBuilder struct {
	// Reader is the manager's cache (or its client, which reads the
	// cache); it must carry the field indexes RegisterIndexes adds.
	Reader client.Reader
	// Ceilings are the cluster's default ceiling and cap; they must be
	// the ToolPolicy reconciler's, so that status says what gates do.
	Ceilings policy.Ceilings
}

// Build returns the configuration for one pod, read from the informer cache.
// The pod's namespace and name are taken from the object given, which the
// caller must have from a source it trusts (the pod's token), never from
// the gate. The configuration passes gateproto's Validate; an error means
// the cache could not be read, and the caller keeps serving the last good
// configuration (or none: the gate then exposes nothing).
func (b *GateConfigBuilder) Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	if pod == nil || pod.Namespace == "" || pod.Name == "" {
		return nil, errors.New("building a gate configuration: the pod has no namespace or name")
	}
	var list toolgatev1alpha1.ToolPolicyList
	if err := b.Reader.List(ctx, &list, client.InNamespace(pod.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the ToolPolicies of %s: %w", pod.Namespace, err)
	}
	in, err := gatherPolicyInputs(ctx, b.Reader, pod.Namespace, policy.Matching(list.Items, pod.Labels), b.Ceilings)
	if err != nil {
		return nil, err
	}
	upstreams, unresolved, err := resolveUpstreams(ctx, b.Reader, in)
	if err != nil {
		return nil, err
	}
	in.Unresolved = unresolved
	cfg := policy.Evaluate(in).Config(pod.Namespace, pod.Name, upstreams)
	if err := cfg.Validate(); err != nil {
		// Evaluation keeps every bound of the protocol; this is a bug, and
		// serving nothing is the safe answer to it.
		return nil, fmt.Errorf("the configuration of pod %s/%s is invalid: %w", pod.Namespace, pod.Name, err)
	}
	return cfg, nil
}

// resolveUpstreams resolves the upstream of every server the policies
// reference that admits the namespace; a server whose credentials or CA do
// not resolve is reported in unresolved with why, and is not ready for the
// gate. Other servers are not resolved at all: their Secrets are none of
// this namespace's business.
func resolveUpstreams(ctx context.Context, c client.Reader, in policy.Input) (map[string]*gateproto.Upstream, map[string]string, error) {
	upstreams, unresolved := map[string]*gateproto.Upstream{}, map[string]string{}
	for i := range in.Servers {
		s := &in.Servers[i]
		if ok, _ := policy.Admits(s, in.Namespace, in.NamespaceLabels); !ok {
			continue
		}
		id := s.Namespace + "/" + s.Name
		u, err := resolveUpstream(ctx, c, s)
		var cerr *configError
		switch {
		case errors.As(err, &cerr):
			unresolved[id] = cerr.reason + ": " + cerr.msg
		case err != nil:
			return nil, nil, fmt.Errorf("resolving the upstream of MCPServer %s: %w", id, err)
		default:
			upstreams[id] = u
		}
	}
	return upstreams, unresolved, nil
}

// GateInvalidation calls invalidate with every agent namespace whose gate
// configurations an event may have changed: a ToolPolicy's own namespace;
// for an MCPServer, a ToolPin, or a credentials Secret or CA ConfigMap an
// MCPServer reads, the namespaces of the policies that reference the
// server; for a Namespace, itself. An empty namespace means every
// namespace: it is passed when the affected namespaces cannot be told.
//
// The handlers are added to the manager's informers directly, not through
// a controller, so that they run on every replica and not only on the
// leader; the gate server of each replica serves its own gates.
func GateInvalidation(mgr ctrl.Manager, invalidate func(namespace string)) error {
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
		nss, err := namespacesUsing(ctx, reader, ns, name)
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
			return pinMatters(old.(*toolgatev1alpha1.ToolPin), cur.(*toolgatev1alpha1.ToolPin))
		}, func(o client.Object) { usersOf(o.GetNamespace(), o.(*toolgatev1alpha1.ToolPin).Spec.ServerRef.Name) }),
		// The cache holds only credentials Secrets (CacheOptions).
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

// PinChanges calls changed with the namespace and name of every ToolPin
// that is added or updated in the manager's cache, whatever changed: a
// decision on a pending call is a change of status.decisions alone, which
// GateInvalidation rightly ignores. changed must not block.
func PinChanges(mgr ctrl.Manager, changed func(namespace, name string)) error {
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
