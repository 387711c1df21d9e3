package risk

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDecoysNeverLowerDangerousTools generates tool definitions from a
// small grammar — a dangerous verb, an object, a naming style, a
// parameter shape and a description written to trip a rule that grades
// a tool lower (a read-only claim, a query plan, a working-copy merge, a
// client's request, a definition, a pointer move, a reranker, an add by
// force, a clear that clears nothing) — and holds every one at L4 or
// above: a description is the server's word, and no combination of words
// it could choose may expose a delete, a destruction or an execution
// under the default ceiling.
func TestDecoysNeverLowerDangerousTools(t *testing.T) {
	objects := []string{"file", "table", "database", "repository", "project", "bucket", "user", "record", "branch",
		"namespace", "index", "document", "message", "page", "rule", "template", "session", "process",
		"sampling_request", "working_copy", "query_plan", "cookie", "type"}
	styles := []func(verb, object string) string{
		func(v, o string) string { return v + "_" + o },
		func(v, o string) string { return v + camel(o) },
		func(v, o string) string { return o + "-" + v },
		func(v, o string) string { return "svc_" + v + "_" + o },
	}
	decoys := []string{"", "Read-only helper for the %s.", "Explains the query plan of a %s.",
		"Merges the %s into the current branch of the working copy.", "Triggers a sampling request about a %s.",
		"Describes the rule type of a %s.", "Hovers the pointer over a %s.", "Returns the %s definition template.",
		"Restores a %s before use; it never clears existing data.", "Reranks the %s given.", "Stages the %s by force.",
		"Loads a %s.", "Simulates nothing: a real %s.", "Signs out of the %s session."}
	grammars := []struct {
		what   string
		verbs  []string
		params []string
	}{
		{"a delete or a destruction", []string{"delete", "remove", "drop", "destroy", "purge", "wipe", "truncate", "erase"}, []string{
			`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`,
			`{"type":"object","properties":{"path":{"type":"string"},"force":{"type":"boolean"}}}`,
			`{"type":"object","properties":{"filter":{"type":"object"}}}`,
			`{"type":"object","properties":{}}`,
		}},
		{"an execution", []string{"run", "exec", "execute", "eval", "evaluate"}, []string{
			`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`,
			`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}`,
			`{"type":"object","properties":{"script":{"type":"string"}}}`,
			`{"type":"object","properties":{"code":{"type":"string"},"language":{"type":"string"}}}`,
			`{"type":"object","properties":{"statement":{"type":"string"}}}`,
			`{"type":"object","properties":{"cmd":{"type":"string"},"args":{"type":"array","items":{"type":"string"}}}}`,
		}},
	}
	for _, g := range grammars {
		n, low := 0, 0
		for _, verb := range g.verbs {
			for _, object := range objects {
				for _, style := range styles {
					for _, decoy := range decoys {
						desc := decoy
						if strings.Contains(decoy, "%s") {
							desc = fmt.Sprintf(decoy, strings.ReplaceAll(object, "_", " "))
						}
						for _, params := range g.params {
							def := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s}`, style(verb, object), desc, params)
							n++
							if a := assess(t, def); a.Level < L4 {
								low++
								if low <= 10 {
									t.Errorf("%s at %s (%s/%s): %s (%v)", g.what, a.Level, a.SEP.Category, a.SEP.RiskLevel, def, a.Reasons)
								}
							}
						}
					}
				}
			}
		}
		if low > 0 {
			t.Errorf("%s: %d of %d generated definitions below L4", g.what, low, n)
		}
	}
}

// TestDecoysNeverLowerGraveChanges does the same for the changes the
// rubric grades critical without removing anything — a credential minted
// or rotated, access granted, money moved — under descriptions that claim
// to be read-only, a simulation, a demonstration or one of the harmless
// cases a lowering rule spares. The server's word never outweighs what
// the name says such a tool does.
func TestDecoysNeverLowerGraveChanges(t *testing.T) {
	grammars := []struct {
		what           string
		verbs, objects []string
	}{
		{"a credential minted or changed", []string{"create", "generate", "rotate", "regenerate", "issue", "mint", "reset", "new", "add", "update"},
			[]string{"api_key", "token", "access_token", "secret", "password", "ssh_key", "credential", "client_secret", "deploy_key", "personal_access_token"}},
		{"money moved", []string{"refund", "transfer", "pay", "charge", "send", "withdraw", "payout"},
			[]string{"payment", "refund", "transfer", "payout", "funds", "money", "invoice_payment", "charge"}},
		{"access granted", []string{"grant", "add", "assign", "set", "update", "invite"},
			[]string{"role", "permission", "admin", "collaborator", "member_role", "iam_policy", "acl", "owner"}},
	}
	decoys := []string{"", "Read-only helper for the %s.", "Explains the query plan of a %s.", "Triggers a sampling request about a %s.",
		"Describes the rule type of a %s.", "Hovers the pointer over a %s.", "Returns the %s definition template.", "Reranks the %s given.",
		"Stages the %s by force.", "Simulates a %s.", "Demonstrates the %s."}
	styles := []func(verb, object string) string{
		func(v, o string) string { return v + "_" + o },
		func(v, o string) string { return v + camel(o) },
		func(v, o string) string { return o + "-" + v },
	}
	for _, g := range grammars {
		n, low := 0, 0
		for _, verb := range g.verbs {
			for _, object := range g.objects {
				for _, style := range styles {
					for _, decoy := range decoys {
						desc := decoy
						if strings.Contains(decoy, "%s") {
							desc = fmt.Sprintf(decoy, strings.ReplaceAll(object, "_", " "))
						}
						def := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{"id":{"type":"string"},"amount":{"type":"number"},"user":{"type":"string"}}}}`, style(verb, object), desc)
						n++
						if a := assess(t, def); a.Level < L4 {
							low++
							if low <= 10 {
								t.Errorf("%s at %s (%s/%s): %s (%v)", g.what, a.Level, a.SEP.Category, a.SEP.RiskLevel, def, a.Reasons)
							}
						}
					}
				}
			}
		}
		if low > 0 {
			t.Errorf("%s: %d of %d generated definitions below L4", g.what, low, n)
		}
	}
}

