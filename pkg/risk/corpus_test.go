package risk

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/toolgate/toolgate/internal/corpus"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

type label struct {
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Category    string `json:"category"`
	RiskLevel   string `json:"riskLevel"`
	BlastRadius string `json:"blastRadius"`
}

func corpusRoot(t testing.TB) string {
	return corpus.Dir(t)
}

// loadCorpus assesses every tool of the development corpus, keyed by
// "server/tool".
func loadCorpus(t testing.TB) (map[string]Assessment, []label) {
	dir := corpusRoot(t)
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	out := map[string]Assessment{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		server := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, tool := range cat.Tools {
			out[server+"/"+tool.Name] = Assess(Input{Tool: tool})
		}
	}
	lf, err := os.Open(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	var labels []label
	sc := bufio.NewScanner(lf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l label
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, l)
	}
	return out, labels
}

// corpusFigures computes the four agreement figures the engine is held to.
type corpusFigures struct {
	dangerous, dangerousHigh int
	benign, benignLow        int
	category, blast, total   int
	misses                   []string
}

func measure(t testing.TB) corpusFigures {
	results, labels := loadCorpus(t)
	var f corpusFigures
	for _, l := range labels {
		a, ok := results[l.Server+"/"+l.Tool]
		if !ok {
			t.Fatalf("labelled tool %s/%s is not in the corpus", l.Server, l.Tool)
		}
		f.total++
		if l.Category == "delete" || l.Category == "destroy" || l.RiskLevel == "critical" {
			f.dangerous++
			if a.Level >= L4 {
				f.dangerousHigh++
			} else {
				f.misses = append(f.misses, fmt.Sprintf("DANGEROUS %s/%s scored %s (%s/%s)", l.Server, l.Tool, a.Level, a.SEP.Category, a.SEP.RiskLevel))
			}
		}
		if (l.Category == "read" || l.Category == "observe" || l.Category == "utility") && l.RiskLevel == "low" {
			f.benign++
			if a.Level <= L3 {
				f.benignLow++
			} else {
				f.misses = append(f.misses, fmt.Sprintf("BENIGN %s/%s scored %s: %v %v", l.Server, l.Tool, a.Level, a.Floors, a.Reasons))
			}
		}
		if a.SEP.Category == l.Category {
			f.category++
		} else {
			f.misses = append(f.misses, fmt.Sprintf("CATEGORY %s/%s: %s, label %s", l.Server, l.Tool, a.SEP.Category, l.Category))
		}
		if a.SEP.BlastRadius == l.BlastRadius {
			f.blast++
		} else {
			f.misses = append(f.misses, fmt.Sprintf("BLAST %s/%s: %s, label %s", l.Server, l.Tool, a.SEP.BlastRadius, l.BlastRadius))
		}
	}
	return f
}

func pct(n, d int) float64 { return 100 * float64(n) / float64(d) }

// TestCorpusFigures prints how the engine agrees with the reviewers' labels
// of the development corpus.
func TestCorpusFigures(t *testing.T) {
	f := measure(t)
	if os.Getenv("TOOLGATE_CORPUS_MISSES") != "" {
		for _, m := range f.misses {
			t.Log(m)
		}
	}
	fmt.Printf("corpus: dangerous tools at L4 or higher: %d/%d (%.1f%%, target 100%%)\n", f.dangerousHigh, f.dangerous, pct(f.dangerousHigh, f.dangerous))
	fmt.Printf("corpus: low-risk read/observe/utility tools at L3 or lower: %d/%d (%.1f%%, target 90%%)\n", f.benignLow, f.benign, pct(f.benignLow, f.benign))
	fmt.Printf("corpus: category equal to the label: %d/%d (%.1f%%, target 85%%)\n", f.category, f.total, pct(f.category, f.total))
	fmt.Printf("corpus: blast radius equal to the label: %d/%d (%.1f%%, target 75%%)\n", f.blast, f.total, pct(f.blast, f.total))
}

// TestCorpusTargets holds the engine to the figures the project promises.
func TestCorpusTargets(t *testing.T) {
	f := measure(t)
	check := func(name string, got, total int, target float64) {
		t.Helper()
		if p := pct(got, total); p < target {
			t.Errorf("%s: %d/%d = %.1f%%, below %.1f%%", name, got, total, p, target)
		}
	}
	check("dangerous tools at L4 or higher", f.dangerousHigh, f.dangerous, 100)
	check("low-risk read/observe/utility tools at L3 or lower", f.benignLow, f.benign, 90)
	check("category equal to the label", f.category, f.total, 85)
	check("blast radius equal to the label", f.blast, f.total, 75)
}
