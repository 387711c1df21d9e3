// Package resultscan judges what an MCP server says after its tools were
// reviewed: the results of tool calls, log notifications, the requests a
// server sends the agent (sampling, elicitation), prompts and resources.
// A definition is reviewed once; a result is written anew on every call,
// often from data the server does not control (an issue comment, a web
// page, an e-mail), and the model reads it with the same attention it
// gives its instructions. Text in a result that speaks to the model —
// overriding its instructions, posing as the system, asking it to call
// another tool, to read a credential, to hide something from the user, to
// put data into a URL the client will fetch — is indirect prompt
// injection, and this package finds it.
//
// It is built for the gate's hot path, not the operator's: one pass over
// the bytes finds the few places worth a second look (cue words of ten
// languages hashed as they are read, markup, links, invisible characters,
// encoded runs), and only the sentences that hold cues of at least two
// kinds are judged. Ordinary data — prose, logs, JSON, code — costs the
// pass and nothing else. The lexicons are small and built once; the
// package links none of pkg/scan's tables (the confusables and the
// operator's phrase rules), which would cost the gate megabytes of heap.
//
// What makes a sentence a finding is what it asks of its reader, judged
// the way pkg/scan judges a definition: an override of earlier
// instructions; a directive addressed to the assistant (a vocative, "if
// you are an AI", a role marker such as "SYSTEM:" or a chat template's
// tokens, a tag like <IMPORTANT>); concealment from the user; a directive
// naming one of the agent's tools. Data that only mentions such things —
// an advisory quoting an attack, a log line that starts "SYSTEM:", an
// e-mail between people in the imperative — is told apart by what is
// missing (no addressee, no directive, the words in quotes or next to
// "example", "attack", "injection"), and a weak cue counts only next to
// another. Hidden markup, invisible characters and encoded text are judged
// by what they hide: a comment holding a directive is a finding, a
// comment holding a build tag is not.
//
// Limits: a Scanner examines at most Options.MaxBytes of text per answer
// (Report.Unscanned counts the rest: never passed as clean), a sentence
// is judged on its first 1 KiB, encodings are followed two layers deep,
// and a report holds at most 64 findings. Work is linear in the text. The
// package does no I/O, keeps no state between calls and is safe for
// concurrent use.
package resultscan
