package gateserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/pinwriter"
	"github.com/toolgate/toolgate/pkg/clip"
)

// The gate server records pending calls on the ToolPins (through
// pinwriter.Writer, which keeps the labels too), and marks each with an
// Event.
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=toolgate.dev,resources=toolpins/status,verbs=get;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// DefaultApprovalTimeout is how long a call waits when the configuration
// names no timeout.
const DefaultApprovalTimeout = 5 * time.Minute

// resolveTimeout bounds recording a call's end, which runs after the
// gate's request may be gone. Another writer of the pin resolves the call
// only past the grace that leaves its holder this bound
// (lifecycle.CallExpiryGrace).
const resolveTimeout = lifecycle.CallResolveBound

// PinChanged tells the calls waiting on the ToolPin namespace/name that it
// changed in the cache. It never blocks: the informer handler that calls
// it must not wait on gates.
func (s *Server) PinChanged(namespace, name string) {
	key := namespace + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.waiters[key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (s *Server) watchPin(key string) chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiters[key] == nil {
		s.waiters[key] = map[chan struct{}]struct{}{}
	}
	s.waiters[key][ch] = struct{}{}
	return ch
}

func (s *Server) unwatchPin(key string, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters[key], ch)
	if len(s.waiters[key]) == 0 {
		delete(s.waiters, key)
	}
}

