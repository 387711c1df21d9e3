package argrule

import (
	"strings"
	"testing"
)

func TestEval(t *testing.T) {
	payments := Agent{Namespace: "shop", Pod: "agent-0", ServiceAccount: "agent", Labels: map[string]string{"team": "payments"}}
	for _, tc := range []struct {
		name, expr, args string
		tool             Tool
		agent            Agent
		want             bool
		wantErr          string // a part of the error; "" for none
	}{
		// A delete of everything, or in production.
		{"delete all", `args.?all.orValue(false) || args.namespace == "production"`, `{"namespace": "dev", "all": true}`, Tool{}, Agent{}, true, ""},
		{"delete in production", `args.?all.orValue(false) || args.namespace == "production"`, `{"namespace": "production", "name": "x"}`, Tool{}, Agent{}, true, ""},
		{"delete one in dev", `args.?all.orValue(false) || args.namespace == "production"`, `{"namespace": "dev", "name": "x"}`, Tool{}, Agent{}, false, ""},
		// A forced push to main.
		{"force push to main", `has(args.force) && args.force && args.branch == "main"`, `{"remote": "origin", "branch": "main", "force": true}`, Tool{}, Agent{}, true, ""},
		{"push to main", `has(args.force) && args.force && args.branch == "main"`, `{"remote": "origin", "branch": "main"}`, Tool{}, Agent{}, false, ""},
		{"force push to a branch", `has(args.force) && args.force && args.branch == "main"`, `{"branch": "topic", "force": true}`, Tool{}, Agent{}, false, ""},
		// A query that drops something.
		{"query drops a table", `args.query.matches("(?i)\\bdrop\\s+(table|database)\\b")`, `{"query": "SELECT 1; drop  TABLE users"}`, Tool{}, Agent{}, true, ""},
		{"query reads", `args.query.matches("(?i)\\bdrop\\s+(table|database)\\b")`, `{"query": "SELECT dropped FROM t"}`, Tool{}, Agent{}, false, ""},
		// Mail to someone outside the company.
		{"mail outside", `args.to.exists(a, !a.lowerAscii().endsWith("@example.com"))`, `{"to": ["ann@example.com", "eve@evil.test"], "subject": "hi"}`, Tool{}, Agent{}, true, ""},
		{"mail inside", `args.to.exists(a, !a.lowerAscii().endsWith("@example.com"))`, `{"to": ["ann@example.com", "Bob@Example.COM"]}`, Tool{}, Agent{}, false, ""},

		{"nested objects and arrays", `args.spec.containers.exists(c, c.image.startsWith("docker.io/") && c.ports[0].port == 80)`,
			`{"spec": {"containers": [{"image": "quay.io/a", "ports": [{"port": 8080}]}, {"image": "docker.io/b", "ports": [{"port": 80}]}]}}`, Tool{}, Agent{}, true, ""},
		{"an int", `args.replicas > 3`, `{"replicas": 5}`, Tool{}, Agent{}, true, ""},
		{"an integer written as a double", `args.replicas > 3`, `{"replicas": 5.0}`, Tool{}, Agent{}, true, ""},
		{"an integer written as a double is an int", `type(args.replicas) == int && args.replicas == 5`, `{"replicas": 5.0}`, Tool{}, Agent{}, true, ""},
		{"a fraction is a double", `type(args.replicas) == double && args.replicas > 3`, `{"replicas": 3.5}`, Tool{}, Agent{}, true, ""},
		{"int and double compare", `args.a < args.b && args.b == 2`, `{"a": 1.5, "b": 2}`, Tool{}, Agent{}, true, ""},
		{"null", `args.owner == null`, `{"owner": null}`, Tool{}, Agent{}, true, ""},
		{"no arguments", `size(args) == 0`, ``, Tool{}, Agent{}, true, ""},
		{"label", `agent.labels["team"] == "payments" && agent.labels.team == "payments"`, `{}`, Tool{}, payments, true, ""},
		{"label tested", `"team" in agent.labels && !("tier" in agent.labels)`, `{}`, Tool{}, payments, true, ""},
		{"agent fields", `agent.namespace == "shop" && agent.pod == "agent-0" && agent.serviceAccount == "agent"`, `{}`, Tool{}, payments, true, ""},
		{"no labels", `size(agent.labels) == 0`, `{}`, Tool{}, Agent{}, true, ""},
		{"level at the threshold", `tool.level >= "L4"`, `{}`, Tool{Level: "L4"}, Agent{}, true, ""},
		{"level above", `tool.level >= "L4"`, `{}`, Tool{Level: "L5"}, Agent{}, true, ""},
		{"level below", `tool.level >= "L4"`, `{}`, Tool{Level: "L3"}, Agent{}, false, ""},
		{"tool fields", `tool.name == "delete" && tool.server == "ns/srv" && tool.category == "destructive" && tool.blastRadius == "cluster" && tool.reversibility == "irreversible"`,
			`{}`, Tool{Name: "delete", Server: "ns/srv", Category: "destructive", BlastRadius: "cluster", Reversibility: "irreversible"}, Agent{}, true, ""},
		{"an empty tool field is unset", `!has(tool.category) && tool.category == ""`, `{}`, Tool{}, Agent{}, true, ""},

		{"missing key", `args.namespace == "production"`, `{"name": "x"}`, Tool{}, Agent{}, false, "no such key"},
		{"missing label", `agent.labels["tier"] == "x"`, `{}`, Tool{}, payments, false, "no such key"},
		{"a type the expression cannot handle", `args.count > 3`, `{"count": "many"}`, Tool{}, Agent{}, false, "no such overload"},
		{"a result that is not a bool", `args.force`, `{"force": "yes"}`, Tool{}, Agent{}, false, "not a bool"},
		{"index out of range", `args.to[3] == "x"`, `{"to": ["a"]}`, Tool{}, Agent{}, false, "index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eval(t, tc.expr, tc.args, tc.tool, tc.agent)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Eval(%s) = %v, %v; want an error with %q", tc.expr, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Eval(%s): %v", tc.expr, err)
			}
			if got != tc.want {
				t.Errorf("Eval(%s) on %s = %v, want %v", tc.expr, tc.args, got, tc.want)
			}
		})
	}
}

