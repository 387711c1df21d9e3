package risk

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// TestArbitraryAPICalls: a tool named by an HTTP method that takes a
// free-form path (and a body, to write) can do anything the account can.
func TestArbitraryAPICalls(t *testing.T) {
	body := `"inputSchema":{"type":"object","properties":{"path":{"type":"string"},"body":{"type":"object"}},"required":["path"]}`
	for _, tc := range []struct {
		def, category, risk, blast string
		level                      Level
	}{
		{`{"name":"svc_put","description":"Replace a resource of the service.",` + body + `}`, "mutate", "critical", "organization", L5},
		{`{"name":"post","description":"Send a request to the service.",` + body + `}`, "mutate", "critical", "organization", L5},
		{`{"name":"svc_delete","description":"Delete a resource of the service.",` + body + `}`, "destroy", "critical", "organization", L5},
		{`{"name":"svc_get","description":"Read a resource of the service.",` + body + `}`, "read", "medium", "organization", L2},
		// A method followed by an object names an ordinary tool.
		{`{"name":"get_file_info","description":"Returns the size and times of a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`, "read", "low", "item", L2},
	} {
		a := assess(t, tc.def)
		if a.SEP.Category != tc.category || a.SEP.RiskLevel != tc.risk || a.SEP.BlastRadius != tc.blast || a.Level != tc.level {
			t.Errorf("%s: got %s %s %s %s, want %s %s %s %s", tc.def, a.SEP.Category, a.SEP.RiskLevel, a.SEP.BlastRadius, a.Level,
				tc.category, tc.risk, tc.blast, tc.level)
		}
	}
	// A description offering any GraphQL request makes a mutation an execution.
	if a := assess(t, `{"name":"graphql_mutate","description":"Runs any GraphQL mutation against the API.","inputSchema":{"type":"object","properties":{"document":{"type":"string"}}}}`); a.Level != L5 || a.SEP.RiskLevel != "critical" {
		t.Errorf("any GraphQL request: %s %s", a.Level, a.SEP.RiskLevel)
	}
}

// TestCredentials: creating or rotating keys, OAuth clients and access
// controls is a privilege change; reading a key back is a secret read.
func TestCredentials(t *testing.T) {
	for _, def := range []string{
		`{"name":"create_new_key","description":"Creates an API key for the account and returns its secret."}`,
		`{"name":"rotate_ssh_key","description":"Rotates the SSH key used by the deploy user."}`,
		`{"name":"create_application","description":"Creates an OAuth application with callback URLs and a client secret."}`,
		`{"name":"update_firewall_rules","description":"Updates the inbound firewall rules of a server."}`,
	} {
		a := assess(t, def)
		if a.Level != L5 || a.SEP.RiskLevel != "critical" || !containsAny(a.SEP.SideEffects, "privilege_change") {
			t.Errorf("%s: %s %s %v", def, a.Level, a.SEP.RiskLevel, a.SEP.SideEffects)
		}
	}
	if a := assess(t, `{"name":"get_api_key","description":"Returns the API key of a project."}`); a.Level < L4 || a.SEP.RiskLevel != "high" {
		t.Errorf("reading a key back: %s %s", a.Level, a.SEP.RiskLevel)
	}
	// An application with nothing about authentication is no credential.
	if a := assess(t, `{"name":"create_app","description":"Creates an app in a team's space."}`); a.SEP.RiskLevel == "critical" {
		t.Errorf("a plain app: %s", a.SEP.RiskLevel)
	}
}

