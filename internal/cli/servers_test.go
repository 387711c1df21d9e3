package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func cond(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

// fixtureServers are the servers a platform engineer meets: one that
// demands the gate's credentials, one without any, one that ignores the
// token it is given, one whose check could not tell, one not checked yet.
func fixtureServers() []toolgatev1alpha1.MCPServer {
	ready := cond(toolgatev1alpha1.ConditionReady, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, "6 tools")
	server := func(ns, name string, tools int32, highest toolgatev1alpha1.Level, c ...metav1.Condition) toolgatev1alpha1.MCPServer {
		return toolgatev1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Status: toolgatev1alpha1.MCPServerStatus{ToolCount: tools, HighestLevel: highest, Conditions: c}}
	}
	return []toolgatev1alpha1.MCPServer{
		server("tools", "everything", 13, "L5", ready, cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials,
			"spec.auth gives the gate no credentials, so nothing the gate holds keeps agents from calling the server directly.\nSee docs/install.md.")),
		server("tools", "demo", 6, "L5", ready, cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired,
			"without the credentials only the gate holds, the server refused initialize with HTTP 401 Unauthorized")),
		server("data", "wiki", 2, "L2", ready, cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials,
			"the server answered MCP initialize and listed 2 tool(s) to a probe without the credentials the gate holds\x1b[2K")),
		server("data", "flaky", 0, "", cond(toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonUnreachable, "no"),
			cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed, "a probe without the gate's credentials could not tell")),
		server("data", "new", 0, ""),
	}
}

func fixturePolicies() []toolgatev1alpha1.ToolPolicy {
	policy := func(ns, name string, exposed, gated, withheld int32, c ...metav1.Condition) toolgatev1alpha1.ToolPolicy {
		return toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:   toolgatev1alpha1.ToolPolicySpec{Mode: toolgatev1alpha1.PolicyEnforce},
			Status: toolgatev1alpha1.ToolPolicyStatus{Ceiling: "L3", Exposed: exposed, ApprovalGated: gated, Withheld: withheld, Conditions: c}}
	}
	ready := cond(toolgatev1alpha1.ConditionReady, metav1.ConditionTrue, toolgatev1alpha1.ReasonEvaluated, "ok")
	return []toolgatev1alpha1.ToolPolicy{
		policy("agents", "agents", 8, 1, 10, ready, cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionTrue, toolgatev1alpha1.ReasonServersBypassable,
			"the agents can call 1 of the 2 referenced servers without going through their gates: tools/everything (NoCredentials)")),
		policy("billing", "strict", 3, 0, 3, ready, cond(toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired,
			"all 1 referenced servers refuse callers without the credentials only the gates hold")),
	}
}

func TestServersTableGolden(t *testing.T) {
	var buf bytes.Buffer
	WriteServersTable(&buf, ServerItems(fixtureServers()), true)
	out := buf.String()
	golden(t, "servers/all-namespaces.txt", out)
	for _, want := range []string{
		"YES (NoCredentials)", "no (CredentialsRequired)", "YES (ReachableWithoutCredentials)", "unknown (CheckFailed)", "not checked yet",
		"Gate bypass:", "tools/everything: spec.auth gives the gate no credentials",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	// A server that refuses without credentials needs no note.
	if strings.Contains(out, "tools/demo:") {
		t.Errorf("a guarded server has a bypass note:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b") {
		t.Error("the table carries a raw escape")
	}
}

func TestPoliciesTableGolden(t *testing.T) {
	var buf bytes.Buffer
	WritePoliciesTable(&buf, PolicyItems(fixturePolicies()), true)
	out := buf.String()
	golden(t, "policies/all-namespaces.txt", out)
	if !strings.Contains(out, "YES (ServersBypassable)") || !strings.Contains(out, "agents/agents: the agents can call 1 of the 2") || strings.Contains(out, "billing/strict:") {
		t.Errorf("policies table:\n%s", out)
	}
}

func TestServersJSON(t *testing.T) {
	data, err := json.Marshal(ServersReport{Items: ServerItems(fixtureServers())})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"namespace":"data","name":"flaky"`, `"gateBypassable":{"status":"True","reason":"NoCredentials"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("JSON lacks %s: %s", want, data)
		}
	}
	var buf bytes.Buffer
	WriteServersTable(&buf, nil, false)
	WritePoliciesTable(&buf, nil, false)
	if buf.String() != "no MCPServers\nno ToolPolicies\n" {
		t.Errorf("empty tables: %q", buf.String())
	}
}

func TestListUsage(t *testing.T) {
	for _, cmd := range []string{"servers", "policies"} {
		if code, _, errOut := run(t, "", cmd, "extra"); code != ExitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
			t.Errorf("%s extra: exit %d: %s", cmd, code, errOut)
		}
		// kubectl's printers say which formats they know.
		if code, _, errOut := run(t, "", cmd, "-o", "csv"); code != ExitUsage || !strings.Contains(errOut, `unable to match a printer suitable for the output format "csv"`) ||
			!strings.Contains(errOut, "yaml") {
			t.Errorf("%s -o csv: exit %d: %s", cmd, code, errOut)
		}
	}
}
