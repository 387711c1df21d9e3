package lifecycle

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// LastSeenGranularity is how stale a pin's lastSeenTime may be.
const LastSeenGranularity = time.Hour

// Input is everything Next needs.
type Input struct {
	// Status is the pin's current status; empty for a pin never observed.
	Status toolgatev1alpha1.ToolPinStatus
	// Tool is the definition observed now; nil when the tool is gone from
	// the server's catalogue.
	Tool *tooldef.Tool
	// Risk is the judgement of the observed definition.
	Risk *toolgatev1alpha1.ToolRisk
	// FirstUse is the server's first-use mode.
	FirstUse toolgatev1alpha1.FirstUseMode
	// UntrustedBody is true when the observed definition, apart from its
	// name, equals or nearly copies (tooldef.NearCopy) that of a pin of the
	// same server awaiting review or rejected: a rename must not launder it.
	UntrustedBody bool
	// ReplacesRemoved is true when the tool appeared in the probe in which
	// another tool of the server disappeared: a rename, perhaps with
	// changes, is reviewed rather than trusted on first use.
	ReplacesRemoved bool
	// Origin is the origin (Origin) of the endpoint the tool was observed
	// at; empty when unknown, which changes nothing.
	Origin string
	// RequiredApprovers is how many distinct humans must approve a tool
	// whose approvalRecommendation is multi (at least 2).
	RequiredApprovers int
	// Now is the time of the observation.
	Now metav1.Time
}

// Output is the pin's next status and what happened.
type Output struct {
	Status toolgatev1alpha1.ToolPinStatus
	// Reason and Message describe the transition; empty when the state did
	// not change.
	Reason, Message string
}

