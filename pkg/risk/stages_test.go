package risk

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// The tests of this file hold each stage of Assess on its own: what it
// decides from its inputs alone, with the stages before it run for real
// where their output is the input (signalsOf, verdictOf) and written out
// where a literal says more.

func toolOf(t *testing.T, def string) *tooldef.Tool {
	t.Helper()
	tool, err := tooldef.ParseTool([]byte(def))
	if err != nil {
		t.Fatalf("%s: %v", def, err)
	}
	return tool
}

// signalsOf runs the first stage on a definition.
func signalsOf(t *testing.T, def string) signals {
	t.Helper()
	return readSignals(toolOf(t, def))
}

// verdictOf runs the first two stages on a definition.
func verdictOf(t *testing.T, def string) (signals, actionVerdict, judgement) {
	t.Helper()
	s := signalsOf(t, def)
	var j judgement
	v := inferAction(&s, &j)
	return s, v, j
}

func TestJudgementLadder(t *testing.T) {
	var j judgement
	j.raise(L3, "changes state")
	j.raise(L2, "read only") // lower: the level stays, the reason is kept
	if j.level != L3 || !slices.Equal(j.reasons, []string{"L3: changes state", "L2: read only"}) {
		t.Fatalf("raise: %s %q", j.level, j.reasons)
	}
	j.raiseOne("one band")
	j.raiseOne("another band")
	j.raiseOne("no band above L5")
	if j.level != L5 || j.reasons[4] != "L5: no band above L5" {
		t.Fatalf("raiseOne: %s %q", j.level, j.reasons)
	}
	var f judgement
	f.floor("runs arbitrary code")
	f.note("a note")
	f.disagree("category", "read", "delete")
	if f.level != L5 || !slices.Equal(f.floors, []string{"runs arbitrary code"}) || !slices.Equal(f.reasons, []string{"a note"}) ||
		!slices.Equal(f.disagreements, []string{"declared category read, inferred delete: the higher stands"}) {
		t.Fatalf("floor, note, disagree: %+v", f)
	}
}

func TestReadSignalsStage(t *testing.T) {
	for _, tc := range []struct {
		def                             string
		act                             action
		verb, source                    string
		execParam, privilege, sensitive string
		money                           string
		flags                           []string
	}{
		// A deleting verb anywhere in the name counts, not only first.
		{def: `{"name":"k8s_delete_pod","description":"Deletes one pod."}`, act: actDelete, verb: "delete", source: "name"},
		{def: `{"name":"pods_delete","description":"Deletes one pod."}`, act: actDelete, verb: "delete", source: "name"},
		// No verb in the name: the description's, in its base form.
		{def: `{"name":"weather","description":"Returns the forecast for a city."}`, act: actRead, verb: "get", source: "description"},
		// No verb anywhere: nothing is assumed here; inferAction decides.
		{def: `{"name":"team_services","description":"Team information."}`, act: actNone},
		// A secret is a privilege noun as well; a read asks only whether it is sensitive.
		{def: `{"name":"get_secret","description":"Gets the value of one secret."}`, act: actRead, verb: "get", source: "name", privilege: "secret", sensitive: "secret"},
		{def: `{"name":"add_collaborator","description":"Adds a collaborator to a repository."}`, act: actMutate, verb: "add", source: "name", privilege: "collaborator"},
		{def: `{"name":"create_refund","description":"Refunds a charge."}`, act: actMutate, verb: "create", source: "name", money: "refund"},
		{def: `{"name":"query","description":"Runs a query.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`, act: actRead, verb: "query", source: "name", execParam: "sql"},
		{def: `{"name":"update_branch","description":"Updates a branch.","inputSchema":{"type":"object","properties":{"delete":{"type":"boolean"},"forceDelete":{"type":"boolean"}}}}`,
			act: actMutate, verb: "update", source: "name", flags: []string{"delete", "force"}},
	} {
		s := signalsOf(t, tc.def)
		if s.act != tc.act || s.verb != tc.verb || s.actSource != tc.source || s.execParam != tc.execParam || s.privilege != tc.privilege ||
			s.sensitive != tc.sensitive || s.money != tc.money || !slices.Equal(s.flags, tc.flags) {
			t.Errorf("%s:\n got act %s verb %q from %q, exec %q, privilege %q, sensitive %q, money %q, flags %q\nwant act %s verb %q from %q, exec %q, privilege %q, sensitive %q, money %q, flags %q",
				tc.def, s.act.category(), s.verb, s.actSource, s.execParam, s.privilege, s.sensitive, s.money, s.flags,
				tc.act.category(), tc.verb, tc.source, tc.execParam, tc.privilege, tc.sensitive, tc.money, tc.flags)
		}
	}
}

