package risk

import (
	"fmt"
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

// TestDecoysNeverRaiseHarmlessReads is the other side: reads named by a
// read verb, over objects that share words with the rules that grade a
// tool higher (a maintenance window, a merge request, a process, a
// header, a backup, a session), with descriptions that hold those rules'
// words in a harmless sense (column headers, a window, "all" entries,
// "never clears", secrets redacted, what "would be" destroyed). Every one
// stays at L3 or below: a harmless read withheld by a word is a cost the
// gate's users pay on every call they cannot make.
func TestDecoysNeverRaiseHarmlessReads(t *testing.T) {
	verbs := []string{"get", "list", "search", "describe", "show", "view", "find", "fetch", "read", "count", "inspect",
		"load", "preview", "explain"}
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
