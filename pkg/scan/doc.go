// Package scan detects poisoning signals in the text of MCP tool
// definitions and server instructions: instructions aimed at the model
// rather than the user, instructions about other servers' tools
// (shadowing), exfiltration directives, sensitive file paths, literal
// secrets, parameters that ask for credentials, annotations that lie about
// a destructive tool, invisible and bidirectional Unicode, terminal control
// sequences, homoglyph and confusable names, encoded payloads and markup
// that hides text from a human reviewer.
//
// A poisoned description is dangerous because the model reads every byte of
// it while the human who approves the tool reads a rendering of it, so the
// scanner looks for the gap between the two as much as for hostile wording.
// Rules keyed on known phrases do not carry to attacks written another way,
// so besides a few phrase rules the scan judges what each sentence asks the
// model to do (intent.go): a directive - an imperative at a clause start, a
// verb under a modal - whose verb and object ask for data the tool does not
// need, a read of credentials, silence towards the user, the end of earlier
// instructions, authority the text does not have, persistence into memory,
// a risky command first, or the avoidance of other tools, weighed against
// what the tool is for. Ordinary tools say "IMPORTANT:", "You must provide
// ...", "Use this tool when the user asks ...", and the rules are tuned
// against real server catalogues not to report them. Nine other languages
// have a small lexicon each (lang.go); decoded and deciphered text is
// scanned like any other (encoded.go, cipher.go); names are compared by the
// Unicode TR39 skeleton (names.go).
//
// Limits: every string is examined up to its first 64 KiB, a scan reports
// at most 64 findings, and encodings are followed three layers deep. Work is
// linear in the text: phrase rules are tried only where their anchor words
// occur, intent rules only on sentences that hold one of their cue words.
//
// The package owns detection only. It returns findings with the field they
// were found in and a visibly escaped excerpt; turning findings into risk
// (and forfeiting the approval-gate credit) belongs to the risk engine, and
// fetching or parsing catalogues belongs to the probe and package tooldef.
// It does no I/O, keeps no state between calls, imports nothing from
// Kubernetes, and is safe for concurrent use.
//
// The formats of the literal secrets it recognises are pkg/secretmask's,
// which also masks them in text that is not a definition (the arguments of
// a call awaiting approval) without linking the scan's lexicons.
package scan
