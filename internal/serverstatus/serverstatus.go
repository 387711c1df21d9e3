package serverstatus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// Interval is how often a server is probed: spec.probe.interval, or the
// API's default for an object the API server did not default.
func Interval(p toolgatev1alpha1.ProbeSpec) time.Duration {
	if p.Interval != nil && p.Interval.Duration > 0 {
		return p.Interval.Duration
	}
	return toolgatev1alpha1.DefaultProbeInterval
}

// FirstRetry is how soon a server whose probe failed is probed again. A
// server that keeps failing waits as long again as it has been failing:
// the retries come 5 s, 10 s, 20 s, 40 s … after the first failure, until
// the wait reaches the interval. A server that was not yet reachable when
// it was applied (its pods still starting, its Service not yet routed) is
// then reviewed within seconds rather than an interval later, and one that
// is down for good costs no more than one probe per interval.
const FirstRetry = 5 * time.Second

// Wait is how long after its last probe a server is next due: the
// interval after a probe that reached it, less while its probes fail
// (FirstRetry). st is the server's status as the last probe left it.
func Wait(st toolgatev1alpha1.MCPServerStatus, interval time.Duration) time.Duration {
	c := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReachable)
	if c == nil || c.Status != metav1.ConditionFalse || st.LastProbeTime == nil {
		return interval
	}
	failing := st.LastProbeTime.Sub(c.LastTransitionTime.Time)
	return min(interval, max(FirstRetry, failing))
}

// Due says whether a server is to be probed now and, when it is not, how
// long until it is. A server never probed, or probed with another
// configuration than it has now (another endpoint, credentials, CA or spec
// generation), is due at once; otherwise it is due one interval after its
// last probe.
func Due(lastProbe *metav1.Time, interval time.Duration, sameConfig bool, now time.Time) (bool, time.Duration) {
	if lastProbe == nil || !sameConfig {
		return true, 0
	}
	next := lastProbe.Add(interval)
	if !now.Before(next) {
		return true, 0
	}
	return false, next.Sub(now)
}

// Tally is what a server's pins add up to, counted in one pass: the
// summaries of its status, its highest level, and the figures its metrics
// export. Removed pins count only in States.
type Tally struct {
	// Summaries are the tools for status.tools, highest level first, at
	// most MaxToolSummaries.
	Summaries []toolgatev1alpha1.ToolSummary
	// Highest is the highest level of a tool the server offers; empty when
	// it offers none.
	Highest toolgatev1alpha1.Level
	// States counts pins by state.
	States map[toolgatev1alpha1.PinState]int
	// Levels counts the offered tools by level.
	Levels map[toolgatev1alpha1.Level]int
	// OldestAwaiting is since when the longest-waiting review waits; zero
	// when none does.
	OldestAwaiting time.Time
}

// Count adds up a server's pins.
func Count(pins []toolgatev1alpha1.ToolPin) Tally {
	t := Tally{States: map[toolgatev1alpha1.PinState]int{}, Levels: map[toolgatev1alpha1.Level]int{}}
	for _, p := range pins {
		t.States[p.Status.State]++
		if p.Status.State == toolgatev1alpha1.PinRemoved {
			continue
		}
		level := verdict.LevelOf(p.Status.Risk)
		t.Levels[level]++
		if t.Highest == "" || level.Compare(t.Highest) > 0 {
			t.Highest = level
		}
		s := toolgatev1alpha1.ToolSummary{Name: clip.String(p.Spec.ToolName, toolgatev1alpha1.MaxToolNameLength), State: p.Status.State, Pin: p.Name, Level: level}
		if p.Status.Risk != nil {
			s.Category = p.Status.Risk.Category
		}
		t.Summaries = append(t.Summaries, s)
		if p.Status.State == toolgatev1alpha1.PinAwaitingReview {
			since := p.CreationTimestamp.Time
			if p.Status.Change != nil {
				since = p.Status.Change.DetectedTime.Time
			}
			if t.OldestAwaiting.IsZero() || since.Before(t.OldestAwaiting) {
				t.OldestAwaiting = since
			}
		}
	}
	sort.SliceStable(t.Summaries, func(i, j int) bool {
		a, b := t.Summaries[i], t.Summaries[j]
		if c := a.Level.Compare(b.Level); c != 0 {
			return c > 0
		}
		return a.Name < b.Name
	})
	if len(t.Summaries) > toolgatev1alpha1.MaxToolSummaries {
		t.Summaries = t.Summaries[:toolgatev1alpha1.MaxToolSummaries]
	}
	return t
}