func eval(t *testing.T, expr, args string, tool Tool, agent Agent) (bool, error) {
	t.Helper()
	p, err := Compile(expr)
	if err != nil {
		t.Fatalf("Compile(%s): %v", expr, err)
	}
	a, err := DecodeArguments([]byte(args))
	if err != nil {
		t.Fatalf("DecodeArguments(%s): %v", args, err)
	}
	return p.Eval(&Call{Arguments: a, Tool: tool, Agent: agent})
}

// TestEvalIterationLimit: an expression within the static budget still
// stops after MaxIterations steps on arguments large enough, with an error
// (the rule applies), and the steps of every comprehension count.
func TestEvalIterationLimit(t *testing.T) {
	list := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }
	for _, tc := range []struct {
		name, expr, args string
		wantErr          bool
	}{
		{"a pass at the limit", `args.xs.all(x, x >= 0)`, `{"xs": ` + list(MaxIterations) + `}`, false},
		{"a pass over the limit", `args.xs.all(x, x >= 0)`, `{"xs": ` + list(MaxIterations+1) + `}`, true},
		{"two passes over the limit together", `args.xs.all(x, x >= 0) && args.ys.all(y, y >= 0)`,
			`{"xs": ` + list(MaxIterations/2+1) + `, "ys": ` + list(MaxIterations/2) + `}`, true},
		{"passes within an element's lists", `args.m.all(r, r.all(x, x >= 0))`,
			`{"m": [` + list(MaxIterations/2) + `, ` + list(MaxIterations/2) + `]}`, true},
		{"filter", `args.xs.filter(x, x >= 0).size() > 0`, `{"xs": ` + list(MaxIterations+1) + `}`, true},
		{"a short-circuited pass stops early", `args.xs.exists(x, x == 0)`, `{"xs": ` + list(MaxIterations+1) + `}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eval(t, tc.expr, tc.args, Tool{}, Agent{})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "comprehension steps") {
					t.Fatalf("Eval = %v, %v; want the iteration limit", got, err)
				}
				return
			}
			if err != nil || !got {
				t.Fatalf("Eval = %v, %v; want true", got, err)
			}
		})
	}
}

// TestEvalSharesTheCall: one Call serves every rule, concurrently.
func TestEvalSharesTheCall(t *testing.T) {
	a, err := DecodeArguments([]byte(`{"to": ["eve@evil.test"], "n": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	call := &Call{Arguments: a, Tool: Tool{Level: "L4"}}
	var programs []*Program
	for _, expr := range []string{`args.to.exists(a, a.endsWith("@evil.test"))`, `args.n == 1`, `tool.level == "L4"`} {
		p, err := Compile(expr)
		if err != nil {
			t.Fatal(err)
		}
		programs = append(programs, p)
	}
	done := make(chan error)
	for range 4 {
		go func() {
			for _, p := range programs {
				if ok, err := p.Eval(call); err != nil || !ok {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
