// Package pinwriter is the one writer of ToolPin status in the operator.
// The MCPServer controller (observations, removals), the ToolPin
// controller (decisions, overrides, expiry, a deleted server) and the gate
// server (held calls) all record their changes through Writer.Write.
//
// Write reads the pin (or takes the one the caller read from its cache),
// asks pinrecord.Decide what it becomes, patches the status under an
// optimistic lock only when it changed, records the Events, and brings
// the labels up to date. When another writer got there first it reads the
// pin again and decides again on what it reads, over ConflictBackoff(), so
// that no writer's change is lost and none is applied to a status it did
// not see; a reader that lags behind (an informer cache) is waited for,
// never written over.
//
// TestOnlyThisPackageWritesToolPinStatus type-checks the module and fails
// if any other production package writes a ToolPin's status. People's
// decisions, appended through the approval webhooks (kubectl patch, or
// kubectl toolgate approve and reject), are not the operator's writes and
// are listed there as such.
//
// What a pin becomes is not decided here (package pinrecord, which is
// pure), nor who may decide on it (the approval webhooks).
package pinwriter