// Awaiting is how many pins wait for a review.
func (t Tally) Awaiting() int { return t.States[toolgatev1alpha1.PinAwaitingReview] }

// Failure is why a server could not be used or probed, as a condition
// reason and a message a person can act on.
type Failure struct {
	Reason  string
	Message string
}

// Catalogue is what a successful probe pass found.
type Catalogue struct {
	// Result is the probe's.
	Result *probe.Result
	// Server is the engine's verdict on the server.
	Server vet.ServerReport
	// Reach says what the server's identity may do, for status.reach.
	Reach []string
	// Pins is the tally of the server's pins after this pass.
	Pins Tally
	// TrustedOnFirstUse is how many new tools were pinned in this pass.
	TrustedOnFirstUse int
	// Unpinnable is how many tools have a name no pin can hold; they are
	// never exposed.
	Unpinnable int
	// PinFailures are the tools whose pins could not be written.
	PinFailures []PinFailure
}

// PinFailure is a tool whose pin could not be written, and why.
type PinFailure struct {
	Tool    string
	Message string
}

// Input is one pass over a server: exactly one of Misconfigured,
// ProbeFailed and Probed is set.
type Input struct {
	Generation int64
	Now        time.Time
	// Misconfigured: the spec or what it references cannot be used; the
	// server was not probed.
	Misconfigured *Failure
	// ProbeFailed: the probe was made and failed.
	ProbeFailed *Failure
	// Probed: the probe returned a catalogue, judged and pinned.
	Probed *Catalogue
	// GateBypass, when set, is the server's GateBypassable condition
	// (package bypass decides it); nil leaves the condition as it was, as
	// in a pass that did not check. It never touches Ready.
	GateBypass *metav1.Condition
}

// Event is a Kubernetes Event the pass calls for.
type Event struct {
	Type, Reason, Action, Message string
}

// ProbeFailure describes a probe error.
func ProbeFailure(err error) *Failure {
	return &Failure{Reason: string(probe.ReasonOf(err)), Message: err.Error()}
}

