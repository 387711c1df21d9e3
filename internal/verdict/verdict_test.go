package verdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/internal/crdschema"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// TestEveryVerdictIsAdmitted judges every server of the development corpus
// (both folders), under several postures, and checks each record the
// operator would write against the CRD schema, as the API server will: a
// value the engine starts to emit that an enum or a bound does not allow
// fails here, not at admission in a cluster.
func TestEveryVerdictIsAdmitted(t *testing.T) {
	dev := corpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dev, "servers", "*.json"))
	more, _ := filepath.Glob(filepath.Join(filepath.Dir(dev), "dev-2", "servers", "*.json"))
	files = append(files, more...)
	if len(files) < 30 {
		t.Fatalf("only %d corpus servers found", len(files))
	}
	postures := []risk.Posture{
		{},
		{URL: "http://mcp.example.com/mcp", Transport: risk.TransportSSE},
		{URL: "http://tools.default.svc:8080/mcp", InCluster: true, Trust: "Internal",
			Reach: risk.Reach{ClusterWide: true, Secrets: true, Findings: []string{"can delete pods in every namespace"}}},
	}
	validServer := crdschema.Validator(t, "mcpservers", "status.risk")
	validTool := crdschema.Validator(t, "toolpins", "status.computedRisk")
	seen := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range postures {
			report := vet.Vet([]vet.Server{{Name: filepath.Base(f), Catalogue: cat, Posture: p}})
			if errs := validServer(ServerRisk(report.Servers[0])); len(errs) > 0 {
				t.Errorf("%s: the server's risk is refused: %v", f, errs.ToAggregate())
			}
			for _, tool := range report.Tools {
				record := ToolRisk(tool)
				if errs := validTool(record); len(errs) > 0 {
					t.Errorf("%s/%s: the tool's risk is refused: %v", f, tool.Name, errs.ToAggregate())
				}
				for field, value := range map[string]string{
					"level": string(record.Level), "category": string(record.Category), "blastRadius": string(record.BlastRadius),
					"riskLevel": string(record.RiskLevel), "reversibility": string(record.Reversibility),
					"approvalRecommendation": string(record.ApprovalRecommendation),
				} {
					if seen[field] == nil {
						seen[field] = map[string]bool{}
					}
					seen[field][value] = true
				}
			}
		}
	}
	// What the corpus gave is in the engine's vocabulary, so the check of
	// the whole vocabulary below covers it.
	vocabulary := risk.Vocabulary()
	for field, values := range seen {
		for value := range values {
			if !slices.Contains(vocabulary[field], value) {
				t.Errorf("the engine gave %s %q, which risk.Vocabulary does not list", field, value)
			}
		}
	}
}

// TestTheEnginesVocabularyFitsTheCRD checks every value the engine can give
// each field against the CRD's enum of that field, values the corpus never
// produces included.
func TestTheEnginesVocabularyFitsTheCRD(t *testing.T) {
	for field, values := range risk.Vocabulary() {
		enum := crdschema.Field(t, "toolpins", "status.computedRisk."+field).Enum
		if len(enum) == 0 {
			t.Errorf("status.computedRisk.%s has no enum", field)
			continue
		}
		allowed := map[string]bool{}
		for _, e := range enum {
			var v string
			if err := json.Unmarshal(e.Raw, &v); err != nil {
				t.Fatal(err)
			}
			allowed[v] = true
		}
		for _, v := range values {
			if !allowed[v] {
				t.Errorf("the engine may give %s %q, which the CRD refuses", field, v)
			}
		}
	}
}