// Next decides the pin's next status.
func Next(in Input) Output {
	st := *in.Status.DeepCopy()
	if st.Decisions == nil {
		st.Decisions = []toolgatev1alpha1.Decision{}
	}
	before := st.State
	out := Output{}
	set := func(state toolgatev1alpha1.PinState, reason, msg string) {
		st.State = state
		if state != before || reason == toolgatev1alpha1.ReasonApproved {
			out.Reason, out.Message = reason, msg
		}
	}

	if in.Tool == nil {
		if st.State != toolgatev1alpha1.PinRemoved && st.State != "" {
			set(toolgatev1alpha1.PinRemoved, toolgatev1alpha1.ReasonRemoved, "the tool is no longer in the server's catalogue; its history is kept")
		}
		out.Status = st
		return out
	}

	observed := toolgatev1alpha1.Fingerprint(in.Tool.Fingerprint())
	st.ObservedFingerprint = observed
	st.ObservedDefinition = definition(in.Tool)
	if body, err := in.Tool.BodyFingerprint(); err == nil {
		st.ObservedBodyFingerprint = toolgatev1alpha1.Fingerprint(body)
	}
	if st.FirstSeenTime == nil {
		st.FirstSeenTime = in.Now.DeepCopy()
	}
	// lastSeenTime moves at most once per LastSeenGranularity, so that an
	// unchanged catalogue does not rewrite every pin on every probe.
	if st.LastSeenTime == nil || in.Now.Sub(st.LastSeenTime.Time) >= LastSeenGranularity || before == toolgatev1alpha1.PinRemoved {
		st.LastSeenTime = in.Now.DeepCopy()
	}
	st.ComputedRisk = riskNeverFalls(in.Status.ComputedRisk, in.Risk)

	// The same definition from another origin is another server's: it is
	// reviewed again, and only approvals made since the move count. A pin
	// that never recorded an origin learns it without review.
	if in.Origin != "" {
		st.ObservedOrigin = in.Origin
		if st.Pinned != nil && st.Pinned.Origin == "" && st.Pinned.Fingerprint == observed {
			st.Pinned.Origin = in.Origin
		}
	}
	originMoved := st.Pinned != nil && st.Pinned.Origin != "" && st.ObservedOrigin != "" && st.Pinned.Origin != st.ObservedOrigin
	var since metav1.Time
	if originMoved {
		since = in.Now
		if st.Change != nil && st.Change.To == observed && slices.Contains(st.Change.Kinds, toolgatev1alpha1.ChangeOriginChanged) {
			since = st.Change.DetectedTime
		}
	}

	approvers, humans, rejecter := tally(st.Decisions, observed, since)
	// How many approvals a change needs follows the computed judgement, so
	// an override cannot lower it; multi means distinct people, so service
	// accounts do not count towards it.
	counted, needed := len(approvers), 1
	if st.ComputedRisk != nil && st.ComputedRisk.ApprovalRecommendation == toolgatev1alpha1.ApprovalMulti {
		counted, needed = humans, max(2, in.RequiredApprovers)
	}

	switch {
	case rejecter != "":
		set(toolgatev1alpha1.PinRejected, toolgatev1alpha1.ReasonRejected, fmt.Sprintf("%s rejected %s", rejecter, observed.Short()))

	case st.Pinned != nil && st.Pinned.Fingerprint == observed && !originMoved:
		st.Change = nil
		switch before {
		case toolgatev1alpha1.PinRemoved, toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.PinRejected:
			set(toolgatev1alpha1.PinTrusted, toolgatev1alpha1.ReasonRestored, "the server offers the pinned definition again")
		default:
			set(toolgatev1alpha1.PinTrusted, "", "")
		}

	case counted >= needed:
		st.Pinned = &toolgatev1alpha1.PinnedDefinition{
			Fingerprint: observed, Time: in.Now, Source: toolgatev1alpha1.PinnedByApproval, Origin: st.ObservedOrigin,
			Approvers: clip.StringsWithLast(approvers, toolgatev1alpha1.MaxApprovers, toolgatev1alpha1.MaxIdentityLength), Definition: definition(in.Tool),
		}
		st.Change = nil
		// A human has seen this definition: the risk is the judgement of it,
		// not the highest level ever recorded.
		if in.Risk != nil {
			st.ComputedRisk = in.Risk.DeepCopy()
		}
		set(toolgatev1alpha1.PinTrusted, toolgatev1alpha1.ReasonApproved, fmt.Sprintf("approved by %s", strings.Join(approvers, ", ")))

	case st.Pinned == nil && in.UntrustedBody:
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonRenamedFromUntrusted,
			"the definition equals or nearly copies, apart from its name, one that awaits review or was rejected; it is not trusted on first use")

	case st.Pinned == nil && before == "" && in.ReplacesRemoved:
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonReplacesRemovedTool,
			"the tool appeared in the probe in which another disappeared; a renamed tool is reviewed, not trusted on first use")

	case st.Pinned == nil && before == "" && in.Risk != nil && len(in.Risk.Findings) > 0:
		// Trust on first use trusts what it is shown; a definition that
		// carries instructions for the model is shown to a human instead,
		// whose approval (of this fingerprint) is then what clears it.
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonPoisonedOnFirstUse,
			"the poisoning scan found something in the definition; it is reviewed, not trusted on first use")

	case st.Pinned == nil && in.FirstUse == toolgatev1alpha1.FirstUseReview:
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonAwaitingFirstReview, "the server reviews every new tool before use")

	case st.Pinned == nil && before == "":
		st.Pinned = &toolgatev1alpha1.PinnedDefinition{Fingerprint: observed, Time: in.Now, Source: toolgatev1alpha1.PinnedOnFirstUse, Definition: definition(in.Tool), Origin: st.ObservedOrigin}
		set(toolgatev1alpha1.PinTrusted, toolgatev1alpha1.ReasonPinnedOnFirstUse, "trusted on first use")

	case st.Pinned == nil:
		// Never trusted, seen before (awaiting review, or back after it
		// was removed) and still unapproved.
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonAwaitingFirstReview, "the tool awaits its first review")

	case st.Pinned.Fingerprint == observed:
		// The same definition, from another origin, not approved since.
		if st.Change == nil || st.Change.To != observed || !slices.Contains(st.Change.Kinds, toolgatev1alpha1.ChangeOriginChanged) {
			st.Change = &toolgatev1alpha1.DefinitionChange{From: st.Pinned.Fingerprint, To: observed, DetectedTime: in.Now,
				Kinds:   []toolgatev1alpha1.ChangeKind{toolgatev1alpha1.ChangeOriginChanged},
				Details: clip.Strings([]string{fmt.Sprintf("the server's origin changed from %s to %s", st.Pinned.Origin, st.ObservedOrigin)}, 1, toolgatev1alpha1.MaxChangeDetailLength)}
		}
		msg := fmt.Sprintf("the server's origin changed from %s to %s: the same definition from another server is reviewed again; it is withheld until approved", st.Pinned.Origin, st.ObservedOrigin)
		if counted > 0 {
			msg += fmt.Sprintf("; %d of %d approvals", counted, needed)
		}
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonOriginChanged, clip.String(msg, toolgatev1alpha1.MaxConditionMessageLength))

	default:
		// The definition differs from the pinned one and is not approved.
		if st.Change == nil || st.Change.To != observed {
			st.Change = change(st.Pinned, in.Tool, in.Now)
			if originMoved {
				st.Change.Kinds = append(st.Change.Kinds, toolgatev1alpha1.ChangeOriginChanged)
			}
		}
		msg := fmt.Sprintf("the definition changed from %s to %s (%s); it is withheld until approved", st.Pinned.Fingerprint.Short(), observed.Short(), strings.Join(kindsOf(st.Change), ", "))
		if counted > 0 {
			msg += fmt.Sprintf("; %d of %d approvals", counted, needed)
		}
		set(toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.ReasonDefinitionChanged, msg)
	}
	out.Status = st
	return out
}