// TestCredentialNameIsStable: a key named with two qualifiers is named by
// the one nearest it, on every run. A name read in map order would change
// the reasons from one probe to the next, and with them the ToolPin status
// written from them.
func TestCredentialNameIsStable(t *testing.T) {
	for _, tc := range []struct{ def, want string }{
		{`{"name":"TwilioApiV2010--FetchSigningKey","description":"Fetch a signing key of the account."}`, "L4: reads signing key, which may hold secrets"},
		{`{"name":"api_update_ssh_key","description":"Updates an SSH key of the account."}`, "L5: changes ssh key: who may do what"},
		{`{"name":"get_key_for_service_account","description":"Returns the key of a service account."}`, "L4: reads service key, which may hold secrets"},
	} {
		// Map order differs from one iteration to the next: enough runs
		// meet every order of the qualifiers.
		for range 50 {
			if a := assess(t, tc.def); !containsAny(a.Reasons, tc.want) {
				t.Fatalf("%s: reasons %q, want %q among them", tc.def, a.Reasons, tc.want)
			}
		}
	}
}

// TestNestedSchemas: wrapper objects, variants, array items and local
// references are read like top-level parameters.
func TestNestedSchemas(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"wrapper", `{"type":"object","properties":{"params":{"type":"object","properties":{"command":{"type":"string"}}}}}`},
		{"anyOf", `{"type":"object","properties":{"req":{"anyOf":[{"type":"object","properties":{"script":{"type":"string"}}}]}}}`},
		{"array items", `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"script":{"type":"string"}}}}}}`},
		{"$ref", `{"type":"object","properties":{"job":{"$ref":"#/$defs/job"}},"$defs":{"job":{"type":"object","properties":{"shell":{"type":"string"}}}}}`},
	} {
		a := assess(t, `{"name":"do_work","description":"Does a unit of work for the caller.","inputSchema":`+tc.schema+`}`)
		if a.Level != L5 || !strings.Contains(strings.Join(a.Floors, "\n"), "runs arbitrary code") {
			t.Errorf("%s: %s %v", tc.name, a.Level, a.Floors)
		}
	}
	// A reference cycle ends.
	cyc := assess(t, `{"name":"get_tree","description":"Returns the tree of nodes below a node.","inputSchema":{"type":"object","properties":{"node":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"child":{"$ref":"#/$defs/n"}}}}}}`)
	if cyc.SEP.Category != "read" {
		t.Errorf("cyclic schema: %s", cyc.SEP.Category)
	}
}

// TestMultiOperationTools: a tool is judged by its worst operation, read
// from enums and from the consts of oneOf/anyOf variants.
func TestMultiOperationTools(t *testing.T) {
	def := `{"name":"site_settings","description":"Change one of a site's settings.","inputSchema":{"type":"object","properties":{"op":{"oneOf":[
		{"type":"object","properties":{"operation":{"const":"update-title"}}},
		{"type":"object","properties":{"operation":{"const":"update-access-controls"}}},
		{"type":"object","properties":{"operation":{"const":"delete-submission"}}}]}}}}`
	a := assess(t, def)
	if a.Level != L5 || a.SEP.RiskLevel != "critical" {
		t.Errorf("worst operation changes access: %s %s %v", a.Level, a.SEP.RiskLevel, a.Reasons)
	}
}

