// Package cli implements the toolgate command: `toolgate score` vets saved
// tools/list results offline and `toolgate diff` explains how a server's
// catalogue changed. It owns argument parsing, reading input within limits,
// and the table and JSON renderings; the verdict itself comes from package
// vet. cmd/toolgate only calls Run.
package cli
