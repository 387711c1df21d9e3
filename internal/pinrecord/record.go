package pinrecord

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Change is one thing that happened to a pin: Observed, Gone, Reviewed,
// CallOpened or CallResolved. Pending calls past their expiry and grace
// expire with any of them.
type Change interface{ change() }

// Observed is the change of a probe of the pin's server seeing the tool.
type Observed struct {
	// Tool is the definition the server sent.
	Tool *tooldef.Tool
	// Risk is the judgement of that definition.
	Risk *toolgatev1alpha1.ToolRisk
	// FirstUse is the server's first-use mode.
	FirstUse toolgatev1alpha1.FirstUseMode
	// UntrustedBody is true when the definition, apart from its name,
	// equals or nearly copies that of another pin of the server nobody
	// trusts (lifecycle.Input).
	UntrustedBody bool
	// ReplacesRemoved is true when the tool appeared in the probe in which
	// another tool of the server disappeared.
	ReplacesRemoved bool
	// Origin is the origin of the endpoint the tool was observed at.
	Origin string
	// RequiredApprovers is how many people approve a multi tool.
	RequiredApprovers int
}

// Gone is the change of the tool leaving its server's catalogue, or of its
// server being deleted.
type Gone struct {
	// ServerDeleted is true when the MCPServer itself is gone; the pin
	// keeps its review record for a server re-created under its name.
	ServerDeleted bool
}

// Reviewed is the change of people appending decisions, of an override
// changing, or of time passing. The lifecycle runs again on the last
// observation, without probing the server and without a new judgement.
type Reviewed struct {
	// FirstUse is the server's first-use mode.
	FirstUse toolgatev1alpha1.FirstUseMode
	// RequiredApprovers is how many people approve a multi tool.
	RequiredApprovers int
}

// CallOpened is the change of a gate server holding Call for people to
// decide.
type CallOpened struct {
	// Call is the call held, as the gate server built it from the gate's
	// request and the gate's verified identity.
	Call toolgatev1alpha1.PendingCall
}

// CallResolved is the change of the gate server holding a call ending it
// with Verdict.
type CallResolved struct {
	// ID is the call's id.
	ID string
	// Verdict is how it ended: Approved, Rejected, Expired (at its expiry,
	// by the replica holding it) or Withdrawn (its gate gave up first).
	Verdict toolgatev1alpha1.CallVerdict
}

func (Observed) change()     {}
func (Gone) change()         {}
func (Reviewed) change()     {}
func (CallOpened) change()   {}
func (CallResolved) change() {}

// Result is everything a change makes of a pin.
type Result struct {
	// Status is the pin's next status, to be written when it differs.
	Status toolgatev1alpha1.ToolPinStatus
	// Labels are the labels the pin carries next: its own, with the level,
	// state and server labels brought up to date.
	Labels map[string]string
	// OwnerReferences are the references the pin keeps: none to an
	// MCPServer, as a pin's record outlives its server.
	OwnerReferences []metav1.OwnerReference
	// Events are the Events to record once the status has landed.
	Events []Event
	// RequeueAfter is when to look at the pin again, for the next pending
	// call to come due; zero when nothing is pending.
	RequeueAfter time.Duration
	// Reason and Message are the lifecycle's transition; Reason is empty
	// when the state did not change.
	Reason, Message string
	// Expired are the pending calls this change resolved as Expired.
	Expired []string
	// Recorded is, for CallResolved, the verdict on record: the one given,
	// or the one another writer recorded first ("" when the call is on
	// neither list).
	Recorded toolgatev1alpha1.CallVerdict
	// Refused, when set, says why the change may not be made (a call that
	// may not open); nothing is written.
	Refused *Refusal
	// Skip is true when there is nothing to write, not even the record's
	// upkeep, because another writer is about to write the pin.
	Skip bool
	// Problem is something wrong with the record that the writer should
	// log; the rest of the result still stands.
	Problem error
}

// Event is a Kubernetes Event on the pin.
type Event struct {
	Type, Reason, Action, Message string
	// Related is true when the Event names the pin's MCPServer as related.
	Related bool
}