// TestRiskLevelApartFromLevel: riskLevel follows the rubric while the
// level keeps its fail-closed floors.
func TestRiskLevelApartFromLevel(t *testing.T) {
	for _, tc := range []struct {
		def, risk string
		level     Level
	}{
		{`{"name":"delete_comment","description":"Deletes one comment of an issue."}`, "high", L5},
		{`{"name":"drop_database","description":"Drops the database and everything in it."}`, "critical", L5},
		{`{"name":"create_issue","description":"Creates an issue in a repository."}`, "medium", L3},
		{`{"name":"get_issue","description":"Gets one issue by its number."}`, "medium", L2},
		{`{"name":"get_weather","description":"Returns the weather forecast for a city."}`, "low", L2},
		{`{"name":"send_email","description":"Sends an email to one recipient."}`, "high", L4},
		{`{"name":"clear_cookies","description":"Clears every cookie of the browser profile."}`, "high", L5},
		// Revoking one credential withdraws access: high, and floored.
		{`{"name":"delete_api_key","description":"Deletes one API key of the account.","inputSchema":{"type":"object","properties":{"keyId":{"type":"string"}},"required":["keyId"]}}`, "high", L5},
		// A tool that creates as well as deletes credentials changes access.
		{`{"name":"api_keys","description":"Manage API keys: list, create, delete.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list","create","delete"]}},"required":["action"]}}`, "critical", L5},
		// A query declared read-only reads any record; its floor stays.
		{`{"name":"query_database","description":"Queries the database.","inputSchema":{"type":"object","properties":{"sql":{"type":"string","description":"The read-only SQL to run."}},"required":["sql"]}}`, "medium", L5},
		{`{"name":"conversations_add_message","description":"Adds a message to a channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}`, "high", L4},
		// A declared riskLevel raises, never lowers.
		{`{"name":"get_weather","description":"Returns the weather forecast for a city.","annotations":{"riskLevel":"high"}}`, "high", L4},
		{`{"name":"drop_database","description":"Drops the database and everything in it.","annotations":{"riskLevel":"low"}}`, "critical", L5},
	} {
		a := assess(t, tc.def)
		if a.SEP.RiskLevel != tc.risk || a.Level != tc.level {
			t.Errorf("%s: %s %s, want %s %s (%v)", tc.def, a.SEP.RiskLevel, a.Level, tc.risk, tc.level, a.Reasons)
		}
	}
}

// TestBlastFromMeaning: the reach of a write is how far its effect
// spreads; the reach of a read the scope of what it can expose.
func TestBlastFromMeaning(t *testing.T) {
	for _, tc := range []struct{ def, blast string }{
		{`{"name":"update_workspace_variable","description":"Updates a variable of a workspace.","inputSchema":{"type":"object","properties":{"workspace":{"type":"string"},"value":{"type":"string"}},"required":["workspace"]}}`, "namespace"},
		{`{"name":"merge_pull_request","description":"Merges a pull request into its base branch."}`, "namespace"},
		{`{"name":"update_account","description":"Modifies the properties of the account."}`, "cluster"},
		{`{"name":"list_servers","description":"Lists the servers of the account.","inputSchema":{"type":"object","properties":{"page":{"type":"integer"}}}}`, "cluster"},
		{`{"name":"list_issues","description":"Lists issues across the workspace.","inputSchema":{"type":"object","properties":{"page":{"type":"integer"}}}}`, "organization"},
		{`{"name":"query_records","description":"Returns the records of a collection that match a filter.","inputSchema":{"type":"object","properties":{"collection":{"type":"string"},"filter":{"type":"object"}}}}`, "namespace"},
		{`{"name":"repo_branches","description":"Retrieve branch data for a repository.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list_branches","get_branch"]},"repository":{"type":"string"}}}}`, "namespace"},
		// The members of a project are the project's.
		{`{"name":"list_project_members","description":"Lists the members of a project.","inputSchema":{"type":"object","properties":{"projectId":{"type":"string"}},"required":["projectId"]}}`, "namespace"},
		{`{"name":"list_members","description":"Lists the members of the organization.","inputSchema":{"type":"object","properties":{"page":{"type":"integer"}}}}`, "organization"},
		// A mount is a container.
		{`{"name":"list_secrets","description":"Lists the names of the secrets under a mount.","inputSchema":{"type":"object","properties":{"mount":{"type":"string"}},"required":["mount"]}}`, "namespace"},
		// Publishing is visible to everyone.
		{`{"name":"publish_package","description":"Publishes a package version.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`, "global"},
		// The record of a database, not what it holds.
		{`{"name":"get_database","description":"Gets the settings of one database.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, "item"},
		// An operation that removes a container takes what is in it.
		{`{"name":"manage_tables","description":"Manage tables.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list","create","deleteTable"]}},"required":["action"]}}`, "namespace"},
		// Deleting one credential reaches that credential only.
		{`{"name":"delete_credential","description":"Deletes one stored credential by its id.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, "item"},
	} {
		if a := assess(t, tc.def); a.SEP.BlastRadius != tc.blast {
			t.Errorf("%s: blast %s, want %s (%v)", tc.def, a.SEP.BlastRadius, tc.blast, a.Reasons)
		}
	}
}

