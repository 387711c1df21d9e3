package policy

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

const (
	record   = gateproto.FindingRecord
	redact   = gateproto.FindingRedact
	hold     = gateproto.FindingHold
	withhold = gateproto.FindingWithhold
)

func TestStricter(t *testing.T) {
	order := []gateproto.FindingAction{record, redact, hold, withhold}
	for i, a := range order {
		for j, b := range order {
			want := order[max(i, j)]
			if got := Stricter(a, b); got != want {
				t.Errorf("Stricter(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
	// An action this operator does not know is never the permissive one.
	if got := Stricter(record, "Quarantine"); got != "Quarantine" {
		t.Errorf("an unknown action ranks below Record: %s", got)
	}
	if got := Stricter("Quarantine", withhold); got != "Quarantine" {
		t.Errorf("an unknown action ranks below Withhold: %s", got)
	}
}

func TestDefaultResultAction(t *testing.T) {
	safe := Reach{Highest: map[string]toolgatev1alpha1.Level{}}
	dangerous := Reach{Dangerous: true}
	for _, c := range []struct {
		name  string
		level toolgatev1alpha1.Level
		reach Reach
		want  gateproto.FindingAction
	}{
		{"L0, nothing dangerous reachable", toolgatev1alpha1.LevelVerified, safe, record},
		{"L2, nothing dangerous reachable", toolgatev1alpha1.LevelLow, safe, record},
		{"L3 tool", toolgatev1alpha1.LevelModerate, safe, redact},
		{"L5 tool", toolgatev1alpha1.LevelCritical, safe, redact},
		// The harmless fetch tool of an agent that also holds a delete
		// tool: the text it returns steers the next call.
		{"L0 tool, an L4 tool reachable", toolgatev1alpha1.LevelVerified, dangerous, redact},
		{"L2 tool, an L4 tool reachable", toolgatev1alpha1.LevelLow, dangerous, redact},
		{"unknown level", "", safe, redact},
		{"malformed level", "L9", safe, redact},
	} {
		if got := DefaultResultAction(c.level, c.reach); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDefaultMessageAction(t *testing.T) {
	const srv = "tools/files"
	reach := func(dangerous bool, highest toolgatev1alpha1.Level) Reach {
		r := Reach{Dangerous: dangerous, Highest: map[string]toolgatev1alpha1.Level{}}
		if highest != "" {
			r.Highest[srv] = highest
		}
		return r
	}
	for _, c := range []struct {
		name  string
		reach Reach
		want  gateproto.FindingAction
	}{
		{"nothing of the server reachable", reach(false, ""), record},
		{"server's highest L2", reach(false, toolgatev1alpha1.LevelLow), record},
		{"server's highest L3", reach(false, toolgatev1alpha1.LevelModerate), redact},
		{"server harmless, another server's L4 reachable", reach(true, toolgatev1alpha1.LevelSafe), redact},
		{"nothing of the server reachable, another's L5 is", reach(true, ""), redact},
	} {
		if got := DefaultMessageAction(srv, c.reach); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func resultScan(action gateproto.FindingAction, overrides ...toolgatev1alpha1.ResultScanOverride) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) {
		p.Spec.ResultScan = &toolgatev1alpha1.ResultScan{Action: toolgatev1alpha1.FindingAction(action), Overrides: overrides}
	}
}

func override(server, tool string, a gateproto.FindingAction) toolgatev1alpha1.ResultScanOverride {
	return toolgatev1alpha1.ResultScanOverride{Server: server, Tool: tool, Action: toolgatev1alpha1.FindingAction(a)}
}

// TestPolicyResultAction: the most specific override wins — server and
// tool, then tool, then server — then the policy's action, then the
// default; Audit records whatever the policy says.
func TestPolicyResultAction(t *testing.T) {
	const (
		srv   = "tools/github"
		other = "tools/other"
		tool  = "get_issue"
	)
	all := []toolgatev1alpha1.ResultScanOverride{
		override(srv, tool, hold), override("", tool, withhold), override(srv, "", redact),
	}
	for _, c := range []struct {
		name         string
		policy       toolgatev1alpha1.ToolPolicy
		server, tool string
		want         gateproto.FindingAction
		wantMessage  gateproto.FindingAction // of server
	}{
		{"no resultScan: the default", policy("p"), srv, tool, redact, redact},
		{"action only", policy("p", resultScan(withhold)), srv, tool, withhold, withhold},
		{"server and tool beat tool and server", policy("p", resultScan(record, all...)), srv, tool, hold, redact},
		{"tool beats server", policy("p", resultScan(record, all[1:]...)), srv, tool, withhold, redact},
		{"tool on any server", policy("p", resultScan(record, all[1:]...)), other, tool, withhold, record},
		{"server beats action", policy("p", resultScan(record, all[2])), srv, "list_issues", redact, redact},
		{"another server's override does not apply", policy("p", resultScan(record, all[2])), other, tool, record, record},
		{"a more specific override may be the more permissive", policy("p", resultScan(withhold, override(srv, tool, record))), srv, tool, record, withhold},
		{"override without action falls to the default", policy("p", resultScan("", override(other, "", withhold))), srv, tool, redact, redact},
		{"two overrides equally specific: the stricter", policy("p", resultScan("", override("", tool, record), override("", tool, hold))), srv, tool, hold, redact},
		{"a tool's override says nothing of the server's messages", policy("p", resultScan("", override(srv, tool, withhold))), srv, "x", redact, redact},
		{"Audit records", policy("p", audit, resultScan(withhold, all...)), srv, tool, record, record},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PolicyResultAction(&c.policy, c.server, c.tool, redact); got != c.want {
				t.Errorf("result action %s, want %s", got, c.want)
			}
			if got := PolicyMessageAction(&c.policy, c.server, redact); got != c.wantMessage {
				t.Errorf("message action %s, want %s", got, c.wantMessage)
			}
		})
	}
}

// TestResolvedActions checks what Evaluate fills in a configuration: the
// default from what the agents can reach, the strictest of the policies,
// Audit recording, and Hold on a server's messages carried as Withhold.
func TestResolvedActions(t *testing.T) {
	files := readyServer(agentsNS, "files")
	fetch := trustedPin(agentsNS, "files", "fetch", 1, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1)
	write := trustedPin(agentsNS, "files", "write", 2, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.CategoryMutate, 1)
	del := trustedPin(agentsNS, "files", "delete", 3, toolgatev1alpha1.LevelHigh, toolgatev1alpha1.CategoryDestroy, 1)
	type actions struct{ fetch, write, del, message gateproto.FindingAction }
	for _, c := range []struct {
		name     string
		policies []toolgatev1alpha1.ToolPolicy
		pins     []toolgatev1alpha1.ToolPin
		want     actions
	}{
		{"only a harmless tool reachable", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			[]toolgatev1alpha1.ToolPin{fetch}, actions{fetch: record, message: record}},
		{"an L3 tool on the server: its messages redacted, the harmless tool's results recorded", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			[]toolgatev1alpha1.ToolPin{fetch, write}, actions{fetch: record, write: redact, message: redact}},
		// The delete tool makes every finding matter, the fetch tool's
		// too: the text it returns steers the next call.
		{"an L4 tool exposed", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelHigh))},
			[]toolgatev1alpha1.ToolPin{fetch, write, del}, actions{fetch: redact, write: redact, del: redact, message: redact}},
		{"an L4 tool approval-gated is reachable too", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelHigh),
			approval(toolgatev1alpha1.CallApprovalRules{MinLevel: toolgatev1alpha1.LevelHigh}))},
			[]toolgatev1alpha1.ToolPin{fetch, del}, actions{fetch: redact, del: redact, message: redact}},
		{"an L4 tool withheld is not reachable", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
			[]toolgatev1alpha1.ToolPin{fetch, del}, actions{fetch: record, del: redact, message: record}},
		{"the strictest policy wins", []toolgatev1alpha1.ToolPolicy{
			policy("a", refs(local), resultScan(record)),
			policy("b", refs(local), resultScan("", override(local, "fetch", hold), override(local, "", withhold))),
		}, []toolgatev1alpha1.ToolPin{fetch, write}, actions{fetch: hold, write: withhold, message: withhold}},
		{"one policy's Record does not lower another's default", []toolgatev1alpha1.ToolPolicy{
			policy("a", refs(local), resultScan(record)), policy("b", refs(local)),
		}, []toolgatev1alpha1.ToolPin{fetch, write}, actions{fetch: record, write: redact, message: redact}},
		{"Hold on a server's messages is Withhold", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), resultScan(hold))},
			[]toolgatev1alpha1.ToolPin{fetch}, actions{fetch: hold, message: withhold}},
		{"Audit records everything", []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), ceiling(toolgatev1alpha1.LevelHigh), audit, resultScan(withhold))},
			[]toolgatev1alpha1.ToolPin{fetch, write, del}, actions{fetch: record, write: record, del: record, message: record}},
		{"an Audit policy beside an Enforce one: the Enforce one's actions", []toolgatev1alpha1.ToolPolicy{
			policy("a", refs(local), audit), policy("b", refs(local), resultScan(withhold)),
		}, []toolgatev1alpha1.ToolPin{fetch}, actions{fetch: withhold, message: withhold}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Evaluate(Input{Namespace: agentsNS, Policies: c.policies, Servers: []toolgatev1alpha1.MCPServer{files}, Pins: c.pins})
			cfg := mustValidate(t, res)
			srv := cfg.Server(local)
			if srv == nil {
				t.Fatal("the server is not in the configuration")
			}
			if srv.MessageAction != c.want.message {
				t.Errorf("messageAction %s, want %s", srv.MessageAction, c.want.message)
			}
			for name, want := range map[string]gateproto.FindingAction{"fetch": c.want.fetch, "write": c.want.write, "delete": c.want.del} {
				if want == "" {
					continue
				}
				tool := toolOf(res, local, name)
				if tool == nil {
					t.Fatalf("tool %s is not in the result", name)
				}
				if tool.ResultAction != want {
					t.Errorf("%s (%s): resultAction %s, want %s", name, tool.Decision, tool.ResultAction, want)
				}
			}
		})
	}
}

