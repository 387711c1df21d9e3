package controllers

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
)

// SetupWithManager registers every toolgate reconciler with mgr. The manager
// binary and the integration tests both call it, so what is tested is what
// runs.
func SetupWithManager(mgr ctrl.Manager) error {
	c, s := mgr.GetClient(), mgr.GetScheme()
	if err := (&MCPServerReconciler{Client: c, Scheme: s}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the MCPServer controller: %w", err)
	}
	if err := (&ToolPinReconciler{Client: c, Scheme: s}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ToolPin controller: %w", err)
	}
	if err := (&ToolPolicyReconciler{Client: c, Scheme: s}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ToolPolicy controller: %w", err)
	}
	return nil
}
