package gateconfig

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Field indexes of the manager's cache. The reconcilers and the Builder
// read through the same indexes, so they are all registered here, once,
// before any controller starts: no reader depends on another having been
// set up first.
const (
	// PinServerIndex indexes ToolPins by the MCPServer they belong to.
	PinServerIndex = "spec.serverRef.name"
	// ServerReferenceIndex indexes MCPServers by the Secrets
	// ("secret/NAME") and ConfigMaps ("configmap/NAME") they read.
	ServerReferenceIndex = "toolgate.dev/references"
	// PolicyServerIndex indexes ToolPolicies by the MCPServers they
	// reference, as "namespace/name": a change of a server or of one of its
	// pins reaches every namespace whose agents use it.
	PolicyServerIndex = "spec.servers"
)

// RegisterIndexes adds every field index the reconcilers and the Builder
// use.
func RegisterIndexes(ctx context.Context, indexer client.FieldIndexer) error {
	if err := indexer.IndexField(ctx, &toolgatev1alpha1.ToolPin{}, PinServerIndex, func(o client.Object) []string {
		return []string{o.(*toolgatev1alpha1.ToolPin).Spec.ServerRef.Name}
	}); err != nil {
		return fmt.Errorf("indexing ToolPins by server: %w", err)
	}
	if err := indexer.IndexField(ctx, &toolgatev1alpha1.MCPServer{}, ServerReferenceIndex, func(o client.Object) []string {
		return serverReferences(o.(*toolgatev1alpha1.MCPServer))
	}); err != nil {
		return fmt.Errorf("indexing MCPServers by what they reference: %w", err)
	}
	if err := indexer.IndexField(ctx, &toolgatev1alpha1.ToolPolicy{}, PolicyServerIndex, func(o client.Object) []string {
		return policyServers(o.(*toolgatev1alpha1.ToolPolicy))
	}); err != nil {
		return fmt.Errorf("indexing ToolPolicies by server: %w", err)
	}
	return nil
}

// policyServers lists the MCPServers a ToolPolicy references.
func policyServers(p *toolgatev1alpha1.ToolPolicy) []string {
	ids := make([]string, len(p.Spec.Servers))
	for i, ref := range p.Spec.Servers {
		ids[i] = ref.Namespace + "/" + ref.Name
	}
	return ids
}

// serverReferences lists the Secrets and ConfigMaps an MCPServer reads.
func serverReferences(s *toolgatev1alpha1.MCPServer) []string {
	var refs []string
	if a := s.Spec.Auth; a != nil {
		if a.BearerToken != nil {
			refs = append(refs, "secret/"+a.BearerToken.Name)
		}
		if a.HeadersFrom != nil {
			refs = append(refs, "secret/"+a.HeadersFrom.Name)
		}
	}
	if t := s.Spec.TLS; t != nil && t.CA != nil {
		if t.CA.Secret != nil {
			refs = append(refs, "secret/"+t.CA.Secret.Name)
		}
		if t.CA.ConfigMap != nil {
			refs = append(refs, "configmap/"+t.CA.ConfigMap.Name)
		}
	}
	return refs
}
