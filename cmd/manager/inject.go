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
	return injector.Setup(mgr, injector.Config{Template: o.injectTemplate(string(ca)), Settings: o.injectSettings()})
}

// injectTemplate is the gate the injector adds, with the operator's CA.
// The gate server compares live pods with it (inject.CheckServed), which
// needs no CA.
func (o *options) injectTemplate(ca string) inject.Template {
	return inject.Template{
		Image: o.gateImage, ImagePullPolicy: corev1.PullPolicy(o.gateImagePullPolicy),
		Resources: o.gateResources, OperatorURL: o.gateOperatorURL, CAPEM: ca, Args: o.gateArgs,
		OpenMetrics: o.gateOpenMetrics,
	}
}

// injectSettings are the namespaces the injector skips.
func (o *options) injectSettings() inject.Settings {
	return inject.Settings{OperatorNamespace: o.operatorNamespace, ExcludedNamespaces: o.injectExcluded}
}

// servedPods is the gate server's check that a pod carries the gate this
// operator injects; nil without injection, when the server falls back to
// requiring an injected pod in a labelled namespace.
func (o *options) servedPods() func(*corev1.Pod, map[string]string) error {
	if o.gateImage == "" {
		return nil
	}
	tmpl, settings := o.injectTemplate(""), o.injectSettings()
	return func(pod *corev1.Pod, namespaceLabels map[string]string) error {
		return inject.CheckServed(pod, namespaceLabels, tmpl, settings, o.gateAcceptedImages)
	}
}
