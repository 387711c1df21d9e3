package lifecycle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Pending calls, held for a human, as plain functions of a pin's status: the gate
// server opens, decides and resolves calls with them, the webhooks and the
// tests read them, so every reader agrees on what a call's decisions mean.

// PendingCall returns the pending call with the given id, or nil.
func PendingCall(st *toolgatev1alpha1.ToolPinStatus, id string) *toolgatev1alpha1.PendingCall {
	for i := range st.PendingCalls {
		if st.PendingCalls[i].ID == id {
			return &st.PendingCalls[i]
		}
	}
	return nil
}

// ResolvedCall returns the record of a resolved call, or nil when the
// history (bounded) does not hold it.
func ResolvedCall(st *toolgatev1alpha1.ToolPinStatus, id string) *toolgatev1alpha1.CallRecord {
	for i := range st.CallHistory {
		if st.CallHistory[i].ID == id {
			return &st.CallHistory[i]
		}
	}
	return nil
}

// CallApprovalsNeeded is how many distinct people must approve one call of
// the tool: as for its definition, multi (on the computed judgement, which
// an override cannot lower, or the applied one) means required, at least
// 2, and service accounts do not count towards it; otherwise one approval.
func CallApprovalsNeeded(st *toolgatev1alpha1.ToolPinStatus, required int) (needed int, humansOnly bool) {
	for _, r := range []*toolgatev1alpha1.ToolRisk{st.ComputedRisk, st.Risk} {
		if r != nil && r.ApprovalRecommendation == toolgatev1alpha1.ApprovalMulti {
			return max(2, required), true
		}
	}
	return 1, false
}

// DecideCall reads the decisions on the pending call c: the latest of each
// person counts; one rejection rejects; enough approvals (see
// CallApprovalsNeeded) approve. decided is false while neither holds. by
// names who decided, sorted. Decisions that name another fingerprint, are
// not stamped, or come from identities that are never a person are not
// counted (the webhooks refuse them anyway).
func DecideCall(st *toolgatev1alpha1.ToolPinStatus, c *toolgatev1alpha1.PendingCall, required int) (verdict toolgatev1alpha1.CallVerdict, by []string, decided bool) {
	latest := map[string]toolgatev1alpha1.DecisionAction{}
	for _, d := range st.Decisions {
		if d.CallID != c.ID || d.Fingerprint != c.Fingerprint || d.User == "" || NeverAPerson(d.User, d.Groups) != "" {
			continue
		}
		latest[d.User] = d.Action
	}
	needed, humansOnly := CallApprovalsNeeded(st, required)
	var approvers, rejecters []string
	for user, action := range latest {
		switch action {
		case toolgatev1alpha1.DecisionReject:
			rejecters = append(rejecters, user)
		case toolgatev1alpha1.DecisionApprove:
			if humansOnly && strings.HasPrefix(user, serviceAccountPrefix) {
				continue
			}
			approvers = append(approvers, user)
		}
	}
	sort.Strings(approvers)
	sort.Strings(rejecters)
	switch {
	case len(rejecters) > 0:
		return toolgatev1alpha1.CallRejected, rejecters, true
	case len(approvers) >= needed:
		return toolgatev1alpha1.CallApproved, approvers, true
	}
	return "", nil, false
}