// RefusalKind says why a call may not open.
type RefusalKind string

// Kinds of Refusal.
const (
	// RefusedNotTrusted: the pin is not Trusted at the fingerprint called.
	RefusedNotTrusted RefusalKind = "NotTrusted"
	// RefusedDuplicate: a call with the id is pending or resolved already.
	RefusedDuplicate RefusalKind = "Duplicate"
	// RefusedShareFull: the agent's share of the pin's pending calls
	// (lifecycle.CallShareRefusal) is full.
	RefusedShareFull RefusalKind = "ShareFull"
)

// Refusal says why a change may not be made.
type Refusal struct {
	Kind    RefusalKind
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// compactAbove is the length of the decision log above which it is
// compacted: the history is kept whole until room runs short.
const compactAbove = toolgatev1alpha1.MaxDecisions - toolgatev1alpha1.DecisionReserve/2

// maxEventNote is the longest note an Event may carry: the API server
// refuses a note over 1 KiB whole.
const maxEventNote = 1000

// Actions of the Events on a pin.
const (
	actionReview   = "Review"
	actionOverride = "Override"
	actionHold     = "Hold"
	actionResolve  = "Resolve"
)

// Decide says what pin becomes after change at now. It is a pure function
// of its arguments and changes none of them.
//
// It decides on the whole record: the copies the stored status leaves out
// (the observed definition while it is the pinned one, the computed risk
// while no override applies) are restored first, exactly, and left out
// again of the status it returns (ToolPinStatus.Expanded, Compacted).
func Decide(stored *toolgatev1alpha1.ToolPin, change Change, now metav1.Time) Result {
	whole := *stored
	whole.Status = stored.Status.Expanded()
	pin := &whole
	var res Result
	// The lifecycle copies the status it is given; the other changes work
	// on a copy of their own.
	var st toolgatev1alpha1.ToolPinStatus
	own := func() { st = *pin.Status.DeepCopy() }
	key := pin.Namespace + "/" + pin.Name
	// Pending calls past their expiry and grace leave with any change, so
	// that whichever writer comes first after a replica died records them.
	// It also says when the next call still pending comes due.
	expire := func() {
		expired, next := lifecycle.ExpireCalls(&st, now)
		res.Expired = append(res.Expired, expired...)
		res.RequeueAfter = 0
		if !next.IsZero() {
			res.RequeueAfter = max(next.Sub(now.Time), time.Second)
		}
	}

	switch c := change.(type) {
	case Observed:
		out := lifecycle.Next(lifecycle.Input{
			Status: pin.Status, Tool: c.Tool, Risk: c.Risk, FirstUse: c.FirstUse, UntrustedBody: c.UntrustedBody,
			ReplacesRemoved: c.ReplacesRemoved, Origin: c.Origin, RequiredApprovers: c.RequiredApprovers, Now: now,
		})
		st, res.Reason, res.Message = out.Status, out.Reason, out.Message
		expire()

	case Gone:
		out := lifecycle.Next(lifecycle.Input{Status: pin.Status, Tool: nil, Now: now})
		st, res.Reason, res.Message = out.Status, out.Reason, out.Message
		if c.ServerDeleted && res.Reason != "" {
			res.Message = "the tool's MCPServer is gone; the pin keeps its review record for a server re-created under the same name"
		}
		expire()

	case Reviewed:
		if pin.Status.State == "" && pin.Labels[toolgatev1alpha1.LabelState] != "" {
			// Created by the MCPServer controller with the labels of its
			// first decision, which is writing its first observation right
			// now: writing too would only conflict. (It holds no pending
			// call: a call opens only on a Trusted pin.)
			return Result{Skip: true}
		}
		ran := false
		if def := pin.Status.ObservedDefinition; def != "" && pin.Status.State != toolgatev1alpha1.PinRemoved {
			tool, err := tooldef.ParseTool([]byte(def))
			if err != nil {
				// Written by the operator; if it no longer parses, the pin
				// cannot be trusted until the next probe. Its record is
				// still kept, and its calls still expire.
				res.Problem = fmt.Errorf("the observed definition of %s does not parse: %w", key, err)
			} else {
				// No new judgement: the computed risk in status stands.
				out := lifecycle.Next(lifecycle.Input{
					Status: pin.Status, Tool: tool, FirstUse: c.FirstUse, Origin: pin.Status.ObservedOrigin,
					RequiredApprovers: c.RequiredApprovers, Now: now,
				})
				// A decision never changes when the tool was last seen.
				out.Status.LastSeenTime = pin.Status.LastSeenTime.DeepCopy()
				st, res.Reason, res.Message = out.Status, out.Reason, out.Message
				ran = true
			}
		}
		if !ran {
			// Never observed, gone, or unreadable: nothing to decide on;
			// the record is kept, well-formed, and its calls still expire.
			own()
		}
		expire()

	case CallOpened:
		own()
		call := c.Call
		switch {
		case st.State != toolgatev1alpha1.PinTrusted || st.ObservedFingerprint != call.Fingerprint:
			return refuse(RefusedNotTrusted, "ToolPin %s is %s at %s, not Trusted at the fingerprint called", key, st.State, st.ObservedFingerprint)
		case lifecycle.PendingCall(&st, call.ID) != nil || lifecycle.ResolvedCall(&st, call.ID) != nil:
			return refuse(RefusedDuplicate, "call %s already exists on %s", call.ID, key)
		}
		// The calls of a replica that died leave first: they hold no
		// share of the pin any more.
		expire()
		if why := lifecycle.CallShareRefusal(&st, call.Agent); why != "" {
			return refuse(RefusedShareFull, "ToolPin %s: %s", key, why)
		}
		st.PendingCalls = append(st.PendingCalls, *call.DeepCopy())
		expire() // expires nothing more; says when the new call comes due
		res.Events = append(res.Events, heldEvent(pin, &call))

	case CallResolved:
		own()
		held := lifecycle.PendingCall(&st, c.ID)
		isResult := held != nil && held.Kind == toolgatev1alpha1.CallKindResult
		if lifecycle.ResolveCall(&st, c.ID, c.Verdict, now) {
			res.Recorded = c.Verdict
			reason, kind := toolgatev1alpha1.ReasonCallResolved, corev1.EventTypeNormal
			if c.Verdict == toolgatev1alpha1.CallWithdrawn {
				reason = toolgatev1alpha1.ReasonCallWithdrawn
			}
			if c.Verdict != toolgatev1alpha1.CallApproved {
				kind = corev1.EventTypeWarning
			}
			msg := fmt.Sprintf("call %s: %s", c.ID, c.Verdict)
			if isResult {
				msg = fmt.Sprintf("the held result of call %s: %s (%s)", c.ID, c.Verdict, resultFate(c.Verdict))
			}
			res.Events = append(res.Events, Event{Type: kind, Reason: reason, Action: actionResolve, Message: msg})
		} else if r := lifecycle.ResolvedCall(&st, c.ID); r != nil {
			res.Recorded = r.Verdict
		}
		expire()

	default:
		panic(fmt.Sprintf("pinrecord: unknown change %T", change))
	}

	for _, id := range res.Expired {
		res.Events = append(res.Events, Event{Type: corev1.EventTypeWarning, Reason: toolgatev1alpha1.ReasonCallResolved, Action: actionResolve,
			Message: fmt.Sprintf("call %s: Expired; nobody decided before its expiry and the gate server holding it is gone", id)})
	}
	res.Status = upkeep(pin, st, res.Message)
	res.Events = append(reviewEvents(pin, res.Status, res.Reason, res.Message), res.Events...)
	res.Labels, res.OwnerReferences = metadata(pin, &res.Status)
	for i := range res.Events {
		res.Events[i].Message = clip.String(res.Events[i].Message, maxEventNote)
	}
	res.Status = res.Status.Compacted()
	return res
}

// heldEvent marks a call, or a call's result, held on the pin, with the
// command that approves (releases) it. A held result is a Warning that
// names what the scan found: something in a server's answer tried to
// steer the model.
func heldEvent(pin *toolgatev1alpha1.ToolPin, call *toolgatev1alpha1.PendingCall) Event {
	approve := fmt.Sprintf("kubectl patch toolpin %s -n %s --subresource=status --type=json -p '[{\"op\":\"add\",\"path\":\"/status/decisions/-\",\"value\":{\"action\":\"Approve\",\"fingerprint\":\"%s\",\"callID\":\"%s\"}}]'",
		pin.Name, pin.Namespace, call.Fingerprint, call.ID)
	expires := call.ExpiryTime.UTC().Format(time.RFC3339)
	if call.Kind != toolgatev1alpha1.CallKindResult {
		return Event{Type: corev1.EventTypeNormal, Reason: toolgatev1alpha1.ReasonCallPending, Action: actionHold,
			Message: fmt.Sprintf("%s/%s (service account %s) asks to call %s with arguments %s; expires %s. Approve: %s",
				call.Agent.Namespace, call.Agent.Pod, call.Agent.ServiceAccount, pin.Spec.ToolName, clip.String(call.Arguments, 256), expires, approve)}
	}
	var signals []string
	for _, f := range call.Findings {
		if !slices.Contains(signals, f.Signal) {
			signals = append(signals, f.Signal)
		}
	}
	excerpt := ""
	if len(call.Findings) > 0 {
		excerpt = fmt.Sprintf(" (%s: %q)", call.Findings[0].Field, clip.String(call.Findings[0].Excerpt, 160))
	}
	return Event{Type: corev1.EventTypeWarning, Reason: toolgatev1alpha1.ReasonResultHeld, Action: actionHold,
		Message: fmt.Sprintf("the result of %s for %s/%s (call %s, result %s) is held: the scan found %s%s; dropped at %s unless released. Release: %s",
			pin.Spec.ToolName, call.Agent.Namespace, call.Agent.Pod, call.ID, call.ResultDigest.Short(), strings.Join(signals, ", "), excerpt, expires, approve)}
}

// resultFate says what an ended hold did with the result.
func resultFate(v toolgatev1alpha1.CallVerdict) string {
	if v == toolgatev1alpha1.CallApproved {
		return "released to the agent"
	}
	return "dropped; the agent got an error"
}

func refuse(kind RefusalKind, format string, args ...any) Result {
	return Result{Refused: &Refusal{Kind: kind, Message: fmt.Sprintf(format, args...)}}
}

// upkeep is what every status written carries: a decision log compacted
// when it nears its bound, the override laid over the computed judgement,
// the generation observed and the Ready condition. message is the
// explanation of a transition made now, if any.
func upkeep(pin *toolgatev1alpha1.ToolPin, st toolgatev1alpha1.ToolPinStatus, message string) toolgatev1alpha1.ToolPinStatus {
	if st.Decisions == nil {
		// Kept present, so that an approver's "add /status/decisions/-"
		// has a list to add to.
		st.Decisions = []toolgatev1alpha1.Decision{}
	}
	// A log that nears its bound is compacted to the decisions that can
	// still count (on the pinned and observed definitions, on pending
	// calls), so that a decision on what is observed now always fits.
	if len(st.Decisions) > compactAbove {
		st.Decisions = lifecycle.CompactDecisions(&st)
	}
	// The override is laid over the computed judgement each time, never
	// over an already overridden one, and disappears with spec.override.
	st.Risk = verdict.ApplyOverride(st.ComputedRisk, pin.Spec.Override)
	st.ObservedGeneration = pin.Generation
	meta.SetStatusCondition(&st.Conditions, ready(pin.Generation, &st, message))
	return st
}

// ready is the pin's Ready condition: True exactly when it is Trusted.
// Its message is the explanation of the last transition, kept until the
// next one.
func ready(generation int64, st *toolgatev1alpha1.ToolPinStatus, message string) metav1.Condition {
	cond := metav1.Condition{Type: toolgatev1alpha1.ConditionReady, ObservedGeneration: generation}
	switch st.State {
	case toolgatev1alpha1.PinTrusted:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, toolgatev1alpha1.ReasonTrusted, "the observed definition is the pinned one"
	case "":
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, toolgatev1alpha1.ReasonAwaitingProbe, "the tool has not been observed on its server yet; it is withheld until it is"
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, string(st.State)
		cond.Message = "withheld: " + stateMessage(st.State)
	}
	if message != "" {
		cond.Message = clip.String(message, toolgatev1alpha1.MaxConditionMessageLength)
	} else if old := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady); old != nil && old.Reason == cond.Reason {
		cond.Message = old.Message
	}
	return cond
}

