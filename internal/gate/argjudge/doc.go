// Package argjudge judges a tools/call's arguments beyond their schema:
// the argument rules of the configuration that name the tool, and the
// built-in argument floors of its approved inputSchema. It is the one
// judgement the gate makes on every call and the offline CLI makes on a
// saved call, so that what a pipeline is told is what the gate would do.
//
// It owns compiling a configuration's rules (Compile, once per
// configuration, never per call) and applying them and the floors to one
// call's raw arguments (Judge), with every rule that matched and every
// floor met, for the audit line and the metrics. What comes of a
// judgement — refused, held, forwarded — is package decide's: the
// judgement is one fact of decide.Call.
//
// Everything here fails towards tightening. A rule that did not compile,
// that the operator found does not fit the tool's schema, or whose
// expression cannot be evaluated on these arguments (a missing key, a type
// it did not expect, its cost limit) counts: the first two refuse the
// call as a rule that cannot be evaluated, the last as if the expression
// were true. Nothing here lowers a level.
package argjudge