// Untrusted reports whether a pin's last observed definition is one nobody
// trusts: awaiting review, rejected, or gone from the catalogue without
// having been trusted (or after being rejected). A renamed copy of such a
// definition must not be trusted on first use.
func Untrusted(st toolgatev1alpha1.ToolPinStatus) bool {
	switch st.State {
	case toolgatev1alpha1.PinAwaitingReview, toolgatev1alpha1.PinRejected:
		return true
	case toolgatev1alpha1.PinRemoved:
		if st.Pinned == nil || st.Pinned.Fingerprint != st.ObservedFingerprint {
			return true
		}
		_, _, rejecter := tally(st.Decisions, st.ObservedFingerprint, metav1.Time{})
		return rejecter != ""
	}
	return false
}

// tally returns the distinct users whose latest decision on fingerprint fp
// (a definition decision, not a call decision) approves it, sorted, and one
// user whose latest decision rejects it. Decisions on other fingerprints
// never count: a changed definition does not ride on an old approval.
// humans counts the approvers that are not service accounts. A decision
// by an identity that is never a person (NeverAPerson) does not count at
// all: the webhooks refuse them, and the record does not rely on it.
//
// A non-zero since leaves out approvals made before it (a rejection always
// counts): after a server moved to another origin, an approval of the
// same fingerprint at the old one says nothing of the new.
func tally(decisions []toolgatev1alpha1.Decision, fp toolgatev1alpha1.Fingerprint, since metav1.Time) (approvers []string, humans int, rejecter string) {
	latest := map[string]toolgatev1alpha1.DecisionAction{}
	for _, d := range decisions {
		if d.CallID != "" || d.Fingerprint != fp || d.User == "" || NeverAPerson(d.User, d.Groups) != "" {
			continue
		}
		// Decisions are stamped to the second, and so is since once stored:
		// an approval in the second of the move is not known to follow it.
		if d.Action == toolgatev1alpha1.DecisionApprove && !since.IsZero() && (d.Time == nil || !d.Time.After(since.Truncate(time.Second))) {
			continue
		}
		latest[d.User] = d.Action
	}
	for user, action := range latest {
		switch action {
		case toolgatev1alpha1.DecisionApprove:
			approvers = append(approvers, user)
			if !strings.HasPrefix(user, "system:serviceaccount:") {
				humans++
			}
		case toolgatev1alpha1.DecisionReject:
			if rejecter == "" || user < rejecter {
				rejecter = user
			}
		}
	}
	sort.Strings(approvers)
	return approvers, humans, rejecter
}

