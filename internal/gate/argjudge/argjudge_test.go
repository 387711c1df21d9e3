package argjudge

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/argfloor"
)

var pushSchema = []byte(`{"type":"object","properties":{"branch":{"type":"string"},"force":{"type":"boolean"},"remote":{"type":"string"}},"required":["branch"]}`)

var rules = []gateproto.ArgumentRule{
	{Name: "p/no-force-to-main", Expression: `has(args.force) && args.force && args.branch == "main"`, Action: gateproto.RuleRefuse, Message: "rewrites shared history"},
	{Name: "p/release", Expression: `args.branch.startsWith("release/")`, Action: gateproto.RuleHold},
	{Name: "p/outside-team", Expression: `agent.labels["team"] != "platform"`, Action: gateproto.RuleRaiseLevel, Level: "L4"},
	{Name: "p/missing-key", Expression: `args.remote == "upstream"`, Action: gateproto.RuleHold},
	{Name: "p/broken", Expression: `args.branch ==`, Action: gateproto.RuleRefuse},
}

func tool(names ...string) *gateproto.Tool {
	t := &gateproto.Tool{Name: "push", Level: "L2", Category: "mutation", Fingerprint: "sha256:" + strings.Repeat("a", 64)}
	for _, n := range names {
		t.Rules = append(t.Rules, gateproto.ToolRule{Rule: n})
	}
	return t
}

// TestJudge: each rule's action lands where decide reads it, a rule
// fails towards tightening, floors raise the level, and nothing lowers it.
func TestJudge(t *testing.T) {
	compiled := Compile(rules, nil)
	platform := &gateproto.Agent{Labels: map[string]string{"team": "platform"}}
	for _, tc := range []struct {
		name      string
		tool      *gateproto.Tool
		agent     *gateproto.Agent
		args      string
		floors    bool
		refuse    string
		hold      string
		unevalued string
		level     string
		raised    string
	}{
		{name: "nothing matches", tool: tool("p/no-force-to-main", "p/release"), agent: platform, args: `{"branch":"feature"}`, level: "L2"},
		{name: "refuse", tool: tool("p/no-force-to-main"), agent: platform, args: `{"branch":"main","force":true}`, refuse: "p/no-force-to-main", level: "L2"},
		{name: "hold", tool: tool("p/release"), agent: platform, args: `{"branch":"release/1"}`, hold: "p/release", level: "L2"},
		{name: "raise by the agent's labels", tool: tool("p/outside-team"), args: `{"branch":"x"}`, level: "L4", raised: "argument rule p/outside-team"},
		{name: "a raise never lowers", tool: &gateproto.Tool{Name: "push", Level: "L5", Rules: []gateproto.ToolRule{{Rule: "p/outside-team"}}}, args: `{"branch":"x"}`, level: "L5"},
		{name: "an evaluation error counts as a match", tool: tool("p/missing-key"), agent: platform, args: `{"branch":"x"}`, hold: "p/missing-key", level: "L2"},
		{name: "a rule that does not compile refuses", tool: tool("p/broken"), agent: platform, args: `{"branch":"x"}`, unevalued: "p/broken", level: "L2"},
		{name: "a problem the operator found refuses", tool: &gateproto.Tool{Name: "push", Level: "L2", Rules: []gateproto.ToolRule{{Rule: "p/release", Problem: "UnknownArgument: args.ref"}}}, agent: platform, args: `{"branch":"release/1"}`, unevalued: "p/release", level: "L2"},
		{name: "a rule the configuration does not carry refuses", tool: tool("p/nowhere"), agent: platform, args: `{"branch":"x"}`, unevalued: "p/nowhere", level: "L2"},
		{name: "an argument the rule reads, spelled otherwise but for case", tool: tool("p/no-force-to-main"), agent: platform, args: `{"branch":"main","Force":true}`, unevalued: "p/no-force-to-main", level: "L2"},
		{name: "an argument no rule reads, spelled otherwise but for case", tool: tool("p/no-force-to-main"), agent: platform, args: `{"branch":"x","Remote":"y"}`, level: "L2"},
		{name: "a force floor", tool: tool(), args: `{"branch":"x","force":true}`, floors: true, level: "L4", raised: "argument floor force at force"},
		{name: "floors off", tool: tool(), args: `{"branch":"x","force":true}`, level: "L2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Namespace: "agents", Pod: "agent-0", Agent: tc.agent, Server: "tools/git", Tool: tc.tool, Arguments: []byte(tc.args)}
			if tc.floors {
				c.Floors = argfloor.Analyze(pushSchema)
			}
			res := Judge(compiled, c)
			j := res.ArgumentJudgement
			if !j.Judged || ruleOf(j.Refuse) != tc.refuse || ruleOf(j.Hold) != tc.hold || ruleOf(j.Unevaluable) != tc.unevalued || j.Level != tc.level || j.Raised != tc.raised {
				t.Fatalf("judgement %+v (refuse %s, hold %s, unevaluable %s), want refuse %q hold %q unevaluable %q level %s raised %q",
					j, ruleOf(j.Refuse), ruleOf(j.Hold), ruleOf(j.Unevaluable), tc.refuse, tc.hold, tc.unevalued, tc.level, tc.raised)
			}
		})
	}
}

