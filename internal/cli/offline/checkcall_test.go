package offline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkCallDir holds the sample policies, the tools/list capture of the
// server they reference and the saved calls.
var checkCallDir = filepath.Join("testdata", "check-call")

func td(name string) string { return filepath.Join(checkCallDir, name) }

// decodeResults reads check-call's JSON: one object a line.
func decodeResults(t *testing.T, out string) []CheckCallResult {
	t.Helper()
	var rs []CheckCallResult
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r CheckCallResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not one JSON object a line: %v\n%s", err, out)
		}
		rs = append(rs, r)
	}
	return rs
}

// goldenFile compares got with a file under testdata/check-call, or
// rewrites it under -update.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := td(name)
	if *update {
		writeFile(t, path, []byte(got))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/cli/offline -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./internal/cli/offline -update rewrites it after review)\n--- got\n%s", path, got)
	}
}

// want is what one call's judgement must say.
type want struct {
	verdict, reason string
	heldBy, rule    string
	callLevel       string
}

// TestCheckCallMotivation judges the calls argument rules were made for,
// against the sample policy: the same tool is harmless or grave by what it
// is called with. The tools are pinned at L2 (-level, as a pin's
// override), under a ceiling of L4 with calls at L4 or above held.
func TestCheckCallMotivation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []want
	}{
		{"delete", []want{
			{verdict: "forward", callLevel: "L2"},
			// all, or every namespace: the floors raise the call to L4,
			// where a person approves it.
			{verdict: "hold", reason: "ApprovalRequired", heldBy: "ArgumentLevel", callLevel: "L4"},
			{verdict: "hold", reason: "ApprovalRequired", heldBy: "ArgumentLevel", callLevel: "L4"},
			{verdict: "refuse", reason: "ArgumentRule", rule: "agent-guard/no-production-delete", callLevel: "L2"},
		}},
		{"git-push", []want{
			{verdict: "forward", callLevel: "L2"},
			{verdict: "hold", reason: "ApprovalRequired", heldBy: "ArgumentLevel", callLevel: "L4"},
			{verdict: "refuse", reason: "ArgumentRule", rule: "agent-guard/no-force-push-to-main", callLevel: "L4"},
		}},
		{"sql", []want{
			{verdict: "forward", callLevel: "L2"},
			{verdict: "hold", reason: "ApprovalRequired", heldBy: "ArgumentRule", rule: "data-and-mail/data-changes-need-a-person", callLevel: "L3"},
			// A drop is L5, above the ceiling.
			{verdict: "refuse", reason: "ArgumentLevel", callLevel: "L5"},
		}},
		{"email", []want{
			{verdict: "forward", callLevel: "L2"},
			{verdict: "hold", reason: "ApprovalRequired", heldBy: "ArgumentRule", rule: "data-and-mail/outside-recipients", callLevel: "L2"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"check-call", "-policy", td("policy.yaml"), "-call", td(tc.name + ".jsonl"), "-tools", td("tools.json"), "-level", "L2"}
			code, out, errOut := run(t, "", append(args, "-o", "json")...)
			if code != ExitOK || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := decodeResults(t, out)
			if len(got) != len(tc.calls) {
				t.Fatalf("%d results, want %d:\n%s", len(got), len(tc.calls), out)
			}
			for i, w := range tc.calls {
				g := got[i]
				if g.Verdict != w.verdict || g.Reason != w.reason || g.HeldBy != w.heldBy || g.Rule != w.rule || g.CallLevel != w.callLevel || g.Level != "L2" {
					t.Errorf("call %d: verdict %q reason %q heldBy %q rule %q level %s→%s; want %+v", i+1, g.Verdict, g.Reason, g.HeldBy, g.Rule, g.Level, g.CallLevel, w)
				}
				if g.Line != i+1 || g.Server != "platform/ops" || g.Why == "" {
					t.Errorf("call %d: line %d server %q why %q", i+1, g.Line, g.Server, g.Why)
				}
			}
			code, out, _ = run(t, "", args...)
			if code != ExitOK {
				t.Fatalf("text: exit %d", code)
			}
			goldenFile(t, tc.name+".golden", out)
		})
	}
}

