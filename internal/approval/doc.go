// Package approval holds the admission webhooks that make human decisions
// on ToolPins trustworthy, and the identity policy they share.
//
// Five small handlers, each registered on its own path by Setup:
//
//   - StatusStamper (mutating, toolpins/status UPDATE) stamps each appended
//     decision with the requester's user name, groups, UID, credential ID
//     and the time, taken from the admission request and overwriting
//     whatever the requester typed;
//   - StatusValidator (validating, toolpins/status UPDATE) runs after every
//     mutation and refuses anything that is not stamped exactly as the
//     request says;
//   - OverrideStamper (mutating, toolpins CREATE and UPDATE) records who
//     set spec.override and when;
//   - OverrideValidator (validating, toolpins CREATE and UPDATE) guards
//     spec.override, a human classification that can lower a tool's level:
//     it takes the right to decide, asked of the API server;
//   - RecordValidator (validating, toolpins CREATE and DELETE) lets only the
//     operator create pins, and only the operator or an administrator
//     delete one that holds decisions or is not Trusted (awaiting review,
//     rejected, removed).
//
// Both status webhooks let the operator's own identity write status as it
// needs to, and hold everyone else to the same rules, written once as plain
// functions: only status.decisions may change, only by appending, one
// decision per request, within per-identity and total bounds; a decision
// must name the fingerprint observed now (for a call, the one the pending
// call was made against).
//
// Who may decide, or set an override, is the IdentityPolicy's answer:
// people may; identities that are never a person (lifecycle.NeverAPerson)
// never; service accounts only when configured as approvers, and never
// those of agent namespaces (labelled toolgate.dev/injection=enabled), so
// that an agent can never approve itself. An override also takes a
// SubjectAccessReview. The policy takes its namespace lookup and its
// access review as functions, so it and the handlers are tested without a
// client.
//
// The package does not decide what a decision means (the ToolPin
// controller counts approvals), and it is not the first gate: RBAC, who may
// patch toolpins/status at all, lives in the chart.
package approval