// TestIntent: read intent beyond a fixed verb list, mutation verbs ahead
// of read words, action words used as nouns, detaching relations.
func TestIntent(t *testing.T) {
	for _, tc := range []struct{ def, category string }{
		{`{"name":"scan_image","description":"Scans a container image for known vulnerabilities."}`, "read"},
		{`{"name":"deploy_plan","description":"Shows what a deploy would change.","inputSchema":{"type":"object","properties":{"appId":{"type":"string"}}}}`, "read"},
		{`{"name":"team_services","description":"Team information.","inputSchema":{"type":"object","properties":{"teamId":{"type":"string"},"limit":{"type":"integer"}}}}`, "read"},
		{`{"name":"apply_config","description":"Validates a configuration in a dry run without applying it."}`, "read"},
		// "run" is a noun here, so no execution; the runs of a pipeline
		// are its state, so an observation.
		{`{"name":"pipelines_run","description":"Retrieve pipeline run data for a project."}`, "observe"},
		{`{"name":"list_pipeline_steps","description":"Lists the steps of a pipeline run.","inputSchema":{"type":"object","properties":{"runId":{"type":"string"}},"required":["runId"]}}`, "observe"},
		{`{"name":"get_pipeline_definition","description":"Returns the definition of a pipeline.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, "read"},
		{`{"name":"list_runs","description":"Lists the runs of a workspace.","inputSchema":{"type":"object","properties":{"workspace":{"type":"string"}},"required":["workspace"]}}`, "read"},
		// A query parameter declared to take only read-only SQL: a read
		// (its floor stays, see TestReadOnlyClaims).
		{`{"name":"query_database","description":"Queries the database.","inputSchema":{"type":"object","properties":{"sql":{"type":"string","description":"The read-only SQL to run."}},"required":["sql"]}}`, "read"},
		{`{"name":"query_database","description":"Queries the database.","inputSchema":{"type":"object","properties":{"sql":{"type":"string","description":"The SQL to run."}},"required":["sql"]}}`, "mutate"},
		// Adding a message to a conversation posts it.
		{`{"name":"conversations_add_message","description":"Adds a message to a channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}`, "mutate"},
		{`{"name":"notification_mark_as_read","description":"Marks a notification as read."}`, "mutate"},
		{`{"name":"resolve_comment","description":"Resolves a comment thread."}`, "mutate"},
		{`{"name":"resolve_library_id","description":"Finds the identifier of a library by its name."}`, "read"},
		{`{"name":"remove_label_from_issue","description":"Removes a label from an issue."}`, "mutate"},
		{`{"name":"delete_folder","description":"Deletes a folder.","inputSchema":{"type":"object","properties":{"recursive":{"type":"boolean"}}}}`, "destroy"},
		// An OAuth code is not code to run.
		{`{"name":"exchange_token","description":"Exchanges an authorization code for a session.","inputSchema":{"type":"object","properties":{"code":{"type":"string","description":"The authorization code from the redirect."}}}}`, "mutate"},
	} {
		if a := assess(t, tc.def); a.SEP.Category != tc.category {
			t.Errorf("%s: category %s, want %s (%v)", tc.def, a.SEP.Category, tc.category, a.Reasons)
		}
	}
	// A read-only claim names the category but lifts no floor, and a
	// query tool is a read only where the server refuses writes.
	q := assess(t, `{"name":"run_query","description":"Runs a query. Only SELECT statements are allowed; others are rejected.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`)
	if q.SEP.Category != "read" || q.Level != L5 {
		t.Errorf("enforced read-only query: %s %s", q.SEP.Category, q.Level)
	}
	if c := assess(t, `{"name":"run_query","description":"Runs a read-only query.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`); c.SEP.Category != "mutate" {
		t.Errorf("a claimed read-only query: %s", c.SEP.Category)
	}
	if d := assess(t, `{"name":"update_settings","description":"Previews the settings change in a dry run."}`); d.Level < L3 {
		t.Errorf("a read-only claim must keep the level at L3 or more: %s", d.Level)
	}
}

// TestLaterRules holds the rules added for reach, secrets and automations.
func TestLaterRules(t *testing.T) {
	for _, tc := range []struct {
		def, field, want string
	}{
		{`{"name":"web_search","description":"Performs a web search with a search engine.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`, "blast", "item"},
		{`{"name":"get_build_log","description":"Returns the log of one build.","inputSchema":{"type":"object","properties":{"buildId":{"type":"string"}}}}`, "blast", "item"},
		{`{"name":"read_records","description":"Reads rows of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}}}}`, "blast", "namespace"},
		{`{"name":"upload_object","description":"Uploads a local file to a bucket.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"}}}}`, "blast", "item"},
		{`{"name":"browser_type","description":"Types text into an element of the page."}`, "blast", "namespace"},
		{`{"name":"list_numbers","description":"Lists the numbers of an account.","inputSchema":{"type":"object","properties":{"accountSid":{"type":"string"}},"required":["accountSid"]}}`, "blast", "cluster"},
		{`{"name":"get_functions","description":"Returns the functions of an environment.","inputSchema":{"type":"object","properties":{"env":{"type":"string"},"revealEnvValues":{"type":"boolean"}}}}`, "risk", "high"},
		{`{"name":"run_pipeline","description":"Runs a pipeline on a branch."}`, "risk", "high"},
		{`{"name":"update_records","description":"Updates the rows that match a condition.","inputSchema":{"type":"object","properties":{"where":{"type":"object"}}}}`, "risk", "high"},
		{`{"name":"sync_table_schema","description":"Refreshes the cached schema of a table."}`, "risk", "low"},
		{`{"name":"create_saved_view","description":"Creates a saved view of issues.","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"filters":{"type":"object"}}}}`, "risk", "medium"},
		{`{"name":"get_dataset_items","description":"Returns the items of a dataset.","inputSchema":{"type":"object","properties":{"datasetId":{"type":"string"}},"required":["datasetId"]}}`, "risk", "medium"},
		{`{"name":"issue_certificate","description":"Issues a certificate and returns its private key."}`, "risk", "high"},
		{`{"name":"browser_mouse_click_xy","description":"Clicks at a position of the page."}`, "risk", "high"},
		{`{"name":"browser_mouse_wheel","description":"Scrolls the page with the mouse wheel."}`, "risk", "low"},
		{`{"name":"write_file","description":"Writes a file, replacing what it held."}`, "risk", "high"},
		{`{"name":"create_invoice","description":"Creates a draft invoice for a customer."}`, "risk", "medium"},
	} {
		a := assess(t, tc.def)
		got := map[string]string{"blast": a.SEP.BlastRadius, "risk": a.SEP.RiskLevel}[tc.field]
		if got != tc.want {
			t.Errorf("%s: %s %s, want %s (%v)", tc.def, tc.field, got, tc.want, a.Reasons)
		}
	}
	if a := assess(t, `{"name":"get_functions","description":"Returns the functions of an environment.","inputSchema":{"type":"object","properties":{"revealEnvValues":{"type":"boolean"}}}}`); a.Level < L4 {
		t.Errorf("a reveal flag must make the read L4: %s", a.Level)
	}
}

// TestCheapTestsAgreeWithTheLists holds the fast pre-tests to the lists
// they stand in for.
func TestCheapTestsAgreeWithTheLists(t *testing.T) {
	for w := range actionParamWords {
		if !endsWithActionWord(w) {
			t.Errorf("endsWithActionWord misses %q", w)
		}
	}
	for _, p := range readOnlyPhrases {
		if saysReadOnly(p) == "" {
			t.Errorf("saysReadOnly misses %q: its stem is not among the pre-test's", p)
		}
	}
	for _, name := range []string{"allNamespaces", "all_namespaces", "all-namespaces", "allnamespaces", "ÄÖ_x"} {
		if got, want := flatten(name), strings.ToLower(separators.Replace(name)); got != want {
			t.Errorf("flatten(%q) = %q, want %q", name, got, want)
		}
	}
}

// FuzzAssess: no definition a server can send makes the judgement panic,
// loop or leave the ladder, however its schema nests or refers to itself.
func FuzzAssess(f *testing.F) {
	for _, s := range []string{
		`{"name":"svc_put","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"body":{}}}}`,
		`{"name":"x","inputSchema":{"$defs":{"a":{"$ref":"#/$defs/a","properties":{"b":{"$ref":"#/$defs/a"}}}},"properties":{"p":{"$ref":"#/$defs/a"}}}}`,
		`{"name":"manage","description":"Read-only. Only SELECT.","inputSchema":{"properties":{"op":{"oneOf":[{"properties":{"operation":{"const":"delete-all"}}}]}}}}`,
		`{"name":"get_list","description":"List all of everything the authenticated user owns","inputSchema":{"properties":{"items":{"type":"array","items":{"anyOf":[{"properties":{"code":{"type":"string","description":"executed"}}}]}}}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, def string) {
		tool, err := tooldef.ParseTool([]byte(def))
		if err != nil {
			return
		}
		a := Assess(Input{Tool: tool})
		if a.Level < L0 || a.Level > L5 || severityRank[a.SEP.RiskLevel] < 0 || a.SEP.RiskLevel == "" {
			t.Fatalf("judgement off the ladder: %s %q", a.Level, a.SEP.RiskLevel)
		}
		if band, _ := levelOfRisk(a.SEP.RiskLevel); band >= L4 && a.Level < band {
			t.Fatalf("level %s below the band of riskLevel %s", a.Level, a.SEP.RiskLevel)
		}
	})
}

// TestBlastRadiusFromMeaning: the scope of a read is what it can expose,
// the scope of a write how far it spreads — judged from what the name,
// the operations and the required parameters say, not from any server.
func TestBlastRadiusFromMeaning(t *testing.T) {
	schema := func(required string, props ...string) string {
		var p []string
		for _, n := range props {
			p = append(p, `"`+n+`":{"type":"string"}`)
		}
		return `"inputSchema":{"type":"object","properties":{` + strings.Join(p, ",") + `},"required":[` + required + `]}`
	}
	for _, tc := range []struct{ why, def, blast string }{
		{"a fetch of a plural under a named container lists it",
			`{"name":"getMergeRequests","description":"Returns merge requests.",` + schema(`"repo_slug"`, "repo_slug") + `}`, "namespace"},
		{"the parts of one item stay that item's",
			`{"name":"list_ticket_comments","description":"Lists comments.",` + schema(`"project","ticket_id"`, "project", "ticket_id") + `}`, "item"},
		{"a handle is not an item: listing under a connection still lists a container",
			`{"name":"list_tables","description":"Lists tables.",` + schema(`"connection_id","database"`, "connection_id", "database") + `}`, "namespace"},
		{"a tool with four kinds of change manages a collection",
			`{"name":"widget_write","description":"Changes a widget.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","update","rename","delete","get"]}}}}`, "namespace"},
		{"two kinds of change edit one item",
			`{"name":"note_write","description":"Writes a note.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["add","update"]}}}}`, "item"},
		{"a health check answers with a state",
			`{"name":"check_db_health","description":"Checks that the database answers."}`, "item"},
		{"an analysis goes through a whole container",
			`{"name":"audit_repository","description":"Audits the repository for problems.",` + schema(`"path"`, "path") + `}`, "namespace"},
		{"the record of a container is one item",
			`{"name":"get_repository","description":"Returns a repository's metadata.",` + schema(`"owner","repo"`, "owner", "repo") + `}`, "item"},
		{"pushing an image to a registry publishes it",
			`{"name":"push_image","description":"Pushes a container image to a registry.",` + schema(`"image"`, "image", "registry") + `}`, "global"},
		{"a text message goes out on the public network",
			`{"name":"send_sms","description":"Sends an SMS to a phone number.",` + schema(`"to","body"`, "to", "body") + `}`, "global"},
		{"a chat message stays in its channel",
			`{"name":"post_message","description":"Posts a message to a channel.",` + schema(`"channel","text"`, "channel", "text") + `}`, "namespace"},
	} {
		if got := assess(t, tc.def).SEP.BlastRadius; got != tc.blast {
			t.Errorf("%s: %s: blast radius %s, want %s", tc.why, tc.def, got, tc.blast)
		}
	}
}

