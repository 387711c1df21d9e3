// Package scan detects poisoning signals in the text of MCP tool
// definitions: instructions aimed at the model rather than the user
// (concealment, overriding other instructions, pre-steps that read private
// data), instructions about other servers' tools (shadowing), exfiltration
// directives, sensitive file paths, literal secrets, invisible and
// bidirectional Unicode, terminal control sequences, homoglyph identifiers,
// encoded payloads and markup that hides text from a human reviewer.
//
// A poisoned description is dangerous because the model reads every byte of
// it while the human who approves the tool reads a rendering of it, so the
// scanner looks for the gap between the two as much as for hostile wording.
// Phrase rules are tuned against real server catalogues: ordinary tools say
// "IMPORTANT:", "You must provide ...", "Do not use this for ...", and they
// are written in every language; the rules fire only on imperatives that aim
// at concealment, at overriding instructions, at private data or at other
// tools, not on imperative wording as such.
//
// Limits: every string is examined up to its first 64 KiB, a scan reports
// at most 64 findings, and the phrase rules read English; a hostile
// instruction written in another language is left to the character-level
// signals and to the human reviewer. Work is linear in the text: rules are
// tried only where their anchor words occur, and a text stuffed with
// anchors gets one pass per rule instead.
//
// The package owns detection only. It returns findings with the field they
// were found in and a visibly escaped excerpt; turning findings into risk
// (and forfeiting the approval-gate credit) belongs to the risk engine, and
// fetching or parsing catalogues belongs to the probe and package tooldef.
// It does no I/O, keeps no state between calls, imports nothing from
// Kubernetes, and is safe for concurrent use.
package scan
