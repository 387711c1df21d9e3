package argfloor

import (
	"fmt"
	"strings"
	"testing"
)

// floorsText renders floors compactly for comparison:
// "signal path level; …".
func floorsText(fs []Floor) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %s %s", f.Signal, f.Path, f.Level))
	}
	return strings.Join(parts, "; ")
}

type callCase struct {
	name     string
	schema   string
	args     string
	category string
	want     string // floorsText of the result; "" for none
}

func runCalls(t *testing.T, cases []callCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Analyze([]byte(c.schema)).Evaluate([]byte(c.args), c.category)
			if floorsText(got) != c.want {
				t.Errorf("args %s\n got: %s\nwant: %s\n%+v", c.args, floorsText(got), c.want, got)
			}
			for _, f := range got {
				if len(f.Detail) == 0 || len(f.Detail) > MaxDetail {
					t.Errorf("detail %q: want 1..%d bytes", f.Detail, MaxDetail)
				}
			}
		})
	}
}

const (
	deleteSchema = `{"type":"object","properties":{
		"namespace":{"type":"string"},
		"name":{"type":"string"},
		"labelSelector":{"type":"string"},
		"allNamespaces":{"type":"boolean","default":false},
		"force":{"type":"boolean","default":false},
		"forceWithLease":{"type":"boolean"},
		"message":{"type":"string"},
		"state":{"type":"string","enum":["open","closed","all"]},
		"validate":{"type":"boolean","default":true},
		"noVerify":{"type":"boolean"},
		"hard_delete":{"type":"boolean"},
		"recursive":{"type":"boolean"},
		"includeAllProperties":{"type":"boolean"},
		"pattern":{"type":"string","description":"Pattern to match keys (default: *)"},
		"ids":{"type":"array","items":{"type":"string"}},
		"filter":{"type":"object"},
		"where":{"type":"string"},
		"mode":{"type":"string","enum":["soft","mixed","hard"],"default":"mixed"},
		"options":{"type":"object","properties":{"prune":{"type":"boolean"}}}
	}}`
)

func TestReach(t *testing.T) {
	runCalls(t, []callCase{
		{name: "all as a namespace", schema: deleteSchema, args: `{"namespace":"all"}`, want: "widened-reach namespace L4"},
		{name: "ALL as a name", schema: deleteSchema, args: `{"name":"ALL"}`, want: "widened-reach name L4"},
		{name: "any as a name lets the server choose", schema: deleteSchema, args: `{"name":"any"}`},
		{name: "any as a selector", schema: deleteSchema, args: `{"labelSelector":"any"}`, want: "widened-reach labelSelector L4"},
		{name: "all in a message body", schema: deleteSchema, args: `{"message":"all"}`},
		{name: "all among the enumerated options", schema: deleteSchema, args: `{"state":"all"}`},
		{name: "a wildcard name", schema: deleteSchema, args: `{"name":"*"}`, want: "widened-reach name L4"},
		{name: "a glob of only wildcards", schema: deleteSchema, args: `{"name":"**/*"}`, want: "widened-reach name L4"},
		{name: "a percent alone", schema: deleteSchema, args: `{"name":"%"}`, want: "widened-reach name L4"},
		{name: "a glob that names something", schema: deleteSchema, args: `{"name":"logs/*.txt"}`},
		{name: "a wildcard on a read", schema: deleteSchema, args: `{"name":"*"}`, category: "read", want: "widened-reach name L3"},
		{name: "the stated default", schema: deleteSchema, args: `{"pattern":"*"}`},
		{name: "an ordinary pattern", schema: deleteSchema, args: `{"pattern":"user:*"}`},
		{name: "a wildcard among ids", schema: deleteSchema, args: `{"ids":["a","*"]}`, want: "widened-reach ids[1] L4"},
		{name: "ordinary ids", schema: deleteSchema, args: `{"ids":["a","b"]}`},
		{name: "all-namespaces flag", schema: deleteSchema, args: `{"allNamespaces":true}`, want: "widened-reach allNamespaces L4"},
		{name: "all-namespaces flag on a read", schema: deleteSchema, args: `{"allNamespaces":true}`, category: "observe", want: "widened-reach allNamespaces L3"},
		{name: "all-namespaces flag off", schema: deleteSchema, args: `{"allNamespaces":false}`},
		{name: "all-namespaces as a string", schema: deleteSchema, args: `{"allNamespaces":"true"}`, want: "widened-reach allNamespaces L4"},
		{name: "recursive", schema: deleteSchema, args: `{"recursive":true}`, want: "widened-reach recursive L4"},
		{name: "all properties shape the answer", schema: deleteSchema, args: `{"includeAllProperties":true}`},
		{name: "an empty filter on a delete", schema: deleteSchema, args: `{"filter":{}}`, want: "widened-reach filter L4"},
		{name: "an empty filter on a read", schema: deleteSchema, args: `{"filter":{}}`, category: "read"},
		{name: "a filter", schema: deleteSchema, args: `{"filter":{"id":1}}`},
		{name: "an empty label selector", schema: deleteSchema, args: `{"labelSelector":""}`, want: "widened-reach labelSelector L4"},
		{name: "a label selector", schema: deleteSchema, args: `{"labelSelector":"app=web"}`},
		{name: "an always-true where", schema: deleteSchema, args: `{"where":"1=1"}`, want: "widened-reach where L4"},
		{name: "a where", schema: deleteSchema, args: `{"where":"id = 4"}`},
		{name: "a number is a pattern, not a condition", schema: deleteSchema, args: `{"pattern":"1"}`},
		{name: "a name folded as a lenient server reads it", schema: deleteSchema, args: `{"AllNamespaces":true}`, want: "widened-reach allNamespaces L4"},
		{name: "unknown category counts as a change", schema: deleteSchema, args: `{"recursive":true}`, category: "", want: "widened-reach recursive L4"},
	})
}

