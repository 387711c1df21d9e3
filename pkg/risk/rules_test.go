package risk

import (
	"strings"
	"testing"
)

// TestCategoryRules exercises each rule of docs/risk-model.md §5 in turn.
func TestCategoryRules(t *testing.T) {
	for _, tc := range []struct{ rule, def, want string }{
		{"verb in the name", `{"name":"get_issue","description":"Gets one issue by its number."}`, "read"},
		{"verb anywhere: noun_verb", `{"name":"pods_delete","description":"Deletes one pod by name."}`, "delete"},
		{"verb from the description", `{"name":"weather","description":"Returns the forecast for a city."}`, "read"},
		{"1: telemetry head noun", `{"name":"get_app_logs","description":"Gets the logs of one app."}`, "observe"},
		{"2: option of a verbless name", `{"name":"git_branch","description":"Manage branches of a repository.","inputSchema":{"type":"object","properties":{"mode":{"type":"string","enum":["list","create","delete"]}}}}`, "delete"},
		{"2: option of a named action stays", `{"name":"manage_indexes","description":"Creates or drops indexes of a table.","inputSchema":{"type":"object","properties":{"operation":{"type":"string","enum":["create","drop"]}}}}`, "mutate"},
		{"3: drop of one item", `{"name":"drop_index","description":"Drops one index of a collection."}`, "delete"},
		{"4: delete of a broad noun", `{"name":"delete_database","description":"Deletes a database with its data."}`, "destroy"},
		{"4: bulk delete", `{"name":"delete_many","description":"Deletes the documents matching a filter."}`, "destroy"},
		{"5: execution parameter", `{"name":"notes","description":"Keeps notes for the session.","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`, "mutate"},
		{"6: start a process", `{"name":"start_process","description":"Starts a process on the host."}`, "mutate"},
		{"7: forced send", `{"name":"git_push","description":"Pushes commits to a remote.","inputSchema":{"type":"object","properties":{"force":{"type":"boolean"}}}}`, "destroy"},
		{"8: delete flag", `{"name":"update_branch","description":"Updates a branch of a repository.","inputSchema":{"type":"object","properties":{"delete":{"type":"boolean"}}}}`, "delete"},
		{"9: declared higher category", `{"name":"get_item","description":"Gets one item by its id.","annotations":{"category":"destroy"}}`, "destroy"},
		{"9: declared lower category ignored", `{"name":"delete_item","description":"Deletes one item by its id.","annotations":{"category":"read"}}`, "delete"},
	} {
		if got := assess(t, tc.def).SEP.Category; got != tc.want {
			t.Errorf("%s: category %s, want %s", tc.rule, got, tc.want)
		}
	}
}