// serveCall opens a pending call for an authenticated gate, holds the
// request open with heartbeats while a human decides, and answers with the
// outcome. What the gate says is checked against the pod's own
// configuration, built here from the cache: a gate can only hold a call
// to a tool its configuration gates, at the fingerprint it gates. The
// agent's identity is the token's.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "a pending call is opened with POST", http.StatusMethodNotAllowed)
		return
	}
	if s.o.Pins == nil {
		http.Error(w, "pending calls are not served by this operator", http.StatusNotImplemented)
		return
	}
	authCtx, cancel := context.WithTimeout(r.Context(), reviewTimeout)
	id, pod, ref := s.authenticate(authCtx, r)
	cancel()
	if ref != nil {
		s.refuse(w, r, id, ref)
		return
	}
	log := s.log.WithValues("namespace", id.Namespace, "pod", id.Pod)
	if full := s.callRates.allow(id.Namespace, string(id.PodUID), time.Now()); full != "" {
		log.Info("refused a call: opened too fast", "by", full)
		http.Error(w, fmt.Sprintf("this %s opens calls faster than a person can decide them (%v a second, bursts of %d, per pod; %d times that per namespace): wait",
			full, s.o.CallsPerSecond, s.o.CallBurst, CallRateScale), http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, gateproto.MaxCallRequestBytes+1))
	if err != nil {
		http.Error(w, "reading the call failed", http.StatusBadRequest)
		return
	}
	if len(body) > gateproto.MaxCallRequestBytes {
		http.Error(w, fmt.Sprintf("a call request is at most %d bytes", gateproto.MaxCallRequestBytes), http.StatusRequestEntityTooLarge)
		return
	}
	var req gateproto.CallRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "the call is not JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := req.Validate(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b, err := s.build(r.Context(), pod, id)
	if err != nil {
		log.Error(err, "building a gate's configuration for a call")
		http.Error(w, "the operator could not build this pod's configuration", http.StatusServiceUnavailable)
		return
	}
	cfg := b.cfg
	if why := gated(cfg, &req); why != "" {
		s.metrics.calls.WithLabelValues("refused").Inc()
		log.Info("refused a pending call: "+why, "server", req.Server, "tool", req.Tool, "callID", req.CallID)
		http.Error(w, why, http.StatusForbidden)
		return
	}
	timeout := cfg.ApprovalTimeout.Duration
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	pinNS, _, _ := gateproto.SplitServerID(req.Server)
	key := client.ObjectKey{Namespace: pinNS, Name: req.Pin}

	// Watch before writing, so that no decision can land between the write
	// and the watch unseen.
	notify := s.watchPin(key.String())
	defer s.unwatchPin(key.String(), notify)
	now := time.Now().UTC().Truncate(time.Second)
	call := toolgatev1alpha1.PendingCall{
		ID:              req.CallID,
		Fingerprint:     toolgatev1alpha1.Fingerprint(req.Fingerprint),
		Agent:           toolgatev1alpha1.AgentIdentity{Namespace: id.Namespace, Pod: id.Pod, ServiceAccount: id.ServiceAccount},
		ArgumentsDigest: toolgatev1alpha1.Fingerprint(req.ArgumentsDigest),
		Arguments:       clip.String(req.ArgumentsPreview, toolgatev1alpha1.MaxCallPreviewLength),
		// The gate's word, and nothing cut here.
		ArgumentsComplete: req.ArgumentsComplete && len(req.ArgumentsPreview) <= toolgatev1alpha1.MaxCallPreviewLength,
		RequestedTime:     metav1.NewTime(now),
		// Whole seconds up: the call never expires before its timeout.
		ExpiryTime: metav1.NewTime(now.Add(timeout + time.Second)),
	}
	if req.Kind == gateproto.CallKindCall {
		call.HeldBy = heldByOf(req.HeldBy)
		call.Rule, call.Level = req.Rule, toolgatev1alpha1.Level(req.Level)
		call.Reason = clip.String(req.Reason, toolgatev1alpha1.MaxCallReasonLength)
	}
	if req.Kind == gateproto.CallKindResult {
		call.Kind, call.ResultDigest, call.Findings = toolgatev1alpha1.CallKindResult, toolgatev1alpha1.Fingerprint(req.ResultDigest), findingsOf(req.Findings)
	}
	// Counted as waiting from before the write, so that whoever sees the
	// call on the pin sees it counted.
	opened := time.Now()
	stopWaiting := s.metrics.waiting.open(opened)
	defer stopWaiting()
	if status, err := s.openCall(r.Context(), key, call); err != nil {
		s.metrics.calls.WithLabelValues("refused").Inc()
		log.Info("could not open a pending call", "pin", key.String(), "callID", req.CallID, "error", err.Error())
		http.Error(w, err.Error(), status)
		return
	}
	s.metrics.calls.WithLabelValues("opened").Inc()
	if req.Kind == gateproto.CallKindResult {
		log.Info("result held", "pin", key.String(), "tool", req.Tool, "callID", req.CallID, "resultDigest", req.ResultDigest, "signals", signalsOf(req.Findings))
	} else {
		log.Info("call pending", "pin", key.String(), "tool", req.Tool, "callID", req.CallID, "argumentsDigest", req.ArgumentsDigest)
	}

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", gateproto.StreamContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	send := func(f gateproto.Frame) error { return s.writeFrame(w, rc, f) }

	outcome, ok := s.waitCall(r.Context(), key, &call, notify, send)
	if !ok {
		// The gate gave up first (its agent did, or it went away): the
		// call is withdrawn for good, so that no approval can reach a
		// gate that no longer waits for it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), resolveTimeout)
		defer cancel()
		if _, err := s.resolveCall(ctx, key, call.ID, toolgatev1alpha1.CallWithdrawn); err != nil {
			log.Error(err, "recording a withdrawn call", "pin", key.String(), "callID", call.ID)
		}
		s.metrics.calls.WithLabelValues("withdrawn").Inc()
		s.metrics.waited.WithLabelValues("withdrawn").Observe(time.Since(opened).Seconds())
		log.Info("call withdrawn", "pin", key.String(), "callID", call.ID)
		return
	}
	verdict := strings.ToLower(string(outcome.Verdict))
	s.metrics.calls.WithLabelValues(verdict).Inc()
	s.metrics.waited.WithLabelValues(verdict).Observe(time.Since(opened).Seconds())
	if err := send(gateproto.Frame{Type: gateproto.FrameCallOutcome, Outcome: &outcome}); err != nil {
		log.Info("the gate went before its call's outcome reached it", "callID", call.ID, "error", err.Error())
	}
}

