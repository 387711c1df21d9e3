// Package corpus locates the development corpus of real MCP catalogues for
// tests: folders of servers/*.json captures and labels.jsonl, kept beside
// the repository in shared/corpus (dev, and dev-2, a second set of servers
// in the same format). It owns the rule for a missing corpus: tests skip
// with a message, unless TOOLGATE_REQUIRE_CORPUS is set (as CI does), in
// which case they fail. It holds no test of its own.
package corpus
