// Package pinrecord says what a ToolPin's record becomes, for every kind
// of change, as one pure function.
//
// Decide takes a pin, a Change — observed in a probe (Observed), gone from
// its server or with its server (Gone), decisions, override or the clock
// moved (Reviewed), a call or a call's result held (CallOpened, the
// pending call's kind saying which) or ended (CallResolved) — and
// the time, and returns the whole next record: the status, with the review
// state (lifecycle.Next), pending calls past their expiry and grace
// resolved as Expired (the one grace, lifecycle.CallExpiryGrace, applied
// here with whichever change comes first), the decision log compacted,
// the override laid over the computed judgement, the Ready condition and
// the generation observed; the labels; the Events to record; and when to
// look at the pin again. A call that may not open is a Refusal.
//
// It reads no cluster and keeps no clock: package pinwriter reads the pin,
// calls Decide and writes the result, and is the only writer of ToolPin
// status. The review state machine and the primitives on pending calls
// are package lifecycle's, under it; who may decide is the approval
// webhooks'.
package pinrecord
