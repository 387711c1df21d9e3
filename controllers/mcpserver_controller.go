package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/bypass"
	"github.com/toolgate/toolgate/internal/gateconfig"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/pinwriter"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/internal/serverstatus"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// MCPServerReconciler probes MCP servers, judges their catalogues and keeps
// one ToolPin per tool.
type MCPServerReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	// Probe reaches a server; probe.Probe unless a test replaces it.
	Probe func(context.Context, probe.Config) (*probe.Result, error)
	// Anonymous reaches a server without its credentials, to tell whether
	// agents could call it around their gate; probe.Anonymous unless a
	// test replaces it.
	Anonymous func(context.Context, probe.Config) (*probe.AnonymousResult, error)
	// Now is the clock; time.Now unless a test replaces it.
	Now func() time.Time
	// RequiredApprovers is how many distinct humans approve a tool whose
	// approvalRecommendation is multi.
	RequiredApprovers int
	// Concurrency is how many servers are probed at once.
	Concurrency int
	// MaxProbeTimeout caps spec.probe.timeout, so that a few servers that
	// answer slowly cannot hold every probe worker for long.
	MaxProbeTimeout time.Duration
	// Retention says when the pins of tools gone from a server are deleted.
	Retention lifecycle.Retention
	// ProbeBudget is the memory shared by every probe of the operator;
	// nil is unlimited.
	ProbeBudget *probe.Budget
	// ProbeMemoryPerServer caps one probe's decoded catalogue; zero keeps
	// the default.
	ProbeMemoryPerServer int64
	// ProbeAllowLinkLocal lets probes reach link-local and metadata
	// addresses.
	ProbeAllowLinkLocal bool

	// runner runs probes apart from the reconcile workers; nil probes in
	// place.
	runner *probeRunner

	// probed remembers the configuration each server was last probed with,
	// so a change of a referenced Secret triggers a probe before the
	// interval is up. After a restart every server is probed once.
	probed sync.Map // types.NamespacedName → string

	// bypassChecked remembers each server's last check without
	// credentials, so that it is made once per configuration, while it
	// cannot tell, and hourly (bypass.Due), rather than at every probe.
	// After a restart every server is checked once.
	bypassChecked sync.Map // types.NamespacedName → bypass.Mark
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=secrets;configmaps,verbs=get;list;watch
// The secure metrics endpoint authenticates and authorizes its callers.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile probes a server when it is due and brings its status and pins
// in line with what the probe found: Get, gather the pass's inputs, decide
// the status (serverstatus.Next), one status patch, then the events.
func (r *MCPServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var server toolgatev1alpha1.MCPServer
	if err := r.Get(ctx, req.NamespacedName, &server); err != nil {
		if apierrors.IsNotFound(err) {
			getMetrics().forget(req.Namespace, req.Name)
			r.probed.Delete(req.NamespacedName)
			r.bypassChecked.Delete(req.NamespacedName)
			if r.runner != nil {
				r.runner.forget(req.NamespacedName)
			}
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !server.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // its pins stay, with their record (ToolPin controller)
	}
	interval := serverstatus.Interval(server.Spec.Probe)

	p, err := r.gather(ctx, &server, interval)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !p.due {
		getMetrics().recordConditions(server.Namespace, server.Name, server.Status.Conditions)
		return ctrl.Result{RequeueAfter: p.wait}, nil
	}

	orig := server.DeepCopy()
	status, calledFor := serverstatus.Next(server.Status, p.input)
	server.Status = status
	if err := patchStatusIfChanged(ctx, r.Client, orig, &server, orig.Status, server.Status); err != nil {
		return ctrl.Result{}, err
	}
	getMetrics().recordConditions(server.Namespace, server.Name, server.Status.Conditions)
	r.emit(&server, calledFor)
	// Remembered only once the status landed: a pass that failed half-way
	// is probed again rather than waiting for the interval.
	if p.digest != "" {
		r.probed.Store(req.NamespacedName, p.digest)
	}
	if p.bypassMark != nil {
		r.bypassChecked.Store(req.NamespacedName, *p.bypassMark)
	}
	if p.retry != nil {
		return ctrl.Result{}, p.retry
	}
	return ctrl.Result{RequeueAfter: serverstatus.Wait(server.Status, interval)}, nil
}

// pass is what one reconcile gathered about a server.
type pass struct {
	// due is false when the server is not to be probed yet; wait says for
	// how long.
	due  bool
	wait time.Duration
	// input is what serverstatus.Next decides on.
	input serverstatus.Input
	// digest identifies the configuration probed; empty when none was, or
	// when the pass must be made again.
	digest string
	// retry, when set, is returned once the status has landed, so that the
	// queue retries the pass with backoff.
	retry error
	// bypassMark, when set, is the check without credentials this pass
	// made, remembered once the status has landed.
	bypassMark *bypass.Mark
}

// gather resolves what the server references, decides whether it is due,
// probes it, judges the catalogue with what its identity may reach, and
// brings its pins in line.
func (r *MCPServerReconciler) gather(ctx context.Context, server *toolgatev1alpha1.MCPServer, interval time.Duration) (pass, error) {
	now := r.now()
	p := pass{due: true, input: serverstatus.Input{Generation: server.Generation, Now: now}}

	cfg, posture, err := resolveProbe(ctx, r.Client, server)
	var cerr *gateconfig.ConfigError
	if errors.As(err, &cerr) {
		p.input.Misconfigured = &serverstatus.Failure{Reason: cerr.Reason, Message: cerr.Message}
		// Without spec.auth there is nothing to withhold, however the rest
		// resolves; with it, there is nothing to check with.
		c := bypass.NotChecked(server.Generation, cerr.Message)
		if server.Spec.Auth == nil {
			c = bypass.Decide(bypass.Input{Generation: server.Generation})
		}
		p.input.GateBypass = &c
		return p, nil
	}
	if err != nil {
		return p, err
	}

	// Whether agents run beside the server is part of the digest: the
	// namespace watch brings a label change here, and the digest makes the
	// pass due so that GateBypassable is decided again at once.
	agents, nsErr := r.agentsRunIn(ctx, server.Namespace)
	digest := serverstatus.ConfigDigest(cfg, server.Generation, agents)
	prev, seen := r.probed.Load(client.ObjectKeyFromObject(server))
	if p.due, p.wait = serverstatus.Due(server.Status.LastProbeTime, serverstatus.Wait(server.Status, interval), seen && prev == digest, now); !p.due {
		return p, nil
	}
	p.digest = digest

	// The credentials the gate is given: none, and the server is
	// bypassable without a probe; some, and the server is checked without
	// them when a check is due (bypass.Due), in the probe's slot.
	credentials := len(cfg.Header)
	check := false
	if nsErr != nil {
		logf.FromContext(ctx).Info("cannot tell whether agents run in the server's namespace; the bypass check waits", "error", nsErr.Error())
	}
	switch {
	case credentials == 0:
		c := bypass.Decide(bypass.Input{Generation: server.Generation})
		p.input.GateBypass = &c
	case agents:
		// The credentials' Secret sits beside the agents: whoever may read
		// Secrets there holds what the gate holds, whatever the server
		// answers without them.
		c := bypass.Decide(bypass.Input{Generation: server.Generation, Credentials: credentials, AgentNamespace: server.Namespace})
		p.input.GateBypass = &c
	case nsErr == nil:
		var last *bypass.Mark
		if v, ok := r.bypassChecked.Load(client.ObjectKeyFromObject(server)); ok {
			m := v.(bypass.Mark)
			last = &m
		}
		check = bypass.Due(last, digest, now)
	}

	cfg.Budget, cfg.AllowLinkLocal = r.ProbeBudget, r.ProbeAllowLinkLocal
	if r.ProbeMemoryPerServer > 0 {
		cfg.Limits.MaxDecodedBytes = r.ProbeMemoryPerServer
	}
	if r.MaxProbeTimeout > 0 && (cfg.Timeout == 0 || cfg.Timeout > r.MaxProbeTimeout) {
		cfg.Timeout = r.MaxProbeTimeout
	}
	outcome, running := r.runProbe(ctx, server, digest, cfg, check)
	if running != nil {
		return *running, nil
	}
	if a := outcome.anonymous; a != nil {
		c := bypass.Decide(bypass.Input{Generation: server.Generation, Credentials: credentials, Result: a.result, Err: a.err})
		p.input.GateBypass = &c
		p.bypassMark = &bypass.Mark{Digest: digest, At: now, Concluded: bypass.Concluded(c)}
	}
	result, err := outcome.result, outcome.err
	if err != nil {
		p.input.ProbeFailed = serverstatus.ProbeFailure(err)
		logf.FromContext(ctx).Info("probe failed", "reason", p.input.ProbeFailed.Reason, "error", p.input.ProbeFailed.Message)
		return p, nil
	}

	reach, err := r.reach(ctx, server)
	if err != nil {
		return p, err
	}
	posture.Reach = reach
	report := vet.Vet([]vet.Server{{Name: server.Namespace + "/" + server.Name, Catalogue: result.Catalogue, Posture: posture}})
	synced, err := r.syncPins(ctx, server, result.Catalogue, report, lifecycle.Origin(cfg.URL), now)
	if err != nil {
		return p, err
	}
	tally := serverstatus.Count(synced.pins)
	getMetrics().recordPins(server.Namespace, server.Name, tally)
	p.input.Probed = &serverstatus.Catalogue{
		Result: result, Server: report.Servers[0], Reach: reach.Findings, Pins: tally,
		TrustedOnFirstUse: synced.trustedOnFirstUse, Unpinnable: synced.unpinnable, PinFailures: synced.failures,
	}
	if len(synced.failures) > 0 {
		getMetrics().pinWriteFailures.WithLabelValues(server.Namespace, server.Name).Add(float64(len(synced.failures)))
		// Probed again, with backoff, rather than after the interval.
		p.digest, p.retry = "", fmt.Errorf("%d of the server's pins could not be written", len(synced.failures))
	}
	return p, nil
}

// runProbe probes the server, and checks it without its credentials when
// check is set. Under the manager the probe runs in the background
// (probeRunner): until its outcome is in, runProbe returns the pass to end
// with — not due, and looked at again when the probe finishes or, failing
// that, after the probe's timeout. A reconciler made without
// SetupWithManager, as in tests, probes in place.
func (r *MCPServerReconciler) runProbe(ctx context.Context, server *toolgatev1alpha1.MCPServer, digest string, cfg probe.Config, check bool) (probeOutcome, *pass) {
	measure := func(err error, took time.Duration) {
		outcome := toolgatev1alpha1.ReasonProbed
		if err != nil {
			outcome = string(probe.ReasonOf(err))
		}
		m := getMetrics()
		m.probeDuration.WithLabelValues(outcome).Observe(took.Seconds())
		m.probes.WithLabelValues(server.Namespace, server.Name, outcome).Inc()
	}
	if r.runner == nil {
		started := time.Now()
		out := probeAndCheck(ctx, cfg, check, r.probe, r.anonymous)
		measure(out.err, time.Since(started))
		return out, nil
	}
	// A server whose last probe ran out of time takes the slow lane.
	slow := false
	if c := meta.FindStatusCondition(server.Status.Conditions, toolgatev1alpha1.ConditionReachable); c != nil && c.Reason == toolgatev1alpha1.ReasonTimeout {
		slow = true
	}
	state, out := r.runner.poll(client.ObjectKeyFromObject(server), digest, cfg, slow, check, measure)
	switch state {
	case probeRunning:
		timeout := cmp.Or(cfg.Timeout, toolgatev1alpha1.DefaultProbeTimeout)
		return probeOutcome{}, &pass{due: false, wait: timeout + 10*time.Second}
	case probeNoSlot:
		return probeOutcome{}, &pass{due: false, wait: noSlotRetry}
	}
	return out, nil
}

// reconcileWorkers is how many servers are reconciled at once. Probes run
// apart (Concurrency bounds them); what a worker does — judging a
// catalogue, writing pins and status — does not wait on a server.
const reconcileWorkers = 4

// noSlotRetry is how soon a server whose lane is full is tried again.
const noSlotRetry = 3 * time.Second

// pinSync is what syncPins did.
type pinSync struct {
	// pins are the server's pins as they now are.
	pins []toolgatev1alpha1.ToolPin
	// trustedOnFirstUse counts the tools pinned in this pass.
	trustedOnFirstUse int
	// unpinnable counts the tools whose names no pin can hold.
	unpinnable int
	// failures are the tools whose pins could not be written.
	failures []serverstatus.PinFailure
}

// syncPins creates the pins of new tools, runs every pin of the server
// through the lifecycle with the tool's new judgement, and marks the pins
// of tools that are gone.
func (r *MCPServerReconciler) syncPins(ctx context.Context, server *toolgatev1alpha1.MCPServer, cat *tooldef.Catalogue, report vet.Report, origin string, now time.Time) (pinSync, error) {
	var list toolgatev1alpha1.ToolPinList
	if err := r.List(ctx, &list, client.InNamespace(server.Namespace), client.MatchingFields{gateconfig.PinServerIndex: server.Name}); err != nil {
		return pinSync{}, err
	}
	byTool := map[string]*toolgatev1alpha1.ToolPin{}
	for i := range list.Items {
		byTool[list.Items[i].Spec.ToolName] = &list.Items[i]
	}
	untrusted := untrustedDefinitions(list.Items)
	stamp := metav1.NewTime(now)
	// A tool that disappears in this probe while another appears may be a
	// rename: the new one is reviewed rather than trusted on first use.
	offered := make(map[string]bool, len(cat.Tools))
	for _, tool := range cat.Tools {
		offered[tool.Name] = true
	}
	disappearing := false
	for name, pin := range byTool {
		if !offered[name] && pin.Status.State != "" && pin.Status.State != toolgatev1alpha1.PinRemoved {
			disappearing = true
		}
	}

	pins := pinwriter.Writer{Client: r.Client, Recorder: r.Recorder, Related: server}
	var out pinSync
	for i, tool := range cat.Tools {
		if len(tool.Name) > toolgatev1alpha1.MaxToolNameLength {
			out.unpinnable++ // no pin can hold it, so it is never exposed
			continue
		}
		pin := byTool[tool.Name]
		delete(byTool, tool.Name)
		holders := untrusted.holders(tool)
		observed := func(name string) pinrecord.Observed {
			delete(holders, name) // a pin is no copy of itself
			return pinrecord.Observed{
				Tool: tool, Risk: verdict.ToolRisk(report.Tools[i]), FirstUse: server.Spec.FirstUse, UntrustedBody: len(holders) > 0,
				ReplacesRemoved: disappearing, Origin: origin, RequiredApprovers: r.RequiredApprovers,
			}
		}
		// A write that fails is reported and the pass goes on: one tool that
		// cannot be recorded must not stop the others' rug pulls from being.
		if pin == nil {
			created, err := r.createPin(ctx, server, tool.Name, observed, stamp)
			if err != nil {
				out.failures = append(out.failures, serverstatus.PinFailure{Tool: tool.Name, Message: err.Error()})
				continue
			}
			pin = created
		}
		// On a conflict (the ToolPin reconciler, a gate server or an
		// approver wrote the pin meanwhile) the writer reads the pin again
		// and decides again on the fresh status, so no decision is lost and
		// the probe's observation still lands.
		res, err := pins.Write(ctx, pin, observed(pin.Name), stamp)
		if res.Reason == toolgatev1alpha1.ReasonPinnedOnFirstUse && err == nil {
			out.trustedOnFirstUse++
		}
		if err != nil {
			out.failures = append(out.failures, serverstatus.PinFailure{Tool: tool.Name, Message: err.Error()})
		}
		out.pins = append(out.pins, *pin)
	}

	gone := make([]string, 0, len(byTool))
	for name := range byTool {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		pin := byTool[name]
		if _, err := pins.Write(ctx, pin, pinrecord.Gone{}, stamp); err != nil {
			out.failures = append(out.failures, serverstatus.PinFailure{Tool: name, Message: err.Error()})
		}
		out.pins = append(out.pins, *pin)
	}
	out.pins, out.failures = r.deleteExpired(ctx, out.pins, now, out.failures)
	return out, nil
}

// deleteExpired deletes the removed pins the retention lets go, and returns
// the pins that remain. A pin is deleted only as it was read: if anyone
// wrote it since (a decision, say), the delete fails and it stays.
func (r *MCPServerReconciler) deleteExpired(ctx context.Context, pins []toolgatev1alpha1.ToolPin, now time.Time, failures []serverstatus.PinFailure) ([]toolgatev1alpha1.ToolPin, []serverstatus.PinFailure) {
	expired := map[string]bool{}
	for _, name := range lifecycle.Expired(pins, now, r.Retention) {
		expired[name] = true
	}
	if len(expired) == 0 {
		return pins, failures
	}
	kept := pins[:0]
	for _, p := range pins {
		if !expired[p.Name] {
			kept = append(kept, p)
			continue
		}
		uid, version := p.UID, p.ResourceVersion
		err := r.Delete(ctx, &p, client.Preconditions{UID: &uid, ResourceVersion: &version})
		switch {
		case err == nil || apierrors.IsNotFound(err):
			logf.FromContext(ctx).V(1).Info("deleted the pin of a removed tool", "pin", p.Name, "tool", p.Spec.ToolName)
		case apierrors.IsConflict(err):
			kept = append(kept, p) // written meanwhile: judged again next pass
		default:
			kept = append(kept, p)
			failures = append(failures, serverstatus.PinFailure{Tool: p.Spec.ToolName, Message: fmt.Sprintf("deleting the pin of a removed tool: %v", err)})
		}
	}
	return kept, failures
}

// untrusted are the definitions of a server's pins that nobody trusts:
// awaiting review or rejected, or gone from the catalogue unapproved. A
// definition stays untrusted when its tool disappears: otherwise removing
// a tool and offering it again under another name would launder it.
type untrusted struct {
	// bodies maps the body fingerprint (the definition without its name)
	// to the pins that hold it.
	bodies map[string][]string
	// tools are the untrusted definitions that could be parsed back, for
	// near copies.
	tools []untrustedTool
}

type untrustedTool struct {
	pin  string
	tool *tooldef.Tool
}

func untrustedDefinitions(pins []toolgatev1alpha1.ToolPin) untrusted {
	u := untrusted{bodies: map[string][]string{}}
	for _, p := range pins {
		if !lifecycle.Untrusted(p.Status) {
			continue
		}
		parsed, _ := tooldef.ParseTool([]byte(p.Status.ObservedDefinitionOrPinned()))
		body := string(p.Status.ObservedBodyFingerprint)
		if body == "" && parsed != nil {
			body, _ = parsed.BodyFingerprint()
		}
		if body != "" {
			u.bodies[body] = append(u.bodies[body], p.Name)
		}
		if parsed != nil {
			u.tools = append(u.tools, untrustedTool{pin: p.Name, tool: parsed})
		}
	}
	return u
}

// holders are the pins whose untrusted definition the tool equals, apart
// from its name, or nearly copies.
func (u untrusted) holders(tool *tooldef.Tool) map[string]bool {
	out := map[string]bool{}
	if body, err := tool.BodyFingerprint(); err == nil {
		for _, pin := range u.bodies[body] {
			out[pin] = true
		}
	}
	for _, t := range u.tools {
		if !out[t.pin] && t.tool.Name != tool.Name && tooldef.NearCopy(t.tool, tool) {
			out[t.pin] = true
		}
	}
	return out
}

// createPin creates the pin of a new tool with the labels of its first
// decision (known before the pin exists, which saves a write per new
// tool), or returns the pin that already holds its name. A name held by
// another tool's pin — a hash collision, or a pin someone else made —
// sends it to the next candidate name: pins are found by their spec, so
// any name serves, and no outsider can block a tool by taking its name.
func (r *MCPServerReconciler) createPin(ctx context.Context, server *toolgatev1alpha1.MCPServer, tool string, observed func(string) pinrecord.Observed, now metav1.Time) (*toolgatev1alpha1.ToolPin, error) {
	var err error
	for attempt := range lifecycle.PinNameCandidates {
		var pin *toolgatev1alpha1.ToolPin
		fresh := newPin(server, tool, lifecycle.PinNameCandidate(server.Name, tool, attempt))
		fresh.Labels = pinrecord.Decide(fresh, observed(fresh.Name), now).Labels
		if pin, err = createPin(ctx, r.Client, fresh); !errors.Is(err, errNameHeld) {
			return pin, err
		}
	}
	return nil, fmt.Errorf("all %d names a pin of %q may take are held by pins of other tools: %w", lifecycle.PinNameCandidates, tool, err)
}

// emit records the events a pass called for, once its status landed.
func (r *MCPServerReconciler) emit(server *toolgatev1alpha1.MCPServer, calledFor []serverstatus.Event) {
	if r.Recorder == nil {
		return
	}
	for _, e := range calledFor {
		r.Recorder.Eventf(server, nil, e.Type, e.Reason, e.Action, "%s", e.Message)
	}
}

func (r *MCPServerReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *MCPServerReconciler) probe(ctx context.Context, cfg probe.Config) (*probe.Result, error) {
	if r.Probe != nil {
		return r.Probe(ctx, cfg)
	}
	return probe.Probe(ctx, cfg)
}

func (r *MCPServerReconciler) anonymous(ctx context.Context, cfg probe.Config) (*probe.AnonymousResult, error) {
	if r.Anonymous != nil {
		return r.Anonymous(ctx, cfg)
	}
	return probe.Anonymous(ctx, cfg)
}

// SetupWithManager registers the reconciler with the manager. The field
// indexes it uses are registered by gateconfig.RegisterIndexes.
func (r *MCPServerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	serversFor := func(kind string) handler.MapFunc {
		return func(ctx context.Context, o client.Object) []reconcile.Request {
			var list toolgatev1alpha1.MCPServerList
			if err := mgr.GetClient().List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{gateconfig.ServerReferenceIndex: kind + "/" + o.GetName()}); err != nil {
				return nil
			}
			reqs := make([]reconcile.Request, len(list.Items))
			for i, s := range list.Items {
				reqs[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}}
			}
			return reqs
		}
	}
	r.runner = newProbeRunner(r.Concurrency, r.probe, r.anonymous)
	if err := mgr.Add(r.runner); err != nil {
		return err
	}
	// A namespace labelled for injection, or no longer, changes whether its
	// servers' credentials sit beside agents: every server there is looked
	// at again (ConfigDigest makes it due).
	namespaces := source.Kind(mgr.GetCache(), &corev1.Namespace{},
		handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, ns *corev1.Namespace) []reconcile.Request {
			var list toolgatev1alpha1.MCPServerList
			if err := mgr.GetClient().List(ctx, &list, client.InNamespace(ns.Name)); err != nil {
				return nil
			}
			reqs := make([]reconcile.Request, len(list.Items))
			for i, s := range list.Items {
				reqs[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)}
			}
			return reqs
		}),
		predicate.TypedFuncs[*corev1.Namespace]{
			UpdateFunc: func(e event.TypedUpdateEvent[*corev1.Namespace]) bool {
				return agentsBeside(e.ObjectOld) != agentsBeside(e.ObjectNew)
			},
		})
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.MCPServer{}).
		WatchesRawSource(source.Channel(r.runner.done, &handler.EnqueueRequestForObject{})).
		WatchesRawSource(namespaces).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(serversFor("secret"))).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(serversFor("configmap"))).
		WithOptions(controller.Options{MaxConcurrentReconciles: reconcileWorkers}).
		Named("mcpserver").
		Complete(r)
}

// agentsRunIn reports whether namespace is one where agents run behind the
// gate (labelled toolgate.dev/injection=enabled). A namespace that does not
// exist runs none.
func (r *MCPServerReconciler) agentsRunIn(ctx context.Context, namespace string) (bool, error) {
	var ns corev1.Namespace
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, &ns); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return agentsBeside(&ns), nil
}

// agentsBeside reports whether agents run behind the gate in ns.
func agentsBeside(ns *corev1.Namespace) bool {
	return ns.Labels[toolgatev1alpha1.LabelInjection] == toolgatev1alpha1.InjectionEnabled
}