func stateMessage(s toolgatev1alpha1.PinState) string {
	switch s {
	case toolgatev1alpha1.PinAwaitingReview:
		return "the definition awaits a human review"
	case toolgatev1alpha1.PinRejected:
		return "a human rejected the observed definition"
	case toolgatev1alpha1.PinRemoved:
		return "the tool is gone from the server's catalogue"
	}
	return string(s)
}

// reviewEvents are the Events of the lifecycle's transition and of an
// override that newly lowers the level.
func reviewEvents(pin *toolgatev1alpha1.ToolPin, st toolgatev1alpha1.ToolPinStatus, reason, message string) []Event {
	var out []Event
	// Trust on first use is the normal case of every new tool; the server
	// reports it once for all its tools instead of one Event per pin.
	if reason != "" && reason != toolgatev1alpha1.ReasonPinnedOnFirstUse {
		kind := corev1.EventTypeNormal
		switch reason {
		case toolgatev1alpha1.ReasonDefinitionChanged, toolgatev1alpha1.ReasonRejected, toolgatev1alpha1.ReasonRenamedFromUntrusted,
			toolgatev1alpha1.ReasonOriginChanged, toolgatev1alpha1.ReasonReplacesRemovedTool:
			kind = corev1.EventTypeWarning
		}
		out = append(out, Event{Type: kind, Reason: reason, Action: actionReview, Message: message, Related: true})
	}
	computed, was := st.ComputedRisk, pin.Status.Risk
	if o := pin.Spec.Override; o != nil && o.Level != "" && computed != nil && o.Level.Compare(computed.Level) < 0 &&
		(was == nil || !was.Overridden || was.Level != o.Level) {
		out = append(out, Event{Type: corev1.EventTypeWarning, Reason: toolgatev1alpha1.ReasonOverrideLowersLevel, Action: actionOverride,
			Message: fmt.Sprintf("a human override lowers the level from %s to %s: %s", computed.Level, o.Level, o.Reason), Related: true})
	}
	return out
}