const operationSchema = `{"type":"object","properties":{
	"mode":{"type":"string","enum":["list","create","delete","show-current"],"default":"list"},
	"all":{"type":"boolean","default":false},
	"force":{"type":"boolean","default":false}
}}`

func TestOperation(t *testing.T) {
	runCalls(t, []callCase{
		{name: "the default operation lists", schema: operationSchema, args: `{"all":true}`, category: "mutate", want: "widened-reach all L3"},
		{name: "a listing", schema: operationSchema, args: `{"mode":"list","all":true}`, category: "mutate", want: "widened-reach all L3"},
		{name: "named after the flag", schema: operationSchema, args: `{"force":true,"mode":"show-current"}`, category: "delete", want: "force force L3"},
		{name: "a delete", schema: operationSchema, args: `{"mode":"delete","force":true,"all":true}`, category: "mutate", want: "force force L4; widened-reach all L4"},
		{name: "an operation the schema does not list", schema: operationSchema, args: `{"mode":"purge","all":true}`, category: "mutate", want: "widened-reach all L4"},
	})
}

func TestForce(t *testing.T) {
	runCalls(t, []callCase{
		{name: "force", schema: deleteSchema, args: `{"force":true}`, want: "force force L4"},
		{name: "force=false", schema: deleteSchema, args: `{"force":false}`},
		{name: "force as a string", schema: deleteSchema, args: `{"force":"yes"}`, want: "force force L4"},
		{name: "force as a number", schema: deleteSchema, args: `{"force":1}`, want: "force force L4"},
		{name: "force as zero", schema: deleteSchema, args: `{"force":0}`},
		{name: "force on a read", schema: deleteSchema, args: `{"force":true}`, category: "utility", want: "force force L3"},
		{name: "force with lease is weaker", schema: deleteSchema, args: `{"forceWithLease":true}`, want: "force forceWithLease L3"},
		{name: "a check on by default turned off", schema: deleteSchema, args: `{"validate":false}`, want: "force validate L4"},
		{name: "a check left on", schema: deleteSchema, args: `{"validate":true}`},
		{name: "no-verify", schema: deleteSchema, args: `{"noVerify":true}`, want: "force noVerify L4"},
		{name: "hard delete", schema: deleteSchema, args: `{"hard_delete":true}`, want: "force hard_delete L4"},
		{name: "a hard mode", schema: deleteSchema, args: `{"mode":"hard"}`, want: "force mode L4"},
		{name: "the default mode", schema: deleteSchema, args: `{"mode":"mixed"}`},
		{name: "a nested flag", schema: deleteSchema, args: `{"options":{"prune":true}}`, want: "force options.prune L4"},
		{name: "two signals", schema: deleteSchema, args: `{"force":true,"namespace":"*"}`, want: "force force L4; widened-reach namespace L4"},
		{name: "a duplicated member is read twice", schema: deleteSchema, args: `{"force":false,"force":true}`, want: "force force L4"},
	})
}