// TestCheckCallJSONGolden keeps the JSON's shape: fields are only ever
// added.
func TestCheckCallJSONGolden(t *testing.T) {
	code, out, errOut := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", td("git-push.jsonl"), "-tools", td("tools.json"), "-level", "L2", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	goldenFile(t, "git-push.json.golden", out)
	r := decodeResults(t, out)[2]
	if len(r.Rules) != 1 || r.Rules[0].Outcome != ruleMatched || r.Rules[0].Action != "Refuse" ||
		len(r.Floors) != 1 || r.Floors[0].Signal != "force" || r.Floors[0].Path != "force" {
		t.Errorf("the force push to main lacks its rule or its floor: %+v", r)
	}
}

// The reason a rule can be used for one tool and not another is in the
// rule: one that does not compile, or that reads an argument the tool's
// schema does not have, refuses every call of the tool — as the gate
// refuses them — and check-call says why.
func TestCheckCallRuleThatCannotBeEvaluated(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		tools        bool
		outcome      string
		why          string
		stderr       string
	}{
		{"does not compile", "rule-syntax.yaml", true, ruleUnevaluable,
			"argument rule data-guard/no-truncate cannot be evaluated for this tool: 1:29: Syntax error",
			"argument rule data-guard/no-truncate cannot be evaluated: Syntax: 1:29"},
		{"names an argument the tool does not have", "rule-unknown-argument.yaml", true, ruleUnevaluable,
			"argument rule data-guard/no-production-database cannot be evaluated for this tool: UnknownArgument: 1:5: args.database is not an argument of the tool", ""},
		// Without the tool's schema nothing tells the rule does not fit
		// before the call: it fails on the arguments, which counts as
		// matched, so it still refuses.
		{"names an argument the call does not have, no schema", "rule-unknown-argument.yaml", false, ruleFailed,
			"refused by argument rule data-guard/no-production-database", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"check-call", "-policy", td(tc.policy), "-call", td("sql.jsonl"), "-level", "L2", "-o", "json"}
			if tc.tools {
				args = append(args, "-tools", td("tools.json"))
			}
			code, out, errOut := run(t, "", args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, tc.stderr) || (tc.stderr == "" && errOut != "") {
				t.Errorf("stderr %q, want %q", errOut, tc.stderr)
			}
			// Every call is refused, the harmless SELECT too.
			for _, r := range decodeResults(t, out) {
				if r.Verdict != "refuse" || r.Reason != "ArgumentRule" || !strings.HasPrefix(r.Why, tc.why) {
					t.Errorf("line %d: %s (%s): %q; want refuse (ArgumentRule): %q", r.Line, r.Verdict, r.Reason, r.Why, tc.why)
				}
				if len(r.Rules) != 1 || r.Rules[0].Outcome != tc.outcome || r.Rules[0].Error == "" {
					t.Errorf("line %d: rules %+v, want one %s with its error", r.Line, r.Rules, tc.outcome)
				}
			}
		})
	}
}

