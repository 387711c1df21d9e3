// Package argfloor judges a tool call by its arguments: the same tool is
// harmless or grave depending on what it is called with, and a level
// pinned for the tool says how grave its ordinary calls are. An argument
// floor raises the level of one call (to the highest of its floors and
// the pinned level) when its arguments carry a general signal of a graver
// call:
//
//   - a widened reach: a wildcard, "all", an empty selector or an
//     always-true condition where the call names what it acts on, a flag
//     that turns on all namespaces, recursion or cascading, -A or
//     --recursive on a command line — one call acting on everything;
//   - a force or a skipped safety check: force, overwrite, hard, prune,
//     no-verify, skip-validation, auto-approve, a check on by default
//     turned off, --force on a command line;
//   - a statement that writes, in a parameter that carries statements: a
//     drop, a truncation, a delete or update of every row, a grant (L5),
//     or any other write (L3).
//
// The signals come from the words of parameter names, their schemas and
// the values sent — never from the name of a tool or a server — and they
// only raise: nothing here lowers a level. docs/risk-model.md, "Argument
// floors", gives each signal's level and why it holds for servers in
// general.
//
// Analyze reads a tool's input schema once (the gate caches the Plan per
// fingerprint) and keeps only the parameters worth reading; Evaluate then
// reads a call's arguments with a streaming decoder, decoding those
// parameters and skipping the rest as raw bytes, so that a call to a tool
// whose plan is empty costs nothing and an ordinary call little. Both are
// safe on arbitrary bytes, bounded in depth and size, and safe for
// concurrent use; the package keeps no state between calls.
//
// The package owns the signals and their levels. It does not own what the
// gate does with a call's level (refuse it over a ceiling, hold it for
// approval), and it imports neither the risk engine nor the scan, whose
// lexicons would weigh on every agent pod.
package argfloor