func TestInferActionStage(t *testing.T) {
	for _, tc := range []struct {
		why, def               string
		act, judged, optionAct action
		category               string
		readShaped, savedRead  bool
		claim                  string
		simulatedFrom          action
		reason                 string // among the stage's reasons; "" for none at all
	}{
		{why: "a verb in the name", def: `{"name":"get_issue","description":"Gets one issue by its number."}`,
			act: actRead, judged: actRead, category: "read"},
		{why: "a verb the lexicon lacks is a change", def: `{"name":"zorp_widget","description":"Zorps the widget of a page."}`,
			act: actMutate, judged: actMutate, category: "mutate", reason: `"zorp" is used as a verb the engine does not know: assumed to change state`},
		{why: "no verb, a schema that only selects: a read", def: `{"name":"team_services","description":"Team information.","inputSchema":{"type":"object","properties":{"teamId":{"type":"string"},"limit":{"type":"integer"}}}}`,
			act: actRead, judged: actRead, category: "read", readShaped: true, reason: "no verb in the name, title or description, and every parameter only selects what to return: read"},
		{why: "no verb, no schema: a change", def: `{"name":"team_services","description":"Team information."}`,
			act: actMutate, judged: actMutate, category: "mutate", reason: "no verb in the name, title or description: assumed to change state"},
		// The schema's shape makes it a read; its worst option overrules.
		{why: "the option of a verbless name is its action", def: `{"name":"git_branch","description":"Branches of a repository.","inputSchema":{"type":"object","properties":{"mode":{"type":"string","enum":["list","create","delete"]}}}}`,
			act: actDelete, judged: actDelete, optionAct: actDelete, category: "delete", readShaped: true, reason: `an option of the tool is "delete"`},
		{why: "a generic verb keeps its category and is judged by its worst operation", def: `{"name":"manage_labels","description":"Manages labels.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","rename","delete"]}}}}`,
			act: actMutate, judged: actDelete, optionAct: actDelete, category: "mutate"},
		{why: "a drop of one item is a delete", def: `{"name":"drop_index","description":"Drops one index of a collection."}`,
			act: actDelete, judged: actDelete, category: "delete"},
		{why: "a delete of a broad noun destroys", def: `{"name":"delete_database","description":"Deletes a database with its data."}`,
			act: actDestroy, judged: actDestroy, category: "destroy"},
		{why: "a free-form code parameter executes", def: `{"name":"notes","description":"Keeps notes for the session.","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`,
			act: actExec, judged: actExec, category: "mutate", reason: `parameter "script" takes free-form code, commands or queries`},
		{why: "detaching a relation changes the item", def: `{"name":"remove_label_from_issue","description":"Removes a label from an issue."}`,
			act: actMutate, judged: actMutate, category: "mutate", reason: "detaches a relation: a change, not a delete"},
		{why: "a cascading flag destroys", def: `{"name":"delete_folder","description":"Deletes a folder.","inputSchema":{"type":"object","properties":{"recursive":{"type":"boolean"}}}}`,
			act: actDestroy, judged: actDestroy, category: "destroy", reason: "a flag removes the item with everything it contains"},
		{why: "an enforced read-only query names the category, not the action", def: `{"name":"run_query","description":"Runs a query. Only SELECT statements are allowed; others are rejected.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`,
			act: actExec, judged: actExec, category: "read", claim: "only select"},
		{why: "a believed read-only claim turns a change into a read", def: `{"name":"apply_config","description":"Validates a configuration in a dry run without applying it."}`,
			act: actRead, judged: actRead, category: "read", claim: "dry run"},
		{why: "a pass-through DELETE destroys", def: `{"name":"svc_delete","description":"Delete a resource of the service.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"body":{"type":"object"}},"required":["path"]}}`,
			act: actDestroy, judged: actDestroy, category: "destroy", reason: "a DELETE of any path of the service's API"},
		{why: "creating a message sends it", def: `{"name":"create_sms","description":"Creates an SMS to a phone number."}`,
			act: actSend, judged: actSend, category: "mutate", reason: "creating a sms sends it to someone outside the system"},
		{why: "a forced send rewrites history", def: `{"name":"git_push","description":"Pushes commits to a remote.","inputSchema":{"type":"object","properties":{"force":{"type":"boolean"}}}}`,
			act: actDestroy, judged: actDestroy, category: "destroy", reason: "a forced send rewrites history"},
		{why: "a delete flag makes a change a delete", def: `{"name":"update_branch","description":"Updates a branch of a repository.","inputSchema":{"type":"object","properties":{"delete":{"type":"boolean"}}}}`,
			act: actDelete, judged: actDelete, category: "delete", reason: `flag "delete" turns the tool into a delete`},
		{why: "a saved report runs a read", def: `{"name":"execute_saved_report","description":"Executes a saved report by its id."}`,
			act: actRead, judged: actRead, category: "read", savedRead: true, reason: "runs a stored query or report: a read"},
		{why: "a simulation is a utility", def: `{"name":"toggle_fake_alerts","description":"Toggles simulated alerts on or off."}`,
			act: actUtility, judged: actUtility, category: "utility", simulatedFrom: actMutate, reason: "the description says it simulates or demonstrates: no real effect"},
	} {
		s, v, j := verdictOf(t, tc.def)
		if v.act != tc.act || v.judged != tc.judged || v.optionAct != tc.optionAct || v.category != tc.category || v.readShaped != tc.readShaped ||
			v.savedRead != tc.savedRead || v.readOnlyClaim != tc.claim || v.simulatedFrom != tc.simulatedFrom {
			t.Errorf("%s:\n got %+v\nwant act %d judged %d option %d %s shaped %v saved %v claim %q simulated %d",
				tc.why, v, tc.act, tc.judged, tc.optionAct, tc.category, tc.readShaped, tc.savedRead, tc.claim, tc.simulatedFrom)
		}
		if tc.reason != "" && !slices.Contains(j.reasons, tc.reason) {
			t.Errorf("%s: reasons %q, want %q among them", tc.why, j.reasons, tc.reason)
		}
		if j.level != L0 || j.floors != nil {
			t.Errorf("%s: the action stage moved the level (%s) or floored (%q); only later stages do", tc.why, j.level, j.floors)
		}
		// The signals that mean something only once the action is known.
		if s.savedRead != (tc.savedRead && tc.act == actRead) {
			t.Errorf("%s: signals' savedRead %v", tc.why, s.savedRead)
		}
		if s.readOnlyQuery != (tc.claim != "" && tc.act == actExec) {
			t.Errorf("%s: signals' readOnlyQuery %v", tc.why, s.readOnlyQuery)
		}
	}
	// The description's words on permanence are read only of a change.
	if s, _, _ := verdictOf(t, `{"name":"update_page","description":"Updates a page. This cannot be undone."}`); !s.irreversibleText {
		t.Error("a change whose description says it cannot be undone: irreversibleText not read")
	}
	if s, _, _ := verdictOf(t, `{"name":"get_page","description":"Gets a page. This cannot be undone."}`); s.irreversibleText {
		t.Error("a read's description was scanned for permanence")
	}
}

