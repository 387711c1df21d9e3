// Package argrule compiles, checks and evaluates argument rules: CEL
// expressions (github.com/google/cel-go) over a tools/call's arguments that
// a ToolPolicy attaches to tools. A rule whose expression is true tightens
// the call.
//
// It owns the language rules are written in — the variables, the libraries,
// the limits on cost — and the three operations on a rule: Compile, the
// gate's check before it evaluates rules (once per configuration; Cache
// keeps compiled rules across configurations); Check, the operator's check
// against a tool's pinned input schema, whose problems it reports in the
// ToolPolicy's status; and Program.Eval, on every call, against a Call
// whose arguments DecodeArguments read once for all rules. It does not own
// what a rule does when it applies (refuse the call, hold it for a person,
// raise its level), which rules apply to which tools, or the API: the
// operator and the gate map their types to and from these. It imports
// nothing of Kubernetes, so that the gate can link it.
//
// # Variables
//
// An expression sees three variables:
//
//   - args, the call's arguments: a map from argument name to value, with
//     nested objects as maps, arrays as lists, and strings, bools and null
//     as themselves. A number is an int when it is an integer (5, and also
//     5.0 or 5e0 up to 2^53) and a double otherwise; ints and doubles
//     compare with each other (args.replicas > 3 holds for 5 and 5.0). An
//     argument absent from the call is absent from args: has(args.force),
//     "force" in args or args.?force.orValue(false) test for it.
//   - tool, the tool called: tool.name, tool.server ("namespace/name"),
//     tool.level ("L0" to "L5", which compare in level order as strings:
//     tool.level >= "L4"), tool.category, tool.blastRadius and
//     tool.reversibility; strings, "" when the policy says nothing of them.
//   - agent, the pod calling: agent.namespace, agent.pod,
//     agent.serviceAccount (strings) and agent.labels (map(string, string)).
//
// tool and agent are typed objects: a misspelt field (tool.levle) is a
// compile error, not a rule that never applies. args is dynamic to the gate;
// the operator's Check types it from the tool's schema.
//
// Besides CEL's standard functions (matches is RE2, linear in the string)
// an expression may use the string, list and set extensions, cel.bind,
// two-variable comprehensions and optional values, as Kubernetes offers
// them. An argument that is not an identifier, or is one of CEL's words
// that cannot follow a dot (in, true, false, null), is read by index:
// args["dry-run"], args["in"].
//
// # Failing closed
//
// A rule must evaluate to a bool. Anything else — an argument it reads is
// absent, a value of a type it cannot handle, an index out of range, a
// result that is not a bool, an evaluation that ran past MaxIterations —
// is an error from Eval, and the caller takes the rule as applying. Rules
// only tighten, so a rule that cannot say "this call is fine" does not let
// the call through on its behalf. A rule meant to apply only when an
// argument is present says so: has(args.force) && args.force.
//
// # Cost
//
// A rule is evaluated on every call, on arguments the agent chooses, up to
// a hundred rules a call; its cost must be bounded before it is accepted,
// not discovered on a call. Compile estimates each expression's worst-case
// cost with cel-go's estimator, assuming arguments of up to
// MaxArgumentBytes (1 MiB, the most DecodeArguments and the gate accept)
// and comprehensions of up to MaxIterations (100,000) steps, and refuses
// an expression whose estimate exceeds CostBudget (10,000,000 units,
// Kubernetes' limit for one CRD validation rule). That admits passes over
// the arguments with about a hundred units of work per element and refuses
// iteration nested in iteration over the arguments (quadratic), the usual
// way a rule becomes unaffordable; map and filter chains and distinct() on
// large lists add up quickly. See sizeEstimator for how the estimate avoids
// charging a single pass over a list of strings as if every string were as
// large as the arguments.
//
// At run time an evaluation that takes more than MaxIterations comprehension
// steps stops with an error. cel.CostLimit, cel-go's runtime cost limit, is
// not used: in cel-go v0.29.2 tracking cost makes a comprehension quadratic
// in its length (MaxIterations says more).
//
// BenchmarkEval measures a call of eight arguments on two busy cores:
// decoding takes about 8 µs and each rule under 1 µs, so a call checked
// against ten rules takes about 15 µs, against a hundred about 90 µs.
// Compile takes about 0.3 ms a rule, most of it in CEL's parser.
//
// # Checking against the tool's schema
//
// Check finds what Compile finds and, given the tool's input schema, the
// arguments an expression names that the schema does not declare, and type
// errors with each argument typed as the schema declares it. See Check for
// which schemas say enough to be checked against; where one does not, the
// argument is dyn and its names are not checked, so a vague schema never
// makes a rule wrong.
package argrule