// TestBlastRadiusRules exercises each rule of docs/risk-model.md §7 in turn.
func TestBlastRadiusRules(t *testing.T) {
	for _, tc := range []struct{ rule, def, want string }{
		{"1: all-namespaces flag", `{"name":"list_pods","description":"Lists pods.","inputSchema":{"type":"object","properties":{"allNamespaces":{"type":"boolean"}}}}`, "cluster"},
		{"2: execution against a cluster", `{"name":"apply_manifest","description":"Applies a manifest to the cluster.","inputSchema":{"type":"object","properties":{"manifest":{"type":"string"}}}}`, "cluster"},
		{"3: execution on the host", `{"name":"run_command","description":"Runs a shell command on the host."}`, "cluster"},
		{"3: other execution", `{"name":"query","description":"Runs a read query.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`, "namespace"},
		{"4: privilege change", `{"name":"create_db_user","description":"Creates a database user with a password."}`, "cluster"},
		{"5: system word", `{"name":"git_commit","description":"Commits the staged changes."}`, "namespace"},
		{"6: batch word", `{"name":"update_many","description":"Updates the documents matching a filter."}`, "namespace"},
		{"7: whole cluster", `{"name":"upgrade_cluster","description":"Upgrades a cluster to a new tier."}`, "cluster"},
		{"7: whole workspace", `{"name":"update_workspace","description":"Updates the settings of a workspace."}`, "namespace"},
		{"8: member nouns", `{"name":"get_users","description":"Gets the users of the workspace."}`, "organization"},
		{"8: documentation", `{"name":"search_documentation","description":"Searches the product documentation.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`, "item"},
		{"8: public search", `{"name":"search_code","description":"Searches code across all public repositories.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`, "global"},
		{"8: enumerate an organization", `{"name":"list_workspaces","description":"Lists workspaces.","inputSchema":{"type":"object","properties":{"org_name":{"type":"string"}},"required":["org_name"]}}`, "organization"},
		{"8: enumerate one container", `{"name":"list_files","description":"Lists the files of a directory.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, "namespace"},
		{"8: enumerate without a container", `{"name":"list_apps","description":"Lists apps.","inputSchema":{"type":"object","properties":{"limit":{"type":"integer"}}}}`, "organization"},
		{"8: logs", `{"name":"get_service_log","description":"Gets the log of a service."}`, "namespace"},
		{"9: service verb", `{"name":"restart_app","description":"Restarts the dynos of an app."}`, "namespace"},
		{"9: move", `{"name":"move_file","description":"Moves a file to another directory."}`, "namespace"},
		{"9: session verb", `{"name":"browser_click","description":"Clicks an element of the page."}`, "namespace"},
		{"9: send", `{"name":"post_message","description":"Posts a message to a channel."}`, "namespace"},
		{"9: delete of a plural", `{"name":"delete_comments","description":"Deletes the given comments."}`, "namespace"},
		{"10: destroy", `{"name":"clear_cache","description":"Clears the cache of the service."}`, "namespace"},
		{"11: one item", `{"name":"get_issue","description":"Gets one issue by its number."}`, "item"},
		{"declared wider", `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"blastRadius":"global"}}`, "global"},
		{"declared narrower ignored", `{"name":"delete_database","description":"Deletes a database with its data.","annotations":{"blastRadius":"item"}}`, "namespace"},
	} {
		if got := assess(t, tc.def).SEP.BlastRadius; got != tc.want {
			t.Errorf("%s: blast radius %s, want %s (%v)", tc.rule, got, tc.want, assess(t, tc.def).Reasons)
		}
	}
}

// TestLevelRules exercises the level signals of docs/risk-model.md §6.
func TestLevelRules(t *testing.T) {
	for _, tc := range []struct {
		rule, def string
		want      Level
	}{
		{"utility", `{"name":"calculate_sum","description":"Adds the numbers it is given."}`, L1},
		{"read", `{"name":"get_issue","description":"Gets one issue by its number."}`, L2},
		{"sensitive read", `{"name":"get_secret","description":"Gets the value of one secret."}`, L4},
		{"mutation", `{"name":"create_issue","description":"Creates an issue in a repository."}`, L3},
		{"send", `{"name":"send_email","description":"Sends an email to one recipient."}`, L4},
		{"service verb", `{"name":"deploy_app","description":"Deploys the latest build of an app."}`, L4},
		{"privilege", `{"name":"add_collaborator","description":"Adds a collaborator to a repository."}`, L5},
		{"money moved", `{"name":"create_refund","description":"Refunds a payment to the customer."}`, L5},
		{"billing", `{"name":"create_invoice","description":"Creates a draft invoice for a customer."}`, L4},
		{"delete", `{"name":"remove_label","description":"Removes one label of a repository for good."}`, L4},
		{"detach", `{"name":"remove_label","description":"Removes one label from an issue."}`, L3},
		{"risky flag", `{"name":"create_file","description":"Creates a file in a repository.","inputSchema":{"type":"object","properties":{"overwrite":{"type":"boolean"}}}}`, L4},
		{"permanent effect", `{"name":"archive_project","description":"Archives a project. This cannot be undone."}`, L4},
		{"declared destructive read", `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"destructiveHint":true}}`, L3},
		{"declared risk level", `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"riskLevel":"high"}}`, L4},
		{"short description", `{"name":"get_issue","description":"Gets issue."}`, L3},
		{"mutation with a wide reach", `{"name":"update_org_settings","description":"Updates the settings of an organization."}`, L5},
	} {
		if got := assess(t, tc.def).Level; got != tc.want {
			a := assess(t, tc.def)
			t.Errorf("%s: level %s, want %s (%v %v)", tc.rule, got, tc.want, a.Floors, a.Reasons)
		}
	}
}

// TestReviewedFaults holds fixes of faults a review of the engine found.
func TestReviewedFaults(t *testing.T) {
	// A delete flag must not turn an execution into a (milder) delete.
	exec := assess(t, `{"name":"run_command","description":"Runs a shell command on the host.","inputSchema":{"type":"object","properties":{"command":{"type":"string"},"remove":{"type":"boolean"}}}}`)
	if exec.Level != L5 || len(exec.Floors) == 0 || exec.SEP.Category != "mutate" {
		t.Errorf("execution with a remove flag: %s %s %v", exec.Level, exec.SEP.Category, exec.Floors)
	}
	// A node's change reaches the cluster it serves, whatever the verb.
	if got := assess(t, `{"name":"node_set_labels","description":"Sets the labels of a node."}`).SEP.BlastRadius; got != "cluster" {
		t.Errorf("node_set_labels: blast radius %s, want cluster", got)
	}
	// A verb read from the description is used in its base form.
	deploy := assess(t, `{"name":"frontend","description":"Deploys the latest build of the frontend."}`)
	if deploy.Level != L4 || !containsAny(deploy.SEP.SideEffects, "downtime") {
		t.Errorf("a deploy named in the description: %s %v", deploy.Level, deploy.SEP.SideEffects)
	}
	// A word that moves money outranks one that bills; money verbs count.
	for _, def := range []string{
		`{"name":"create_refund_for_invoice","description":"Refunds the payment of an invoice."}`,
		`{"name":"transfer_funds","description":"Transfers funds to another account."}`,
	} {
		if a := assess(t, def); a.Level != L5 {
			t.Errorf("%s: %s, want L5 (moves money)", def, a.Level)
		}
	}
	// The option named in the reason is the worst one.
	opt := assess(t, `{"name":"git_stash","description":"Manage stashes.","inputSchema":{"type":"object","properties":{"mode":{"type":"string","enum":["run","delete","purge"]}}}}`)
	if !strings.Contains(strings.Join(opt.Reasons, "\n"), `an option of the tool is "purge"`) {
		t.Errorf("reasons: %v", opt.Reasons)
	}
	// Lower declarations are reported; a higher approval recommendation widens.
	low := assess(t, `{"name":"delete_item","description":"Deletes one item by its id.","annotations":{"category":"read","blastRadius":"item","reversibility":"auto","approvalRecommendation":"none","minTrustLevel":1}}`)
	if len(low.Disagreements) < 4 {
		t.Errorf("lower declarations must be reported: %q", low.Disagreements)
	}
	multi := assess(t, `{"name":"create_issue","description":"Creates an issue in a repository.","annotations":{"approvalRecommendation":"multi"}}`)
	if multi.SEP.ApprovalRecommendation != "multi" {
		t.Errorf("a declared multi must widen the recommendation, got %s", multi.SEP.ApprovalRecommendation)
	}
	// Any trust value the posture does not know is Unknown, floor included.
	if p := AssessServer(Posture{URL: "https://mcp.example.com/mcp", Trust: "bogus"}); p.Floor == "" {
		t.Errorf("an unknown trust value escaped the floor: %+v", p)
	}
	if p := AssessServer(Posture{URL: "http://LOCALHOST:8080/mcp", Trust: "Internal", Authenticated: true}); p.Level > L1 {
		t.Errorf("host names compare without case: %+v", p)
	}
	// Tokenize stays bounded.
	if n := len(Tokenize(strings.Repeat("a_", 200))); n > maxTokens {
		t.Errorf("%d tokens", n)
	}
}