func TestBlastRadiusStage(t *testing.T) {
	for _, tc := range []struct {
		def        string
		act        action
		blast, why string
	}{
		{`{"name":"get_issue","description":"Gets one issue by its number."}`, actRead, "item", "acts on one item"},
		{`{"name":"list_pods","description":"Lists pods.","inputSchema":{"type":"object","properties":{"allNamespaces":{"type":"boolean"}}}}`, actRead, "cluster", ""},
		{`{"name":"restart_app","description":"Restarts the dynos of an app."}`, actMutate, "namespace", "acts on a whole app"},
		// The stage judges the action it is given: the same signals reach
		// further when the worst operation of a generic tool is judged.
		{`{"name":"manage_store","description":"Manages a data store.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["createTable","deleteTable"]}}}}`, actMutate, "item", "acts on one item"},
		{`{"name":"manage_store","description":"Manages a data store.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["createTable","deleteTable"]}}}}`, actDelete, "namespace", "an operation removes a whole table"},
		{`{"name":"drop_all_tables","description":"Drops every table."}`, actDestroy, "namespace", "acts on many items at once"},
		{`{"name":"send_message","description":"Sends a message to a channel."}`, actSend, "namespace", "reaches everyone who can see the destination"},
	} {
		blast, why := blastRadius(signalsOf(t, tc.def), tc.act)
		if blast != tc.blast || (tc.why != "" && why != tc.why) {
			t.Errorf("%s as %s: %s (%s), want %s (%s)", tc.def, tc.act.category(), blast, why, tc.blast, tc.why)
		}
	}
}