// A policy the API server would not admit, or that is no ToolPolicy, is
// refused, naming the file, the document and the field.
func TestCheckCallBadPolicy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, []byte(content))
		return p
	}
	twice := write("twice.yaml", "apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec: {servers: [{namespace: platform, name: ops}]}\n---\n"+
		"apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec: {servers: [{namespace: platform, name: ops}]}\n")
	for _, tc := range []struct {
		file string
		want string
	}{
		{td("bad-field.yaml"), "bad-field.yaml: document 1 (line 1): spec.argumentRules[0].expresion: unknown field"},
		{td("bad-kind.yaml"), `bad-kind.yaml: document 2 (line 11): apiVersion "apps/v1", kind "Deployment": want toolgate.dev/v1alpha1, ToolPolicy`},
		{td("bad-level.yaml"), `ToolPolicy "data-guard": spec.argumentRules[0].level "": action RaiseLevel needs a level`},
		{write("notyaml.yaml", "spec: [\n"), "notyaml.yaml: document 1 (line 1): yaml: line 1"},
		{write("type.yaml", "apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec: {agentTrustLevel: high}\n"), "spec.agentTrustLevel: a JSON string, where int32 is wanted"},
		{write("repeated.yaml", "apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec:\n  maxLevel: L2\n  maxLevel: L5\n"), `key "maxLevel" already set`},
		{write("action.yaml", "apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec:\n  servers: [{namespace: platform, name: ops}]\n  argumentRules: [{name: r, tools: [{name: t}], expression: 'true', action: Allow}]\n"), `spec.argumentRules[0].action "Allow": want Refuse, Hold or RaiseLevel`},
		{write("noservers.yaml", "apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec: {maxLevel: L2}\n"), "spec.servers: required"},
		{write("empty.yaml", "# nothing yet\n---\n"), "empty.yaml: no ToolPolicy in the file"},
		{twice, `two ToolPolicies named "a"`},
		{filepath.Join(dir, "missing.yaml"), "missing.yaml: no such file or directory"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			code, out, errOut := run(t, "", "check-call", "-policy", tc.file, "-call", td("sql.jsonl"), "-level", "L2")
			if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "-policy "+tc.file) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming the file and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// A List of ToolPolicies, as kubectl get -o yaml prints them, is read as
// the policies it holds.
func TestCheckCallPolicyList(t *testing.T) {
	p := filepath.Join(t.TempDir(), "list.json")
	writeFile(t, p, []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"toolgate.dev/v1alpha1","kind":"ToolPolicy",
		"metadata":{"name":"mail","namespace":"agents","creationTimestamp":"2026-01-01T00:00:00Z"},
		"spec":{"servers":[{"namespace":"platform","name":"ops"}],"argumentRules":[{"name":"outside","tools":[{"name":"send_email"}],
		"expression":"!args.to.endsWith(\"@example.com\")","action":"Refuse"}]}}]}`))
	code, out, errOut := run(t, "", "check-call", "-policy", p, "-call", td("email.jsonl"), "-level", "L1", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rs := decodeResults(t, out)
	if rs[0].Verdict != "forward" || rs[1].Verdict != "refuse" || rs[1].Rule != "mail/outside" {
		t.Errorf("results %+v", rs)
	}
}

// -expect turns a verdict into the exit status, naming the calls whose
// verdict differs.
func TestCheckCallExpect(t *testing.T) {
	args := []string{"check-call", "-policy", td("policy.yaml"), "-call", td("email.jsonl"), "-tools", td("tools.json"), "-level", "L2"}
	code, out, errOut := run(t, "", append(args, "-expect", "forward")...)
	if code != ExitPolicy || !strings.Contains(errOut, "1 call not forward: testdata/check-call/email.jsonl:2 (hold)") ||
		!strings.Contains(out, "  expected forward\n") || !strings.Contains(out, "2 calls judged: 1 forward, 1 hold; 1 not as expected") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "", append(args, "-expect", "forward", "-o", "json")...)
	rs := decodeResults(t, out)
	if code != ExitPolicy || rs[0].AsExpected == nil || !*rs[0].AsExpected || *rs[1].AsExpected || rs[1].Expected != "forward" {
		t.Errorf("exit %d: %s", code, out)
	}
	// One call, as a pretty-printed request, meets its expectation.
	one := filepath.Join(t.TempDir(), "one.json")
	writeFile(t, one, []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"method\": \"tools/call\",\n  \"params\": {\n    \"name\": \"send_email\",\n    \"arguments\": {\"to\": \"ops@elsewhere.test\", \"subject\": \"Hi\", \"body\": \"Hello.\"}\n  }\n}\n"))
	if code, out, errOut := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", one, "-tools", td("tools.json"), "-level", "L2", "-expect", "hold"); code != ExitOK {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// The tool's own designation holds a call as the operator gates the tool:
// at approval.minLevel, whatever its arguments.
func TestCheckCallDesignation(t *testing.T) {
	code, out, errOut := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", td("git-push.jsonl"), "-tools", td("tools.json"), "-level", "L4", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rs := decodeResults(t, out)
	if r := rs[0]; r.Verdict != "hold" || r.HeldBy != "Designation" || r.Why != "the tool's calls wait for approval (minLevel L4 (policy agent-guard))" {
		t.Errorf("a push at L4: %+v", r)
	}
	// The rule still refuses the force push to main.
	if r := rs[2]; r.Verdict != "refuse" || r.Rule != "agent-guard/no-force-push-to-main" {
		t.Errorf("a force push to main at L4: %+v", r)
	}
	// Above the ceiling the tool is withheld: every call refused, and the
	// pipeline told why.
	code, out, _ = run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", td("git-push.jsonl"), "-tools", td("tools.json"), "-o", "json")
	if r := decodeResults(t, out)[0]; code != ExitOK || r.Verdict != "refuse" || r.Reason != "AboveCeiling" || r.Why != "level L5 above ceiling L4" || r.Level != "L5" {
		t.Errorf("the scored L5 tool: exit %d, %+v", code, r)
	}
}

// In Audit, what Enforce would refuse or hold is forwarded, and said.
func TestCheckCallAudit(t *testing.T) {
	data, err := os.ReadFile(td("policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	audit := strings.ReplaceAll(string(data), "  servers:\n", "  mode: Audit\n  servers:\n")
	p := filepath.Join(t.TempDir(), "audit.yaml")
	writeFile(t, p, []byte(audit))
	code, out, errOut := run(t, "", "check-call", "-policy", p, "-call", td("delete.jsonl"), "-tools", td("tools.json"), "-level", "L2", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rs := decodeResults(t, out)
	if r := rs[1]; r.Verdict != "audit-forward-unheld" || r.EnforceWould != "hold" || r.HeldBy != "ArgumentLevel" ||
		!strings.HasPrefix(r.Why, "Audit forwards what Enforce would hold: these arguments raise the call to L4") {
		t.Errorf("a delete of all in Audit: %+v", r)
	}
	if r := rs[3]; r.Verdict != "audit-forward" || r.EnforceWould != "refuse" || r.Reason != "ArgumentRule" ||
		r.Why != "Audit forwards what Enforce would refuse: refused by argument rule agent-guard/no-production-delete: production is changed through the release pipeline" {
		t.Errorf("a delete in production in Audit: %+v", r)
	}
}

// What rules read of the agent comes from the flags: its namespace, pod,
// service account and labels.
func TestCheckCallAgent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent.yaml")
	writeFile(t, p, []byte(`apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: dba, namespace: agents}