// A server made not ready after evaluation (no upstream resolved) keeps
// the actions resolved for it.
func TestNotReadyKeepsActions(t *testing.T) {
	res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local), resultScan(hold))},
		Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")},
		Pins:    []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "fetch", 1, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1)}})
	cfg := res.Config(agentsNS, "agent-0", nil)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv := cfg.Server(local)
	if srv.Ready || srv.MessageAction != withhold || srv.Tools[0].ResultAction != hold {
		t.Fatalf("a server made not ready: ready %v, messageAction %s, tools %+v", srv.Ready, srv.MessageAction, srv.Tools)
	}
}

// TestStatusShowsResultActions: a policy's status lists each tool's
// resolved action, and a policy in Audit says it records only.
func TestStatusShowsResultActions(t *testing.T) {
	in := Input{Namespace: agentsNS, Servers: []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "files")},
		Pins: []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "fetch", 1, toolgatev1alpha1.LevelSafe, toolgatev1alpha1.CategoryRead, 1)}}
	enforce := policy("p", refs(local), resultScan("", override("", "fetch", hold)))
	st := Status(&enforce, in)
	if len(st.Tools) != 1 || st.Tools[0].ResultAction != toolgatev1alpha1.FindingHold {
		t.Fatalf("status tools %+v, want fetch with resultAction Hold", st.Tools)
	}
	if c := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady); c == nil || strings.Contains(c.Message, "Audit") {
		t.Fatalf("an Enforce policy's Ready: %+v", c)
	}
	audited := policy("p", refs(local), audit, resultScan(withhold))
	st = Status(&audited, in)
	if st.Tools[0].ResultAction != toolgatev1alpha1.FindingRecord {
		t.Errorf("an Audit policy resolves %s, want Record", st.Tools[0].ResultAction)
	}
	c := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady)
	if c == nil || !strings.Contains(c.Message, "Audit mode: findings in what servers answer are recorded only") {
		t.Fatalf("an Audit policy's Ready does not say it records only: %+v", c)
	}
}