func TestEffectsStage(t *testing.T) {
	for _, tc := range []struct {
		why           string
		s             signals
		act           action
		reversibility string
		sideEffects   []string
	}{
		{"a utility", signals{}, actUtility, "auto", nil},
		{"a read", signals{}, actRead, "auto", nil},
		{"a read of secrets", signals{sensitive: "secret"}, actRead, "none", []string{"data_exfiltration"}},
		{"a read with a reveal flag", signals{revealFlag: "showValues"}, actObserve, "none", []string{"data_exfiltration"}},
		{"a change", signals{verb: "update"}, actMutate, "manual", nil},
		{"a deploy", signals{verb: "deploy"}, actMutate, "manual", []string{"downtime"}},
		{"a change of who may do what, that costs", signals{privilege: "role", money: "invoice"}, actMutate, "manual", []string{"cost", "privilege_change"}},
		{"an option that changes who may do what", signals{optionPrivilege: "permission"}, actMutate, "manual", []string{"privilege_change"}},
		{"a send", signals{verb: "send"}, actSend, "none", []string{"external_notification"}},
		{"an execution", signals{}, actExec, "none", []string{"state_loss"}},
		{"a delete", signals{}, actDelete, "none", []string{"state_loss"}},
		{"a destruction", signals{}, actDestroy, "none", []string{"state_loss"}},
		{"a forced change", signals{flags: []string{"force"}}, actMutate, "none", []string{"state_loss"}},
		{"a flag that does not widen", signals{flags: []string{"all-namespaces"}}, actMutate, "manual", nil},
		{"a forced read: flags count only for a change", signals{flags: []string{"force"}}, actRead, "auto", nil},
		{"a change said to be permanent", signals{irreversibleText: true}, actMutate, "none", nil},
	} {
		se := map[string]bool{}
		rev := effectsOf(&tc.s, tc.act, se)
		if got := tooldef.SortedKeys(se); rev != tc.reversibility || !slices.Equal(got, tc.sideEffects) && !(len(got) == 0 && len(tc.sideEffects) == 0) {
			t.Errorf("%s: %s %q, want %s %q", tc.why, rev, got, tc.reversibility, tc.sideEffects)
		}
	}
}

