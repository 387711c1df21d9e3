package controllers

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/policy"
)

// gatherPolicyInputs reads what evaluating policies of one namespace needs:
// the namespace's labels, the servers the policies reference and those
// servers' pins. A server that does not exist is left out (the evaluation
// reports it); any other read error is returned.
func gatherPolicyInputs(ctx context.Context, c client.Reader, namespace string, policies []toolgatev1alpha1.ToolPolicy, ceilings policy.Ceilings) (policy.Input, error) {
	in := policy.Input{Namespace: namespace, Policies: policies, Ceilings: ceilings}
	var ns corev1.Namespace
	switch err := c.Get(ctx, client.ObjectKey{Name: namespace}, &ns); {
	case err == nil:
		in.NamespaceLabels = ns.Labels
	case apierrors.IsNotFound(err):
		// Being deleted: no labels, so no selector admits it.
	default:
		return in, fmt.Errorf("reading namespace %s: %w", namespace, err)
	}

	var ids []client.ObjectKey
	for i := range policies {
		for _, ref := range policies[i].Spec.Servers {
			key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			if !slices.Contains(ids, key) {
				ids = append(ids, key)
			}
		}
	}
	for _, key := range ids {
		var s toolgatev1alpha1.MCPServer
		if err := c.Get(ctx, key, &s); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return in, fmt.Errorf("reading MCPServer %s: %w", key, err)
		}
		in.Servers = append(in.Servers, s)
		var pins toolgatev1alpha1.ToolPinList
		if err := c.List(ctx, &pins, client.InNamespace(key.Namespace), client.MatchingFields{pinServerIndex: key.Name}); err != nil {
			return in, fmt.Errorf("listing the pins of MCPServer %s: %w", key, err)
		}
		in.Pins = append(in.Pins, pins.Items...)
	}
	return in, nil
}

// namespacesUsing returns the namespaces whose ToolPolicies reference the
// MCPServer, sorted.
func namespacesUsing(ctx context.Context, c client.Reader, serverNamespace, serverName string) ([]string, error) {
	var list toolgatev1alpha1.ToolPolicyList
	if err := c.List(ctx, &list, client.MatchingFields{policyServerIndex: serverNamespace + "/" + serverName}); err != nil {
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
	if err := c.List(ctx, &servers, client.InNamespace(namespace), client.MatchingFields{serverReferenceIndex: kind + "/" + name}); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range servers.Items {
		nss, err := namespacesUsing(ctx, c, s.Namespace, s.Name)
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

// pinMatters reports whether a change of a pin can change a decision:
// anything but what a probe touches on every pass (lastSeenTime) or what
// per-call approval writes (pendingCalls, call decisions).
func pinMatters(old, cur *toolgatev1alpha1.ToolPin) bool {
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

func equalRisk(a, b *toolgatev1alpha1.ToolRisk) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Level == b.Level && a.Category == b.Category && a.MinTrustLevel == b.MinTrustLevel && len(a.Findings) == len(b.Findings)
}
