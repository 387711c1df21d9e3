// Command resultcorpus writes the development corpus of MCP tool results
// that the gate's result scan is tuned and measured against: tool results
// (web pages, issue threads, e-mails, logs, records, code, …) that carry an
// indirect prompt injection, and look-alikes that a careless detector would
// flag but that address no model.
//
//	go run ./hack/resultcorpus -o pkg/resultscan/testdata/dev.jsonl
//	go run ./hack/resultcorpus -counts
//
// Every payload and every benign passage is written by hand in the text
// files under pieces/ (one file per kind and language, so that a reviewer
// reads each of them as it is); encodings that a reader could not see
// (base64, Unicode tag characters, zero-width runs) are written there as
// {{b64:…}}, {{tags:…}} and so on, in clear, and applied here. The program
// only composes: it wraps each piece in a carrier (an issue thread, an
// e-mail, a log, a JSON array, …) padded with the neutral filler of
// pieces/filler to the size band it draws, with a fixed seed, so that the
// same pieces always give the same file, byte for byte.
//
// It owns the corpus's shape (fields, sizes, where a payload sits); it does
// not know the detector, and must not: the corpus describes the world.
package main
