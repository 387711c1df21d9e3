// Package namefold finds the JSON member names that two decoders read as
// two different messages.
//
// A proxy that judges a message reads its members by exact name; many
// decoders do not. Go's encoding/json, .NET's case-insensitive mode and
// Jackson's ACCEPT_CASE_INSENSITIVE_PROPERTIES match a member to a field
// whatever its case, with Unicode simple case folding ("Name", "NAME" and
// "ſ" for "s" all match), and the last match wins. A message holding
// {"name":"get_weather","Name":"delete_repository"} is then a call of one
// tool to the proxy and of the other to the server.
//
// The package owns one rule, in two parts, applied to a whole message in a
// single pass:
//
//   - no object anywhere in the message has two members whose names fold
//     to the same key (Key), which includes exact duplicates;
//   - at the levels a protocol defines (a Level: the members of a JSON-RPC
//     message, of a tools/call's params, of a tools/list result, of a
//     tool), no member's name folds to a defined name without being it.
//
// A message that passes reads the same to a decoder that matches names
// exactly and to one that folds them. The package owns no protocol: its
// caller describes the levels. It does not decide what to do with a
// message that fails; the gate refuses it and the probe reports it.
package namefold
