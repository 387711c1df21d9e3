package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// maxToolName is the longest tool name a ToolPin holds (spec.toolName).
const maxToolName = 128

// secretRefIndex indexes MCPServers by the Secrets and ConfigMaps they read.
const secretRefIndex = "toolgate.dev/references"

// MCPServerReconciler probes MCP servers, judges their catalogues and keeps
// one ToolPin per tool.
type MCPServerReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	// Probe reaches a server; probe.Probe unless a test replaces it.
	Probe func(context.Context, probe.Config) (*probe.Result, error)
	// Now is the clock; time.Now unless a test replaces it.
	Now func() time.Time
	// RequiredApprovers is how many distinct humans approve a tool whose
	// approvalRecommendation is multi.
	RequiredApprovers int
	// ClientVersion is reported to servers in initialize.
	ClientVersion string
	// Concurrency is how many servers are reconciled at once.
	Concurrency int
	// MaxProbeTimeout caps spec.probe.timeout, so that a few servers that
	// answer slowly cannot hold every probe worker for long.
	MaxProbeTimeout time.Duration

	// probed remembers the configuration each server was last probed with,
	// so a change of a referenced Secret triggers a probe before the
	// interval is up. After a restart every server is probed once.
	probed sync.Map // types.NamespacedName → string
}

// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers,verbs=get;list;watch
// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=secrets;configmaps,verbs=get;list;watch
// The secure metrics endpoint authenticates and authorizes its callers.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile probes a server when it is due and brings its status and pins
// in line with what the probe found.
func (r *MCPServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var server toolgatev1alpha1.MCPServer
	if err := r.Get(ctx, req.NamespacedName, &server); err != nil {
		if apierrors.IsNotFound(err) {
			getMetrics().forget(req.Namespace, req.Name)
			r.probed.Delete(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !server.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the pins go with it, by owner reference
	}
	now := r.now()
	interval := 5 * time.Minute
	if server.Spec.Probe.Interval != nil {
		interval = server.Spec.Probe.Interval.Duration
	}
	orig := server.DeepCopy()

	cfg, posture, err := resolveProbe(ctx, r.Client, &server)
	var cerr *configError
	if errors.As(err, &cerr) {
		r.setServerConditions(&server, metav1.ConditionFalse, cerr.reason, cerr.msg, metav1.ConditionUnknown, cerr.reason, "the server was not probed: "+cerr.msg)
		server.Status.ObservedGeneration = server.Generation
		return ctrl.Result{RequeueAfter: interval}, r.patchServer(ctx, orig, &server)
	}
	if err != nil {
		return ctrl.Result{}, err
	}

	digest := configDigest(cfg, server.Generation)
	last := server.Status.LastProbeTime
	prev, seen := r.probed.Load(req.NamespacedName)
	if last != nil && seen && prev == digest && now.Before(last.Add(interval)) {
		return ctrl.Result{RequeueAfter: last.Add(interval).Sub(now)}, nil
	}

	cfg.ClientVersion = r.ClientVersion
	if r.MaxProbeTimeout > 0 && (cfg.Timeout == 0 || cfg.Timeout > r.MaxProbeTimeout) {
		cfg.Timeout = r.MaxProbeTimeout
	}
	m := getMetrics()
	started := time.Now()
	result, err := r.probe(ctx, cfg)
	outcome := toolgatev1alpha1.ReasonProbed
	if err != nil {
		outcome = string(probe.InvalidResponse)
		var perr *probe.Error
		if errors.As(err, &perr) {
			outcome = string(perr.Reason)
		}
	}
	m.probeDuration.WithLabelValues(outcome).Observe(time.Since(started).Seconds())
	m.probes.WithLabelValues(server.Namespace, server.Name, outcome).Inc()
	probeTime := metav1.NewTime(now)
	server.Status.LastProbeTime = &probeTime
	server.Status.ObservedGeneration = server.Generation
	if err != nil {
		var perr *probe.Error
		reason := string(probe.InvalidResponse)
		if errors.As(err, &perr) {
			reason = string(perr.Reason)
		}
		msg := clip(err.Error(), 1024)
		log.Info("probe failed", "reason", reason, "error", msg)
		r.setServerConditions(&server, metav1.ConditionFalse, reason, msg, metav1.ConditionFalse, reason, msg)
		return r.finish(ctx, req, orig, &server, digest, interval)
	}

	report := vet.Vet([]vet.Server{{Name: server.Namespace + "/" + server.Name, Catalogue: result.Catalogue, Posture: posture}})
	reach, err := r.reach(ctx, &server)
	if err != nil {
		return ctrl.Result{}, err
	}
	applyReach(&report, reach)
	server.Status.Reach = bound(reach.findings, 16, 256)
	pins, firstUse, skipped, err := r.syncPins(ctx, &server, result.Catalogue, report, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	m.recordPins(server.Namespace, server.Name, pins)

	st := &server.Status
	st.ServerInfo = &toolgatev1alpha1.ServerInfo{Name: clip(result.ServerName, 256), Version: clip(result.ServerVersion, 128), ProtocolVersion: clip(result.ProtocolVersion, 32)}
	if result.Instructions != "" {
		sum := sha256.Sum256([]byte(result.Instructions))
		st.ServerInfo.InstructionsFingerprint = toolgatev1alpha1.Fingerprint("sha256:" + hex.EncodeToString(sum[:]))
	}
	sr := report.Servers[0]
	st.Risk = &toolgatev1alpha1.ServerRisk{Level: toolgatev1alpha1.Level(sr.Level), Reasons: bound(sr.Reasons, 16, 512)}
	for i, f := range sr.Findings {
		if i == 16 {
			break
		}
		st.Risk.Findings = append(st.Risk.Findings, toolgatev1alpha1.Finding{Signal: clip(f.Signal, 64), Field: clip(f.Field, 512), Excerpt: clip(f.Excerpt, 256)})
	}
	st.ToolCount = int32(len(result.Catalogue.Tools))
	st.Tools = summaries(pins)
	st.HighestLevel = ""
	for _, s := range st.Tools {
		if s.Level > st.HighestLevel {
			st.HighestLevel = s.Level
		}
	}
	counts := map[toolgatev1alpha1.PinState]int{}
	for _, p := range pins {
		counts[p.Status.State]++
	}
	if firstUse > 0 && r.Recorder != nil {
		r.Recorder.Eventf(&server, nil, "Normal", toolgatev1alpha1.ReasonPinnedOnFirstUse, "Pin", "%d new tool(s) trusted on first use", firstUse)
	}
	msg := fmt.Sprintf("%d tools: %d trusted, %d awaiting review, %d rejected", st.ToolCount, counts[toolgatev1alpha1.PinTrusted], counts[toolgatev1alpha1.PinAwaitingReview], counts[toolgatev1alpha1.PinRejected])
	if skipped > 0 {
		msg += fmt.Sprintf("; %d tool(s) withheld because their names are longer than %d bytes", skipped, maxToolName)
	}
	r.setServerConditions(&server, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, msg, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed,
		fmt.Sprintf("%d tools on %d page(s), %d bytes, in %s", st.ToolCount, result.Pages, result.Bytes, result.Duration.Round(time.Millisecond)))
	return r.finish(ctx, req, orig, &server, digest, interval)
}

// finish writes the server's status and, only once that landed, remembers
// the configuration as probed: a pass that failed half-way is probed again
// rather than waiting for the interval.
func (r *MCPServerReconciler) finish(ctx context.Context, req ctrl.Request, orig, server *toolgatev1alpha1.MCPServer, digest string, interval time.Duration) (ctrl.Result, error) {
	if err := r.patchServer(ctx, orig, server); err != nil {
		return ctrl.Result{}, err
	}
	r.probed.Store(req.NamespacedName, digest)
	return ctrl.Result{RequeueAfter: interval}, nil
}

// syncPins creates the pins of new tools and runs every pin of the server
// through the lifecycle. It returns the server's pins as they now are, and
// how many were trusted on first use in this pass, and how many tools have
// a name no pin can hold.
func (r *MCPServerReconciler) syncPins(ctx context.Context, server *toolgatev1alpha1.MCPServer, cat *tooldef.Catalogue, report vet.Report, now time.Time) ([]toolgatev1alpha1.ToolPin, int, int, error) {
	var list toolgatev1alpha1.ToolPinList
	if err := r.List(ctx, &list, client.InNamespace(server.Namespace), client.MatchingFields{serverRefIndex: server.Name}); err != nil {
		return nil, 0, 0, err
	}
	byTool := map[string]*toolgatev1alpha1.ToolPin{}
	untrusted := map[string]string{} // body fingerprint → pin name
	for i := range list.Items {
		p := &list.Items[i]
		byTool[p.Spec.ToolName] = p
		// A definition is untrusted while it awaits review or is rejected,
		// and stays so when its tool disappears unapproved: otherwise
		// removing a tool and offering it again under another name would
		// launder it.
		if lifecycle.Untrusted(p.Status) {
			body := string(p.Status.ObservedBodyFingerprint)
			if body == "" {
				if t, err := tooldef.ParseTool([]byte(p.Status.ObservedDefinition)); err == nil {
					body, _ = t.BodyFingerprint()
				}
			}
			if body != "" {
				untrusted[body] = p.Name
			}
		}
	}
	required := r.RequiredApprovers
	stamp := metav1.NewTime(now)
	var pins []toolgatev1alpha1.ToolPin
	firstUse, skipped := 0, 0
	for i, tool := range cat.Tools {
		if len(tool.Name) > maxToolName {
			// No pin can hold it, so the tool is never exposed; say so.
			skipped++
			continue
		}
		pin := byTool[tool.Name]
		delete(byTool, tool.Name)
		body, _ := tool.BodyFingerprint()
		owner, laundered := untrusted[body]
		toolRisk := toolRisk(report.Tools[i])
		next := func(name string, st toolgatev1alpha1.ToolPinStatus) lifecycle.Output {
			return lifecycle.Next(lifecycle.Input{
				Status: st, Tool: tool, Risk: toolRisk, FirstUse: server.Spec.FirstUse,
				UntrustedBody: laundered && owner != name, RequiredApprovers: required, Now: stamp,
			})
		}
		if pin == nil {
			fresh, err := newPin(server, tool.Name, r.Scheme)
			if err != nil {
				return nil, 0, 0, err
			}
			// Labels are known before the pin exists: creating it with them
			// saves a write per new tool.
			first := next(fresh.Name, toolgatev1alpha1.ToolPinStatus{})
			fresh.Labels[toolgatev1alpha1.LabelState] = string(first.Status.State)
			if first.Status.Risk != nil {
				fresh.Labels[toolgatev1alpha1.LabelLevel] = string(first.Status.Risk.Level)
			}
			if pin, err = createPin(ctx, r.Client, fresh); err != nil {
				return nil, 0, 0, err
			}
		}
		reason, err := r.updatePin(ctx, server, pin, func(st toolgatev1alpha1.ToolPinStatus) lifecycle.Output { return next(pin.Name, st) })
		if reason == toolgatev1alpha1.ReasonPinnedOnFirstUse {
			firstUse++
		}
		if err != nil {
			return nil, 0, 0, err
		}
		pins = append(pins, *pin)
	}
	// Pins whose tool is gone.
	gone := make([]string, 0, len(byTool))
	for name := range byTool {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		pin := byTool[name]
		_, err := r.updatePin(ctx, server, pin, func(st toolgatev1alpha1.ToolPinStatus) lifecycle.Output {
			return lifecycle.Next(lifecycle.Input{Status: st, Tool: nil, Now: stamp})
		})
		if err != nil {
			return nil, 0, 0, err
		}
		pins = append(pins, *pin)
	}
	return pins, firstUse, skipped, nil
}

// updatePin runs one lifecycle step on a pin and writes it. On a conflict
// (the ToolPin reconciler or an approver wrote the pin meanwhile) it reads
// the pin again and decides again on the fresh status, so no decision is
// lost and the probe's observation still lands.
func (r *MCPServerReconciler) updatePin(ctx context.Context, server *toolgatev1alpha1.MCPServer, pin *toolgatev1alpha1.ToolPin, next func(toolgatev1alpha1.ToolPinStatus) lifecycle.Output) (string, error) {
	first := true
	var reason string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			if err := r.Get(ctx, client.ObjectKeyFromObject(pin), pin); err != nil {
				return err
			}
		}
		first = false
		out := next(pin.Status)
		reason = out.Reason
		return writePin(ctx, r.Client, r.Recorder, server, pin, out)
	})
	return reason, err
}

