package gateserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// The gate server marks a finding a gate reports with an Event on the
// tool's ToolPin, or on the MCPServer; it reads both from the cache.
// +kubebuilder:rbac:groups=toolgate.dev,resources=mcpservers,verbs=get;list;watch

// How fast a gate may report findings. A report costs a build of the
// pod's configuration, a cache read and an Event; a server that puts an
// injection in every answer would otherwise make its agents' gates
// flood the Events of the namespace. What is over the rate is dropped:
// the gate has already acted on the finding and logged it, and the Event
// already standing (aggregated by the recorder into a series) says the
// same.
const (
	DefaultFindingsPerSecond = 1
	DefaultFindingBurst      = 10
)

// eventAction is the Event's action for each action a gate reports.
var eventAction = map[gateproto.FindingAction]string{
	gateproto.FindingRecord:   "Recorded",
	gateproto.FindingRedact:   "Redacted",
	gateproto.FindingWithhold: "Withheld",
}

// serveFindings takes a gate's report of a finding it acted on without
// holding anything, checks it against the pod's own configuration (a
// server it serves, a tool it knows), and marks the tool's ToolPin, or
// the MCPServer when the finding is in what is not one tool's result,
// with a Warning Event. It answers 202 before the Event is recorded: the
// report is best-effort, and the gate never waits on it.
func (s *Server) serveFindings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "a finding is reported with POST", http.StatusMethodNotAllowed)
		return
	}
	if s.o.Pins == nil || s.o.Recorder == nil {
		http.Error(w, "finding reports are not served by this operator", http.StatusNotImplemented)
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
	if full := s.findingRates.allow(id.Namespace, string(id.PodUID), time.Now()); full != "" {
		s.metrics.findings.WithLabelValues("dropped").Inc()
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("this %s reports findings faster than %v a second (bursts of %d); the report is dropped",
			full, s.o.FindingsPerSecond, s.o.FindingBurst), http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, gateproto.MaxFindingReportBytes+1))
	if err != nil {
		http.Error(w, "reading the report failed", http.StatusBadRequest)
		return
	}
	if len(body) > gateproto.MaxFindingReportBytes {
		http.Error(w, fmt.Sprintf("a finding report is at most %d bytes", gateproto.MaxFindingReportBytes), http.StatusRequestEntityTooLarge)
		return
	}
	var rep gateproto.FindingReport
	if err := json.Unmarshal(body, &rep); err != nil {
		http.Error(w, "the report is not JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := rep.Validate(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b, err := s.build(r.Context(), pod, id)
	if err != nil {
		log.Error(err, "building a gate's configuration for a finding report")
		http.Error(w, "the operator could not build this pod's configuration", http.StatusServiceUnavailable)
		return
	}
	cfg := b.cfg
	pin, why := reportTarget(cfg, &rep)
	if why != "" {
		s.metrics.findings.WithLabelValues("refused").Inc()
		log.Info("refused a finding report: "+why, "server", rep.Server, "tool", rep.Tool)
		http.Error(w, why, http.StatusForbidden)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.BuildTimeout)
	defer cancel()
	regarding, err := s.findingObject(ctx, rep.Server, pin)
	if err != nil {
		// The pin or the server is not in the cache (yet, or any more):
		// nothing to mark, and the gate's own log line stands.
		s.metrics.findings.WithLabelValues("refused").Inc()
		log.Info("no object to mark with a finding", "server", rep.Server, "pin", pin, "error", err.Error())
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	s.o.Recorder.Eventf(regarding, nil, corev1.EventTypeWarning, toolgatev1alpha1.ReasonResultFinding, eventAction[rep.Action], "%s", findingNote(id, &rep))
	s.metrics.findings.WithLabelValues(strings.ToLower(string(rep.Action))).Inc()
	log.Info("finding reported", "server", rep.Server, "tool", rep.Tool, "method", rep.Method, "action", rep.Action, "signals", signalsOf(rep.Findings))
	w.WriteHeader(http.StatusAccepted)
}

// reportTarget says which pin a report concerns ("" for the server
// itself) or why the pod's configuration does not let it report: the
// server must be one it serves, and a tool one of the server's tools
// there.
func reportTarget(cfg *gateproto.Config, rep *gateproto.FindingReport) (pin, why string) {
	srv := cfg.Server(rep.Server)
	if srv == nil || !srv.Ready {
		return "", "this pod's configuration does not serve " + rep.Server
	}
	if rep.Tool == "" {
		return "", ""
	}
	for i := range srv.Tools {
		if srv.Tools[i].Name == rep.Tool {
			return srv.Tools[i].Pin, ""
		}
	}
	return "", fmt.Sprintf("tool %q is not in this pod's configuration", rep.Tool)
}

// findingObject reads, from the cache, the object a finding's Event is
// about: the ToolPin when the tool has one, else the MCPServer.
func (s *Server) findingObject(ctx context.Context, server, pin string) (runtime.Object, error) {
	ns, name, _ := gateproto.SplitServerID(server)
	if pin != "" {
		p := &toolgatev1alpha1.ToolPin{}
		if err := s.o.Pins.Get(ctx, client.ObjectKey{Namespace: ns, Name: pin}, p); err != nil {
			return nil, fmt.Errorf("ToolPin %s/%s: %s", ns, pin, errSummary(err))
		}
		return p, nil
	}
	srv := &toolgatev1alpha1.MCPServer{}
	if err := s.o.Pins.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, srv); err != nil {
		return nil, fmt.Errorf("MCPServer %s: %s", server, errSummary(err))
	}
	return srv, nil
}

// maxFindingNote bounds an Event's note: the API server refuses a note
// over 1 KiB whole.
const maxFindingNote = 1000

// findingNote is what a person reads of a finding: which pod, what the
// gate scanned and did, each signal where it was found, and the first
// excerpt. Excerpts come escaped (gateproto.RenderExcerpt, which the
// report's validation holds them to), so nothing hidden reaches the
// reader.
func findingNote(id identity, rep *gateproto.FindingReport) string {
	what := rep.Method
	if rep.Tool != "" {
		what = fmt.Sprintf("%s of %s", rep.Method, rep.Tool)
	}
	var where []string
	for _, f := range rep.Findings {
		w := f.Signal
		if f.Field != "" {
			w += " in " + f.Field
		}
		where = append(where, w)
	}
	done := map[gateproto.FindingAction]string{
		gateproto.FindingRecord:   "passed on as it was",
		gateproto.FindingRedact:   "passed on with the flagged text redacted",
		gateproto.FindingWithhold: "withheld; the agent got an error",
	}[rep.Action]
	note := fmt.Sprintf("%s/%s: the gate's scan of %s from %s found %s; %s (%s)", id.Namespace, id.Pod, what, rep.Server,
		strings.Join(where, ", "), done, rep.Action)
	if ex := rep.Findings[0].Excerpt; ex != "" {
		note += fmt.Sprintf(": %q", clip.String(ex, 200))
	}
	return clip.String(note, maxFindingNote)
}
