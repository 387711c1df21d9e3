// Package argcheck decides whether a tools/call's arguments are allowed by
// the input schema the operator pinned for the tool, so that the gate can
// refuse a call the reviewer's schema does not allow — with a JSON-RPC
// invalid-params error naming the argument — before it forwards the call
// or holds it for a human.
//
// It owns the compilation of pinned input schemas (once per tool
// fingerprint, cached in a bounded Checker) and the verdict on arguments.
// It does not own which schema is pinned, how fingerprints are computed, or
// what the gate answers: the caller passes the raw inputSchema of the tool
// definition whose fingerprint matched the pinned one (InputSchema extracts
// it) and turns an *Error into its reply. It imports only the standard
// library, github.com/google/jsonschema-go and
// github.com/go-json-experiment/json; nothing of Kubernetes.
//
// # What is checked
//
// Arguments absent from the call are checked as {}. Arguments that are not
// a JSON object, are not valid JSON, repeat a member name, or nest deeper
// than MaxArgumentDepth are refused.
//
// The arguments are validated against the schema by jsonschema-go v0.4.3:
// JSON Schema draft 2020-12 (the default, and MCP's), or draft-07 when the
// schema's $schema says so. The assertions it applies: type, enum, const,
// multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, pattern, prefixItems, items, contains, minContains,
// maxContains, minItems, maxItems, uniqueItems, unevaluatedItems,
// properties, patternProperties, additionalProperties, propertyNames,
// unevaluatedProperties, required, dependentRequired, dependentSchemas,
// minProperties, maxProperties, allOf, anyOf, oneOf, not, if/then/else,
// $ref and $dynamicRef within the schema (by JSON Pointer, $anchor or
// $id-relative URI), and in draft-07 also items as an array,
// additionalItems and dependencies. Not asserted: "format" (an annotation,
// as draft 2020-12 specifies by default: "format": "email" accepts any
// string), the content keywords (contentEncoding, contentMediaType,
// contentSchema), "default", and keywords JSON Schema does not define,
// which are ignored. Regular expressions are Go's (RE2): matching is linear
// in the string's length, so no pattern can make a check slow, but
// ECMA-262 features such as back-references are not valid and make the
// schema uncheckable (below).
//
// # Beyond JSON Schema: undeclared arguments
//
// When the schema's top level declares "properties" (even {}) and has none
// of "additionalProperties", "patternProperties" and
// "unevaluatedProperties", an argument that is not declared is refused
// ("unknown argument"), as if the schema said "unevaluatedProperties":
// false: arguments the reviewer never saw must not reach the server. An
// argument counts as declared if "properties" names it at the top level or
// in a subschema applying to the whole arguments object that the arguments
// satisfy (allOf, a passing anyOf or oneOf branch, $ref, then/else,
// dependentSchemas). An explicit "additionalProperties" (true, false or a
// schema), "patternProperties" or "unevaluatedProperties" keeps its JSON
// Schema meaning. Nested objects keep their JSON Schema meaning too.
//
// Whatever "additionalProperties" says, a member of the arguments, at any
// depth, whose name is that of a property the schema declares anywhere (in
// any "properties", under any applicator or $defs) but for case or Unicode
// folding ("CITY" for "city", "DryRun" for "dryRun") is refused: a server
// binding arguments to fields case-insensitively (Go's encoding/json)
// reads it as the declared argument, which the schema was not asked about.
//
// A schema too loose to say anything — no "properties" and no
// "additionalProperties", such as {"type": "object"} — checks only that the
// arguments are an object (and whatever else it does say).
//
// # Numbers
//
// Arguments are decoded with jsontext, not encoding/json, so that numbers
// keep their meaning: an integer (7, 7.0 or 7e0) within the int64 or
// uint64 range is validated as that exact integer, so 9007199254740993 is
// not rounded to 2^53 and compared against "maximum" or "enum" exactly; a
// larger integer is validated only if it is exactly a float64; a
// non-integer is the nearest float64. A number is refused ("number cannot
// be checked exactly") when reading it as a float64 would change what the
// schema says of it: an integer beyond uint64 that float64 cannot hold
// exactly, a fraction so close to an integer that it rounds to one
// (1.0000000000000001, which would pass "type": "integer"), a value that
// underflows to 0 or overflows. jsonschema-go's json.Number support could
// not be used: it reports json.Number as a string for "type".
// The schema's own numbers are jsonschema-go's: float64 (for "minimum",
// "enum", …), and "multipleOf" is computed in float64.
//
// # Uncheckable schemas fail closed
//
// A pinned schema that cannot be compiled refuses every call to its tool,
// with Argument "" and a Reason beginning "the tool's pinned input schema
// cannot be checked"; Error.Unwrap gives the library's account for logs.
// Passing such calls would let a schema the gate does not understand stand
// for one the reviewer approved. A schema is uncheckable when it:
//
//   - is not JSON, repeats a member name or has invalid UTF-8 (encoding/json,
//     which jsonschema-go decodes with, would silently take the last member
//     or replace the bytes), is larger than MaxSchemaSize or nests deeper
//     than MaxSchemaDepth;
//   - is not a valid schema to jsonschema-go (a keyword of the wrong type, a
//     pattern RE2 rejects, a $ref to nothing, …);
//   - declares a $schema other than draft 2020-12 or draft-07 (http or
//     https, with or without a trailing "#");
//   - has a member that is a keyword but for case or Unicode folding
//     ("Required", "additionalPropertieſ"), which encoding/json would read
//     as that keyword;
//   - uses a keyword of the other draft that jsonschema-go ignores in this
//     one: in 2020-12, "items" as an array, "additionalItems",
//     "dependencies"; in draft-07, "prefixItems", "dependentRequired",
//     "dependentSchemas";
//   - refers to a schema outside itself: remote references are never
//     fetched (the loader refuses every URI, so nothing, whatever the $ref
//     or $id says, makes the gate open a connection);
//   - could make checking run away: subschemas that apply each other in
//     place in a cycle ({"$ref": "#"}; jsonschema-go would recurse until the
//     process dies), or more than 65536 subschema evaluations along one path
//     into arguments MaxArgumentDepth deep (applicators that multiply, or
//     recursion through alternatives that all descend into the same member).
//     Recursion that branches by member name or item, such as a tree of
//     "children", compiles.
//
// # Refusals
//
// Check returns nil or an *Error. Error.Argument is the JSON Pointer of the
// offending value within the arguments ("/path", "/opts/depth",
// "/paths/1"), "" for the arguments as a whole, at most 256 bytes.
// Error.Reason is a short phrase in the gate's words. Neither ever
// contains an argument's value, which may be a secret; a Reason may quote
// the schema (a bound such as "greater than the maximum 5"). jsonschema-go
// decides; when it refuses, the package walks the schema to name the
// argument, and when it cannot tell it names the whole arguments with
// "arguments do not match the tool's input schema".
//
// # Cost
//
// A compiled schema is cached under the tool's fingerprint, which must
// identify the definition's bytes: Check reads the schema only on a cache
// miss. A warm check of a three-argument call costs about 13 µs and 81
// allocations (BenchmarkCheck). Compiling costs about the schema's size
// times its nesting depth, well under a second at the bounds; call Compile
// when a pinned definition is first observed to take it off the call path.
package argcheck