spec:
  podSelector: {matchLabels: {team: data}}
  agentTrustLevel: 5
  servers: [{namespace: platform, name: ops}]
  argumentRules:
    - name: only-dbas-write
      tools: [{name: run_query}]
      expression: >-
        !args.sql.lowerAscii().startsWith("select") &&
        !(agent.serviceAccount == "dba" && agent.labels["team"] == "data" && agent.namespace == "agents" && agent.pod.startsWith("dba-"))
      action: Refuse
`))
	base := []string{"check-call", "-policy", p, "-call", td("sql.jsonl"), "-tools", td("tools.json"), "-level", "L2", "-o", "json"}
	_, out, errOut := run(t, "", append(base, "-service-account", "dba", "-label", "team=data", "-pod", "dba-0")...)
	rs := decodeResults(t, out)
	if rs[1].Verdict != "forward" || errOut != "" {
		t.Errorf("a DBA's update: %+v, stderr %q", rs[1], errOut)
	}
	_, out, errOut = run(t, "", append(base, "-service-account", "agent", "-label", "team=web", "-pod", "dba-0")...)
	if rs := decodeResults(t, out); rs[0].Verdict != "forward" || rs[1].Verdict != "refuse" || rs[1].Rule != "dba/only-dbas-write" {
		t.Errorf("another agent's update: %+v", rs)
	}
	// A pod the policy would not select is judged, with a warning.
	if !strings.Contains(errOut, "warning: the podSelector of dba selects no pod with these labels") {
		t.Errorf("stderr %q", errOut)
	}
	_, _, errOut = run(t, "", append(base, "-namespace", "elsewhere")...)
	if !strings.Contains(errOut, "warning: the policies are of namespace agents, which selects no pod of namespace elsewhere") {
		t.Errorf("stderr %q", errOut)
	}
}

// The forms of a saved call, and what the gate refuses before any rule:
// member names a case-insensitive server reads otherwise, arguments the
// schema does not allow, a tool the server does not offer, a server the
// policies do not reference.
func TestCheckCallCalls(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, []byte(content))
		return p
	}
	judge := func(t *testing.T, call string, extra ...string) CheckCallResult {
		t.Helper()
		args := append([]string{"check-call", "-policy", td("policy.yaml"), "-call", write("call.json", call), "-tools", td("tools.json"), "-level", "L2", "-o", "json"}, extra...)
		code, out, errOut := run(t, "", args...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return decodeResults(t, out)[0]
	}
	for _, tc := range []struct {
		name, call string
		extra      []string
		verdict    string
		reason     string
		why        string
	}{
		{"bare params", `{"name":"run_query","arguments":{"sql":"SELECT 1"}}`, nil, "forward", "", "the gate forwards the call"},
		{"ambiguous member names", `{"name":"run_query","Name":"send_email","arguments":{"sql":"SELECT 1"}}`, nil, "refuse", "AmbiguousMessage", "the gate cannot tell which tool or arguments the message names"},
		{"ambiguous arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1","sql":"DROP TABLE t"}}}`, nil, "refuse", "AmbiguousMessage", ""},
		{"an argument the schema does not declare", `{"name":"run_query","arguments":{"sql":"SELECT 1","database":"production"}}`, nil, "refuse", "InvalidArguments", `invalid argument "/database": unknown argument`},
		{"a tool the server does not offer", `{"name":"drop_database","arguments":{}}`, nil, "refuse", "Unknown", `the -tools capture has no tool "drop_database"`},
		{"a server the policies do not reference", `{"name":"run_query","arguments":{"sql":"SELECT 1"}}`, []string{"-server", "platform/other"}, "refuse", "Unknown", "the policies do not reference MCPServer platform/other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := judge(t, tc.call, tc.extra...)
			if r.Verdict != tc.verdict || r.Reason != tc.reason || !strings.Contains(r.Why, tc.why) {
				t.Errorf("%s (%s): %q; want %s (%s): %q", r.Verdict, r.Reason, r.Why, tc.verdict, tc.reason, tc.why)
			}
		})
	}
	for _, tc := range []struct {
		name, call, want string
	}{
		{"not JSON", "{\"name\":\"run_query\",\n", "line 1: not valid JSON"},
		{"another method", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `line 1: a JSON-RPC message whose method is not "tools/call"`},
		{"no tool", "{\"name\":\"run_query\"}\n\n{\"arguments\":{}}\n", "line 3: the call names no tool"},
		{"not an object", "[]", "line 1: want a tools/call request"},
		{"nothing", "\n", "no call in the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write("bad.jsonl", tc.call)
			code, _, errOut := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", p, "-level", "L2")
			if code != ExitUsage || !strings.Contains(errOut, "-call "+p+": "+tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

func TestCheckCallUsage(t *testing.T) {
	two := filepath.Join(t.TempDir(), "two.yaml")
	writeFile(t, two, []byte("apiVersion: toolgate.dev/v1alpha1\nkind: ToolPolicy\nmetadata: {name: a}\nspec: {servers: [{namespace: platform, name: ops}, {namespace: platform, name: mail}]}\n"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-call", td("sql.jsonl"), "-level", "L2"}, "-policy and -call are required"},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl")}, "-level is required without -tools"},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L9"}, `-level: level "L9" is not one of`},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L2", "-expect", "allow"}, `-expect "allow": want forward, hold, refuse`},
		{[]string{"-policy", "-", "-call", "-", "-level", "L2"}, `standard input ("-") can be read only once`},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L2", "-o", "yaml"}, `-o "yaml": want text or json`},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L2", "-server", "ops"}, `-server: server id "ops" is not "namespace/name"`},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L2", "-label", "team"}, `"team": want KEY=VALUE`},
		{[]string{"-policy", two, "-call", td("sql.jsonl"), "-level", "L2"}, "the policies reference 2 MCPServers (platform/mail, platform/ops): name the one called with -server NS/NAME"},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-tools", td("bad-kind.yaml")}, "-tools testdata/check-call/bad-kind.yaml: line 1, column 1"},
		{[]string{"-policy", td("policy.yaml"), "-call", td("sql.jsonl"), "-level", "L2", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := run(t, "", append([]string{"check-call"}, tc.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// Standard input serves one file.
	data, err := os.ReadFile(td("email.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, string(data), "check-call", "-policy", td("policy.yaml"), "-call", "-", "-level", "L2"); code != ExitOK || !strings.Contains(out, "<stdin>:2: send_email on platform/ops: hold") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run(t, "", "check-call", "-h"); code != ExitOK || !strings.Contains(errOut, "Usage: toolgate check-call") {
		t.Errorf("-h: exit %d %q", code, errOut)
	}
}

// FuzzReadCalls: whatever a call file holds, it is read or refused, never
// a panic, and every call read names a tool and a line within the file.
func FuzzReadCalls(f *testing.F) {
	for _, name := range []string{"delete.jsonl", "sql.jsonl", "email.jsonl"} {
		data, err := os.ReadFile(td(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"name":"a","Name":"b","arguments":{"x":1,"x":2}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"}}` + "\n\n" + `[1]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		calls, err := readCalls(data)
		if err != nil {
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, c := range calls {
			if c.name == "" || c.line < 1 || c.line > lines {
				t.Errorf("call %+v read from %q", c, data)
			}
		}
	})
}

// FuzzReadPolicies: whatever a policy file holds, it is read or refused,
// never a panic, and every policy read passes the admission checks.
func FuzzReadPolicies(f *testing.F) {
	for _, name := range []string{"policy.yaml", "rule-syntax.yaml", "bad-field.yaml", "bad-kind.yaml", "bad-level.yaml"} {
		data, err := os.ReadFile(td(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		policies, err := readPolicies("fuzz.yaml", data)
		if err != nil {
			return
		}
		for i := range policies {
			if err := validatePolicy(&policies[i]); err != nil {
				t.Errorf("policy read but not admitted: %v", err)
			}
		}
		combine(policies)
	})
}

// The cluster's ceilings, as the operator's flags set them: a cap lowers a
// policy's maxLevel, and a default applies to a policy that names none.
func TestCheckCallClusterCeilings(t *testing.T) {
	// policy.yaml's maxLevel is L4: the cap L3 withholds the L4 push.
	code, out, errOut := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", td("git-push.jsonl"), "-tools", td("tools.json"), "-level", "L4", "-max-level-cap", "L3", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if r := decodeResults(t, out)[0]; r.Verdict != "refuse" || r.Reason != "AboveCeiling" || r.Why != "level L4 above ceiling L3" {
		t.Errorf("an L4 push under the cap L3: %+v", r)
	}
	// Without its maxLevel, the policy takes the cluster's default.
	data, err := os.ReadFile(td("policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "no-max.yaml")
	writeFile(t, p, []byte(strings.Replace(string(data), "  maxLevel: L4\n", "", 1)))
	for _, tc := range []struct{ def, want string }{{"", "refuse"}, {"L4", "hold"}} {
		args := []string{"check-call", "-policy", p, "-call", td("git-push.jsonl"), "-tools", td("tools.json"), "-level", "L4", "-o", "json"}
		if tc.def != "" {
			args = append(args, "-default-max-level", tc.def)
		}
		code, out, errOut := run(t, "", args...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if r := decodeResults(t, out)[0]; r.Verdict != tc.want {
			t.Errorf("an L4 push under the default ceiling %q: %+v, want %s", tc.def, r, tc.want)
		}
	}
	if code, _, _ := run(t, "", "check-call", "-policy", td("policy.yaml"), "-call", td("git-push.jsonl"), "-level", "L2", "-max-level-cap", "L9"); code != ExitUsage {
		t.Errorf("-max-level-cap L9: exit %d, want %d", code, ExitUsage)
	}
}
