package controllers

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Pins are created here; what their status becomes, and its one writer,
// are package pinrecord's.

// newPin builds the ToolPin of one tool of a server, under the given name.
func newPin(server *toolgatev1alpha1.MCPServer, tool, name string) *toolgatev1alpha1.ToolPin {
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: server.Namespace,
			Labels: map[string]string{},
		},
		Spec: toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: server.Name}, ToolName: tool},
	}
	if len(server.Name) <= 63 {
		pin.Labels[toolgatev1alpha1.LabelServer] = server.Name
	}
	// No owner reference: a pin's review record outlives its server, so
	// that a server deleted and created again meets it (the ToolPin
	// controller deletes the pins of a gone server that hold nothing).
	return pin
}

// errNameHeld says a pin's name is taken by a pin of another tool.
var errNameHeld = errors.New("the name is held by a pin of another tool")

// createPin creates the pin, or returns the one of the same tool that
// exists under its name; a name held by another tool's pin is errNameHeld.
func createPin(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin) (*toolgatev1alpha1.ToolPin, error) {
	err := c.Create(ctx, pin)
	if apierrors.IsAlreadyExists(err) {
		var existing toolgatev1alpha1.ToolPin
		if err := c.Get(ctx, client.ObjectKeyFromObject(pin), &existing); err != nil {
			return nil, err
		}
		if existing.Spec.ServerRef != pin.Spec.ServerRef || existing.Spec.ToolName != pin.Spec.ToolName {
			return nil, fmt.Errorf("pin %s (%s/%s): %w", pin.Name, existing.Spec.ServerRef.Name, existing.Spec.ToolName, errNameHeld)
		}
		return &existing, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating pin %s: %w", pin.Name, err)
	}
	return pin, nil
}