// TestLoweringRulesKeepToTheirCase generates, for each rule that grades a
// change lower than its verb alone would, definitions that fit the rule's
// words but do more — a client request that pays, overwrites, runs or
// sends; an add by force whose flag overwrites; a restore that clears
// what exists first — and holds each where the rule must not take it.
func TestLoweringRulesKeepToTheirCase(t *testing.T) {
	count := 0
	for _, verb := range []string{"trigger", "create", "send", "start", "request"} {
		for _, object := range []string{"sampling_request", "elicitation_request", "elicitation"} {
			for _, payload := range []struct{ desc, params string }{
				{"Asks the user to confirm, then pays out the amount to the account given.", `"amount":{"type":"number"},"iban":{"type":"string"}`},
				{"Asks the model, then charges the customer's card.", `"prompt":{"type":"string"},"customer":{"type":"string"}`},
				{"Asks the model for a reply.", `"prompt":{"type":"string"},"overwrite":{"type":"boolean"},"delete_after":{"type":"boolean"}`},
				{"The model's reply is run as a shell command on the server.", `"prompt":{"type":"string"}`},
				{"Deletes every record the model selects.", `"prompt":{"type":"string"}`},
				{"Posts the answer to a chat channel.", `"message":{"type":"string"},"channel":{"type":"string"}`},
				{"Asks the user for their API key and sends it to the webhook given.", `"message":{"type":"string"},"webhook":{"type":"string"}`},
				{"Asks the user for input and emails it to the address given.", `"message":{"type":"string"},"email":{"type":"string"}`},
				{"Approves a pending request on the user's behalf.", `"request_id":{"type":"string"}`},
			} {
				def := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{%s}}}`, verb+"_"+object, payload.desc, payload.params)
				count++
				if a := assess(t, def); a.SEP.Category == "utility" || a.Level < L3 {
					t.Errorf("a client request that does more, at %s (%s): %s (%v)", a.Level, a.SEP.Category, def, a.Reasons)
				}
			}
		}
	}
	for _, verb := range []string{"add", "stage"} {
		for _, flagDesc := range []string{"Overwrite an existing file at the path", "Replace what is there", "Delete the target first", "Remove files missing from disk", "Discard local edits"} {
			def := fmt.Sprintf(`{"name":"%s_files","description":"Adds files.","inputSchema":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}},"force":{"type":"boolean","description":%q}}}}`, verb, flagDesc)
			count++
			if a := assess(t, def); a.SEP.RiskLevel != "high" {
				t.Errorf("an add whose force %q: riskLevel %s (%v)", flagDesc, a.SEP.RiskLevel, a.Reasons)
			}
		}
	}
	for _, phrase := range []string{"clears existing", "clears the existing", "clears any existing", "clears all existing"} {
		for _, when := range []string{"before restoring", "first", "prior to restoring"} {
			for _, tail := range []string{"", " No confirmation is asked.", " Does not require downtime."} {
				def := fmt.Sprintf(`{"name":"restore_rows","description":"Restores rows; it %s rows %s.%s","inputSchema":{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}}`, phrase, when, tail)
				count++
				if a := assess(t, def); a.SEP.RiskLevel != "high" {
					t.Errorf("a restore that %s rows %s%s: riskLevel %s (%v)", phrase, when, tail, a.SEP.RiskLevel, a.Reasons)
				}
				negated := fmt.Sprintf(`{"name":"restore_rows","description":"Restores rows %s; it never %s rows.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}}`, when, strings.Replace(phrase, "clears", "clear", 1))
				if a := assess(t, negated); a.SEP.RiskLevel == "high" && slices.ContainsFunc(a.Reasons, func(r string) bool { return strings.Contains(r, "overwrites") }) {
					t.Errorf("a restore that never clears read as an overwrite: %v", a.Reasons)
				}
			}
		}
	}
	if count < 150 {
		t.Fatalf("only %d definitions generated", count)
	}
}

