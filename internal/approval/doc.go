// Package approval is the admission webhook that makes human decisions on
// ToolPins trustworthy. It watches every update of a ToolPin's status and
//
//   - lets the operator's own identity write status as it needs to;
//   - lets anyone else only append to status.decisions: every other status
//     field, and every past decision, is the operator's record;
//   - stamps each appended decision with the requester's user name, groups
//     and the time, taken from the admission request and overwriting
//     whatever the requester typed;
//   - refuses a decision on any fingerprint but the one observed now (and,
//     for a call, the one the pending call was made against);
//   - refuses decisions from service accounts, except those configured as
//     approvers, and always from the service accounts of agent namespaces,
//     so an agent can never approve itself.
//
// The same checks run twice: as a mutating webhook, which stamps, and as a
// validating webhook, which runs after every mutation and refuses anything
// that is not stamped exactly as the request says. The package owns those
// rules; RBAC (who may patch toolpins/status at all) is the first gate and
// lives in the chart.
package approval