// gated says why the pod's configuration does not let it hold req, or ""
// when it does: for a call, the configuration must hold it for the reason
// the gate gives (heldByConfig); for a result, the tool's ResultAction must be Hold (whatever its
// decision: a result comes only from a call the gate let through); either
// with the same pin and fingerprint.
func gated(cfg *gateproto.Config, req *gateproto.CallRequest) string {
	srv := cfg.Server(req.Server)
	if srv == nil || !srv.Ready {
		return "this pod's configuration does not serve " + req.Server
	}
	for i := range srv.Tools {
		t := &srv.Tools[i]
		if t.Name != req.Tool {
			continue
		}
		if req.Kind != gateproto.CallKindResult {
			if why := heldByConfig(cfg, t, req); why != "" {
				return why
			}
		}
		switch {
		case req.Kind == gateproto.CallKindResult && t.ResultAction.OrRecord() != gateproto.FindingHold:
			return fmt.Sprintf("tool %q's results are not held in this pod's configuration: its resultAction is %s, not %s",
				req.Tool, t.ResultAction.OrRecord(), gateproto.FindingHold)
		case req.Kind == gateproto.CallKindResult && t.Decision == gateproto.DecisionWithheld && (cfg.Mode != gateproto.ModeAudit || !t.AuditForwardable):
			return fmt.Sprintf("tool %q is %s in this pod's configuration: it has no result to hold", req.Tool, t.Decision)
		case t.Pin != req.Pin:
			return fmt.Sprintf("tool %q is pinned by %s, not %s", req.Tool, t.Pin, req.Pin)
		case t.Fingerprint != req.Fingerprint:
			return fmt.Sprintf("tool %q is gated at fingerprint %s, not %s", req.Tool, t.Fingerprint, req.Fingerprint)
		}
		return ""
	}
	return fmt.Sprintf("tool %q is not in this pod's configuration", req.Tool)
}

// heldByConfig says why the configuration does not let a call of t be
// held for the reason req gives, or "" when it does. A call is held by the
// tool's designation (it is ApprovalGated), by an argument rule with
// action Hold that applies to the tool and is not broken for it, or by a
// level its arguments raised it to at or above the configuration's
// approval level. A call of a withheld tool has nothing to be held for:
// it is refused before it could be.
func heldByConfig(cfg *gateproto.Config, t *gateproto.Tool, req *gateproto.CallRequest) string {
	switch req.HeldBy {
	case gateproto.HeldByDesignation:
		if t.Decision != gateproto.DecisionApprovalGated {
			return fmt.Sprintf("tool %q is %s in this pod's configuration, not %s", req.Tool, t.Decision, gateproto.DecisionApprovalGated)
		}
		return ""
	case gateproto.HeldByRule, gateproto.HeldByLevel:
		if t.Decision == gateproto.DecisionWithheld {
			return fmt.Sprintf("tool %q is %s in this pod's configuration: its calls are refused, not held", req.Tool, t.Decision)
		}
	}
	if req.HeldBy == gateproto.HeldByLevel {
		ceiling := cmp.Or(cfg.Ceiling, gateproto.DefaultCeiling)
		switch {
		case cfg.ApprovalLevel == "" || req.Level < cfg.ApprovalLevel:
			return fmt.Sprintf("level %s does not hold a call in this pod's configuration (approval level %q)", req.Level, cfg.ApprovalLevel)
		case req.Level > ceiling:
			return fmt.Sprintf("level %s is above this pod's ceiling %s: such a call is refused, not held", req.Level, ceiling)
		case req.Rule != "":
			// The rule shown to the person must be one that raises this
			// tool's calls to this level.
			if !toolHasRule(cfg, t, req.Rule, gateproto.RuleRaiseLevel, req.Level) {
				return fmt.Sprintf("argument rule %q does not raise calls of tool %q to %s in this pod's configuration", req.Rule, req.Tool, req.Level)
			}
		case cfg.ArgumentFloorsOff:
			return "this pod's configuration has the argument floors off: no floor raised the call"
		}
		return ""
	}
	if !toolHasRule(cfg, t, req.Rule, gateproto.RuleHold, "") {
		return fmt.Sprintf("argument rule %q does not hold calls of tool %q in this pod's configuration", req.Rule, req.Tool)
	}
	return ""
}