func TestToolRiskKeepsWithinTheBounds(t *testing.T) {
	long := strings.Repeat("é", 1000) // two bytes a rune: a byte cut would split one
	report := vet.ToolReport{
		Level: "L4", EffectiveLevel: "L3",
		Risk: risk.SEP{RiskLevel: "high", Category: "mutate", BlastRadius: "namespace", Reversibility: "manual",
			SideEffects: []string{long}, ApprovalRecommendation: "single", MinTrustLevel: 4},
		Floors:        []string{long},
		Disagreements: []string{"riskLevel: declared low"},
	}
	for range 40 {
		report.Reasons = append(report.Reasons, long)
		report.Findings = append(report.Findings, risk.Finding{Signal: long, Field: long, Excerpt: long})
	}
	record := ToolRisk(report)
	if errs := crdschema.Validate(t, "toolpins", "status.computedRisk", record); len(errs) > 0 {
		t.Fatalf("refused: %v", errs.ToAggregate())
	}
	// The check itself must refuse what the API server refuses.
	bad := record.DeepCopy()
	bad.Category = "rewrite"
	if errs := crdschema.Validate(t, "toolpins", "status.computedRisk", bad); len(errs) == 0 {
		t.Error("a category outside the enum was admitted by the schema check")
	}
	if len(record.Reasons) != toolgatev1alpha1.MaxToolReasons || len(record.Findings) != toolgatev1alpha1.MaxToolFindings {
		t.Errorf("%d reasons and %d findings, want the API's caps", len(record.Reasons), len(record.Findings))
	}
}

func TestApplyOverride(t *testing.T) {
	computed := &toolgatev1alpha1.ToolRisk{Level: toolgatev1alpha1.LevelCritical, EffectiveLevel: toolgatev1alpha1.LevelHigh,
		RiskLevel: toolgatev1alpha1.RiskCritical, Category: toolgatev1alpha1.CategoryDestroy, BlastRadius: toolgatev1alpha1.BlastCluster}
	full := computed.DeepCopy()
	for range toolgatev1alpha1.MaxToolReasons {
		full.Reasons = append(full.Reasons, "an engine reason")
	}
	for _, c := range []struct {
		name     string
		risk     *toolgatev1alpha1.ToolRisk
		override *toolgatev1alpha1.ClassificationOverride
		check    func(t *testing.T, got *toolgatev1alpha1.ToolRisk)
	}{
		{"no override leaves the record", computed, nil, func(t *testing.T, got *toolgatev1alpha1.ToolRisk) {
			if got != computed {
				t.Error("changed")
			}
		}},
		{"no record stays none", nil, &toolgatev1alpha1.ClassificationOverride{Level: "L1", Reason: "x"}, func(t *testing.T, got *toolgatev1alpha1.ToolRisk) {
			if got != nil {
				t.Error("made a record")
			}
		}},
		{"a level sets both levels, not what the tool does", computed, &toolgatev1alpha1.ClassificationOverride{Level: toolgatev1alpha1.LevelModerate, Reason: "sandboxed"},
			func(t *testing.T, got *toolgatev1alpha1.ToolRisk) {
				if got.Level != "L3" || got.EffectiveLevel != "L3" || got.RiskLevel != toolgatev1alpha1.RiskCritical || !got.Overridden {
					t.Errorf("%+v", got)
				}
				if computed.Level != toolgatev1alpha1.LevelCritical || computed.Overridden {
					t.Error("the computed record was changed in place")
				}
			}},
		{"category and blast radius alone keep the level", computed, &toolgatev1alpha1.ClassificationOverride{Category: toolgatev1alpha1.CategoryMutate, BlastRadius: toolgatev1alpha1.BlastItem, Reason: "one row"},
			func(t *testing.T, got *toolgatev1alpha1.ToolRisk) {
				if got.Level != toolgatev1alpha1.LevelCritical || got.Category != toolgatev1alpha1.CategoryMutate || got.BlastRadius != toolgatev1alpha1.BlastItem {
					t.Errorf("%+v", got)
				}
			}},
		{"the override's reason survives a full list", full, &toolgatev1alpha1.ClassificationOverride{Level: "L2", Reason: "reviewed by the platform team"},
			func(t *testing.T, got *toolgatev1alpha1.ToolRisk) {
				if n := len(got.Reasons); n != toolgatev1alpha1.MaxToolReasons || got.Reasons[n-1] != "human override: reviewed by the platform team" {
					t.Errorf("%d reasons, last %q", n, got.Reasons[len(got.Reasons)-1])
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, ApplyOverride(c.risk, c.override)) })
	}
}

func TestLevelOf(t *testing.T) {
	if LevelOf(nil) != toolgatev1alpha1.LevelCritical || LevelOf(&toolgatev1alpha1.ToolRisk{}) != toolgatev1alpha1.LevelCritical {
		t.Error("an unjudged tool must count as the worst")
	}
	if LevelOf(&toolgatev1alpha1.ToolRisk{Level: "L1"}) != "L1" {
		t.Error("a judged tool counts at its level")
	}
}