const commandSchema = `{"type":"object","properties":{
	"command":{"type":"string","description":"Command with args"},
	"args":{"type":"array","items":{"type":"string"}},
	"flags":{"type":"object","additionalProperties":true}
}}`

func TestCommandLine(t *testing.T) {
	runCalls(t, []callCase{
		{name: "ordinary", schema: commandSchema, args: `{"command":"git status -s"}`},
		{name: "force push", schema: commandSchema, args: `{"command":"git push --force origin main"}`, want: "force command L4"},
		{name: "force with lease", schema: commandSchema, args: `{"command":"git push --force-with-lease"}`, want: "force command L3"},
		{name: "no-verify", schema: commandSchema, args: `{"command":"git commit --no-verify -m x"}`, want: "force command L4"},
		{name: "hard reset", schema: commandSchema, args: `{"command":"git reset --hard HEAD~1"}`, want: "force command L4"},
		{name: "rm -rf", schema: commandSchema, args: `{"command":"rm -rf /tmp/x"}`, want: "force command L4"},
		{name: "a quoted --force is a message", schema: commandSchema, args: `{"command":"git commit -m 'do not use --force'"}`},
		{name: "all namespaces", schema: commandSchema, args: `{"command":"kubectl get pods -A"}`, want: "widened-reach command L4"},
		{name: "validate off", schema: commandSchema, args: `{"command":"kubectl apply --validate=false -f x.yaml"}`, want: "force command L4"},
		{name: "-f is a file", schema: commandSchema, args: `{"command":"kubectl apply -f x.yaml"}`},
		{name: "after a separator, one dash", schema: commandSchema, args: `{"command":"cd x && terraform apply -auto-approve"}`, want: "force command L4"},
		{name: "a short cluster", schema: commandSchema, args: `{"command":"ls -la"}`},
		{name: "a number", schema: commandSchema, args: `{"command":"tail -n5 -100 x"}`},
		{name: "a recursive copy", schema: commandSchema, args: `{"command":"cp -R a b"}`, want: "widened-reach command L4"},
		{name: "auto-approve", schema: commandSchema, args: `{"command":"terraform apply --auto-approve"}`, want: "force command L4"},
		{name: "PowerShell", schema: commandSchema, args: `{"command":"Remove-Item x -Recurse -Force"}`, want: "widened-reach command L4; force command L4"},
		{name: "an argument vector", schema: commandSchema, args: `{"args":["delete","pods","--all"]}`, want: "widened-reach args[2] L4"},
		{name: "an element is one argument", schema: commandSchema, args: `{"args":["commit","-m","use --force"]}`},
		{name: "a flag map", schema: commandSchema, args: `{"flags":{"force":true,"output":"json"}}`, want: "force flags.force L4"},
		{name: "a flag map option turned off", schema: commandSchema, args: `{"flags":{"force":false}}`},
		{name: "a flag map with dashes", schema: commandSchema, args: `{"flags":{"--all-namespaces":""}}`, want: "widened-reach flags.--all-namespaces L4"},
	})
}

const sqlSchema = `{"type":"object","properties":{
	"sql":{"type":"string"},
	"query":{"type":"string","description":"SQL query to execute"},
	"search":{"type":"string"},
	"searchQuery":{"type":"string","description":"Search terms"}
}}`