// Next is the server's status after a pass, and the events it calls for:
// one when Ready changes, one when GateBypassable changes, one when new
// tools were trusted on first use.
func Next(prev toolgatev1alpha1.MCPServerStatus, in Input) (toolgatev1alpha1.MCPServerStatus, []Event) {
	st := *prev.DeepCopy()
	st.ObservedGeneration = in.Generation
	var events []Event
	if c := in.GateBypass; c != nil {
		if old := meta.FindStatusCondition(st.Conditions, c.Type); old == nil || old.Status != c.Status || old.Reason != c.Reason {
			kind := corev1.EventTypeNormal
			if c.Status == metav1.ConditionTrue {
				kind = corev1.EventTypeWarning
			}
			events = append(events, Event{Type: kind, Reason: c.Reason, Action: "CheckBypass", Message: c.Message})
		}
		meta.SetStatusCondition(&st.Conditions, *c)
	}
	setConditions := func(ready metav1.ConditionStatus, readyReason, readyMsg string, reach metav1.ConditionStatus, reachReason, reachMsg string) {
		old := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady)
		readyMsg = clip.String(readyMsg, toolgatev1alpha1.MaxConditionMessageLength)
		if old == nil || old.Status != ready || old.Reason != readyReason {
			kind := corev1.EventTypeNormal
			if ready == metav1.ConditionFalse {
				kind = corev1.EventTypeWarning
			}
			events = append(events, Event{Type: kind, Reason: readyReason, Action: "Probe", Message: readyMsg})
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: toolgatev1alpha1.ConditionReady, Status: ready,
			Reason: readyReason, Message: readyMsg, ObservedGeneration: in.Generation})
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: toolgatev1alpha1.ConditionReachable, Status: reach,
			Reason: reachReason, Message: clip.String(reachMsg, toolgatev1alpha1.MaxConditionMessageLength), ObservedGeneration: in.Generation})
	}

	switch {
	case in.Misconfigured != nil:
		f := in.Misconfigured
		setConditions(metav1.ConditionFalse, f.Reason, f.Message, metav1.ConditionUnknown, f.Reason, "the server was not probed: "+f.Message)
		return st, events

	case in.ProbeFailed != nil:
		probed := metav1.NewTime(in.Now)
		st.LastProbeTime = &probed
		f := in.ProbeFailed
		setConditions(metav1.ConditionFalse, f.Reason, f.Message, metav1.ConditionFalse, f.Reason, f.Message)
		return st, events
	}

	c := in.Probed
	probed := metav1.NewTime(in.Now)
	st.LastProbeTime = &probed
	res := c.Result
	st.ServerInfo = &toolgatev1alpha1.ServerInfo{
		Name:            clip.String(res.ServerName, toolgatev1alpha1.MaxServerNameLength),
		Version:         clip.String(res.ServerVersion, toolgatev1alpha1.MaxServerVersionLength),
		ProtocolVersion: clip.String(res.ProtocolVersion, toolgatev1alpha1.MaxProtocolVersionLength),
	}
	// The instructions scanned (res.Catalogue carries them to the scan);
	// the gate compares what a server sends its agents with this.
	st.ServerInfo.InstructionsFingerprint = toolgatev1alpha1.Fingerprint(tooldef.InstructionsFingerprint(res.Instructions))
	st.Risk = verdict.ServerRisk(c.Server)
	st.Reach = clip.Strings(c.Reach, toolgatev1alpha1.MaxReachFindings, toolgatev1alpha1.MaxReachFindingLength)
	st.Addresses = addresses(res.Addresses)
	st.ToolCount = int32(len(res.Catalogue.Tools))
	st.Tools = c.Pins.Summaries
	st.HighestLevel = c.Pins.Highest

	if c.TrustedOnFirstUse > 0 {
		events = append(events, Event{Type: corev1.EventTypeNormal, Reason: toolgatev1alpha1.ReasonPinnedOnFirstUse, Action: "Pin",
			Message: fmt.Sprintf("%d new tool(s) trusted on first use", c.TrustedOnFirstUse)})
	}
	states := c.Pins.States
	msg := fmt.Sprintf("%d tools: %d trusted, %d awaiting review, %d rejected", st.ToolCount,
		states[toolgatev1alpha1.PinTrusted], states[toolgatev1alpha1.PinAwaitingReview], states[toolgatev1alpha1.PinRejected])
	if c.Unpinnable > 0 {
		msg += fmt.Sprintf("; %d tool(s) withheld because their names are longer than %d bytes", c.Unpinnable, toolgatev1alpha1.MaxToolNameLength)
	}
	reachMsg := fmt.Sprintf("%d tools on %d page(s), %d bytes, in %s", st.ToolCount, res.Pages, res.Bytes, res.Duration.Round(time.Millisecond))
	if len(c.PinFailures) > 0 {
		// Nothing fails silently: the server is not Ready, which withholds
		// all its tools, until every pin is written.
		setConditions(metav1.ConditionFalse, toolgatev1alpha1.ReasonPinWriteFailed, pinFailureMessage(c.PinFailures)+"; "+msg,
			metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, reachMsg)
		return st, events
	}
	setConditions(metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, msg, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, reachMsg)
	return st, events
}

// ConfigDigest identifies what a pass is made with — endpoint, transport,
// headers, TLS roots, the spec generation, and whether agents run in the
// server's namespace — so that a change of any of them (a rotated Secret,
// a namespace labelled for injection or no longer) makes the server due at
// once. agentsBeside belongs here because it decides GateBypassable: the
// credentials' Secret is readable by the agents' namespace or it is not,
// and that must not wait for the next interval.
func ConfigDigest(cfg probe.Config, generation int64, agentsBeside bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d\nagents=%t\n", cfg.URL, cfg.Transport, generation, agentsBeside)
	keys := make([]string, 0, len(cfg.Header))
	for k := range cfg.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%q\n", k, cfg.Header[k])
	}
	if cfg.TLS != nil {
		fmt.Fprintf(h, "tls %s\n", cfg.TLS.ServerName)
		// The bundle itself, so that a rotated CA with the same subject is
		// noticed too.
		h.Write(cfg.RootCAsPEM)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pinFailureMessage names the tools whose pins failed, the first with its
// error; the whole is bounded by the condition's message budget.
func pinFailureMessage(failures []PinFailure) string {
	tools := make([]string, 0, len(failures))
	for _, f := range failures {
		tools = append(tools, fmt.Sprintf("%q", f.Tool))
	}
	return fmt.Sprintf("the pins of %d tool(s) could not be written (%s): %s; their tools are withheld until they are",
		len(failures), strings.Join(tools, ", "), failures[0].Message)
}

// addresses are a probe's checked addresses as status keeps them: at most
// as many as the field holds, in the probe's (sorted) order. A host with
// more addresses is reached at the first ones.
func addresses(ips []netip.Addr) []string {
	if len(ips) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(ips), toolgatev1alpha1.MaxAddresses))
	for _, ip := range ips[:min(len(ips), toolgatev1alpha1.MaxAddresses)] {
		out = append(out, ip.String())
	}
	return out
}
