// Package writers holds one of each way of writing status that
// TestOnlyThisPackageWritesToolPinStatus must tell apart. Each line the
// check must report carries a "want" comment with what it reports.
package writers

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func direct(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) error {
	return c.Status().Update(ctx, pin) // want "writes the status of a ToolPin"
}

func bySubResource(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) error {
	return c.SubResource("status").Patch(ctx, pin, client.Merge) // want "writes the status of a ToolPin"
}

// patchAny writes the status of whatever it is given, as a helper shared
// by controllers does.
func patchAny(ctx context.Context, c client.Client, obj client.Object) error {
	return c.Status().Patch(ctx, obj, client.Merge)
}

// throughTwo passes its object on to patchAny.
func throughTwo(ctx context.Context, c client.Client, obj client.Object) error {
	return patchAny(ctx, c, obj)
}

func throughHelpers(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin, server *toolgatev1alpha1.MCPServer) error {
	if err := patchAny(ctx, c, server); err != nil { // another kind: not reported
		return err
	}
	return throughTwo(ctx, c, pin) // want "writes the status of a ToolPin"
}

func untraceable(ctx context.Context, c client.Client, objs []client.Object) error {
	return c.Status().Update(ctx, objs[0]) // want "an interface value the check cannot trace"
}

func unstructuredWrite(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
	return c.Status().Update(ctx, u) // want "an unstructured object"
}

func asValue(c client.Client) func(context.Context, client.Object, ...client.SubResourceUpdateOption) error {
	return c.Status().Update // want "taken as a value"
}

func otherKinds(ctx context.Context, c client.Client, server *toolgatev1alpha1.MCPServer, policy *toolgatev1alpha1.ToolPolicy) error {
	if err := c.Status().Update(ctx, server); err != nil {
		return err
	}
	return c.Status().Update(ctx, policy)
}