// higherSet is the higher of two levels by Level.Compare, an unset one
// giving way to a set one (an effective level is set only where a credit
// applies).
func higherSet(a, b toolgatev1alpha1.Level) toolgatev1alpha1.Level {
	switch {
	case a == "":
		return b
	case b == "" || a.Compare(b) >= 0:
		return a
	}
	return b
}

// riskNeverFalls keeps the higher level of the recorded and the new
// judgement: risk rises at once, and falls only when a human approves.
func riskNeverFalls(old, now *toolgatev1alpha1.ToolRisk) *toolgatev1alpha1.ToolRisk {
	if now == nil {
		return old.DeepCopy()
	}
	if old == nil || now.Level.Compare(old.Level) >= 0 {
		return now.DeepCopy()
	}
	kept := now.DeepCopy()
	kept.Level = old.Level
	kept.RiskLevel = old.RiskLevel
	kept.EffectiveLevel = higherSet(kept.EffectiveLevel, old.EffectiveLevel)
	kept.Reasons = clip.StringsWithLast(append(slices.Clone(kept.Reasons), fmt.Sprintf("%s kept: a level falls only when a human approves the definition", old.Level)), toolgatev1alpha1.MaxToolReasons, toolgatev1alpha1.MaxReasonLength)
	return kept
}

// definition is the canonical definition kept in status for later diffs,
// or nothing when it does not fit: a cut definition could not be parsed,
// and the fingerprint alone still pins it. The size that counts is the
// size as written to the API server: JSON escapes "<", ">" and "&" as six
// bytes each, so a definition within the schema's bound may still make a
// pin too large to store, and freeze every later observation of it.
func definition(t *tooldef.Tool) string {
	c := t.Canonical()
	if len(c) > toolgatev1alpha1.MaxDefinitionLength || EncodedLength(string(c)) > toolgatev1alpha1.MaxDefinitionLength {
		return ""
	}
	return string(c)
}

// EncodedLength is the length of s as a JSON string written to the API
// server, quotes left out.
func EncodedLength(s string) int {
	// Most definitions are short and need no encoding to know they fit.
	if len(s)*6 <= toolgatev1alpha1.MaxDefinitionLength {
		return len(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return len(s) * 6
	}
	return len(b) - 2
}

// change explains how the observed definition differs from the pinned one.
func change(pinned *toolgatev1alpha1.PinnedDefinition, observed *tooldef.Tool, now metav1.Time) *toolgatev1alpha1.DefinitionChange {
	c := &toolgatev1alpha1.DefinitionChange{From: pinned.Fingerprint, To: toolgatev1alpha1.Fingerprint(observed.Fingerprint()), DetectedTime: now}
	old, err := tooldef.ParseTool([]byte(pinned.Definition))
	if pinned.Definition == "" || err != nil {
		c.Details = []string{"the pinned definition was not kept, so the change cannot be explained part by part"}
		return c
	}
	d := tooldef.Compare(old, observed)
	if d == nil {
		return c
	}
	for _, k := range d.Kinds {
		c.Kinds = append(c.Kinds, toolgatev1alpha1.ChangeKind(k))
	}
	c.Parts = clip.Strings(d.Parts, toolgatev1alpha1.MaxChangeParts, toolgatev1alpha1.MaxChangePartLength)
	c.Details = clip.Strings(d.Details, toolgatev1alpha1.MaxChangeDetails, toolgatev1alpha1.MaxChangeDetailLength)
	return c
}

func kindsOf(c *toolgatev1alpha1.DefinitionChange) []string {
	if c == nil || len(c.Kinds) == 0 {
		return []string{"unexplained"}
	}
	out := make([]string, len(c.Kinds))
	for i, k := range c.Kinds {
		out[i] = string(k)
	}
	return out
}

// Origin is the origin of an endpoint URL — scheme://host:port, lower-case,
// the port explicit — or "" when the URL cannot be parsed. Two URLs with
// one origin reach one server; a path is not part of it.
func Origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
