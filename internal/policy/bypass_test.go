package policy

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// bypassCondition gives a server its GateBypassable condition.
func bypassCondition(status metav1.ConditionStatus, reason string) serverOpt {
	return func(s *toolgatev1alpha1.MCPServer) {
		s.Status.Conditions = append(s.Status.Conditions, metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable,
			Status: status, Reason: reason, Message: "the server's own words", ObservedGeneration: s.Generation})
	}
}

func TestGateBypass(t *testing.T) {
	policyOn := func(refs ...string) *toolgatev1alpha1.ToolPolicy {
		p := &toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: agentsNS, Name: "p", Generation: 7}}
		for _, r := range refs {
			ns, name, _ := strings.Cut(r, "/")
			p.Spec.Servers = append(p.Spec.Servers, toolgatev1alpha1.ServerReference{Namespace: ns, Name: name})
		}
		return p
	}
	open := readyServer("tools", "everything", bypassCondition(metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials))
	reachable := readyServer("tools", "wiki", bypassCondition(metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials))
	guarded := readyServer("tools", "demo", bypassCondition(metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired))
	failed := readyServer("tools", "flaky", bypassCondition(metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed))
	unchecked := readyServer("tools", "new")
	// A server the gate withholds (not ready) is reachable all the same.
	broken := readyServer("tools", "broken", notReadyCondition(toolgatev1alpha1.ReasonUnreachable), bypassCondition(metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials))
	all := []toolgatev1alpha1.MCPServer{open, reachable, guarded, failed, unchecked, broken}

	for _, tc := range []struct {
		name   string
		refs   []string
		status metav1.ConditionStatus
		reason string
		says   []string
		never  []string
	}{
		{"one bypassable server among guarded ones", []string{"tools/demo", "tools/everything"},
			metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable,
			[]string{"1 of the 2 referenced servers", "tools/everything (NoCredentials)", "docs/install.md"}, []string{"tools/demo"}},
		{"every bypassable server named with its reason, the unknown ones too", []string{"tools/wiki", "tools/everything", "tools/flaky", "tools/demo"},
			metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable,
			[]string{"2 of the 4", "tools/everything (NoCredentials), tools/wiki (ReachableWithoutCredentials)", "not known for tools/flaky (CheckFailed)"}, nil},
		{"a server that is not ready counts", []string{"tools/broken"},
			metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable, []string{"tools/broken (NoCredentials)"}, nil},
		{"every server refuses without credentials", []string{"tools/demo"},
			metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired, []string{"all 1 referenced servers refuse"}, nil},
		{"a server not checked yet leaves it unknown", []string{"tools/demo", "tools/new"},
			metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown, []string{"tools/new (not checked yet)"}, []string{"tools/demo"}},
		{"a check that could not tell leaves it unknown", []string{"tools/flaky"},
			metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown, []string{"tools/flaky (CheckFailed)"}, nil},
		{"a missing server is the Accepted condition's to report", []string{"tools/demo", "tools/gone"},
			metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired, nil, []string{"tools/gone"}},
		{"no referenced server exists", []string{"tools/gone"},
			metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassUnknown, []string{"none of the servers"}, nil},
		{"a server referenced twice counts once", []string{"tools/everything", "tools/everything"},
			metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable, []string{"1 of the 1 referenced"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policyOn(tc.refs...)
			c := GateBypass(p, Input{Namespace: agentsNS, Servers: all})
			if c.Type != toolgatev1alpha1.ConditionGateBypassable || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 7 {
				t.Errorf("got %s=%s (%s) at %d, want %s (%s) at 7: %s", c.Type, c.Status, c.Reason, c.ObservedGeneration, tc.status, tc.reason, c.Message)
			}
			for _, s := range tc.says {
				if !strings.Contains(c.Message, s) {
					t.Errorf("the message lacks %q: %s", s, c.Message)
				}
			}
			for _, s := range tc.never {
				if strings.Contains(c.Message, s) {
					t.Errorf("the message names %q: %s", s, c.Message)
				}
			}
		})
	}
}

// TestStatusCarriesGateBypass: the policy's status carries the condition
// beside Accepted and Ready, and a bypassable server does not make the
// policy not Ready.
func TestStatusCarriesGateBypass(t *testing.T) {
	p := &toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: agentsNS, Name: "p", Generation: 2},
		Spec: toolgatev1alpha1.ToolPolicySpec{Servers: []toolgatev1alpha1.ServerReference{{Namespace: agentsNS, Name: "open"}}}}
	open := readyServer(agentsNS, "open", bypassCondition(metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials))
	st := Status(p, Input{Namespace: agentsNS, Servers: []toolgatev1alpha1.MCPServer{open}})
	var ready, bypass *metav1.Condition
	for i := range st.Conditions {
		switch st.Conditions[i].Type {
		case toolgatev1alpha1.ConditionReady:
			ready = &st.Conditions[i]
		case toolgatev1alpha1.ConditionGateBypassable:
			bypass = &st.Conditions[i]
		}
	}
	if bypass == nil || bypass.Status != metav1.ConditionTrue || !strings.Contains(bypass.Message, "agents/open (NoCredentials)") {
		t.Errorf("GateBypassable = %+v", bypass)
	}
	if ready == nil || ready.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %+v; a bypassable server must not make the policy not Ready", ready)
	}
}