// toolHasRule reports whether the configuration applies the argument rule
// name to the tool t, with the action (and, for RaiseLevel, the level),
// and found no problem with it for t.
func toolHasRule(cfg *gateproto.Config, t *gateproto.Tool, name string, action gateproto.RuleAction, level string) bool {
	for _, r := range t.Rules {
		if r.Rule != name || r.Problem != "" {
			continue
		}
		for i := range cfg.ArgumentRules {
			if a := &cfg.ArgumentRules[i]; a.Name == name && a.Action == action && a.Level == level {
				return true
			}
		}
	}
	return false
}

// pins is the writer of the ToolPins' records: the gate server's changes
// are pending calls opened and resolved.
func (s *Server) pins() pinwriter.Writer {
	return pinwriter.Writer{Client: s.o.Client, Reader: s.o.PodReader, Recorder: s.o.Recorder}
}

// openCall adds call to the pin's pending calls (pinrecord.CallOpened),
// resolving on the way any call a dead replica left behind. It returns
// the HTTP status to answer with.
func (s *Server) openCall(ctx context.Context, key client.ObjectKey, call toolgatev1alpha1.PendingCall) (int, error) {
	pin := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	_, err := s.pins().Write(ctx, pin, pinrecord.CallOpened{Call: call}, call.RequestedTime)
	var refused *pinrecord.Refusal
	switch {
	case err == nil:
		return http.StatusOK, nil
	case errors.As(err, &refused):
		status := http.StatusForbidden
		switch refused.Kind {
		case pinrecord.RefusedDuplicate:
			status = http.StatusConflict
		case pinrecord.RefusedShareFull:
			status = http.StatusTooManyRequests
		}
		return status, refused
	case apierrors.IsNotFound(err):
		return http.StatusForbidden, fmt.Errorf("ToolPin %s does not exist", key)
	}
	return http.StatusServiceUnavailable, fmt.Errorf("recording the pending call: %v", errSummary(err))
}

// waitCall sends heartbeats until the call is decided in the cache, or
// expires, and returns its outcome, recorded; ok is false when the gate's
// request ended first.
func (s *Server) waitCall(ctx context.Context, key client.ObjectKey, call *toolgatev1alpha1.PendingCall, notify <-chan struct{},
	send func(gateproto.Frame) error) (gateproto.CallOutcome, bool) {
	expiry := time.NewTimer(time.Until(call.ExpiryTime.Time))
	defer expiry.Stop()
	heartbeat := time.NewTicker(s.o.HeartbeatInterval)
	defer heartbeat.Stop()
	// The cache may already hold the decision (a fast approver): look once
	// before the first notification.
	check := make(chan struct{}, 1)
	check <- struct{}{}
	for {
		select {
		case <-ctx.Done():
			return gateproto.CallOutcome{}, false
		case <-heartbeat.C:
			if err := send(gateproto.Frame{Type: gateproto.FrameHeartbeat}); err != nil {
				return gateproto.CallOutcome{}, false
			}
		case <-expiry.C:
			return s.finish(ctx, key, call, toolgatev1alpha1.CallExpired, nil, "nobody decided before the approval timeout")
		case <-notify:
			select {
			case check <- struct{}{}:
			default:
			}
		case <-check:
			pin := &toolgatev1alpha1.ToolPin{}
			if err := s.o.Pins.Get(ctx, key, pin); err != nil {
				continue // the next change or the expiry tells
			}
			if lifecycle.PendingCall(&pin.Status, call.ID) == nil {
				if r := lifecycle.ResolvedCall(&pin.Status, call.ID); r != nil {
					return s.outcome(call, r.Verdict, nil, "resolved elsewhere"), true
				}
				continue // the cache has not seen our write yet
			}
			verdict, by, decided := lifecycle.DecideCall(&pin.Status, call, s.o.RequiredApprovers)
			if !decided {
				continue
			}
			comment := ""
			if verdict == toolgatev1alpha1.CallApproved &&
				(pin.Status.State != toolgatev1alpha1.PinTrusted || pin.Status.ObservedFingerprint != call.Fingerprint) {
				// An approval of the call is not one of a changed
				// definition.
				verdict, comment = toolgatev1alpha1.CallRejected, "the tool's definition changed while the call waited"
			}
			return s.finish(ctx, key, call, verdict, by, comment)
		}
	}
}

