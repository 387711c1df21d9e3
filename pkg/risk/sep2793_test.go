package risk

import (
	"encoding/json"
	"slices"
	"testing"
)

// The vocabularies as SEP-2793 writes them, copied from the SEP's text rather
// than from the engine, so that a value the engine starts to emit outside the
// SEP fails here even if the engine's own tables grow to allow it.
var (
	sepRiskLevels    = []string{"low", "medium", "high", "critical"}
	sepCategories    = []string{"read", "observe", "mutate", "delete", "destroy", "utility"}
	sepBlastRadii    = []string{"item", "namespace", "cluster", "organization", "global"}
	sepReversibility = []string{"auto", "manual", "none"}
	sepApprovals     = []string{"none", "single", "multi"}
	// sepCommonSideEffects are the "common values" the SEP lists.
	sepCommonSideEffects = []string{"state_loss", "downtime", "cost", "external_notification", "data_exfiltration", "privilege_change"}
)

// sepTools is a spread of tools, one or more per category, used by the rows
// that hold for every judgement.
var sepTools = []string{
	`{"name":"calculate_sum","description":"Adds the numbers it is given and returns the sum."}`,
	`{"name":"list_pods","description":"Lists the pods of a namespace."}`,
	`{"name":"get_app_logs","description":"Gets the logs of one app."}`,
	`{"name":"create_issue","description":"Creates an issue in a repository."}`,
	`{"name":"send_email","description":"Sends an email to one recipient."}`,
	`{"name":"delete_issue","description":"Deletes one issue by its number."}`,
	`{"name":"drop_database","description":"Drops the database and everything in it."}`,
	`{"name":"run_query","description":"Runs a query against the warehouse.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`,
	`{"name":"add_collaborator","description":"Adds a collaborator to a repository."}`,
	`{"name":"frobnicate"}`,
}