// BenchmarkJudge is the cost of judging one ordinary call (no rule
// matches, no floor fires) against 0, 1, 10 and 100 rules that all name
// the tool, side by side in one run; the rules are compiled once, before
// the timer, as a configuration is. Besides ns/op it reports the median
// and 99th percentile of the calls it timed one by one.
//
//	go test ./internal/gate/argjudge -run '^$' -bench Judge -benchmem -count 3
func BenchmarkJudge(b *testing.B) {
	args := []byte(`{"branch":"feature/login-form","remote":"origin","force":false,"message":"Pushes the login form's validation fix"}`)
	plan := argfloor.Analyze(pushSchema)
	for _, n := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			var rs []gateproto.ArgumentRule
			t := tool()
			for i := range n {
				// Ten shapes of rule people write, repeated: comparisons,
				// membership, string functions, a regular expression, a
				// pass over a list, the agent and the tool.
				expr := []string{
					`has(args.force) && args.force && args.branch == "main"`,
					`args.branch in ["main", "master", "production"]`,
					`args.branch.startsWith("release/")`,
					`args.remote != "origin" && args.remote != "upstream"`,
					`args.branch.matches("^(hotfix|release)/[0-9]+$")`,
					`agent.labels["team"] == "contractors"`,
					`tool.level >= "L4" && has(args.force)`,
					`["main", "prod"].exists(b, args.branch.endsWith(b))`,
					`size(args.branch) > 200`,
					`agent.namespace == "production" && args.branch != "main"`,
				}[i%10]
				name := fmt.Sprintf("p/rule-%d", i)
				rs = append(rs, gateproto.ArgumentRule{Name: name, Expression: expr, Action: gateproto.RuleHold})
				t.Rules = append(t.Rules, gateproto.ToolRule{Rule: name})
			}
			compiled := Compile(rs, nil)
			c := Call{Namespace: "agents", Pod: "agent-0", Agent: &gateproto.Agent{ServiceAccount: "agent", Labels: map[string]string{"team": "platform"}},
				Server: "tools/git", Tool: t, Arguments: args, Floors: plan}
			if res := Judge(compiled, c); res.Hold != nil || res.Unevaluable != nil || res.Raised != "" {
				b.Fatalf("an ordinary call was tightened: %+v", res)
			}
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				_ = Judge(compiled, c)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			if len(times) > 0 {
				b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Nanoseconds()), "p99-ns")
			}
		})
	}
}

func ruleOf(m *decide.RuleMatch) string {
	if m == nil {
		return ""
	}
	return m.Rule
}
