package main

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/injector"
)

// setupInjector serves the gate's injection webhook when --gate-image is
// set. The CA is read once: a rotated CA reaches new pods after a restart
// of the operator (the revision on each pod names the CA it got).
func setupInjector(mgr ctrl.Manager, o *options) error {
	if o.gateImage == "" {
		ctrl.Log.WithName("setup").Info("no --gate-image: the injection webhook is not served")
		return nil
	}
	ca, err := os.ReadFile(o.operatorCAFile)
	if err != nil {
		return fmt.Errorf("reading --operator-ca-file: %w", err)
	}
	return injector.Setup(mgr, injector.Config{
		Template: inject.Template{
			Image: o.gateImage, ImagePullPolicy: corev1.PullPolicy(o.gateImagePullPolicy),
			Resources: o.gateResources, OperatorURL: o.gateOperatorURL, CAPEM: string(ca), Args: o.gateArgs,
		},
		Settings: inject.Settings{OperatorNamespace: o.operatorNamespace, ExcludedNamespaces: o.injectExcluded},
	})
}