// TestSimulation: a tool that says it simulates or demonstrates is a
// utility, but the claim is the server's word: the level stays, and it
// never lowers a delete or an execution.
func TestSimulation(t *testing.T) {
	a := assess(t, `{"name":"toggle_fake_alerts","description":"Toggles simulated alerts on or off."}`)
	if a.SEP.Category != "utility" || a.Level < L3 {
		t.Errorf("a simulated toggle: %s %s", a.SEP.Category, a.Level)
	}
	if a := assess(t, `{"name":"delete_all_records","description":"Demonstrates deleting every record of the store."}`); a.SEP.Category == "utility" || a.Level < L4 {
		t.Errorf("a 'demonstration' that deletes: %s %s", a.SEP.Category, a.Level)
	}
	if a := assess(t, `{"name":"run_script","description":"Simulates a build by running the given script.","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`); a.SEP.Category == "utility" || a.Level != L5 {
		t.Errorf("a 'simulation' that executes: %s %s", a.SEP.Category, a.Level)
	}
}

// TestManagersAndAutomations: a manager is graded by its worst operation
// without hiding what it does itself, and editing an automation that runs
// unattended is graver than creating one.
func TestManagersAndAutomations(t *testing.T) {
	for _, tc := range []struct{ why, def, risk string }{
		{"an operation removing a whole table is broad destruction",
			`{"name":"manage_store","description":"Manages a data store.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["createTable","deleteTable","listTables"]}}}}`, "critical"},
		{"an operation removing one named item is a delete",
			`{"name":"manage_labels","description":"Manages labels.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","rename","delete"]}}}}`, "high"},
		{"a manager that also executes statements stays critical",
			`{"name":"manage_db","description":"Manages the database.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["provision","deprovision","deleteRecord"]},"statement":{"type":"string","description":"The SQL statement to execute."}}}}`, "critical"},
		{"editing a schedule changes what runs unattended",
			`{"name":"update_schedule","description":"Changes when a saved job runs.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"cron":{"type":"string"}}}}`, "high"},
		{"creating a schedule runs nothing yet",
			`{"name":"create_schedule","description":"Creates a schedule for a saved job.","inputSchema":{"type":"object","properties":{"cron":{"type":"string"}}}}`, "medium"},
	} {
		if got := assess(t, tc.def).SEP.RiskLevel; got != tc.risk {
			t.Errorf("%s: riskLevel %s, want %s", tc.why, got, tc.risk)
		}
	}
}

