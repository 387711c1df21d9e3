// Package tooldef reads MCP tool definitions exactly as a server sent them,
// fingerprints them, and explains how two definitions of a tool differ.
//
// It works from the raw JSON rather than the MCP Go SDK's types on purpose:
// the SDK's ToolAnnotations drops fields it does not model (server-declared
// SEP-2793 fields such as riskLevel live there) and cannot tell an absent
// readOnlyHint from false, and a fingerprint must cover everything the model
// will see.
//
// The fingerprint is SHA-256 over the RFC 8785 (JCS) canonical JSON of the
// whole definition, after the four annotation hints are filled with the MCP
// defaults when absent. Formatting, key order and tool order therefore never
// change a fingerprint; any other edit does. The package owns parsing,
// canonical form, fingerprints and diffs. It does not judge risk or scan for
// poisoning, and it imports nothing from Kubernetes, so other programs can
// use it to vet a catalogue offline.
//
// A definition is decoded once into a tree of *Object, []any, string,
// json.Number, bool and nil, which the canonical form, the scan and the
// risk engine all read. An Object holds its members sorted as the
// canonical form writes them, so no reader iterates or sorts a map.
package tooldef
