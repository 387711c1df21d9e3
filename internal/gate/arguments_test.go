package gate

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// The tests here put argument rules and the built-in argument floors
// between a real SDK agent and a real SDK server, in every protocol
// generation: a rule that refuses, one that holds, one that raises the
// call above the ceiling, a floor, a rule the operator found broken, and
// a tools/list that rules never change.

type pushIn struct {
	Branch string `json:"branch"`
	Force  bool   `json:"force,omitempty"`
}

type queryIn struct {
	SQL string `json:"sql" jsonschema:"the SQL statement to run"`
}

// argumentServer offers push (a branch and a force flag) and query (a SQL
// statement), counting the calls that reach it.
func argumentServer(calls *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "push", Description: "Pushes the local commits to a branch of the remote."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pushIn) (*mcp.CallToolResult, any, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pushed:" + in.Branch}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "query", Description: "Runs a SQL statement against the database."},
		func(_ context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, any, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rows"}}}, nil, nil
		})
	return s
}

// withRules adds argument rules to a configuration: push names every
// rule, query none; the ceiling is L4 and calls at L4 wait.
func withRules(t *testing.T, c *gateproto.Config, rules []gateproto.ArgumentRule, problems map[string]string) *gateproto.Config {
	t.Helper()
	c.Ceiling, c.ApprovalLevel, c.ArgumentRules = "L4", "L4", rules
	for i := range c.Servers[0].Tools {
		tl := &c.Servers[0].Tools[i]
		tl.Category = "mutation"
		if tl.Name != "push" {
			continue
		}
		for _, r := range rules {
			tl.Rules = append(tl.Rules, gateproto.ToolRule{Rule: r.Name, Problem: problems[r.Name]})
		}
	}
	c.Revision = c.ComputeRevision()
	if err := c.Validate(); err != nil {
		t.Fatalf("test config invalid: %v", err)
	}
	return c
}

var pushRules = []gateproto.ArgumentRule{
	{Name: "p/no-force-to-main", Expression: `has(args.force) && args.force && args.branch == "main"`, Action: gateproto.RuleRefuse, Message: "force-pushing to main rewrites shared history"},
	{Name: "p/release-branches", Expression: `args.branch.startsWith("release/")`, Action: gateproto.RuleHold, Message: "a release branch ships"},
	{Name: "p/tags-are-critical", Expression: `args.branch == "tags" && agent.namespace == "agents"`, Action: gateproto.RuleRaiseLevel, Level: "L5"},
}

func callWith(t *testing.T, a *agent, name string, args map[string]any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			return tc.Text, nil
		}
	}
	return "", nil
}