func (r *MCPServerReconciler) setServerConditions(s *toolgatev1alpha1.MCPServer, ready metav1.ConditionStatus, readyReason, readyMsg string, reach metav1.ConditionStatus, reachReason, reachMsg string) {
	for _, c := range []metav1.Condition{
		{Type: toolgatev1alpha1.ConditionReady, Status: ready, Reason: readyReason, Message: clip(readyMsg, 1024), ObservedGeneration: s.Generation},
		{Type: toolgatev1alpha1.ConditionReachable, Status: reach, Reason: reachReason, Message: clip(reachMsg, 1024), ObservedGeneration: s.Generation},
	} {
		old := meta.FindStatusCondition(s.Status.Conditions, c.Type)
		if r.Recorder != nil && c.Type == toolgatev1alpha1.ConditionReady && (old == nil || old.Status != c.Status || old.Reason != c.Reason) {
			kind := "Normal"
			if c.Status == metav1.ConditionFalse {
				kind = "Warning"
			}
			r.Recorder.Eventf(s, nil, kind, c.Reason, "Probe", "%s", c.Message)
		}
		meta.SetStatusCondition(&s.Status.Conditions, c)
	}
}

func (r *MCPServerReconciler) patchServer(ctx context.Context, orig, s *toolgatev1alpha1.MCPServer) error {
	return patchStatusIfChanged(ctx, r.Client, orig, s, orig.Status, s.Status)
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

// configDigest identifies what a probe was made with: endpoint, headers,
// TLS roots and the spec generation.
func configDigest(cfg probe.Config, generation int64) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d\n", cfg.URL, cfg.Transport, generation)
	keys := make([]string, 0, len(cfg.Header))
	for k := range cfg.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%q\n", k, cfg.Header[k])
	}
	if cfg.TLS != nil {
		fmt.Fprintf(h, "tls %s %v\n", cfg.TLS.ServerName, cfg.TLS.RootCAs != nil)
		if cfg.TLS.RootCAs != nil {
			// Subjects is enough to notice a changed CA bundle.
			for _, s := range cfg.TLS.RootCAs.Subjects() {
				h.Write(s)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// references lists the Secrets and ConfigMaps an MCPServer reads.
func references(o client.Object) []string {
	s := o.(*toolgatev1alpha1.MCPServer)
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

// SetupWithManager registers the reconciler with the manager.
func (r *MCPServerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	ctx := context.Background()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &toolgatev1alpha1.MCPServer{}, secretRefIndex, references); err != nil {
		return err
	}
	serversFor := func(kind string) handler.MapFunc {
		return func(ctx context.Context, o client.Object) []reconcile.Request {
			var list toolgatev1alpha1.MCPServerList
			if err := mgr.GetClient().List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{secretRefIndex: kind + "/" + o.GetName()}); err != nil {
				return nil
			}
			reqs := make([]reconcile.Request, len(list.Items))
			for i, s := range list.Items {
				reqs[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}}
			}
			return reqs
		}
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&toolgatev1alpha1.MCPServer{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(serversFor("secret"))).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(serversFor("configmap"))).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, r.Concurrency)}).
		Named("mcpserver").
		Complete(r)
}