func TestLevelOfActionStage(t *testing.T) {
	for _, tc := range []struct {
		why     string
		s       signals
		v       actionVerdict
		level   Level
		floors  []string
		reasons []string
	}{
		{"a utility", signals{}, actionVerdict{act: actUtility, category: "utility"}, L1, nil, []string{"L1: local computation"}},
		{"a read", signals{}, actionVerdict{act: actRead, category: "read"}, L2, nil, []string{"L2: read only"}},
		{"a read of secrets", signals{sensitive: "token"}, actionVerdict{act: actRead, category: "read"}, L4, nil,
			[]string{"L2: read only", "L4: reads token, which may hold secrets"}},
		{"a forced read stays a read", signals{flags: []string{"force"}}, actionVerdict{act: actRead, category: "read"}, L2, nil, []string{"L2: read only"}},
		{"a send", signals{verb: "send"}, actionVerdict{act: actSend, category: "mutate"}, L4, nil,
			[]string{"L3: changes state", `L4: "send" has effects outside the system that cannot be recalled`}},
		{"a change that moves money", signals{verb: "create", money: "refund"}, actionVerdict{act: actMutate, category: "mutate"}, L5, nil,
			[]string{"L3: changes state", "L5: moves money (refund)"}},
		{"a change that bills", signals{verb: "create", money: "invoice"}, actionVerdict{act: actMutate, category: "mutate"}, L4, nil,
			[]string{"L3: changes state", "L4: touches billing (invoice)"}},
		{"widening flags and permanence raise one band each", signals{verb: "update", flags: []string{"force"}, irreversibleText: true},
			actionVerdict{act: actMutate, category: "mutate"}, L5, nil,
			[]string{"L3: changes state", `L4: flag "force" widens what one call can do`, "L5: the description says the effect is permanent"}},
		{"an execution floors", signals{}, actionVerdict{act: actExec, category: "mutate"}, L5, []string{"runs arbitrary code, commands or queries"}, nil},
		{"a delete", signals{objects: []string{"comment"}}, actionVerdict{act: actDelete, category: "delete"}, L4, nil, []string{"L4: deletes comment"}},
		{"a broad destruction floors", signals{verb: "drop", objects: []string{"database"}}, actionVerdict{act: actDestroy, category: "destroy"}, L5,
			[]string{"removes a broad scope: drop database"}, nil},
		{"an option that executes", signals{}, actionVerdict{act: actMutate, category: "mutate", optionAct: actExec}, L5, nil,
			[]string{"L3: changes state", "L5: an option of the tool executes"}},
		{"an option that deletes", signals{}, actionVerdict{act: actRead, category: "read", optionAct: actDelete}, L4, nil,
			[]string{"L2: read only", "L4: an option of the tool deletes"}},
		{"an irreversible verb in the name floors", signals{verb: "purge", actSource: "name"}, actionVerdict{act: actDelete, category: "delete"}, L5,
			[]string{`irreversible verb "purge" in the name`}, []string{"L4: deletes "}},
	} {
		var j judgement
		levelOfAction(&tc.s, tc.v, &j)
		if j.level != tc.level || !slices.Equal(j.floors, tc.floors) || !slices.Equal(j.reasons, tc.reasons) {
			t.Errorf("%s: %s floors %q reasons %q, want %s floors %q reasons %q", tc.why, j.level, j.floors, j.reasons, tc.level, tc.floors, tc.reasons)
		}
	}
}

func TestApplyDeclarationsStage(t *testing.T) {
	for _, tc := range []struct {
		why           string
		annotations   string
		act           action
		before        vocabulary
		level         Level
		after         vocabulary
		floors        []string
		disagreements []string
		sideEffects   []string
	}{
		{why: "nothing declared", annotations: `{}`, act: actMutate,
			before: vocabulary{"mutate", "item", "manual"}, level: L3, after: vocabulary{"mutate", "item", "manual"}},
		{why: "a declared destructive change floors", annotations: `{"destructiveHint":true}`, act: actMutate,
			before: vocabulary{"mutate", "item", "manual"}, level: L5, after: vocabulary{"mutate", "item", "manual"}, floors: []string{"declared destructive"}},
		{why: "a declared destructive read is raised, and disagrees", annotations: `{"destructiveHint":true}`, act: actRead,
			before: vocabulary{"read", "item", "auto"}, level: L3, after: vocabulary{"read", "item", "auto"},
			disagreements: []string{"declared destructiveHint true, but the tool reads as read"}},
		{why: "a declared read-only change is ignored", annotations: `{"readOnlyHint":true,"destructiveHint":false}`, act: actDelete,
			before: vocabulary{"delete", "item", "none"}, level: L3, after: vocabulary{"delete", "item", "none"},
			disagreements: []string{"declared readOnlyHint true, but the tool reads as delete: ignored"}},
		{why: "graver declarations stand", annotations: `{"destructiveHint":false,"riskLevel":"critical","category":"destroy","blastRadius":"global","reversibility":"none","sideEffects":["cost"]}`, act: actRead,
			before: vocabulary{"read", "item", "auto"}, level: L5, after: vocabulary{"destroy", "global", "none"}, sideEffects: []string{"cost"}},
		{why: "milder declarations disagree and are not applied", annotations: `{"destructiveHint":false,"riskLevel":"low","category":"read","blastRadius":"item","reversibility":"auto"}`, act: actDelete,
			before: vocabulary{"delete", "namespace", "none"}, level: L3, after: vocabulary{"delete", "namespace", "none"},
			disagreements: []string{"declared category read, inferred delete: the higher stands", "declared blastRadius item, inferred namespace: the higher stands",
				"declared reversibility auto, inferred none: the higher stands"}},
	} {
		tool := toolOf(t, `{"name":"some_tool","description":"A tool of the tests.","annotations":`+tc.annotations+`}`)
		j := judgement{level: L3}
		vocab := tc.before
		se := map[string]bool{}
		applyDeclarations(tool, declaredSEP(tool), tc.act, &vocab, se, &j)
		if j.level != tc.level || vocab != tc.after || !slices.Equal(j.floors, tc.floors) || !slices.Equal(j.disagreements, tc.disagreements) ||
			!slices.Equal(tooldef.SortedKeys(se), tc.sideEffects) && len(se)+len(tc.sideEffects) > 0 {
			t.Errorf("%s: %s %+v floors %q disagreements %q side effects %q\nwant %s %+v floors %q disagreements %q side effects %q",
				tc.why, j.level, vocab, j.floors, j.disagreements, tooldef.SortedKeys(se), tc.level, tc.after, tc.floors, tc.disagreements, tc.sideEffects)
		}
	}
}

