package policy

import (
	"testing"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

func withRules(rules ...toolgatev1alpha1.ArgumentRule) policyOpt {
	return func(p *toolgatev1alpha1.ToolPolicy) { p.Spec.ArgumentRules = rules }
}

func definition(schema string) pinOpt {
	return func(p *toolgatev1alpha1.ToolPin) {
		p.Status.Pinned.Definition = `{"inputSchema":` + schema + `,"name":"` + p.Spec.ToolName + `"}`
	}
}

// TestArgumentRulesSpeakOfTheirPolicysServers: a rule that names a tool
// without a server applies to that tool on the servers its own policy
// references, never on a server only another policy of the pod brings;
// each rule reaches the configuration named policy/rule, with the problem
// its tool's pinned schema gives it.
func TestArgumentRulesSpeakOfTheirPolicysServers(t *testing.T) {
	git := agentsNS + "/git"
	mirror := agentsNS + "/mirror"
	schema := `{"type":"object","properties":{"branch":{"type":"string"},"force":{"type":"boolean"}}}`
	servers := []toolgatev1alpha1.MCPServer{readyServer(agentsNS, "git"), readyServer(agentsNS, "mirror")}
	pins := []toolgatev1alpha1.ToolPin{
		trustedPin(agentsNS, "git", "push", 1, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.Category("mutation"), 1, definition(schema)),
		trustedPin(agentsNS, "mirror", "push", 2, toolgatev1alpha1.LevelModerate, toolgatev1alpha1.Category("mutation"), 1, definition(`{"type":"object","properties":{"ref":{"type":"string"}}}`)),
	}
	a := policy("a", refs(git), withRules(
		toolgatev1alpha1.ArgumentRule{Name: "no-force", Tools: []toolgatev1alpha1.ToolReference{{Name: "push"}}, Expression: `has(args.force) && args.force`, Action: toolgatev1alpha1.ArgumentRuleRefuse},
		toolgatev1alpha1.ArgumentRule{Name: "remote", Tools: []toolgatev1alpha1.ToolReference{{Name: "push"}}, Expression: `args.remote == "x"`, Action: toolgatev1alpha1.ArgumentRuleHold},
	))
	b := policy("b", refs(mirror))
	res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{a, b}, Servers: servers, Pins: pins})
	cfg := res.Config(agentsNS, "agent-0", upstreamsFor(res))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var gitPush, mirrorPush *gateproto.Tool
	for i := range cfg.Servers {
		for j := range cfg.Servers[i].Tools {
			if tl := &cfg.Servers[i].Tools[j]; tl.Name == "push" {
				if cfg.Servers[i].ID == git {
					gitPush = tl
				} else {
					mirrorPush = tl
				}
			}
		}
	}
	if gitPush == nil || len(gitPush.Rules) != 2 || gitPush.Rules[0].Rule != "a/no-force" || gitPush.Rules[0].Problem != "" ||
		gitPush.Rules[1].Rule != "a/remote" || gitPush.Rules[1].Problem == "" || gitPush.Category != "mutation" {
		t.Errorf("git's push: %+v", gitPush)
	}
	if mirrorPush == nil || len(mirrorPush.Rules) != 0 {
		t.Errorf("mirror's push, which only policy b references, got policy a's rules: %+v", mirrorPush)
	}
	// The policy's own status reports the same problem the configuration
	// carries.
	st := Status(&a, Input{Namespace: agentsNS, Servers: servers, Pins: pins})
	if len(st.ArgumentRules) != 1 || st.ArgumentRules[0].Rule != "remote" || st.ArgumentRules[0].Kind != "UnknownArgument" || st.ArgumentRules[0].Server != git {
		t.Errorf("policy a's status: %+v", st.ArgumentRules)
	}
}