func TestArgumentRulesBetweenRealPeers(t *testing.T) {
	for _, gen := range generations {
		t.Run(string(gen), func(t *testing.T) {
			var calls atomic.Int32
			s := argumentServer(&calls)
			u := startUpstream(t, gen, s)
			approve := atomic.Bool{}
			ap := &approverFunc{answer: func(_ context.Context, req gateproto.CallRequest) (gateproto.CallOutcome, error) {
				v := gateproto.CallRejected
				if approve.Load() {
					v = gateproto.CallApproved
				}
				return gateproto.CallOutcome{CallID: req.CallID, Verdict: v, ArgumentsDigest: req.ArgumentsDigest, By: "alice"}, nil
			}}
			g := startGate(t, Options{Approver: ap})
			fps := fingerprints(t, s)

			// tools/list is the same with and without rules.
			if err := g.Apply(config(t, gateproto.ModeEnforce, u, fps, exposed("push"), exposed("query"))); err != nil {
				t.Fatal(err)
			}
			a := connect(t, gen, g.url())
			without := listRaw(t, a)
			if err := g.Apply(withRules(t, config(t, gateproto.ModeEnforce, u, fps, exposed("push"), exposed("query")), pushRules, nil)); err != nil {
				t.Fatal(err)
			}
			if with := listRaw(t, a); with != without {
				t.Fatalf("tools/list changed with argument rules:\nwithout %s\nwith    %s", without, with)
			}

			// An ordinary call goes through: no rule matches, no floor.
			if out, err := callWith(t, a, "push", map[string]any{"branch": "feature/x"}); err != nil || out != "pushed:feature/x" {
				t.Fatalf("an ordinary push: %q, %v", out, err)
			}
			// Refuse: the error names the rule, and the server never sees it.
			before := calls.Load()
			_, err := callWith(t, a, "push", map[string]any{"branch": "main", "force": true})
			if err == nil || !strings.Contains(err.Error(), "p/no-force-to-main") || !strings.Contains(err.Error(), "rewrites shared history") {
				t.Fatalf("a force push to main: %v; want a JSON-RPC error naming the rule", err)
			}
			if l := g.audit.find("push", decide.Refuse); l == nil || l["reason"] != string(decide.ReasonArgumentRule) ||
				l["argumentRule"] != "p/no-force-to-main" || !strings.HasPrefix(l["argumentsDigest"].(string), "sha256:") {
				t.Fatalf("audit line of the refused push: %v", l)
			}
			// Hold, rejected by a person: refused, never forwarded.
			if _, err := callWith(t, a, "push", map[string]any{"branch": "release/1.2"}); err == nil {
				t.Fatal("a held push the person rejected went through")
			}
			// Hold, approved: forwarded once.
			approve.Store(true)
			if out, err := callWith(t, a, "push", map[string]any{"branch": "release/1.2"}); err != nil || out != "pushed:release/1.2" {
				t.Fatalf("an approved push: %q, %v", out, err)
			}
			ap.mu.Lock()
			held := append([]gateproto.CallRequest(nil), ap.seen...)
			ap.mu.Unlock()
			if len(held) != 2 || held[0].HeldBy != gateproto.HeldByRule || held[0].Rule != "p/release-branches" || !strings.Contains(held[0].Reason, "a release branch ships") {
				t.Fatalf("the held calls the operator was asked about: %+v", held)
			}
			// RaiseLevel above the ceiling (L5 over L4): refused, naming the level.
			if _, err := callWith(t, a, "push", map[string]any{"branch": "tags"}); err == nil || !strings.Contains(err.Error(), "L5") || !strings.Contains(err.Error(), "p/tags-are-critical") {
				t.Fatalf("a push raised to L5 under ceiling L4: %v", err)
			}
			// A floor: a force flag raises the push to L4, which waits (and
			// is approved now).
			if out, err := callWith(t, a, "push", map[string]any{"branch": "feature/x", "force": true}); err != nil || out != "pushed:feature/x" {
				t.Fatalf("a forced push, approved: %q, %v", out, err)
			}
			ap.mu.Lock()
			last := ap.seen[len(ap.seen)-1]
			ap.mu.Unlock()
			if last.HeldBy != gateproto.HeldByLevel || last.Level != "L4" || !strings.Contains(last.Reason, "force") {
				t.Fatalf("a forced push was held for %+v; want the level its force flag raised it to", last)
			}
			// A floor above the ceiling: a statement that drops.
			if _, err := callWith(t, a, "query", map[string]any{"sql": "select 1; DROP TABLE users"}); err == nil || !strings.Contains(err.Error(), "above the ceiling") {
				t.Fatalf("a DROP through a query tool: %v", err)
			}
			if out, err := callWith(t, a, "query", map[string]any{"sql": "SELECT name FROM users WHERE id = 1"}); err != nil || out != "rows" {
				t.Fatalf("an ordinary query: %q, %v", out, err)
			}
			if n := calls.Load() - before; n != 3 {
				t.Fatalf("the server saw %d calls since the ordinary one; want 3 (two approved pushes and the SELECT)", n)
			}

			// A rule the operator found broken for the tool refuses its
			// calls, naming the rule and why.
			if err := g.Apply(withRules(t, config(t, gateproto.ModeEnforce, u, fps, exposed("push"), exposed("query")), pushRules,
				map[string]string{"p/release-branches": "UnknownArgument: args.ref is not an argument of the tool"})); err != nil {
				t.Fatal(err)
			}
			if _, err := callWith(t, a, "push", map[string]any{"branch": "feature/x"}); err == nil || !strings.Contains(err.Error(), "args.ref is not an argument") {
				t.Fatalf("a call of a tool whose rule is broken: %v", err)
			}
		})
	}
}

// TestArgumentRulesInAudit: in Audit mode a rule is recorded, not
// enforced: the call is forwarded and the line says Enforce would refuse.
func TestArgumentRulesInAudit(t *testing.T) {
	var calls atomic.Int32
	s := argumentServer(&calls)
	u := startUpstream(t, genStateless, s)
	g := startGate(t, Options{})
	if err := g.Apply(withRules(t, config(t, gateproto.ModeAudit, u, fingerprints(t, s), exposed("push"), exposed("query")), pushRules, nil)); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genStateless, g.url())
	if out, err := callWith(t, a, "push", map[string]any{"branch": "main", "force": true}); err != nil || out != "pushed:main" {
		t.Fatalf("Audit: %q, %v; want the call forwarded", out, err)
	}
	l := g.audit.find("push", decide.AuditForward)
	if l == nil || l["enforceWould"] != string(decide.Refuse) || l["argumentRule"] != "p/no-force-to-main" {
		t.Fatalf("Audit line: %v", l)
	}
}

// listRaw is the agent's tools/list as JSON, for comparing two lists.
func listRaw(t *testing.T, a *agent) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