func TestRaiseForDoubtStage(t *testing.T) {
	const described = "A description long enough to review."
	for _, tc := range []struct {
		why         string
		description string
		sigAct      action
		v           actionVerdict
		level       Level
	}{
		{"nothing in doubt", described, actRead, actionVerdict{act: actRead}, L2},
		{"a missing description raises one band", "", actRead, actionVerdict{act: actRead}, L3},
		{"a description too short raises one band", "Gets it.", actRead, actionVerdict{act: actRead}, L3},
		{"no verb, a read-shaped schema", described, actNone, actionVerdict{act: actRead, readShaped: true}, L3},
		{"no verb at all", described, actNone, actionVerdict{act: actMutate}, L4},
		{"a read-only claim keeps L3", described, actMutate, actionVerdict{act: actRead, readOnlyClaim: "dry run"}, L3},
		{"a simulated change keeps L3", described, actMutate, actionVerdict{act: actUtility, simulatedFrom: actMutate}, L3},
		{"a simulated read keeps L2", described, actRead, actionVerdict{act: actUtility, simulatedFrom: actRead}, L2},
		{"a saved read keeps L3", described, actExec, actionVerdict{act: actRead, savedRead: true}, L3},
	} {
		tool := &tooldef.Tool{Name: "t", Description: tc.description}
		s := signals{act: tc.sigAct}
		j := judgement{level: L2}
		raiseForDoubt(tool, &s, tc.v, &j)
		if j.level != tc.level {
			t.Errorf("%s: %s, want %s (%q)", tc.why, j.level, tc.level, j.reasons)
		}
	}
}

func TestRaiseForBroadChangeStage(t *testing.T) {
	for _, tc := range []struct {
		act   action
		blast string
		want  Level
	}{
		{actMutate, "cluster", L4},
		{actSend, "organization", L4},
		{actDelete, "global", L4},
		{actMutate, "namespace", L3},
		{actRead, "global", L3},     // a read is not a change
		{actDestroy, "cluster", L3}, // floored already, by levelOfAction
	} {
		j := judgement{level: L3}
		raiseForBroadChange(tc.act, tc.blast, &j)
		if j.level != tc.want {
			t.Errorf("%s reaching %s: %s, want %s", tc.act.category(), tc.blast, j.level, tc.want)
		}
	}
}

func TestApplyFindingsStage(t *testing.T) {
	path := Finding{Signal: "sensitive-path", Field: "description"}
	hidden := Finding{Signal: "hidden-instructions", Field: "description"}
	steer := Finding{Signal: "tool-steering", Field: "inputSchema"}
	for _, tc := range []struct {
		why      string
		findings []Finding
		level    Level
		floors   []string
	}{
		{"none", nil, L2, nil},
		{"sensitive paths raise one band however many", []Finding{path, path}, L3, nil},
		{"any other finding floors", []Finding{path, hidden}, L5, []string{"poisoning: hidden-instructions in description"}},
		{"the first other finding is the floor's reason", []Finding{steer, hidden}, L5, []string{"poisoning: tool-steering in inputSchema"}},
	} {
		j := judgement{level: L2}
		applyFindings(tc.findings, &j)
		if j.level != tc.level || !slices.Equal(j.floors, tc.floors) {
			t.Errorf("%s: %s %q, want %s %q", tc.why, j.level, j.floors, tc.level, tc.floors)
		}
	}
}