// TestDecoysNeverRaiseHarmlessReads is the other side: reads named by a
// read verb, over objects that share words with the rules that grade a
// tool higher (a maintenance window, a merge request, a process, a
// header, a backup, a session), with descriptions that hold those rules'
// words in a harmless sense (column headers, a window, "all" entries,
// "never clears", secrets redacted, what "would be" destroyed). Every one
// stays at L3 or below: a harmless read withheld by a word is a cost the
// gate's users pay on every call they cannot make.
func TestDecoysNeverRaiseHarmlessReads(t *testing.T) {
	// "load" is left out: a load that does not say it returns what it
	// loads is taken for a change (it is checked below with one that does).
	verbs := []string{"get", "list", "search", "describe", "show", "view", "find", "fetch", "read", "count", "inspect",
		"preview", "explain"}
	objects := []string{"file", "table", "database", "repository", "project", "bucket", "user", "record", "branch",
		"namespace", "index", "document", "message", "page", "rule", "template", "session", "process", "app",
		"maintenance_window", "audit_event", "header", "cookie_policy", "backup", "merge_request", "plan", "config"}
	styles := []func(verb, object string) string{
		func(v, o string) string { return v + "_" + o },
		func(v, o string) string { return v + camel(o) },
		func(v, o string) string { return o + "-" + v },
	}
	decoys := []string{"", "Returns the %s with its column headers.", "Lists the maintenance windows of the %s.",
		"Loads and returns the %s.", "Lists all %s entries.", "Shows the %s; it never clears existing data.",
		"Returns the %s before it is saved.", "Returns the %s with its secrets redacted.",
		"Shows which %s would be destroyed, without destroying anything."}
	params := []string{
		`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`,
		`{"type":"object","properties":{"all":{"type":"boolean"},"limit":{"type":"integer"}}}`,
		`{"type":"object","properties":{}}`,
	}
	n, high := 0, 0
	for _, verb := range verbs {
		for _, object := range objects {
			for _, style := range styles {
				for _, decoy := range decoys {
					desc := decoy
					if strings.Contains(decoy, "%s") {
						desc = fmt.Sprintf(decoy, strings.ReplaceAll(object, "_", " "))
					}
					for _, params := range params {
						def := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s}`, style(verb, object), desc, params)
						n++
						if a := assess(t, def); a.Level > L3 {
							high++
							if high <= 10 {
								t.Errorf("a read at %s (%s/%s): %s (%v)", a.Level, a.SEP.Category, a.SEP.RiskLevel, def, a.Reasons)
							}
						}
					}
				}
			}
		}
	}
	for _, object := range objects {
		def := fmt.Sprintf(`{"name":"load_%s","description":"Loads and returns the %s.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, object, strings.ReplaceAll(object, "_", " "))
		n++
		if a := assess(t, def); a.Level > L3 {
			high++
			t.Errorf("a load that returns what it loads at %s: %s (%v)", a.Level, def, a.Reasons)
		}
	}
	if high > 0 {
		t.Errorf("%d of %d generated reads above L3", high, n)
	}
}

// camel joins "sampling_request" as "SamplingRequest".
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// TestLoweringRulesLearntFromCorpusThreeKeepToTheirCase generates, for
// each rule that grades a tool lower than its words alone would — a
// random password, a previewed change, an IP address that is not an
// access rule's, a code people type — definitions that fit the rule's
// words but do more: a password set on an account, a preview that goes on
// to bill, an address whose traffic is let in, a code the tool runs. None
// of them may be lowered.
func TestLoweringRulesLearntFromCorpusThreeKeepToTheirCase(t *testing.T) {
	count := 0
	check := func(what, def string, ok func(a Assessment) bool) {
		t.Helper()
		count++
		if a := assess(t, def); !ok(a) {
			t.Errorf("%s, judged %s %s/%s: %s (%v)", what, a.Level, a.SEP.Category, a.SEP.RiskLevel, def, a.Reasons)
		}
	}
	atLeastL4 := func(a Assessment) bool { return a.Level >= L4 }
	for _, name := range []string{"generate", "generate_password", "generate_passphrase", "generatePassword"} {
		for _, desc := range []string{
			"Generate a new password for the user and set it.",
			"Generate a password and save it to the vault.",
			"Generate a passphrase and store it as the account's login.",
			"Generates a password, resets the account to it and returns it.",
			"Generate a password; it is assigned to the service account.",
		} {
			check("a generated password put to use", fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`, name, desc), atLeastL4)
		}
		for _, param := range []string{`"user_id":{"type":"string"}`, `"account":{"type":"string"}`, `"target":{"type":"string"}`, `"vault_path":{"type":"string"}`} {
			check("a generated password bound to something", fmt.Sprintf(`{"name":%q,"description":"Generate a secure password.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},%s}}}`, name, param), atLeastL4)
		}
	}
	for _, verb := range []string{"preview", "estimate"} {
		for _, rest := range []string{"and_charge_card", "then_refund", "and_transfer_funds", "or_apply_charge"} {
			check("a preview joined to a grave action", fmt.Sprintf(`{"name":"%s_%s","description":"Works out the amount.","inputSchema":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}`, verb, rest), atLeastL4)
		}
		for _, desc := range []string{"Previews the charge, then bills the customer's card.", "Estimates the charge and then charges it.", "Previews the refund; it then sends the refund to the customer."} {
			check("a preview said to go on", fmt.Sprintf(`{"name":"%s_invoice_charge","description":%q,"inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string"}}}}`, verb, desc), atLeastL4)
		}
	}
	for _, name := range []string{"add_ip", "create_ip_address", "set_ip", "update_ip_range", "addIp", "ip_add"} {
		for _, desc := range []string{
			"Adds an IP address that may connect to the database.",
			"Lets requests from this IP reach the service.",
			"Permits inbound traffic from the address.",
			"Grants the address access to the cluster API.",
			"Opens the project to an IP address.",
			"Adds an address to the firewall.",
		} {
			check("an address whose traffic is let in", fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{"project":{"type":"string"},"ip":{"type":"string"}},"required":["ip"]}}`, name, desc), atLeastL4)
		}
	}
	for _, name := range []string{"apply_coupon", "submit_code", "redeem", "use_voucher"} {
		for _, desc := range []string{"Executes the given code on the server.", "Evaluates the code and returns the result.", "Runs the code in the worker."} {
			check("a typed code the tool says it runs", fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{"code":{"type":"string","description":"Your promo code"}},"required":["code"]}}`, name, desc), atLeastL4)
		}
	}
	// Definitions a review wrote to get past the rules: each must stay at
	// L4 or above.
	for _, def := range reviewedBypasses {
		check("a reviewed way past a lowering rule", def, atLeastL4)
	}
	// And changes the raising rules must leave alone.
	for _, def := range reviewedFalseRaises {
		check("a change a raising rule must leave alone", def, func(a Assessment) bool { return a.Level <= L3 })
	}
	if count < 90 {
		t.Fatalf("only %d definitions generated", count)
	}
}

// reviewedBypasses are definitions a review of the rules learnt from
// corpus-3 wrote to be judged below L4: passwords generated and put to
// use in other words than the rule knew, previews that go on to charge,
// grant, publish or overwrite, addresses in access rules worded every
// way, deletes of containers named with a qualifier after them.
var reviewedBypasses = []string{
	`{"name":"generate_password","description":"Generate a new password for the database login and apply it immediately.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generates a new root password for the server. Takes effect on next login.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Regenerate the admin password; the old one stops working.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a new password for the instance.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},"include":{"type":"string","description":"Instance id to rotate"}}}}`,
	`{"name":"generate_password","description":"Generates a password and changes the credentials of the current login to it.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a new password and update the connection with it.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a fresh password. The caller's login is replaced with it.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a new password for the mailbox and apply it.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},"exclude":{"type":"string"}}}}`,
	`{"name":"generate_passphrase","description":"Generate a new passphrase for the SSH key and re-encrypt the private key with it.","inputSchema":{"type":"object","properties":{"words":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Creates a new password for the root login of this machine.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a password.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},"instance_id":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a password.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},"apply":{"type":"boolean","description":"Apply as the new root password"}}}}`,
	`{"name":"generate_password","description":"Generate a password.","inputSchema":{"type":"object","properties":{"length":{"type":"number"},"commit":{"type":"boolean","description":"Replace the database password with the generated one"}}}}`,
	`{"name":"generate_password","description":"Generate a new database password and replace the current one.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generates a new password and emails it to the address on file.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generate a password.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"},"nested":{"type":"object","properties":{"user":{"type":"string"}}}}}}`,
	`{"name":"preview_and_transfer","description":"x","inputSchema":{"type":"object","properties":{"amount":{"type":"number"}}}}`,
	`{"name":"preview_transfer_funds","description":"Shows the fees and transfers the funds to the payee.","inputSchema":{"type":"object","properties":{"from_account":{"type":"string"},"to_account":{"type":"string"},"amount":{"type":"number"}},"required":["from_account","to_account","amount"]}}`,
	`{"name":"estimate_charge_card","description":"Computes the total with tax and charges the customer's card.","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string"},"amount":{"type":"number"}},"required":["customer_id","amount"]}}`,
	`{"name":"preview_refund","description":"Shows the refund amount. Set confirm=true to issue the refund.","inputSchema":{"type":"object","properties":{"payment_id":{"type":"string"},"confirm":{"type":"boolean"}},"required":["payment_id"]}}`,
	`{"name":"preview_grant_role","description":"Shows the effective permissions, and grants the role to the user when confirm is true.","inputSchema":{"type":"object","properties":{"user_id":{"type":"string"},"role":{"type":"string"},"confirm":{"type":"boolean"}},"required":["user_id","role"]}}`,
	`{"name":"preview_revoke_access","description":"Lists who would lose access and revokes it.","inputSchema":{"type":"object","properties":{"user_id":{"type":"string"}},"required":["user_id"]}}`,
	`{"name":"preview_publish_site","description":"Builds a preview of the site and publishes it to production.","inputSchema":{"type":"object","properties":{"site_id":{"type":"string"}},"required":["site_id"]}}`,
	`{"name":"preview_send_campaign","description":"Renders the campaign and mails it to all subscribers.","inputSchema":{"type":"object","properties":{"campaign_id":{"type":"string"}},"required":["campaign_id"]}}`,
	`{"name":"preview_merge_branch","description":"Shows the diff and merges the branch into main.","inputSchema":{"type":"object","properties":{"branch":{"type":"string"}},"required":["branch"]}}`,
	`{"name":"dryrun_terminate_instances","description":"Checks which instances match, then terminates them unless dry_run is true.","inputSchema":{"type":"object","properties":{"filter":{"type":"string"},"dry_run":{"type":"boolean"}}}}`,
	`{"name":"estimate_purchase","description":"Prices the order and places it with the card on file.","inputSchema":{"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":"integer"}},"required":["sku"]}}`,
	`{"name":"preview_pay_invoice","description":"Pays the invoice from the default bank account.","inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string"}},"required":["invoice_id"]}}`,
	`{"name":"preview_overwrite_file","description":"Overwrites the file with the given content.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}`,
	`{"name":"preview_impersonate_user","description":"Opens a session as the given user.","inputSchema":{"type":"object","properties":{"user_id":{"type":"string"}},"required":["user_id"]}}`,
	`{"name":"preview_ban_member","description":"Bans the member from the server.","inputSchema":{"type":"object","properties":{"member_id":{"type":"string"}},"required":["member_id"]}}`,
	`{"name":"preview_charge","description":"Charges the saved card for the amount.","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string"},"amount":{"type":"number"}},"required":["customer_id","amount"]}}`,
	`{"name":"preview_update_dns_record","description":"Shows the change and applies it.","inputSchema":{"type":"object","properties":{"record_id":{"type":"string"},"value":{"type":"string"}},"required":["record_id"]}}`,
	`{"name":"estimate_invite_users","description":"Counts seats and invites the users to the workspace.","inputSchema":{"type":"object","properties":{"emails":{"type":"array","items":{"type":"string"}}}}}`,
	`{"name":"preview_set_password","description":"Checks password strength and sets it on the account.","inputSchema":{"type":"object","properties":{"user_id":{"type":"string"},"password":{"type":"string"}}}}`,
	`{"name":"preview_create_payout","description":"Computes the payout and pays it out to the bank account.","inputSchema":{"type":"object","properties":{"amount":{"type":"number"},"destination":{"type":"string"}}}}`,
	`{"name":"add_ip","description":"Adds an IP address to the project.","inputSchema":{"type":"object","properties":{"project":{"type":"string"},"ip":{"type":"string"}},"required":["project","ip"]}}`,
	`{"name":"add_cidr","description":"Adds a CIDR block to the cluster's authorized networks.","inputSchema":{"type":"object","properties":{"cluster":{"type":"string"},"cidr":{"type":"string"}},"required":["cluster","cidr"]}}`,
	`{"name":"update_ip","description":"Updates the source IP of the security group's SSH rule.","inputSchema":{"type":"object","properties":{"group_id":{"type":"string"},"ip":{"type":"string"}},"required":["group_id","ip"]}}`,
	`{"name":"authorize_ip","description":"Authorizes an IP address on the database server.","inputSchema":{"type":"object","properties":{"server":{"type":"string"},"ip":{"type":"string"}},"required":["server","ip"]}}`,
	`{"name":"unban_ip","description":"Removes a ban on an IP address.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"}},"required":["ip"]}}`,
	`{"name":"exempt_ip","description":"Exempts an IP address from the WAF and rate limits.","inputSchema":{"type":"object","properties":{"zone":{"type":"string"},"ip":{"type":"string"}},"required":["zone","ip"]}}`,
	`{"name":"set_admin_ip","description":"Sets the IP address the admin panel is restricted to.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"}},"required":["ip"]}}`,
	`{"name":"set_cidr","description":"Sets the CIDR of the security policy.","inputSchema":{"type":"object","properties":{"policy_id":{"type":"string"},"cidr":{"type":"string"}},"required":["policy_id","cidr"]}}`,
	`{"name":"whitelist","description":"Adds an IP.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"}},"required":["ip"]}}`,
	`{"name":"delete_org_by_name","description":"Deletes an organisation by its name.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
	`{"name":"delete_table_by_name","description":"Deletes a table.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
	`{"name":"delete_db_instance","description":"Deletes a database instance and its storage.","inputSchema":{"type":"object","properties":{"instance_id":{"type":"string"}},"required":["instance_id"]}}`,
	`{"name":"delete_bucket_recursive","description":"Deletes a bucket.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"}},"required":["bucket"]}}`,
	`{"name":"delete_namespace_force","description":"Force deletes a namespace.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`,
	`{"name":"delete_account_history","description":"Deletes the account's history.","inputSchema":{"type":"object","properties":{"account_id":{"type":"string"}},"required":["account_id"]}}`,
	`{"name":"delete_repository_v2","description":"Deletes a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}}`,
	`{"name":"delete_cluster_permanently","description":"Deletes a cluster.","inputSchema":{"type":"object","properties":{"cluster":{"type":"string"}},"required":["cluster"]}}`,
	`{"name":"preview_subscription_charge","description":"Charges the customer's saved card for a one-time item now. Does not send a receipt.","inputSchema":{"type":"object","properties":{"subscription_id":{"type":"string"},"amount":{"type":"number"}},"required":["subscription_id","amount"]}}`,
	`{"name":"estimate_refund","description":"Works out the refund for an order and issues it to the card. Fees would not be returned.","inputSchema":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}`,
	`{"name":"preview_role_grant","description":"Shows the role's permissions; the grant is made at once. Audit logs would show it.","inputSchema":{"type":"object","properties":{"user_id":{"type":"string"},"role":{"type":"string"}},"required":["user_id","role"]}}`,
	`{"name":"generate_password","description":"Generates a strong password and configures it on the router.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"generate_password","description":"Generates a strong random password and pushes it to the device.","inputSchema":{"type":"object","properties":{"length":{"type":"integer"}}}}`,
	`{"name":"add_static_ip","description":"Adds a static IP to the list of addresses the API accepts requests from.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"}},"required":["ip"]}}`,
	`{"name":"create_static_ip","description":"Creates a static IP; requests from it skip the login check.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"}},"required":["ip"]}}`,
	`{"name":"delete_denylist","description":"Deletes the denylist of a project.","inputSchema":{"type":"object","properties":{"project":{"type":"string"}},"required":["project"]}}`,
	`{"name":"remove_ban","description":"Removes a ban on a member.","inputSchema":{"type":"object","properties":{"member_id":{"type":"string"}},"required":["member_id"]}}`,
}

// reviewedFalseRaises are definitions the same review found raised by the
// new rules for a word out of place: a ticket typed "refund", members who
// only see a name, a card's column called "to", a note on a DNS record, an
// address's reverse name.
var reviewedFalseRaises = []string{
	`{"name":"create_ticket","description":"Create a support ticket for the customer in the help desk.","inputSchema":{"type":"object","properties":{"subject":{"type":"string"},"type":{"type":"string","enum":["question","refund","bug"]}},"required":["subject"]}}`,
	`{"name":"update","description":"Update the display name shown to members of the team.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
	`{"name":"create","description":"Create a note that only admins can see.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`,
	`{"name":"add_comment","description":"Add a comment to a card.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"notify":{"type":"boolean"},"to":{"type":"string","description":"Column to move the card to"}},"required":["id"]}}`,
	`{"name":"update_domain_record_note","description":"Update an internal note on a domain record.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}}`,
	`{"name":"update_ip","description":"Updates the reverse DNS name of an IP address.","inputSchema":{"type":"object","properties":{"ip":{"type":"string"},"name":{"type":"string"}},"required":["ip"]}}`,
}

// TestSecretsTheCallNeedsKeepToTheirCase generates reads that say a call
// needs a secret ("Requires admin API key.") and hand one back — in the
// same sentence or the next, by name or by pronoun, in verbs that return,
// show, include or contain, and in verbs nobody listed — and holds each at
// high: a guard for any reading that spares a secret the call only needs
// (two such readings were tried and withdrawn, docs/risk-model.md §12).
func TestSecretsTheCallNeedsKeepToTheirCase(t *testing.T) {
	secrets := []string{"API key", "access token", "password", "private key", "connection string", "secret value"}
	needs := []string{"Requires the %s", "Requires an admin %s", "Needs a %s", "Required: a %s", "Authenticated with the %s",
		"To access this endpoint using an %s you need the read scope", "Call it using your %s"}
	handBacks := []string{"%s and returns it.", "%s, and shows the %s.", "%s; the response includes the %s.", "%s. The response includes it.",
		"%s. Returns the %s in plain text.", "%s. The result contains the %s.", "%s. Lists each service with its %s.",
		"%s, and it is returned with the record.", "%s. You get it back in the body.", "%s. Reveals the %s to the caller.",
		"%s. The %s comes back in the body.", "%s. Responds with the %s.", "%s. Echoes it back.", "%s. Hands it back to the caller.",
		"%s, which it echoes back."}
	count, low := 0, 0
	for _, secret := range secrets {
		for _, need := range needs {
			n := fmt.Sprintf(need, secret)
			for _, hb := range handBacks {
				desc := fmt.Sprintf(hb, n, secret)
				if strings.Count(hb, "%s") == 1 {
					desc = fmt.Sprintf(hb, n)
				}
				def := fmt.Sprintf(`{"name":"get_integration","description":%q,"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, "Get one integration. "+desc)
				count++
				if a := assess(t, def); a.SEP.RiskLevel != "high" && a.SEP.RiskLevel != "critical" {
					low++
					if low <= 10 {
						t.Errorf("a secret needed and handed back at %s: %s (%v)", a.SEP.RiskLevel, def, a.Reasons)
					}
				}
			}
		}
	}
	if low > 0 {
		t.Errorf("%d of %d generated definitions not high", low, count)
	}
}

// TestAccountAndEmptinessLoweringsKeepToTheirCase generates, for the two
// lowerings read from every kept corpus at once, what fits their words
// but does more: a privileged account (a service's, a root's, an
// organization's) made or edited, which stays the whole account's reach
// at L4 or above; and a container removed under words that mention
// emptiness without the server refusing a full one ("no check is made
// whether it still contains …", "even if it is not empty", "fails if the
// token is invalid"), which stays a destruction.
func TestAccountAndEmptinessLoweringsKeepToTheirCase(t *testing.T) {
	styles := []func(verb, qualifier string) string{
		func(v, q string) string { return v + "_" + q + "_account" },
		func(v, q string) string { return v + camel(q) + "Account" },
		func(v, q string) string { return q + "-account-" + v },
	}
	count := 0
	for _, verb := range []string{"create", "add", "update", "edit", "modify", "set", "patch", "save", "change"} {
		for _, q := range []string{"service", "root", "master", "default", "organization", "org", "admin", "billing", "main",
			"primary", "cloud", "owner", "shared", "system", "platform", "company", "workspace", "team"} {
			for _, style := range styles {
				def := fmt.Sprintf(`{"name":%q,"description":"Changes the account's settings.","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"settings":{"type":"object"}}}}`, style(verb, q))
				count++
				if a := assess(t, def); a.SEP.BlastRadius == "item" || a.Level < L4 {
					t.Errorf("a privileged account made or edited at %s, %s: %s (%v)", a.Level, a.SEP.BlastRadius, def, a.Reasons)
				}
			}
		}
	}
	for _, noun := range []string{"project", "namespace", "database", "repository", "bucket", "team"} {
		for _, desc := range []string{
			"Deletes the %s. No check is made whether it still contains anything.",
			"Deletes the %s even if it is not empty.",
			"Deletes the %s. Fails if the token is invalid.",
			"Deletes the %s; if it still contains data, the data is lost.",
			"Deletes the %s regardless of whether it must be empty.",
			"Deletes the %s and all its contents; it fails if the %s still contains locked items only when locks are enforced.",
			"Deletes the %s. The %s is not checked for contents; whether or not it is empty, it is removed.",
		} {
			d := strings.ReplaceAll(desc, "%s", noun)
			def := fmt.Sprintf(`{"name":"delete_%s","description":%q,"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, noun, d)
			count++
			if a := assess(t, def); a.SEP.Category != "destroy" {
				t.Errorf("a %s removed whatever it holds read as %s: %s (%v)", noun, a.SEP.Category, d, a.Reasons)
			}
		}
	}
	if count < 500 {
		t.Fatalf("only %d definitions generated", count)
	}
}