// metadata is the pin's labels and owner references as they should be:
// the level and state labels follow the status, so that pins can be
// selected by them, and the server label is restored like the others, so
// that selectors by server keep finding every pin of it. Labels are only
// ever set, never removed.
func metadata(pin *toolgatev1alpha1.ToolPin, st *toolgatev1alpha1.ToolPinStatus) (map[string]string, []metav1.OwnerReference) {
	labels := maps.Clone(pin.Labels)
	set := func(k, v string) {
		if v == "" || labels[k] == v {
			return
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	set(toolgatev1alpha1.LabelState, string(st.State))
	if name := pin.Spec.ServerRef.Name; len(name) <= 63 {
		set(toolgatev1alpha1.LabelServer, name)
	}
	if st.Risk != nil {
		set(toolgatev1alpha1.LabelLevel, string(st.Risk.Level))
	}
	// Pins made by earlier versions were owned by their server, so that
	// deleting it deleted their history; the reference goes.
	var owners []metav1.OwnerReference
	for _, ref := range pin.OwnerReferences {
		if ref.Kind == "MCPServer" && strings.HasPrefix(ref.APIVersion, toolgatev1alpha1.GroupVersion.Group+"/") {
			continue
		}
		owners = append(owners, *ref.DeepCopy())
	}
	return labels, owners
}