// finish records the call's end and returns its outcome. The record is
// written before the gate hears of it, so a forwarded call is always on
// the record; if the record cannot be written the decision still stands
// (it is in status.decisions) and is sent.
func (s *Server) finish(ctx context.Context, key client.ObjectKey, call *toolgatev1alpha1.PendingCall, verdict toolgatev1alpha1.CallVerdict,
	by []string, comment string) (gateproto.CallOutcome, bool) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveTimeout)
	defer cancel()
	recorded, err := s.resolveCall(wctx, key, call.ID, verdict)
	switch {
	case err != nil:
		s.log.Error(err, "recording a call's outcome", "pin", key.String(), "callID", call.ID, "verdict", verdict)
	case recorded != "" && recorded != verdict:
		// Another writer resolved it first (a stale sweep): its verdict
		// is the record's, and the gate hears the record.
		verdict, by, comment = recorded, nil, "resolved elsewhere"
	}
	if ctx.Err() != nil {
		return gateproto.CallOutcome{}, false
	}
	return s.outcome(call, verdict, by, comment), true
}

// outcome is what the gate is told. A withdrawn call is never approved.
func (s *Server) outcome(call *toolgatev1alpha1.PendingCall, verdict toolgatev1alpha1.CallVerdict, by []string, comment string) gateproto.CallOutcome {
	out := gateproto.CallOutcome{CallID: call.ID, By: clip.String(strings.Join(by, ","), gateproto.MaxMessageLength), Comment: comment}
	// A held result's outcome names the result it covers, whatever the
	// verdict: the gate releases only those bytes.
	out.ResultDigest = string(call.ResultDigest)
	switch verdict {
	case toolgatev1alpha1.CallApproved:
		out.Verdict, out.ArgumentsDigest = gateproto.CallApproved, string(call.ArgumentsDigest)
	case toolgatev1alpha1.CallRejected:
		out.Verdict = gateproto.CallRejected
	default:
		out.Verdict = gateproto.CallExpired
	}
	return out
}

// resolveCall moves the call out of the pin's pending calls into its
// history with verdict (pinrecord.CallResolved), and returns the verdict
// on record: verdict, or the one another writer recorded first ("" when
// the call is on neither list).
func (s *Server) resolveCall(ctx context.Context, key client.ObjectKey, id string, verdict toolgatev1alpha1.CallVerdict) (toolgatev1alpha1.CallVerdict, error) {
	pin := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	res, err := s.pins().Write(ctx, pin, pinrecord.CallResolved{ID: id, Verdict: verdict}, now)
	if err != nil {
		return "", err
	}
	return res.Recorded, nil
}

// findingsOf turns a gate's findings, already validated against the
// protocol's bounds (those of the ToolPin's status), into the pin's.
func findingsOf(fs []gateproto.Finding) []toolgatev1alpha1.Finding {
	out := make([]toolgatev1alpha1.Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, toolgatev1alpha1.Finding{Signal: f.Signal, Field: f.Field, Excerpt: f.Excerpt})
	}
	return out
}

// signalsOf names the signals of findings, each once, in their order.
func signalsOf(fs []gateproto.Finding) string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.Signal) {
			out = append(out, f.Signal)
		}
	}
	return strings.Join(out, ", ")
}

// heldByOf is the API's word for why a call is held.
func heldByOf(h string) toolgatev1alpha1.HeldBy {
	switch h {
	case gateproto.HeldByRule:
		return toolgatev1alpha1.HeldByArgumentRule
	case gateproto.HeldByLevel:
		return toolgatev1alpha1.HeldByArgumentLevel
	}
	return toolgatev1alpha1.HeldByDesignation
}