// TestSEP2793Conformance checks SEP-2793's statements one by one. Each
// subtest is one row of the table in docs/sep-2793.md, named by the row's
// number; the chapter cites the subtests by these names. A row whose name
// ends in "_gap" pins a known departure from the SEP: it asserts what the
// engine does today, so that whoever closes the gap must also update the
// chapter.
func TestSEP2793Conformance(t *testing.T) {
	for _, row := range []struct {
		name  string
		check func(t *testing.T)
	}{
		{"S01_fields_optional", func(t *testing.T) {
			// A tool that declares none of the fields is judged, and every
			// field of the judgement is filled by inference.
			for _, def := range sepTools {
				a := assess(t, def)
				if a.SEP.RiskLevel == "" || a.SEP.Category == "" || a.SEP.BlastRadius == "" ||
					a.SEP.Reversibility == "" || a.SEP.ApprovalRecommendation == "" || a.SEP.MinTrustLevel == 0 {
					t.Errorf("%s: a field was left empty: %+v", def, a.SEP)
				}
			}
		}},
		{"S02_closed_vocabularies", func(t *testing.T) {
			for _, def := range sepTools {
				s := assess(t, def).SEP
				for field, pair := range map[string]struct {
					v   string
					set []string
				}{
					"riskLevel": {s.RiskLevel, sepRiskLevels}, "category": {s.Category, sepCategories},
					"blastRadius": {s.BlastRadius, sepBlastRadii}, "reversibility": {s.Reversibility, sepReversibility},
					"approvalRecommendation": {s.ApprovalRecommendation, sepApprovals},
				} {
					if !slices.Contains(pair.set, pair.v) {
						t.Errorf("%s: %s %q is not in the SEP's vocabulary %v", def, field, pair.v, pair.set)
					}
				}
				if s.MinTrustLevel < 1 || s.MinTrustLevel > 5 {
					t.Errorf("%s: minTrustLevel %d outside 1..5", def, s.MinTrustLevel)
				}
			}
		}},
		{"S03_same_shape_as_annotations", func(t *testing.T) {
			// The inferrer emits the ToolAnnotations shape: the JSON of a
			// judgement's SEP fields has exactly the SEP's member names.
			raw, err := json.Marshal(assess(t, sepTools[5]).SEP)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			want := []string{"approvalRecommendation", "blastRadius", "category", "minTrustLevel", "reversibility", "riskLevel", "sideEffects"}
			var got []string
			for k := range m {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("members %v, want %v", got, want)
			}
		}},
		{"S04_inferred_and_declared_interchangeable_gap", func(t *testing.T) {
			// A server that publishes the inferrer's output never gets a
			// milder judgement than the inference. It does not always get
			// the same one: a declared riskLevel raises the level to the
			// lowest of its band, so a read graded medium (L2) declared
			// medium becomes L3; and a declared riskLevel is compared with
			// the band of the final level, so a floored delete graded high
			// and declared high reports a disagreement. Both are gaps.
			changed := map[string]bool{}
			for _, def := range sepTools {
				inferred := assess(t, def)
				declared := assess(t, withDeclarations(t, def, sepDeclaration(inferred.SEP)))
				if declared.Level < inferred.Level {
					t.Errorf("%s declaring its own inference: level %s below %s", def, declared.Level, inferred.Level)
				}
				if declared.Level != inferred.Level || !sepEqual(declared.SEP, inferred.SEP) || len(declared.Disagreements) != 0 {
					changed[def] = true
				}
			}
			for _, def := range []string{sepTools[2], sepTools[5]} {
				if !changed[def] {
					t.Errorf("%s: declaring its inference changed nothing; the gap is closed, update docs/sep-2793.md and rename this row", def)
				}
			}
			if changed[sepTools[1]] || changed[sepTools[6]] {
				t.Errorf("list_pods and drop_database must round-trip unchanged")
			}
		}},
		{"S05_read_and_observe_do_not_mutate", func(t *testing.T) {
			for _, def := range []string{sepTools[1], sepTools[2]} {
				a := assess(t, def)
				if (a.SEP.Category != "read" && a.SEP.Category != "observe") || a.SEP.Reversibility != "auto" ||
					slices.Contains(a.SEP.SideEffects, "state_loss") {
					t.Errorf("%s: %+v; a read or observation changes nothing", def, a.SEP)
				}
			}
		}},
		{"S06_reversibility_none_for_loss_and_sent_messages", func(t *testing.T) {
			for _, def := range []string{
				`{"name":"delete_issue","description":"Deletes one issue by its number."}`,
				`{"name":"send_email","description":"Sends an email to one recipient."}`,
				`{"name":"post_message","description":"Posts a message to a channel."}`,
			} {
				if r := assess(t, def).SEP.Reversibility; r != "none" {
					t.Errorf("%s: reversibility %s, want none", def, r)
				}
			}
			if r := assess(t, `{"name":"update_issue","description":"Updates the title of an issue."}`).SEP.Reversibility; r != "manual" {
				t.Errorf("an ordinary update: reversibility %s, want manual (rolled back by another call)", r)
			}
		}},
		{"S07_reversibility_charged_card", func(t *testing.T) {
			// The SEP names a charged card as irreversible: the tool is
			// floored at L5 with multi approval and the cost side effect,
			// and its reversibility is none.
			a := assess(t, `{"name":"charge_card","description":"Charges a customer's card with an amount."}`)
			if a.Level != L5 || a.SEP.ApprovalRecommendation != "multi" || !slices.Contains(a.SEP.SideEffects, "cost") {
				t.Errorf("charge_card: %s %+v", a.Level, a.SEP)
			}
			if a.SEP.Reversibility != "none" {
				t.Errorf("charge_card: reversibility %s, want none", a.SEP.Reversibility)
			}
		}},
		{"S08_side_effects_open_vocabulary", func(t *testing.T) {
			// Inferred side effects use the SEP's common values; a declared
			// value outside them is kept, not refused.
			for _, def := range sepTools {
				for _, e := range assess(t, def).SEP.SideEffects {
					if !slices.Contains(sepCommonSideEffects, e) {
						t.Errorf("%s: inferred side effect %q is not one of the SEP's common values", def, e)
					}
				}
			}
			a := assess(t, `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"sideEffects":["audit_log_entry"]}}`)
			if !slices.Contains(a.SEP.SideEffects, "audit_log_entry") {
				t.Errorf("a declared side effect was dropped: %v", a.SEP.SideEffects)
			}
		}},
		{"S09_approval_recommendation_follows_level", func(t *testing.T) {
			for _, tc := range []struct {
				def  string
				want string
			}{
				{sepTools[0], "none"},   // utility, L1
				{sepTools[1], "none"},   // read, L2
				{sepTools[3], "single"}, // mutation, L3
				{sepTools[4], "single"}, // send, L4
				{sepTools[6], "multi"},  // destroy, L5
			} {
				if got := assess(t, tc.def).SEP.ApprovalRecommendation; got != tc.want {
					t.Errorf("%s: approvalRecommendation %s, want %s", tc.def, got, tc.want)
				}
			}
		}},
		{"S10_min_trust_level_numeric_1_to_5", func(t *testing.T) {
			// Higher levels need more trust, so a policy compares with >=.
			prev := 0
			for _, def := range []string{sepTools[0], sepTools[1], sepTools[3], sepTools[4], sepTools[6]} {
				got := assess(t, def).SEP.MinTrustLevel
				if got < prev {
					t.Errorf("%s: minTrustLevel %d below the milder tool's %d", def, got, prev)
				}
				prev = got
			}
			declared := assess(t, `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"minTrustLevel":4}}`)
			if declared.SEP.MinTrustLevel != 4 {
				t.Errorf("a declared higher minTrustLevel must win, got %d", declared.SEP.MinTrustLevel)
			}
		}},
		{"S11_values_outside_the_vocabulary_ignored", func(t *testing.T) {
			plain := assess(t, `{"name":"get_issue","description":"Gets one issue by its number."}`)
			odd := assess(t, `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"riskLevel":"extreme","category":"nuke","blastRadius":"galaxy","reversibility":"maybe","approvalRecommendation":"all","minTrustLevel":9}}`)
			if odd.Level != plain.Level || !sepEqual(odd.SEP, plain.SEP) {
				t.Errorf("unknown values changed the judgement: %s %+v, want %s %+v", odd.Level, odd.SEP, plain.Level, plain.SEP)
			}
		}},
		{"S12_missing_metadata_fails_closed", func(t *testing.T) {
			// A tool with no metadata and nothing to infer from is placed
			// above the default ceiling (L3), so no policy exposes it
			// unless a human raises the ceiling or classifies it.
			for _, def := range []string{`{"name":"frobnicate"}`, `{"name":"x"}`, `{"name":"frobnicate","description":"Frobnicates."}`} {
				a := assess(t, def)
				if a.Level < L4 || a.SEP.Category != "mutate" {
					t.Errorf("%s: %s %s; want at least L4, assumed to change state", def, a.Level, a.SEP.Category)
				}
			}
		}},
		{"S13_missing_metadata_most_restrictive_bucket_gap", func(t *testing.T) {
			// The SEP's example of the most restrictive bucket is
			// riskLevel critical and approvalRecommendation multi. The
			// engine grades an unexplained tool riskLevel medium with a
			// single approval (it withholds it by level instead): a gap.
			a := assess(t, `{"name":"frobnicate"}`)
			if a.SEP.RiskLevel != "medium" || a.SEP.ApprovalRecommendation != "single" {
				t.Errorf("frobnicate: %+v; the gap is closed, update docs/sep-2793.md and rename this row", a.SEP)
			}
		}},
		{"S14_verbs_get_list_describe_read", func(t *testing.T) {
			for _, def := range []string{
				`{"name":"get_issue","description":"Gets one issue by its number."}`,
				`{"name":"list_pods","description":"Lists the pods of a namespace."}`,
				`{"name":"describe_pod","description":"Describes one pod in a namespace."}`,
			} {
				a := assess(t, def)
				if a.SEP.Category != "read" || a.Level > L2 || severityRank[a.SEP.RiskLevel] > severityRank["medium"] {
					t.Errorf("%s: %s %s %s; want read at most L2", def, a.Level, a.SEP.Category, a.SEP.RiskLevel)
				}
			}
			for _, def := range []string{
				`{"name":"list_pods","description":"Lists the pods of a namespace."}`,
				`{"name":"describe_pod","description":"Describes one pod in a namespace."}`,
			} {
				if r := assess(t, def).SEP.RiskLevel; r != "low" {
					t.Errorf("%s: riskLevel %s, want low", def, r)
				}
			}
		}},
		{"S15_verbs_create_apply_update_mutate", func(t *testing.T) {
			for _, def := range []string{
				`{"name":"create_issue","description":"Creates an issue in a repository."}`,
				`{"name":"apply_labels","description":"Applies labels to an issue."}`,
				`{"name":"update_issue","description":"Updates the title of an issue."}`,
			} {
				a := assess(t, def)
				if a.SEP.Category != "mutate" || a.SEP.RiskLevel != "medium" {
					t.Errorf("%s: %s %s; want mutate, medium", def, a.SEP.Category, a.SEP.RiskLevel)
				}
			}
		}},
		{"S16_verbs_delete_destroy_drop_high", func(t *testing.T) {
			// delete/high at least; a broad scope is graded destroy/critical,
			// which only raises the SEP's rule.
			for _, def := range []string{
				`{"name":"delete_issue","description":"Deletes one issue by its number."}`,
				`{"name":"drop_index","description":"Drops one index of a collection."}`,
				`{"name":"destroy_stack","description":"Destroys a stack with everything in it."}`,
			} {
				a := assess(t, def)
				if categoryRank[a.SEP.Category] < categoryRank["delete"] || severityRank[a.SEP.RiskLevel] < severityRank["high"] {
					t.Errorf("%s: %s %s; want delete or destroy, high or critical", def, a.SEP.Category, a.SEP.RiskLevel)
				}
			}
		}},
		{"S17_risky_flags_bump_one_grade", func(t *testing.T) {
			base := `{"name":"update_issue","description":"Updates the title of an issue."}`
			plain := assess(t, base)
			for _, flag := range []string{"force", "recursive", "cascade", "all_namespaces"} {
				flagged := assess(t, `{"name":"update_issue","description":"Updates the title of an issue.","inputSchema":{"type":"object","properties":{"`+flag+`":{"type":"boolean"}}}}`)
				if flagged.Level != plain.Level+1 {
					t.Errorf("flag %s: level %s, want one above %s", flag, flagged.Level, plain.Level)
				}
			}
		}},
		{"S18_risky_flags_on_reads_gap", func(t *testing.T) {
			// The SEP bumps every tool with a risky flag; the engine counts
			// flags on a mutation or worse only, and reads an
			// all-namespaces flag on a read as a wider blast radius instead.
			a := assess(t, `{"name":"list_pods","description":"Lists the pods of a namespace.","inputSchema":{"type":"object","properties":{"all_namespaces":{"type":"boolean"}}}}`)
			plain := assess(t, `{"name":"list_pods","description":"Lists the pods of a namespace."}`)
			if a.Level != plain.Level || a.SEP.BlastRadius != "cluster" {
				t.Errorf("list_pods with all_namespaces: %s %s; the gap is closed, update docs/sep-2793.md and rename this row", a.Level, a.SEP.BlastRadius)
			}
		}},
		{"S19_scope_params_infer_blast_radius", func(t *testing.T) {
			for _, tc := range []struct{ def, want string }{
				{`{"name":"update_config","description":"Updates the configuration of a namespace.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, "namespace"},
				{`{"name":"list_workspaces","description":"Lists workspaces.","inputSchema":{"type":"object","properties":{"org_name":{"type":"string"}},"required":["org_name"]}}`, "organization"},
				{`{"name":"update_issue","description":"Updates the title of an issue.","inputSchema":{"type":"object","properties":{"all_namespaces":{"type":"boolean"}}}}`, "cluster"},
			} {
				if got := assess(t, tc.def).SEP.BlastRadius; got != tc.want {
					t.Errorf("%s: blastRadius %s, want %s", tc.def, got, tc.want)
				}
			}
		}},
		{"S20_scope_param_on_one_item_gap", func(t *testing.T) {
			// A required namespace, cluster or org parameter that only
			// locates one item does not widen the blast radius: deleting one
			// pod named in a namespace reaches that pod. The reference
			// inferrer would say namespace.
			a := assess(t, `{"name":"delete_item","description":"Deletes one item of a namespace.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`)
			if a.SEP.BlastRadius != "item" || a.Level != L5 {
				t.Errorf("delete_item in a namespace: %s %s; the gap is closed, update docs/sep-2793.md and rename this row", a.SEP.BlastRadius, a.Level)
			}
		}},
		{"S21_declared_metadata_never_lowers", func(t *testing.T) {
			// The SEP's security consideration: a malicious server declares
			// low risk on a dangerous tool. No declaration lowers anything,
			// and each lowering declaration is reported.
			a := assess(t, `{"name":"drop_database","description":"Drops the database and everything in it.","annotations":{"riskLevel":"low","category":"read","blastRadius":"item","reversibility":"auto","approvalRecommendation":"none","minTrustLevel":1}}`)
			plain := assess(t, sepTools[6])
			if a.Level != L5 || !sepEqual(a.SEP, plain.SEP) {
				t.Errorf("drop_database declared safe: %s %+v, want %s %+v", a.Level, a.SEP, plain.Level, plain.SEP)
			}
			if len(a.Disagreements) < 5 {
				t.Errorf("every lowering declaration must be reported, got %q", a.Disagreements)
			}
		}},
		{"S22_declared_metadata_raises", func(t *testing.T) {
			a := assess(t, `{"name":"get_issue","description":"Gets one issue by its number.","annotations":{"riskLevel":"critical","category":"destroy","blastRadius":"global","reversibility":"none","approvalRecommendation":"multi","minTrustLevel":5,"sideEffects":["cost"]}}`)
			want := SEP{RiskLevel: "critical", Category: "destroy", BlastRadius: "global", Reversibility: "none",
				SideEffects: []string{"cost"}, ApprovalRecommendation: "multi", MinTrustLevel: 5}
			if a.Level != L5 || !sepEqual(a.SEP, want) {
				t.Errorf("get_issue declared critical: %s %+v", a.Level, a.SEP)
			}
		}},
		{"S23_destructive_hint_kept_beside_risk_level", func(t *testing.T) {
			// riskLevel is additive: destructiveHint still floors a
			// mutation, even with a declared low riskLevel.
			a := assess(t, `{"name":"reset_counter","description":"Resets the counter to its start value.","annotations":{"destructiveHint":true,"riskLevel":"low"}}`)
			if a.Level != L5 || len(a.Floors) == 0 {
				t.Errorf("destructive with riskLevel low: %s %v", a.Level, a.Floors)
			}
		}},
	} {
		t.Run(row.name, row.check)
	}
}

// sepDeclaration renders a judgement's SEP fields as annotation members.
func sepDeclaration(s SEP) string {
	decl, _ := json.Marshal(map[string]any{
		"riskLevel": s.RiskLevel, "category": s.Category, "blastRadius": s.BlastRadius,
		"reversibility": s.Reversibility, "sideEffects": s.SideEffects,
		"approvalRecommendation": s.ApprovalRecommendation, "minTrustLevel": s.MinTrustLevel,
	})
	return string(decl[1 : len(decl)-1])
}

func sepEqual(a, b SEP) bool {
	return a.RiskLevel == b.RiskLevel && a.Category == b.Category && a.BlastRadius == b.BlastRadius &&
		a.Reversibility == b.Reversibility && a.ApprovalRecommendation == b.ApprovalRecommendation &&
		a.MinTrustLevel == b.MinTrustLevel && slices.Equal(a.SideEffects, b.SideEffects)
}
