package gateconfig

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// PinMatters decides which pin updates reach the gates and the ToolPolicy
// reconciler: a change it misses leaves a gate exposing what it should
// withhold, and one it lets through needlessly re-evaluates every
// namespace using the server on each probe.
func TestPinMatters(t *testing.T) {
	base := func() *toolgatev1alpha1.ToolPin {
		return &toolgatev1alpha1.ToolPin{
			Spec: toolgatev1alpha1.ToolPinSpec{ToolName: "list_files"},
			Status: toolgatev1alpha1.ToolPinStatus{
				State:               toolgatev1alpha1.PinTrusted,
				ObservedFingerprint: "sha256:aa",
				Pinned:              &toolgatev1alpha1.PinnedDefinition{Fingerprint: "sha256:aa", Source: toolgatev1alpha1.PinnedOnFirstUse},
				Risk:                &toolgatev1alpha1.ToolRisk{Level: toolgatev1alpha1.LevelLow, Category: toolgatev1alpha1.CategoryRead, MinTrustLevel: 2},
			},
		}
	}
	now := metav1.Now()
	for _, tc := range []struct {
		name   string
		change func(p *toolgatev1alpha1.ToolPin)
		want   bool
	}{
		{"nothing", func(*toolgatev1alpha1.ToolPin) {}, false},
		{"last seen moves on every probe", func(p *toolgatev1alpha1.ToolPin) { p.Status.LastSeenTime = &now }, false},
		{"a pending call", func(p *toolgatev1alpha1.ToolPin) {
			p.Status.PendingCalls = append(p.Status.PendingCalls, toolgatev1alpha1.PendingCall{ID: "c-1"})
		}, false},
		{"state", func(p *toolgatev1alpha1.ToolPin) { p.Status.State = toolgatev1alpha1.PinAwaitingReview }, true},
		{"observed fingerprint", func(p *toolgatev1alpha1.ToolPin) { p.Status.ObservedFingerprint = "sha256:bb" }, true},
		{"pinned fingerprint", func(p *toolgatev1alpha1.ToolPin) { p.Status.Pinned.Fingerprint = "sha256:bb" }, true},
		{"pinned source", func(p *toolgatev1alpha1.ToolPin) { p.Status.Pinned.Source = toolgatev1alpha1.PinnedByApproval }, true},
		{"pin dropped", func(p *toolgatev1alpha1.ToolPin) { p.Status.Pinned = nil }, true},
		{"level", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk.Level = toolgatev1alpha1.LevelCritical }, true},
		{"category", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk.Category = toolgatev1alpha1.CategoryDelete }, true},
		{"minimum trust", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk.MinTrustLevel = 4 }, true},
		{"a finding", func(p *toolgatev1alpha1.ToolPin) {
			p.Status.Risk.Findings = append(p.Status.Risk.Findings, toolgatev1alpha1.Finding{Signal: "model-instruction"})
		}, true},
		// Argument rules read these from the gate's configuration.
		{"blast radius", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk.BlastRadius = toolgatev1alpha1.BlastCluster }, true},
		{"reversibility", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk.Reversibility = toolgatev1alpha1.ReversibilityNone }, true},
		{"risk dropped", func(p *toolgatev1alpha1.ToolPin) { p.Status.Risk = nil }, true},
		{"tool name", func(p *toolgatev1alpha1.ToolPin) { p.Spec.ToolName = "list_all_files" }, true},
		{"being deleted", func(p *toolgatev1alpha1.ToolPin) { p.DeletionTimestamp = &now }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, cur := base(), base()
			tc.change(cur)
			if got := PinMatters(old, cur); got != tc.want {
				t.Errorf("PinMatters = %v, want %v", got, tc.want)
			}
		})
	}
}

// The indexes are what an event's namespaces are found by: a Secret an
// MCPServer reads but the index leaves out would never reach the gates
// that use the server.
func TestIndexedReferences(t *testing.T) {
	s := &toolgatev1alpha1.MCPServer{Spec: toolgatev1alpha1.MCPServerSpec{
		Auth: &toolgatev1alpha1.MCPServerAuth{
			BearerToken: &toolgatev1alpha1.KeyReference{Name: "token", Key: "t"},
			HeadersFrom: &toolgatev1alpha1.LocalObjectReference{Name: "headers"},
		},
		TLS: &toolgatev1alpha1.MCPServerTLS{CA: &toolgatev1alpha1.CASource{ConfigMap: &toolgatev1alpha1.KeyReference{Name: "ca", Key: "ca.crt"}}},
	}}
	if got, want := serverReferences(s), []string{"secret/token", "secret/headers", "configmap/ca"}; !slices.Equal(got, want) {
		t.Errorf("serverReferences = %v, want %v", got, want)
	}
	s.Spec.TLS.CA = &toolgatev1alpha1.CASource{Secret: &toolgatev1alpha1.KeyReference{Name: "ca-secret", Key: "ca.crt"}}
	s.Spec.Auth = nil
	if got, want := serverReferences(s), []string{"secret/ca-secret"}; !slices.Equal(got, want) {
		t.Errorf("serverReferences = %v, want %v", got, want)
	}
	if got := serverReferences(&toolgatev1alpha1.MCPServer{}); len(got) != 0 {
		t.Errorf("a server that reads nothing indexed as %v", got)
	}

	p := &toolgatev1alpha1.ToolPolicy{Spec: toolgatev1alpha1.ToolPolicySpec{Servers: []toolgatev1alpha1.ServerReference{
		{Namespace: "tools", Name: "github"}, {Namespace: "data", Name: "db"},
	}}}
	if got, want := policyServers(p), []string{"tools/github", "data/db"}; !slices.Equal(got, want) {
		t.Errorf("policyServers = %v, want %v", got, want)
	}
}

// A pod's identity comes from its verified token; a pod object without one
// is a caller's bug, and is refused before anything is read (the Builder
// here has no Reader: reading would panic).
func TestBuildRefusesAPodWithoutIdentity(t *testing.T) {
	b := &Builder{}
	for _, pod := range []*corev1.Pod{nil, {}, {ObjectMeta: metav1.ObjectMeta{Namespace: "agents"}}, {ObjectMeta: metav1.ObjectMeta{Name: "agent-0"}}} {
		if _, err := b.Build(t.Context(), pod); err == nil {
			t.Errorf("Build(%v) succeeded", pod)
		}
	}
}

// A finding that takes another's place changes the pin as much as one
// more finding does, though the count stays.
func TestPinMattersReadsTheFindings(t *testing.T) {
	pin := func(signal string) *toolgatev1alpha1.ToolPin {
		return &toolgatev1alpha1.ToolPin{Status: toolgatev1alpha1.ToolPinStatus{
			State: toolgatev1alpha1.PinTrusted,
			Risk:  &toolgatev1alpha1.ToolRisk{Level: toolgatev1alpha1.LevelLow, Findings: []toolgatev1alpha1.Finding{{Signal: signal}}},
		}}
	}
	if !PinMatters(pin("hidden-text"), pin("model-instruction")) {
		t.Error("a finding replaced by another did not matter")
	}
	if PinMatters(pin("hidden-text"), pin("hidden-text")) {
		t.Error("the same finding mattered")
	}
}
