// Package lifecycle decides the next review state of a ToolPin from what a
// probe observed and what humans decided: trust on first use or hold for
// review, keep a trusted definition trusted, send a changed definition back
// to review with an explanation, apply approvals and rejections, mark a tool
// gone from its server as Removed, and refuse to trust a renamed copy of an
// untrusted definition.
//
// Two helpers serve the webhooks and the controller alike: NeverAPerson,
// the fixed list of identities whose decisions never count, and
// CompactDecisions, which drops the decisions that can never count again
// so that the bounded log keeps room for what is observed now.
//
// Pending calls have their primitives here too (calls.go): open, decide,
// resolve, and expire them past CallExpiryGrace, the one grace of a
// pending call.
//
// It is a pure function over API types: no client, no clock of its own, no
// I/O, so every transition is table-tested. Package pinrecord builds the
// whole record of a pin on it (compaction, override, Ready, labels,
// events), and package pinwriter, its one writer, writes it; the admission
// webhook, not this package, vouches for who made each decision.
package lifecycle