func TestApplyPostureStage(t *testing.T) {
	trusted := AssessServer(Posture{Trust: "Vendor"})
	wide := ServerAssessment{Level: L4, Reasons: []string{"plain HTTP to a remote host"}}
	floored := AssessServer(Posture{URL: "https://mcp.example.com/mcp"})
	for _, tc := range []struct {
		why    string
		server ServerAssessment
		act    action
		before Level
		floors []string
		want   Level
	}{
		{"an unknown posture changes nothing", ServerAssessment{}, actRead, L2, nil, L2},
		{"a floored server floors a read", floored, actRead, L2, nil, L5},
		{"a poor posture raises a change one band", wide, actMutate, L3, nil, L4},
		{"a poor posture leaves a read", wide, actRead, L2, nil, L2},
		{"a trusted catalogue brings a read down to L1", trusted, actObserve, L2, nil, L1},
		{"but not a read the stages before raised", trusted, actRead, L3, nil, L3},
		{"nor a floored one", trusted, actRead, L2, []string{"declared destructive"}, L2},
		{"nor a change", trusted, actMutate, L2, nil, L2},
	} {
		j := judgement{level: tc.before, floors: tc.floors}
		applyPosture(tc.server, tc.act, &j)
		if j.level != tc.want {
			t.Errorf("%s: %s, want %s (%q)", tc.why, j.level, tc.want, j.reasons)
		}
	}
}

func TestApprovalAndTrustStage(t *testing.T) {
	for _, tc := range []struct {
		why           string
		declared      SEP
		level         Level
		approval      string
		reasons       []string
		disagreements []string
	}{
		{"a read needs no approval", SEP{}, L2, "none", nil, nil},
		{"a change needs one human", SEP{}, L3, "single", nil, nil},
		{"L5 needs distinct humans", SEP{}, L5, "multi", nil, nil},
		{"a stricter declaration stands", SEP{ApprovalRecommendation: "multi", MinTrustLevel: 5}, L3, "multi",
			[]string{"the server declares minTrustLevel 5"}, nil},
		{"milder declarations disagree", SEP{RiskLevel: "low", ApprovalRecommendation: "none", MinTrustLevel: 1}, L4, "single", nil,
			[]string{"declared riskLevel low, inferred high: the higher stands", "declared minTrustLevel 1, inferred 4: the higher stands",
				"declared approvalRecommendation none, inferred single: the higher stands"}},
		{"a riskLevel of the level's own band is no disagreement", SEP{RiskLevel: "low"}, L2, "none", nil, nil},
	} {
		j := judgement{level: tc.level}
		if got := approvalAndTrust(tc.declared, &j); got != tc.approval || j.level != tc.level ||
			!slices.Equal(j.reasons, tc.reasons) || !slices.Equal(j.disagreements, tc.disagreements) {
			t.Errorf("%s: %s at %s, reasons %q, disagreements %q; want %s, reasons %q, disagreements %q",
				tc.why, got, j.level, j.reasons, j.disagreements, tc.approval, tc.reasons, tc.disagreements)
		}
	}
}