// ResolveCall ends the pending call id with verdict: the call leaves
// status.pendingCalls, its decisions leave status.decisions for its record
// in status.callHistory (the latest MaxCallRecordDecisions of them), and
// the history keeps its newest MaxCallHistory records. Decisions on the
// definition are never touched, so however many calls a tool serves, they
// never crowd a review out. It reports false, changing nothing, when the
// call is not pending.
func ResolveCall(st *toolgatev1alpha1.ToolPinStatus, id string, verdict toolgatev1alpha1.CallVerdict, now metav1.Time) bool {
	i := slices.IndexFunc(st.PendingCalls, func(c toolgatev1alpha1.PendingCall) bool { return c.ID == id })
	if i < 0 {
		return false
	}
	c := st.PendingCalls[i]
	st.PendingCalls = slices.Delete(slices.Clone(st.PendingCalls), i, i+1)
	if len(st.PendingCalls) == 0 {
		st.PendingCalls = nil
	}
	rec := toolgatev1alpha1.CallRecord{
		ID: c.ID, Kind: c.Kind, ResultDigest: c.ResultDigest, Verdict: verdict, Fingerprint: c.Fingerprint, ArgumentsDigest: c.ArgumentsDigest,
		Agent: c.Agent, RequestedTime: c.RequestedTime, ResolvedTime: now,
	}
	kept := make([]toolgatev1alpha1.Decision, 0, len(st.Decisions))
	for _, d := range st.Decisions {
		if d.CallID == id {
			rec.Decisions = append(rec.Decisions, *d.DeepCopy())
			continue
		}
		kept = append(kept, d)
	}
	st.Decisions = kept
	if n := len(rec.Decisions); n > toolgatev1alpha1.MaxCallRecordDecisions {
		rec.Decisions = rec.Decisions[n-toolgatev1alpha1.MaxCallRecordDecisions:]
	}
	st.CallHistory = append(slices.Clone(st.CallHistory), rec)
	if n := len(st.CallHistory); n > toolgatev1alpha1.MaxCallHistory {
		st.CallHistory = st.CallHistory[n-toolgatev1alpha1.MaxCallHistory:]
	}
	return true
}

// CallShareRefusal says why agent may not open one more pending call on a
// pin whose status is st, or "" when it may: the pin holds at most
// MaxPendingCalls, of which one namespace's pods at most
// MaxPendingCallsPerNamespace and one pod at most MaxPendingCallsPerPod.
// The narrowest bound reached is named, so that the agent's operator reads
// whose calls fill the pin.
func CallShareRefusal(st *toolgatev1alpha1.ToolPinStatus, agent toolgatev1alpha1.AgentIdentity) string {
	pod, namespace := 0, 0
	for _, c := range st.PendingCalls {
		if c.Agent.Namespace != agent.Namespace {
			continue
		}
		namespace++
		if c.Agent.Pod == agent.Pod {
			pod++
		}
	}
	switch {
	case pod >= toolgatev1alpha1.MaxPendingCallsPerPod:
		return fmt.Sprintf("pod %s/%s already holds %d pending calls on this tool, its share", agent.Namespace, agent.Pod, pod)
	case namespace >= toolgatev1alpha1.MaxPendingCallsPerNamespace:
		return fmt.Sprintf("namespace %s already holds %d pending calls on this tool, its share", agent.Namespace, namespace)
	case len(st.PendingCalls) >= toolgatev1alpha1.MaxPendingCalls:
		return fmt.Sprintf("the tool already holds %d pending calls, the most it may", len(st.PendingCalls))
	}
	return ""
}

// CallResolveBound bounds how long the gate server replica holding a call
// takes to record its end. It resolves the call itself at its expiry, on
// its own timer, and its write, retried on conflicts, ends within this
// bound.
const CallResolveBound = 10 * time.Second

// CallExpiryGrace is how long past its expiry a pending call stays before
// any writer of the pin resolves it as Expired: it is the one grace of
// pending calls, and ExpireCalls the one place that applies it. The
// replica holding a call resolves it at its expiry and records it within
// CallResolveBound; the grace leaves it that and a margin, so that a live
// replica always writes its own call's end, and only the calls of a
// replica that died are resolved by another writer. By then the gate has
// given up on the call on its own too (its bound is the approval timeout
// plus a few seconds), so nothing still waits for the call it records.
const CallExpiryGrace = CallResolveBound + 5*time.Second

// ExpireCalls resolves as Expired (ResolveCall) the pending calls of st
// that expired CallExpiryGrace or more before now, and returns their ids
// and when the next of the calls still pending comes due (zero when none
// is pending), for the caller to look again then.
func ExpireCalls(st *toolgatev1alpha1.ToolPinStatus, now metav1.Time) (expired []string, next time.Time) {
	for _, c := range slices.Clone(st.PendingCalls) {
		due := c.ExpiryTime.Add(CallExpiryGrace)
		if !now.Time.Before(due) {
			ResolveCall(st, c.ID, toolgatev1alpha1.CallExpired, now)
			expired = append(expired, c.ID)
			continue
		}
		if next.IsZero() || due.Before(next) {
			next = due
		}
	}
	return expired, next
}
