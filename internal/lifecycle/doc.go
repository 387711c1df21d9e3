// Package lifecycle decides the next review state of a ToolPin from what a
// probe observed and what humans decided: trust on first use or hold for
// review, keep a trusted definition trusted, send a changed definition back
// to review with an explanation, apply approvals and rejections, mark a tool
// gone from its server as Removed, and refuse to trust a renamed copy of an
// untrusted definition.
//
// It is a pure function over API types: no client, no clock of its own, no
// I/O, so every transition is table-tested. The ToolPin controller reads the
// cluster, calls Next, and writes the result; the admission webhook, not this
// package, vouches for who made each decision.
package lifecycle