func TestGradeRiskStage(t *testing.T) {
	for _, tc := range []struct {
		why, def, declared string
		risk, because      string
	}{
		{"a read of data that is not secret", `{"name":"get_weather","description":"Returns the weather forecast for a city."}`, "",
			"low", "reads data that is not secret"},
		{"an operation that deletes named items is graded a delete", `{"name":"manage_labels","description":"Manages labels.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","rename","delete"]}}}}`, "",
			"high", "deletes named items"},
		{"an operation that purges what the call names is graded a delete, not a broad destruction", `{"name":"manage_records","description":"Manages the records of a store.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","purge"]}}}}`, "",
			"high", "one of its operations removes what it names"},
		{"an operation that removes a whole table stays critical", `{"name":"manage_store","description":"Manages a data store.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["createTable","deleteTable","listTables"]}}}}`, "",
			"critical", "an operation removes a whole table with everything in it"},
		{"the worst operation never hides an execution", `{"name":"manage_db","description":"Manages the database.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["provision","deprovision","deleteRecord"]},"statement":{"type":"string","description":"The SQL statement to execute."}}}}`, "",
			"critical", "runs arbitrary code, commands or queries"},
		{"a graver declaration stands", `{"name":"get_weather","description":"Returns the weather forecast for a city."}`, "high",
			"high", "the server declares riskLevel high"},
		{"a milder declaration does not", `{"name":"drop_database","description":"Drops the database and everything in it."}`, "low",
			"critical", "removes a broad scope"},
	} {
		s, v, _ := verdictOf(t, tc.def)
		blast, _ := blastRadius(s, v.judged)
		if got, why := gradeRisk(&s, v, blast, SEP{RiskLevel: tc.declared}); got != tc.risk || why != tc.because {
			t.Errorf("%s: %s (%s), want %s (%s)", tc.why, got, why, tc.risk, tc.because)
		}
	}
}

// TestAssessComposesTheStages: Assess is the stages in their order, and
// nothing else. Run by hand on one definition with a declaration, a poor
// server and a finding, they give Assess's judgement field for field.
func TestAssessComposesTheStages(t *testing.T) {
	tool := toolOf(t, `{"name":"update_page","description":"Updates a page; this cannot be undone.","annotations":{"destructiveHint":false,"blastRadius":"organization","minTrustLevel":2}}`)
	server := ServerAssessment{Level: L4, Reasons: []string{"plain HTTP to a remote host"}, Reach: Reach{Secrets: true, Findings: []string{"may read secrets in every namespace"}}}
	findings := []Finding{{Signal: "sensitive-path", Field: "description"}}
	got := Assess(Input{Tool: tool, Server: server, Findings: findings, ApprovalGated: true})

	s := readSignals(tool)
	j := judgement{}
	v := inferAction(&s, &j)
	blast, why := blastRadius(s, v.judged)
	j.note("blast radius " + blast + ": " + why)
	se := map[string]bool{}
	vocab := vocabulary{category: v.category, blast: blast}
	vocab.reversibility = effectsOf(&s, v.act, se)
	levelOfAction(&s, v, &j)
	d := declaredSEP(tool)
	applyDeclarations(tool, d, v.act, &vocab, se, &j)
	var reachWhy []string
	vocab.blast, reachWhy = server.Reach.widen(v.act, vocab.blast, se)
	j.reasons = append(j.reasons, reachWhy...)
	raiseForDoubt(tool, &s, v, &j)
	raiseForBroadChange(v.act, vocab.blast, &j)
	applyFindings(findings, &j)
	applyPosture(server, v.act, &j)
	approval := approvalAndTrust(d, &j)
	sev, sevWhy := gradeRisk(&s, v, vocab.blast, d)
	j.note("riskLevel " + sev + ": " + sevWhy)
	if r, _ := levelOfRisk(sev); r >= L4 && r > j.level {
		j.raise(r, "riskLevel "+sev+": "+sevWhy)
	}

	want := Assessment{Level: j.level, EffectiveLevel: j.level, Floors: j.floors, Reasons: j.reasons, Disagreements: j.disagreements, Findings: findings,
		SEP: SEP{RiskLevel: sev, Category: vocab.category, BlastRadius: vocab.blast, Reversibility: vocab.reversibility,
			SideEffects: tooldef.SortedKeys(se), ApprovalRecommendation: approval, MinTrustLevel: max(trustFor(j.level), d.MinTrustLevel)}}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Fatalf("Assess:\n%s\nthe stages by hand:\n%s", gj, wj)
	}
	// The case is one that exercises the stages: a change raised by its
	// permanence, its declared reach and its server, with a finding that
	// forfeits the approval-gate credit.
	if got.Level != L5 || got.EffectiveLevel != L5 || got.SEP.BlastRadius != "organization" || got.SEP.Reversibility != "none" {
		t.Errorf("the composed case is not the one meant: %s/%s %+v", got.Level, got.EffectiveLevel, got.SEP)
	}
}