// TestFailClosedOnUnseenTools: tools of kinds the corpus does not hold.
// What is dangerous reaches L4 or higher, and a verb the engine does not
// know never passes for a read because the parameters only name things.
func TestFailClosedOnUnseenTools(t *testing.T) {
	id := `"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	for _, tc := range []struct {
		def      string
		minLevel Level
		category string
		risk     string
		blast    string
	}{
		// An unknown verb in the name that the description uses.
		{`{"name":"yeet_widget","description":"Yeets a widget into the void.",` + id + `}`, L4, "mutate", "", ""},
		{`{"name":"quarantine_host","description":"Quarantines the host from the network.",` + id + `}`, L4, "mutate", "", ""},
		// ... but a noun-only name with a read-shaped schema stays a read.
		{`{"name":"weather_forecast","description":"Forecasts for a city.",` + id + `}`, L2, "read", "low", ""},
		{`{"name":"terminate_instance","description":"Terminates a virtual machine.",` + id + `}`, L4, "delete", "high", ""},
		{`{"name":"overwrite_note","description":"Writes a note over the old one.",` + id + `}`, L4, "mutate", "high", ""},
		{`{"name":"purchase_plan","description":"Purchases a plan for the account.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"disable_mfa","description":"Turns off two-factor authentication for a user.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"change_visibility","description":"Changes who may see a dashboard.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"make_dashboard_public","description":"Makes a dashboard public.",` + id + `}`, L4, "mutate", "high", "global"},
		{`{"name":"upsert_dns_record","description":"Creates or updates a record in a zone.",` + id + `}`, L4, "mutate", "high", "global"},
		{`{"name":"share_doc","description":"Shares a document with anyone with the link.",` + id + `}`, L4, "mutate", "high", "global"},
		{`{"name":"restore_snapshot","description":"Restores a volume from a snapshot, replacing its current data.",` + id + `}`, L5, "destroy", "", ""},
		{`{"name":"fire_employee","description":"Terminates an employee's contract and revokes their access.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"change_owner","description":"Transfers ownership of the organization to another user.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"disable_audit_logging","description":"Turns off audit logging for the organization.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"update_branch_protection","description":"Changes the protection rules of a branch.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"sign_transaction","description":"Signs and broadcasts a blockchain transaction.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"withdraw","description":"Withdraws funds to an external wallet.",` + id + `}`, L5, "mutate", "critical", ""},
		{`{"name":"unlock_door","description":"Unlocks the front door.",` + id + `}`, L4, "mutate", "high", ""},
		// A negated claim is no claim.
		{`{"name":"create_draft","description":"Creates a draft. Creating it does not make it public.",` + id + `}`, L3, "mutate", "medium", "item"},
	} {
		a := assess(t, tc.def)
		if a.Level < tc.minLevel || a.SEP.Category != tc.category || (tc.risk != "" && a.SEP.RiskLevel != tc.risk) || (tc.blast != "" && a.SEP.BlastRadius != tc.blast) {
			t.Errorf("%s: got %s %s %s %s, want ≥%s %s %s %s", tc.def, a.Level, a.SEP.Category, a.SEP.RiskLevel, a.SEP.BlastRadius,
				tc.minLevel, tc.category, tc.risk, tc.blast)
		}
	}
}

// TestSensitivePathRaisesOneLevel: a sensitive path named in several
// fields raises the level once, as one finding does.
func TestSensitivePathRaisesOneLevel(t *testing.T) {
	tool, err := tooldef.ParseTool([]byte(`{"name":"get_weather","description":"Returns the weather for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	base := Assess(Input{Tool: tool}).Level
	one := Assess(Input{Tool: tool, Findings: []Finding{{Signal: "sensitive-path", Field: "description"}}}).Level
	two := Assess(Input{Tool: tool, Findings: []Finding{{Signal: "sensitive-path", Field: "description"}, {Signal: "sensitive-path", Field: "inputSchema.properties.city.description"}}}).Level
	if one != base+1 || two != one {
		t.Errorf("levels: none %s, one finding %s, two %s", base, one, two)
	}
}