func TestStatements(t *testing.T) {
	runCalls(t, []callCase{
		{name: "a select", schema: sqlSchema, args: `{"sql":"SELECT * FROM t WHERE a='DROP'"}`},
		{name: "a second statement drops", schema: sqlSchema, args: `{"sql":"select 1; drop table x"}`, want: "statement sql L5"},
		{name: "a delete of some rows", schema: sqlSchema, args: `{"sql":"DELETE FROM t WHERE id=1"}`, want: "statement sql L3"},
		{name: "a delete of every row", schema: sqlSchema, args: `{"sql":"DELETE FROM t"}`, want: "statement sql L5"},
		{name: "behind a comment", schema: sqlSchema, args: `{"sql":"/* x */ TRUNCATE t"}`, want: "statement sql L5"},
		{name: "a query the description calls SQL", schema: sqlSchema, args: `{"query":"GRANT ALL ON t TO bob"}`, want: "statement query L5"},
		{name: "a search is not a statement", schema: sqlSchema, args: `{"searchQuery":"drop table syntax"}`},
		{name: "escaped in JSON", schema: sqlSchema, args: `{"sql":"SELECT 1;\nDROP TABLE \"t\""}`, want: "statement sql L5"},
		{name: "a lone wildcard search", schema: sqlSchema, args: `{"search":"*"}`, category: "read", want: "widened-reach search L3"},
	})
}

func TestEmptyPlan(t *testing.T) {
	for _, schema := range []string{
		``, `null`, `[]`, `{"type":"object"}`, `{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["c","f"]}}}`,
		`{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"}}}`,
		`not json`,
	} {
		p := Analyze([]byte(schema))
		if !p.Empty() || p.Signals() != nil {
			t.Errorf("Analyze(%q) = %+v, want an empty plan", schema, p.root)
		}
		if got := p.Evaluate([]byte(`{"city":"*","force":true}`), ""); got != nil {
			t.Errorf("Analyze(%q).Evaluate = %v, want nil", schema, got)
		}
	}
	var nilPlan *Plan
	if nilPlan.Evaluate([]byte(`{}`), "") != nil || !nilPlan.Empty() {
		t.Error("a nil plan must look at nothing")
	}
}

func TestSignals(t *testing.T) {
	got := Analyze([]byte(deleteSchema)).Signals()
	want := []Signal{SignalReach, SignalForce}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Signals() = %v, want %v", got, want)
	}
	if got := Analyze([]byte(sqlSchema)).Signals(); fmt.Sprint(got) != fmt.Sprint([]Signal{SignalReach, SignalStatement}) {
		t.Errorf("Signals() = %v", got)
	}
}

func TestSchemaShapes(t *testing.T) {
	runCalls(t, []callCase{
		{
			name:   "a $ref",
			schema: `{"type":"object","$defs":{"Opts":{"type":"object","properties":{"force":{"type":"boolean"}}}},"properties":{"opts":{"$ref":"#/$defs/Opts"}}}`,
			args:   `{"opts":{"force":true}}`, want: "force opts.force L4",
		},
		{
			name:   "anyOf variants",
			schema: `{"type":"object","properties":{"filter":{"anyOf":[{"type":"object"},{"type":"string"}]}}}`,
			args:   `{"filter":"*"}`, want: "widened-reach filter L4",
		},
		{
			name:   "a type list",
			schema: `{"type":"object","properties":{"recursive":{"type":["boolean","null"]}}}`,
			args:   `{"recursive":true}`, want: "widened-reach recursive L4",
		},
		{
			name:   "an array of objects",
			schema: `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"overwrite":{"type":"boolean"}}}}}}`,
			args:   `{"items":[{"overwrite":false},{"overwrite":true}]}`, want: "force items[1].overwrite L4",
		},
		{
			name:   "a oneOf root",
			schema: `{"oneOf":[{"type":"object","properties":{"prune":{"type":"boolean"}}},{"type":"object","properties":{"cascade":{"type":"boolean"}}}]}`,
			args:   `{"cascade":true}`, want: "widened-reach cascade L4",
		},
		{
			name:   "a self-referencing schema",
			schema: `{"type":"object","$defs":{"N":{"type":"object","properties":{"force":{"type":"boolean"},"child":{"$ref":"#/$defs/N"}}}},"properties":{"root":{"$ref":"#/$defs/N"}}}`,
			args:   `{"root":{"child":{"child":{"force":true}}}}`, want: "force root.child.child.force L4",
		},
		{
			name:   "invalid arguments keep what was found",
			schema: deleteSchema,
			args:   `{"force":true,"name":`, want: "force force L4",
		},
		{
			name:   "arguments that are no object",
			schema: deleteSchema,
			args:   `[true]`,
		},
	})
}

