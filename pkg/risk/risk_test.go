package risk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

func assess(t *testing.T, def string) Assessment {
	t.Helper()
	tool, err := tooldef.ParseTool([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	return Assess(Input{Tool: tool})
}

func TestFloors(t *testing.T) {
	for _, tc := range []struct {
		def, floor string
	}{
		// The irreversible verb floor matches anywhere in the name, in every style.
		{`{"name":"k8s_delete_pod","description":"Deletes one pod in a namespace of the cluster."}`, `irreversible verb "delete"`},
		{`{"name":"pods_delete","description":"Deletes one pod in a namespace of the cluster."}`, `irreversible verb "delete"`},
		{`{"name":"deleteRepository","description":"Deletes a repository with all of its history."}`, `irreversible verb "delete"`},
		{`{"name":"repo.purge","description":"Purges the repository's caches and artefacts."}`, `irreversible verb "purge"`},
		{`{"name":"helm-uninstall","description":"Uninstalls a Helm release from the cluster."}`, `removes a broad scope`},
		// Destructive without idempotent, as declared.
		{`{"name":"reset_counter","description":"Resets the counter to its start value.","annotations":{"destructiveHint":true}}`, "declared destructive"},
		// Free-form execution.
		{`{"name":"run_query","description":"Runs a query against the warehouse.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`, "runs arbitrary code"},
		{`{"name":"notes_tool","description":"Keeps notes for the session.","inputSchema":{"type":"object","properties":{"command":{"type":"string"}}}}`, "runs arbitrary code"},
	} {
		a := assess(t, tc.def)
		if a.Level != L5 || !strings.Contains(strings.Join(a.Floors, "\n"), tc.floor) {
			t.Errorf("%s: level %s, floors %q; want L5 with %q", tc.def, a.Level, a.Floors, tc.floor)
		}
	}
}

func TestReadToolsStayLow(t *testing.T) {
	for _, def := range []string{
		`{"name":"list_issues","description":"Lists the issues of a repository.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}}`,
		`{"name":"getWeather","description":"Returns the weather forecast for a city."}`,
		`{"name":"calculate_sum","description":"Adds the numbers it is given and returns the sum."}`,
	} {
		if a := assess(t, def); a.Level > L3 {
			t.Errorf("%s scored %s: %v %v", def, a.Level, a.Floors, a.Reasons)
		}
	}
	described := assess(t, `{"name":"list_issues","description":"Lists the issues of a repository."}`)
	bare := assess(t, `{"name":"list_issues"}`)
	if bare.Level <= described.Level {
		t.Errorf("a missing description must cost: described %s, bare %s", described.Level, bare.Level)
	}
	if vague := assess(t, `{"name":"frobnicate","description":"Frobnicates."}`); vague.Level < L4 {
		t.Errorf("a tool nothing explains scored %s; missing metadata must raise risk", vague.Level)
	}
}

// TestDeclaredMetadataNeverLowers is the property that a server cannot talk
// its tool down: adding any declaration leaves the level at least as high.
func TestDeclaredMetadataNeverLowers(t *testing.T) {
	bases := []string{
		`{"name":"drop_database","description":"Drops the database and everything in it."}`,
		`{"name":"send_email","description":"Sends an email to any address."}`,
		`{"name":"list_files","description":"Lists the files of a directory."}`,
		`{"name":"exec","description":"Executes a shell command.","inputSchema":{"type":"object","properties":{"command":{"type":"string"}}}}`,
	}
	declarations := []string{
		`"readOnlyHint":true`, `"destructiveHint":false`, `"idempotentHint":true`, `"openWorldHint":false`,
		`"riskLevel":"low"`, `"category":"read"`, `"blastRadius":"item"`, `"reversibility":"auto"`,
		`"approvalRecommendation":"none"`, `"minTrustLevel":1`,
		`"readOnlyHint":true,"destructiveHint":false,"riskLevel":"low","category":"read"`,
	}
	// A floored tool stays floored whatever else it declares.
	bases = append(bases, `{"name":"reset_counter","description":"Resets the counter to its start value.","annotations":{"destructiveHint":true}}`)
	declarations = append(declarations, `"destructiveHint":true,"idempotentHint":true`, `"destructiveHint":true,"readOnlyHint":true`)
	for _, base := range bases {
		plain := assess(t, base)
		for _, decl := range declarations {
			def := withDeclarations(t, base, decl)
			got := assess(t, def)
			if got.Level < plain.Level {
				t.Errorf("%s with {%s}: level %s below %s", base, decl, got.Level, plain.Level)
			}
			if categoryRank[got.SEP.Category] < categoryRank[plain.SEP.Category] {
				t.Errorf("%s with {%s}: category %s below %s", base, decl, got.SEP.Category, plain.SEP.Category)
			}
		}
	}
	raised := assess(t, `{"name":"list_files","description":"Lists the files of a directory.","annotations":{"riskLevel":"critical"}}`)
	if raised.Level != L5 {
		t.Errorf("a declared critical risk must raise the level, got %s", raised.Level)
	}
}

// withDeclarations adds annotation fields a definition does not declare yet.
func withDeclarations(t *testing.T, def, decl string) string {
	t.Helper()
	var tool map[string]any
	if err := json.Unmarshal([]byte(def), &tool); err != nil {
		t.Fatal(err)
	}
	var extra map[string]any
	if err := json.Unmarshal([]byte("{"+decl+"}"), &extra); err != nil {
		t.Fatal(err)
	}
	ann, _ := tool["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	for k, v := range extra {
		if _, declared := ann[k]; !declared { // adding, never changing, a declaration
			ann[k] = v
		}
	}
	tool["annotations"] = ann
	out, _ := json.Marshal(tool)
	return string(out)
}

func TestPoisoningFloorsAndForfeitsCredit(t *testing.T) {
	tool, _ := tooldef.ParseTool([]byte(`{"name":"list_files","description":"Lists the files of a directory.","annotations":{"readOnlyHint":true}}`))
	clean := Assess(Input{Tool: tool, ApprovalGated: true})
	if clean.Level == L0 {
		t.Fatal("test tool must start above L0")
	}
	if clean.EffectiveLevel != clean.Level-1 {
		t.Errorf("an approval-gated clean tool earns one band: level %s, effective %s", clean.Level, clean.EffectiveLevel)
	}
	poisoned := Assess(Input{Tool: tool, ApprovalGated: true, Findings: []Finding{{Signal: "model-instruction", Field: "description"}}})
	if poisoned.Level != L5 || poisoned.EffectiveLevel != L5 {
		t.Errorf("a poisoned tool: level %s, effective %s; want L5 and no credit", poisoned.Level, poisoned.EffectiveLevel)
	}
}

func TestServerPosture(t *testing.T) {
	remote := AssessServer(Posture{URL: "https://mcp.example.com/mcp", Transport: "streamable-http"})
	if remote.Level != L5 || remote.Floor == "" {
		t.Errorf("remote unauthenticated unknown server: %+v", remote)
	}
	local := AssessServer(Posture{URL: "http://mcp.tools.svc:8080/mcp", InCluster: true, Trust: "Internal", Authenticated: true})
	if local.Level > L1 || local.Floor != "" {
		t.Errorf("in-cluster authenticated internal server: %+v", local)
	}
	tool, _ := tooldef.ParseTool([]byte(`{"name":"list_files","description":"Lists the files of a directory.","annotations":{"readOnlyHint":true}}`))
	if a := Assess(Input{Tool: tool, Server: remote}); a.Level != L5 {
		t.Errorf("a tool of a floored server scored %s", a.Level)
	}
}

// TestWorkedExamples holds the examples of docs/risk-model.md §11 true.
func TestWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		def                          string
		level                        Level
		risk, category, blast, floor string
	}{
		{`{"name":"list_issues","description":"Lists the issues of a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}}`,
			L2, "medium", "read", "namespace", ""},
		{`{"name":"k8s_delete_pod","description":"Deletes one pod in a namespace of the cluster."}`,
			L5, "high", "delete", "", `irreversible verb "delete"`},
		{`{"name":"git_push","description":"Pushes local commits to a remote branch.","inputSchema":{"type":"object","properties":{"force":{"type":"boolean"},"delete":{"type":"boolean"}}}}`,
			L5, "critical", "destroy", "", "removes a broad scope"},
		{`{"name":"run_query","description":"Runs a query against the warehouse.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`,
			L5, "critical", "mutate", "namespace", "runs arbitrary code"},
		{`{"name":"drop_database","description":"Drops the database and everything in it.","annotations":{"riskLevel":"low","readOnlyHint":true}}`,
			L5, "critical", "destroy", "", "removes a broad scope"},
		// Nothing says what it does: the level fails closed, while riskLevel
		// reads it as the change of limited scope it is assumed to be.
		{`{"name":"frobnicate","description":"Frobnicates."}`, L4, "medium", "", "", ""},
		{`{"name":"svc_put","description":"Replaces a resource of the service.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"body":{"type":"object"}}}}`,
			L5, "critical", "mutate", "organization", "runs arbitrary code"},
		{`{"name":"remove_label_from_issue","description":"Removes a label from an issue."}`, L3, "medium", "mutate", "", ""},
	} {
		a := assess(t, tc.def)
		if a.Level != tc.level || a.SEP.RiskLevel != tc.risk ||
			(tc.category != "" && a.SEP.Category != tc.category) || (tc.blast != "" && a.SEP.BlastRadius != tc.blast) ||
			(tc.floor != "" && !strings.Contains(strings.Join(a.Floors, "\n"), tc.floor)) {
			t.Errorf("%s:\n got %s %s %s %s floors %q\nwant %s %s %s %s floor %q", tc.def, a.Level, a.SEP.RiskLevel, a.SEP.Category, a.SEP.BlastRadius, a.Floors,
				tc.level, tc.risk, tc.category, tc.blast, tc.floor)
		}
	}
	drop := assess(t, `{"name":"drop_database","description":"Drops the database and everything in it.","annotations":{"riskLevel":"low","readOnlyHint":true}}`)
	if len(drop.Disagreements) != 2 {
		t.Errorf("drop_database declaring low and read-only: want two disagreements, got %q", drop.Disagreements)
	}
}
