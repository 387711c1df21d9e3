package argrule

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// compileCases are expressions with the kind of problem Compile must find
// ("" for none). Check without a schema must find the same.
var compileCases = []struct {
	name, expr string
	want       Kind
}{
	// Rules as people write them.
	{"presence and flag", `has(args.force) && args.force`, ""},
	{"membership in a literal list", `args.namespace in ["prod", "production"]`, ""},
	{"a pass over a list of strings", `args.to.exists(a, !a.endsWith("@example.com"))`, ""},
	{"a regex over a string", `args.query.matches("(?i)\\bdrop\\b")`, ""},
	// A single pass doing per-byte work on each element is linear in the
	// arguments: the estimate must not charge it as a list of 512 Ki
	// elements of 1 MiB each.
	{"a substring search in a pass", `args.paths.exists(p, p.contains(".."))`, ""},
	{"a regex in a pass", `args.paths.exists(p, p.matches("^/(etc|root)/"))`, ""},
	{"two conditions per element", `args.to.exists(a, !a.endsWith("@example.com") && !a.endsWith("@example.org"))`, ""},
	{"two passes", `args.tags.exists(t, t in ["pii"]) || args.tags.filter(t, t.size() > 3).size() > 1`, ""},
	{"map then filter", `args.xs.map(x, x + 1).filter(x, x > 0).size() > 0`, ""},
	{"a pass over each element's own list", `args.matrix.all(row, row.all(x, x >= 0))`, ""},
	{"optional values", `args.?dryRun.orValue(false) == false`, ""},
	{"cel.bind", `cel.bind(ns, args.namespace, ns == "prod" || ns.startsWith("prod-"))`, ""},
	{"two-variable comprehension", `args.labels.exists(k, v, k == "env" && v == "prod")`, ""},
	{"string library", `args.branch.lowerAscii().trim() == "main"`, ""},
	{"list library", `args.groups.flatten().slice(0, 2) == ["a", "b"]`, ""},
	{"sets library", `sets.intersects(args.tags, ["pii", "secret"])`, ""},
	{"level comparison", `tool.level >= "L4"`, ""},
	{"every tool field", `tool.name != "" && tool.server != "" && tool.category != "" && tool.blastRadius != "" && tool.reversibility != ""`, ""},
	{"every agent field", `agent.namespace != "" && agent.pod != "" && agent.serviceAccount != "" && agent.labels["team"] == "x"`, ""},
	{"a reserved word after a dot", `args.namespace == "kube-system" && args.package == "x"`, ""},
	{"a member that is not an identifier", `args["dry-run"] == true || args["in"] == 1`, ""},
	{"a value read from the arguments", `args.force`, ""},

	{"syntax error", `args.force &&`, Syntax},
	{"in is not selectable", `args.in == 1`, Syntax},
	{"unbalanced parenthesis", `(args.a == 1`, Syntax},
	{"an int", `1 + 1`, Type},
	{"a string", `args.name + "x"`, Type},
	{"a misspelt tool field", `tool.levl >= "L4"`, Type},
	{"a misspelt agent field", `agent.namesapce == "prod"`, Type},
	{"an unknown variable", `request.user == "x"`, Type},
	{"an unknown function", `args.x.frobnicate()`, Type},
	{"a tool field of the wrong type", `tool.level > 3`, Type},
	{"an invalid literal pattern", `args.query.matches("(")`, Type},
	{"cubic", `args.items.all(i, args.items.all(j, args.items.all(k, i == j && j == k)))`, Cost},
	{"quadratic", `args.items.exists(i, args.items.exists(j, i != j && i.name == j.name))`, Cost},
	{"quadratic within one element", `args.items.all(i, i.a.exists(x, i.b.exists(y, x == y)))`, Cost},
	{"a pass scanning another argument each time", `args.to.exists(a, args.body.contains(a))`, Cost},
	{"distinct compares every pair", `args.tags.distinct().size() > 3`, Cost},
	{"a replacement as long as the arguments in each place", `args.s.replace("a", args.s).size() > 0`, Cost},
}

func TestCompile(t *testing.T) {
	for _, tc := range compileCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.expr)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Compile(%s): %v", tc.expr, err)
				}
				if p == nil {
					t.Fatal("no program")
				}
				return
			}
			var problem Problem
			if !errors.As(err, &problem) {
				t.Fatalf("Compile(%s) = %v, want a %s Problem", tc.expr, err, tc.want)
			}
			if problem.Kind != tc.want {
				t.Errorf("Compile(%s): %s problem %q, want %s", tc.expr, problem.Kind, problem.Message, tc.want)
			}
			if strings.Contains(problem.Message, "\n") {
				t.Errorf("message is not one line: %q", problem.Message)
			}
		})
	}
}

func TestProblemPosition(t *testing.T) {
	for _, tc := range []struct {
		expr         string
		line, column int
	}{
		{`tool.levl == "L4"`, 1, 5},
		{"args.a == 1 &&\n  tool.levl == \"L4\"", 2, 7},
	} {
		_, err := Compile(tc.expr)
		var problem Problem
		if !errors.As(err, &problem) {
			t.Fatalf("Compile(%q) = %v, want a Problem", tc.expr, err)
		}
		if problem.Line != tc.line || problem.Column != tc.column {
			t.Errorf("Compile(%q): problem at %d:%d, want %d:%d", tc.expr, problem.Line, problem.Column, tc.line, tc.column)
		}
		prefix := fmt.Sprintf("%d:%d: ", tc.line, tc.column)
		if !strings.HasPrefix(problem.Message, prefix) || !strings.Contains(problem.Message, "levl") {
			t.Errorf("message %q does not name levl at %s", problem.Message, prefix)
		}
	}
}

func TestCostProblemSaysWhy(t *testing.T) {
	_, err := Compile(`args.items.all(i, args.items.all(j, args.items.all(k, i == j && j == k)))`)
	if err == nil || !strings.Contains(err.Error(), "inside another iteration") {
		t.Errorf("cost problem %q does not name the usual cause", err)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(2)
	first, err := c.Compile(`args.a == 1`)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.Compile(`args.a == 1`)
	if again != first {
		t.Error("the same expression compiled twice")
	}
	if _, err := c.Compile(`args.a ==`); err == nil {
		t.Error("a refused expression compiled from the cache")
	}
	if _, err := c.Compile(`args.a ==`); err == nil {
		t.Error("a refused expression compiled the second time")
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
	if _, err := c.Compile(`args.b == 1`); err != nil {
		t.Fatal(err)
	}
	if c.Len() > 2 {
		t.Errorf("Len = %d over the limit 2", c.Len())
	}
}

// TestReads: the top-level arguments an expression reads by name, however
// it spells the reading.
func TestReads(t *testing.T) {
	for expr, want := range map[string]string{
		`has(args.force) && args.force`:                           "force",
		`args["branch"] == "main" && "remote" in args`:            "branch remote",
		`args.?dry.orValue(false) || args.items.exists(i, i.all)`: "dry items",
		`args.options.recursive`:                                  "options",
		`agent.namespace == "prod"`:                               "",
	} {
		p, err := Compile(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := strings.Join(p.Reads(), " "); got != want {
			t.Errorf("%s: reads %q, want %q", expr, got, want)
		}
	}
}
