package policy

import (
	"testing"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// TestInstructionsInConfig: a ready server's configuration carries the
// fingerprint of the instructions its last probe scanned, or says it sent
// none; a server whose status says nothing, or that is not ready, or has no
// upstream, carries nothing, so a gate never takes "unknown" for "none".
func TestInstructionsInConfig(t *testing.T) {
	reviewed := tooldef.InstructionsFingerprint("Call list_files first.")
	withInfo := func(info *toolgatev1alpha1.ServerInfo) serverOpt {
		return func(s *toolgatev1alpha1.MCPServer) { s.Status.ServerInfo = info }
	}
	for _, tc := range []struct {
		name      string
		server    toolgatev1alpha1.MCPServer
		upstreams bool
		want      *gateproto.Instructions
	}{
		{"scanned instructions", readyServer(agentsNS, "files", withInfo(&toolgatev1alpha1.ServerInfo{Name: "files", InstructionsFingerprint: toolgatev1alpha1.Fingerprint(reviewed)})), true,
			&gateproto.Instructions{Fingerprint: reviewed}},
		{"the probe read none", readyServer(agentsNS, "files", withInfo(&toolgatev1alpha1.ServerInfo{Name: "files"})), true,
			&gateproto.Instructions{None: true}},
		{"a status that does not say", readyServer(agentsNS, "files"), true, nil},
		{"instructions the scan found poisoning in", readyServer(agentsNS, "files",
			withInfo(&toolgatev1alpha1.ServerInfo{Name: "files", InstructionsFingerprint: toolgatev1alpha1.Fingerprint(reviewed)}),
			func(s *toolgatev1alpha1.MCPServer) {
				s.Status.Risk = &toolgatev1alpha1.ServerRisk{Level: toolgatev1alpha1.LevelCritical,
					Findings: []toolgatev1alpha1.Finding{{Signal: "hidden-instruction", Field: "instructions"}}}
			}), true, nil},
		{"not ready: the last probe failed", readyServer(agentsNS, "files",
			withInfo(&toolgatev1alpha1.ServerInfo{InstructionsFingerprint: toolgatev1alpha1.Fingerprint(reviewed)}),
			notReadyCondition(toolgatev1alpha1.ReasonInvalidResponse)), true, nil},
		{"probed at an older generation", readyServer(agentsNS, "files",
			withInfo(&toolgatev1alpha1.ServerInfo{InstructionsFingerprint: toolgatev1alpha1.Fingerprint(reviewed)}),
			func(s *toolgatev1alpha1.MCPServer) { s.Generation = 4 }), true, nil},
		{"no upstream resolved", readyServer(agentsNS, "files", withInfo(&toolgatev1alpha1.ServerInfo{InstructionsFingerprint: toolgatev1alpha1.Fingerprint(reviewed)})), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Evaluate(Input{Namespace: agentsNS, Policies: []toolgatev1alpha1.ToolPolicy{policy("p", refs(local))},
				Servers: []toolgatev1alpha1.MCPServer{tc.server},
				Pins:    []toolgatev1alpha1.ToolPin{trustedPin(agentsNS, "files", "read", 1, toolgatev1alpha1.LevelLow, "", 1)}})
			upstreams := map[string]*gateproto.Upstream{}
			if tc.upstreams {
				upstreams = upstreamsFor(res)
			}
			c := res.Config(agentsNS, "agent-0", upstreams)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			got := c.Servers[0].Instructions
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("instructions %+v, want none claimed", *got)
			case tc.want != nil && (got == nil || *got != *tc.want):
				t.Errorf("instructions %+v, want %+v", got, *tc.want)
			}
			if got != nil && res.Servers[0].Instructions == got {
				t.Error("the configuration shares the result's instructions")
			}
		})
	}
}