func TestDetailNeverEchoesLongValues(t *testing.T) {
	long := strings.Repeat("x", 500)
	p := Analyze([]byte(commandSchema))
	got := p.Evaluate([]byte(`{"command":"git push --force-`+long+`"}`), "")
	if len(got) != 1 || len(got[0].Detail) > MaxDetail || strings.Contains(got[0].Detail, long[:80]) {
		t.Errorf("got %+v", got)
	}
}

func TestPathIsBounded(t *testing.T) {
	long := "force-" + strings.Repeat("x", 500)
	got := Analyze([]byte(commandSchema)).Evaluate([]byte(`{"flags":{"`+long+`":true}}`), "")
	if len(got) != 1 || len(got[0].Path) > MaxPath {
		t.Errorf("got %+v", got)
	}
}

func TestClassifyFlag(t *testing.T) {
	cases := []struct {
		name        string
		description string
		defaultTrue bool
		want        flagClass
	}{
		{"force", "", false, flagClass{flagForce, true}},
		{"noForce", "", false, flagClass{}},
		{"forceWithLease", "", false, flagClass{flagForceWeak, true}},
		{"skipValidation", "", false, flagClass{flagForce, true}},
		{"skip_non_verifiable_callback_uri_confirmation_prompt", "", false, flagClass{flagForce, true}},
		{"validate", "", true, flagClass{flagForce, false}},
		{"validate", "", false, flagClass{}},
		{"confirm", "", false, flagClass{}},
		{"autoApprove", "", false, flagClass{flagForce, true}},
		{"assume-yes", "", false, flagClass{flagForce, true}},
		{"allowDangerous", "", false, flagClass{flagForce, true}},
		{"bypassPolicy", "", false, flagClass{flagForce, true}},
		{"hardLink", "", false, flagClass{}},
		{"hard", "", false, flagClass{flagForce, true}},
		{"truncate", "Truncate queries to 40 chars", false, flagClass{}},
		{"truncateFirst", "", false, flagClass{flagForce, true}},
		{"all", "", false, flagClass{flagReach, true}},
		{"allNamespaces", "", false, flagClass{flagReach, true}},
		{"deleteAll", "", false, flagClass{flagReach, true}},
		{"includeAllProperties", "", false, flagClass{}},
		{"replace_all_matches", "", false, flagClass{}},
		{"ExcludeAllAddressRequired", "", false, flagClass{}},
		{"cascade", "", false, flagClass{flagReach, true}},
		{"recursive", "", false, flagClass{flagReach, true}},
		{"allow", "", false, flagClass{}},
		{"dryRun", "", true, flagClass{}},
		{"includeArchived", "", false, flagClass{}},
		{"verbose", "", false, flagClass{}},
	}
	for _, c := range cases {
		if got := classifyFlag(splitWords(c.name), c.description, c.defaultTrue); got != c.want {
			t.Errorf("classifyFlag(%q) = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	cases := map[string]string{
		"allNamespaces":      "all namespaces",
		"all-namespaces":     "all namespaces",
		"ALL_NAMESPACES":     "all namespaces",
		"HTTPServer":         "http server",
		"s3Bucket":           "s3 bucket",
		"forceWithLease":     "force with lease",
		"IncludeSubaccounts": "include subaccounts",
		"":                   "",
	}
	for in, want := range cases {
		if got := strings.Join(splitWords(in), " "); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestManyMildFloorsNeverHideAGraveOne: a call is bounded to maxFloors
// floors, and an agent that places more mild findings than that before a
// statement that drops must still see the call raised to L5.
func TestManyMildFloorsNeverHideAGraveOne(t *testing.T) {
	schema := `{"type":"object","properties":{"tables":{"type":"array","items":{"type":"string"}},"sql":{"type":"string","description":"The SQL statement to run."}}}`
	wildcards := strings.TrimSuffix(strings.Repeat(`"*",`, 3*maxFloors), ",")
	for _, category := range []string{"read", "mutation"} {
		got := Analyze([]byte(schema)).Evaluate([]byte(`{"tables":[`+wildcards+`],"sql":"DROP TABLE users"}`), category)
		worst := ""
		for _, f := range got {
			worst = max(worst, f.Level)
		}
		if worst != "L5" || len(got) > maxFloors {
			t.Errorf("%s: %d floors, the worst %s; want at most %d with the DROP's L5 among them: %s", category, len(got), worst, maxFloors, floorsText(got))
		}
	}
}
