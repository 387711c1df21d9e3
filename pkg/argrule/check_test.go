package argrule

import (
	"fmt"
	"strings"
	"testing"
)

// preciseSchema declares every argument, nested objects included, the way
// MCP SDKs and Pydantic write schemas ($defs, anyOf with null).
const preciseSchema = `{
	"type": "object",
	"properties": {
		"namespace": {"type": "string"},
		"count": {"type": "integer"},
		"ratio": {"type": "number"},
		"force": {"type": "boolean"},
		"to": {"type": "array", "items": {"type": "string"}},
		"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
		"options": {"type": "object", "properties": {"depth": {"type": "integer"}}, "additionalProperties": false},
		"owner": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}], "default": null},
		"wrapped": {"allOf": [{"$ref": "#/$defs/Person"}], "description": "a person"},
		"dry-run": {"type": "boolean"},
		"either": {"type": ["string", "integer"]},
		"maybe": {"type": ["string", "null"]}
	},
	"required": ["namespace"],
	"$defs": {
		"Item": {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}},
		"Person": {"type": "object", "properties": {"email": {"type": "string"}}}
	}
}`

type wantProblem struct {
	kind     Kind
	argument string // for UnknownArgument
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, schema, expr string
		want               []wantProblem
	}{
		{"known argument", preciseSchema, `args.namespace == "prod"`, nil},
		{"unknown top-level argument", preciseSchema, `args.namespaec == "prod"`,
			[]wantProblem{{UnknownArgument, "args.namespaec"}}},
		{"unknown argument in a presence test", preciseSchema, `has(args.forse) && args.force`,
			[]wantProblem{{UnknownArgument, "args.forse"}}},
		{"unknown argument by index", preciseSchema, `args["forse"] == true`,
			[]wantProblem{{UnknownArgument, "args.forse"}}},
		{"unknown argument by optional selection", preciseSchema, `args.?forse.orValue(false)`,
			[]wantProblem{{UnknownArgument, "args.forse"}}},
		{"unknown argument tested with in", preciseSchema, `"forse" in args`,
			[]wantProblem{{UnknownArgument, "args.forse"}}},
		{"an unknown argument is reported once", preciseSchema, `args.forse || args["forse"] == true || "forse" in args`,
			[]wantProblem{{UnknownArgument, "args.forse"}}},
		{"several unknown arguments", preciseSchema, `args.a == 1 || args.b == 2`,
			[]wantProblem{{UnknownArgument, "args.a"}, {UnknownArgument, "args.b"}}},
		{"a member that is not an identifier", preciseSchema, `args["dry-run"] || args["dry_run"]`,
			[]wantProblem{{UnknownArgument, "args.dry_run"}}},
		{"known nested argument", preciseSchema, `args.options.depth > 3`, nil},
		{"unknown nested argument", preciseSchema, `args.options.dpth > 3`,
			[]wantProblem{{UnknownArgument, "args.options.dpth"}}},
		{"unknown member of a list element", preciseSchema, `args.items[0].naem == "x"`,
			[]wantProblem{{UnknownArgument, "args.items[0].naem"}}},
		{"unknown member of an iterated element", preciseSchema, `args.items.exists(i, i.naem == "x")`,
			[]wantProblem{{UnknownArgument, "args.items[*].naem"}}},
		{"unknown member of an element, two variables", preciseSchema, `args.items.exists(n, i, i.naem == "x")`,
			[]wantProblem{{UnknownArgument, "args.items[*].naem"}}},
		{"unknown member through cel.bind", preciseSchema, `cel.bind(o, args.options, o.dpth > 3)`,
			[]wantProblem{{UnknownArgument, "args.options.dpth"}}},
		{"unknown member of a nullable $ref", preciseSchema, `args.owner.emial == "x"`,
			[]wantProblem{{UnknownArgument, "args.owner.emial"}}},
		{"known member of a nullable $ref", preciseSchema, `args.owner.email.endsWith("@example.com")`, nil},
		{"unknown member of an allOf wrapper", preciseSchema, `args.wrapped.emial == "x"`,
			[]wantProblem{{UnknownArgument, "args.wrapped.emial"}}},
		{"a comprehension variable named args hides the arguments", preciseSchema, `[{"x": 1}].all(args, args.x == 1)`, nil},

		{"type error on an integer", preciseSchema, `args.count.startsWith("x")`, []wantProblem{{Type, ""}}},
		{"type error on a list's elements", preciseSchema, `args.to.exists(a, a > 3)`, []wantProblem{{Type, ""}}},
		{"type error on an element's member", preciseSchema, `args.items.exists(i, i.size.startsWith("1"))`, []wantProblem{{Type, ""}}},
		{"type error on a boolean", preciseSchema, `args.force == "true"`, []wantProblem{{Type, ""}}},
		{"an integer compared with a double literal", preciseSchema, `args.count == 5.0`, []wantProblem{{Type, ""}}},
		{"a typed result that is not a bool", preciseSchema, `args.count`, []wantProblem{{Type, ""}}},
		{"a boolean result", preciseSchema, `args.force`, nil},
		{"typed operations that check", preciseSchema, `args.count > 3 && args.to.exists(a, a.endsWith("@x.com")) && args.items.all(i, i.size < 10)`, nil},
		{"a number may be an int or a double", preciseSchema, `args.ratio > 0.5 || args.ratio == 1`, nil},
		{"several types are dyn", preciseSchema, `args.either == 1 || args.either == "x"`, nil},
		{"a nullable type is dyn", preciseSchema, `args.maybe == null || args.maybe.startsWith("x")`, nil},

		{"misspelt tool field with a schema", preciseSchema, `tool.levl >= "L4"`, []wantProblem{{Type, ""}}},
		{"misspelt agent field with a schema", preciseSchema, `agent.namesapce == "prod"`, []wantProblem{{Type, ""}}},
		{"misspelt field and unknown argument", preciseSchema, `tool.levl >= "L4" && args.forse`,
			[]wantProblem{{Type, ""}, {UnknownArgument, "args.forse"}}},
		{"syntax error", preciseSchema, `args.namespace ==`, []wantProblem{{Syntax, ""}}},
		{"cost with a schema", preciseSchema, `args.to.all(a, args.to.all(b, args.to.all(c, a == b && b == c)))`, []wantProblem{{Cost, ""}}},

		{"no properties", `{"type": "object"}`, `args.anything.at.all == 1`, nil},
		{"additionalProperties true", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}`, `args.b == 1`, nil},
		{"additionalProperties a schema", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`,
			`args.b.startsWith("x")`, []wantProblem{{Type, ""}}},
		{"additionalProperties false without properties", `{"type": "object", "additionalProperties": false}`, `args.b == 1`,
			[]wantProblem{{UnknownArgument, "args.b"}}},
		{"patternProperties", `{"type": "object", "properties": {"a": {}}, "patternProperties": {"^x-": {}}}`, `args["x-b"] == 1`, nil},
		{"unevaluatedProperties true", `{"type": "object", "properties": {"a": {}}, "unevaluatedProperties": true}`, `args.b == 1`, nil},
		{"untyped property", `{"type": "object", "properties": {"a": {}}}`, `args.a.startsWith("x") || args.a > 3`, nil},
		{"open nested object", `{"type": "object", "properties": {"a": {"type": "object"}}}`, `args.a.b.c == 1`, nil},
		{"several alternatives", `{"type": "object", "properties": {"a": {"oneOf": [{"type": "object", "properties": {"x": {}}}, {"type": "object", "properties": {"y": {}}}]}}}`,
			`args.a.z == 1`, nil},
		{"a $ref to nowhere", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/None"}}}`, `args.a.z == 1`, nil},
		{"a $ref to itself", `{"$ref": "#"}`, `args.z == 1`, nil},
		{"a remote $ref", `{"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}`, `args.a.z == 1`, nil},
		{"a recursive schema", `{"$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}, "v": {"type": "integer"}}}}, "$ref": "#/$defs/Node"}`,
			`args.child.child.child.w == 1`, []wantProblem{{UnknownArgument, "args.child.child.child.w"}}},
		{"a JSON Pointer with escapes", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/x~1y"}}, "$defs": {"x/y": {"type": "object", "properties": {"v": {}}}}}`,
			`args.a.w == 1`, []wantProblem{{UnknownArgument, "args.a.w"}}},
		{"no schema", ``, `args.anything == 1`, nil},
		{"null schema", `null`, `args.anything == 1`, nil},
		{"schema not an object", `true`, `args.anything == 1`, nil},
		{"schema not JSON", `{"type":`, `args.anything == 1`, nil},
		{"no schema, still a type error", ``, `tool.levl >= "L4"`, []wantProblem{{Type, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.expr, []byte(tc.schema))
			if len(got) != len(tc.want) {
				t.Fatalf("Check(%s) = %s, want %v", tc.expr, describe(got), tc.want)
			}
			for i, p := range got {
				w := tc.want[i]
				if p.Kind != w.kind || p.Argument != w.argument {
					t.Errorf("problem %d: %s %q (%s), want %s %q", i, p.Kind, p.Argument, p.Message, w.kind, w.argument)
				}
				if strings.Contains(p.Message, "\n") || p.Message == "" {
					t.Errorf("problem %d: message %q is not one line", i, p.Message)
				}
				if p.Kind == UnknownArgument && !strings.Contains(p.Message, p.Argument) {
					t.Errorf("problem %d: message %q does not name %s", i, p.Message, p.Argument)
				}
				if p.Kind != Cost && p.Line == 0 && p.Kind != Type {
					t.Errorf("problem %d: %q has no position", i, p.Message)
				}
			}
		})
	}
}

// TestCheckFindsWhatCompileFinds: the operator's check must refuse every
// expression the gate would.
func TestCheckFindsWhatCompileFinds(t *testing.T) {
	for _, schema := range []string{``, preciseSchema} {
		for _, tc := range compileCases {
			got := Check(tc.expr, []byte(schema))
			if tc.want == "" {
				continue
			}
			found := false
			for _, p := range got {
				found = found || p.Kind == tc.want
			}
			if !found {
				t.Errorf("Check(%s, schema %.10q) = %s, want a %s problem", tc.expr, schema, describe(got), tc.want)
			}
		}
	}
}

func TestCheckListsDeclaredNames(t *testing.T) {
	got := Check(`args.namespaec == "prod"`, []byte(preciseSchema))
	if len(got) != 1 || !strings.Contains(got[0].Message, "namespace") || !strings.Contains(got[0].Message, "and 2 more") {
		t.Errorf("Check = %s, want the declared names, namespace among them, at most ten", describe(got))
	}
}

func describe(problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		fmt.Fprintf(&b, "[%s %q: %s]", p.Kind, p.Argument, p.Message)
	}
	return b.String()
}
