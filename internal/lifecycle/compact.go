package lifecycle

import (
	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// CompactDecisions returns the decisions of st that still matter, in their
// order: every decision on the definition pinned now or observed now, and
// every decision on a call still pending. Decisions on other definitions
// (superseded by a later change, never pinned) and on calls no longer
// pending can never count again, and are dropped, so that the log, bounded
// at MaxDecisions, keeps room for decisions on what is observed now.
//
// It never drops a decision that tally or a pending call could read, and
// it is idempotent. The result is never nil: toolgate keeps the list
// present so that an approver's "add /status/decisions/-" has a list to
// add to.
func CompactDecisions(st *toolgatev1alpha1.ToolPinStatus) []toolgatev1alpha1.Decision {
	keep := map[toolgatev1alpha1.Fingerprint]bool{}
	if st.ObservedFingerprint != "" {
		keep[st.ObservedFingerprint] = true
	}
	if st.Pinned != nil {
		keep[st.Pinned.Fingerprint] = true
	}
	pending := map[string]bool{}
	for _, c := range st.PendingCalls {
		pending[c.ID] = true
	}
	out := make([]toolgatev1alpha1.Decision, 0, len(st.Decisions))
	for _, d := range st.Decisions {
		if d.CallID != "" && pending[d.CallID] || d.CallID == "" && keep[d.Fingerprint] {
			out = append(out, *d.DeepCopy())
		}
	}
	return out
}
