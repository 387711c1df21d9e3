package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/probe"
)

// CacheOptions keeps only credentials Secrets (labelled
// toolgate.dev/credentials=true) in the operator's cache: it never holds,
// nor lets a reconciler read, any other Secret of the cluster.
func CacheOptions() cache.Options {
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Secret{}: {Label: labels.SelectorFromSet(labels.Set{toolgatev1alpha1.LabelCredentials: "true"})},
	}}
}

// Options configure the reconcilers.
type Options struct {
	// RequiredApprovers is how many distinct humans must approve a tool
	// whose approvalRecommendation is multi; at least 2.
	RequiredApprovers int
	// ProbeConcurrency is how many servers are probed at once.
	ProbeConcurrency int
	// MaxProbeTimeout caps every server's probe timeout; zero leaves
	// spec.probe.timeout as it is.
	MaxProbeTimeout time.Duration
	// RemovedPinRetention is how long the pin of a removed tool that was
	// trusted and never decided on is kept; zero keeps it until
	// MaxRemovedPins makes room.
	RemovedPinRetention time.Duration
	// MaxRemovedPins is the most removed pins without decisions one server
	// keeps; zero means no cap.
	MaxRemovedPins int
	// ProbeMemoryBudget is the memory, in bytes, all probes running at
	// once may hold together; zero is unlimited.
	ProbeMemoryBudget int64
	// ProbeMemoryPerServer is the memory, in bytes, one probe's decoded
	// catalogue may take; zero keeps probe.DefaultLimits'.
	ProbeMemoryPerServer int64
	// ProbeAllowLinkLocal lets probes reach link-local and cloud metadata
	// addresses, which they refuse by default.
	ProbeAllowLinkLocal bool
	// GateConfig is the builder of the gates' configurations, required:
	// the ToolPolicy reconciler gathers a namespace's inputs through it,
	// under its ceilings, so that a policy's status says what its gates are
	// served. The operator hands the gate server the same one.
	GateConfig *gateconfig.Builder
	// RequireInjection: the gate server serves only namespaces labelled
	// for injection, so policies elsewhere are reported not Ready.
	RequireInjection bool
}

// SetupWithManager registers every toolgate reconciler with mgr. The manager
// binary and the integration tests both call it, so what is tested is what
// runs.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.GateConfig == nil {
		return errors.New("setting up the controllers: Options.GateConfig is required")
	}
	if err := gateconfig.RegisterIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	c, s := mgr.GetClient(), mgr.GetScheme()
	rec := mgr.GetEventRecorder("toolgate-manager")
	approvers := max(2, opts.RequiredApprovers)
	if err := (&ToolPinReconciler{Client: c, APIReader: mgr.GetAPIReader(), Scheme: s, Recorder: rec, RequiredApprovers: approvers}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ToolPin controller: %w", err)
	}
	if err := (&MCPServerReconciler{Client: c, Scheme: s, Recorder: rec, RequiredApprovers: approvers,
		Concurrency: max(1, opts.ProbeConcurrency), MaxProbeTimeout: opts.MaxProbeTimeout,
		Retention:   lifecycle.Retention{After: opts.RemovedPinRetention, MaxRemoved: opts.MaxRemovedPins},
		ProbeBudget: probe.NewBudget(opts.ProbeMemoryBudget), ProbeMemoryPerServer: opts.ProbeMemoryPerServer,
		ProbeAllowLinkLocal: opts.ProbeAllowLinkLocal}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the MCPServer controller: %w", err)
	}
	if err := (&ToolPolicyReconciler{Client: c, Scheme: s, Recorder: rec, Gates: opts.GateConfig, RequireInjection: opts.RequireInjection}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ToolPolicy controller: %w", err)
	}
	return nil
}
