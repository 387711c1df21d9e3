package argrule

import (
	"strings"
	"testing"
)

// fuzzRules read arguments in every way an expression can: presence,
// selection, index, iteration, arithmetic, strings, regexes, optionals.
var fuzzRules = []string{
	`has(args.force) && args.force`,
	`args.namespace in ["prod", "production"]`,
	`args.to.exists(a, !a.endsWith("@example.com"))`,
	`args.query.matches("(?i)\\bdrop\\b")`,
	`args.replicas > 3 || args.replicas + 1 == 2 || args.replicas * 2.0 > 1.0`,
	`args.items[0].name.startsWith("x") || size(args.items) > 2`,
	`args.all(k, v, k.size() < 10 && v != null)`,
	`args.?opts.depth.orValue(0) > 2`,
	`args.tags.exists(t, t in ["pii"]) || args.tags.filter(t, t.size() > 3).size() > 1`,
	`string(args.a) == "1" || int(args.b) == 1 || double(args.c) == 1.0`,
	`cel.bind(m, args.m, m.all(r, r.all(x, x >= 0)))`,
	`type(args.n) == int && args.n / 0 == 1`,
}

// FuzzEval checks that no arguments make DecodeArguments or Eval panic, and
// that a rule evaluates to a result or an error, never both.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"force": true, "namespace": "prod"}`,
		`{"to": ["a@example.com", 1, null, {"x": []}], "query": "DROP table"}`,
		`{"replicas": 5.0, "items": [{"name": "x"}], "opts": {"depth": 3}}`,
		`{"replicas": 1e308, "n": 9223372036854775807, "tags": ["pii", "x"]}`,
		`{"m": [[1, 2], [-1]], "a": 1, "b": "1", "c": true}`,
		`{"a": {"a": {"a": {"a": [[[[]]]]}}}}`,
		"{\"\\u0000\": \"\\ud800\"}",
		`{"n": -0, "x": 1E400}`,
	} {
		f.Add(seed)
	}
	var programs []*Program
	for _, rule := range fuzzRules {
		p, err := Compile(rule)
		if err != nil {
			f.Fatalf("Compile(%s): %v", rule, err)
		}
		programs = append(programs, p)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := DecodeArguments([]byte(raw))
		if err != nil {
			return
		}
		call := &Call{Arguments: args, Tool: Tool{Level: "L3"}, Agent: Agent{Labels: map[string]string{"a": "b"}}}
		for _, p := range programs {
			if got, err := p.Eval(call); err != nil && got {
				t.Errorf("Eval returned true with an error: %v", err)
			}
		}
	})
}

// FuzzCheck checks that no expression or schema makes Check panic, and that
// every problem is one non-empty line of a known kind.
func FuzzCheck(f *testing.F) {
	for _, tc := range compileCases {
		f.Add(tc.expr, preciseSchema)
	}
	f.Add(`args.a.b[0].c`, `{"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"properties": {"b": {"items": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}}}}}`)
	f.Add(`args.x.all(a, b, b.y)`, `{"$ref": "#/a/0"}`)
	f.Add(`[1].exists(args, args.z) && "q" in args`, `{"additionalProperties": false, "type": ["object", "null"]}`)
	f.Fuzz(func(t *testing.T, expr, schema string) {
		for _, p := range Check(expr, []byte(schema)) {
			switch p.Kind {
			case Syntax, Type, UnknownArgument, Cost:
			default:
				t.Errorf("problem of unknown kind %q", p.Kind)
			}
			if p.Message == "" || strings.Contains(p.Message, "\n") {
				t.Errorf("problem message %q is not one line", p.Message)
			}
		}
	})
}
