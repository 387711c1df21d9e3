package risk

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
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

// loadFolder assesses every tool of one corpus folder, keyed by
// "server/tool", and reads its labels.
func loadFolder(t testing.TB, dir string) (map[string]Assessment, []label) {
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

// corpusFigures counts the five agreement figures the engine is held to.
type corpusFigures struct {
	dangerous, dangerousHigh int
	benign, benignLow        int
	category, blast, risk    int
	total                    int
	misses                   []string
}

func (f *corpusFigures) add(g corpusFigures) {
	f.dangerous += g.dangerous
	f.dangerousHigh += g.dangerousHigh
	f.benign += g.benign
	f.benignLow += g.benignLow
	f.category += g.category
	f.blast += g.blast
	f.risk += g.risk
	f.total += g.total
	f.misses = append(f.misses, g.misses...)
}

// figure is one row of the table: its name, count and total.
type figure struct {
	name    string
	got, of int
}

func (f corpusFigures) rows() []figure {
	return []figure{
		{name: "dangerous tools at L4 or higher", got: f.dangerousHigh, of: f.dangerous},
		{name: "low-risk read/observe/utility tools at L3 or lower", got: f.benignLow, of: f.benign},
		{name: "category equal to the label", got: f.category, of: f.total},
		{name: "blast radius equal to the label", got: f.blast, of: f.total},
		{name: "riskLevel equal to the label", got: f.risk, of: f.total},
	}
}

// measureFolder compares one folder's judgements with its labels.
func measureFolder(t testing.TB, folder string) corpusFigures {
	results, labels := loadFolder(t, corpus.FolderDir(t, folder))
	var f corpusFigures
	for _, l := range labels {
		key := l.Server + "/" + l.Tool
		a, ok := results[key]
		if !ok {
			t.Fatalf("labelled tool %s/%s is not in the corpus folder %s", l.Server, l.Tool, folder)
		}
		where := folder + "/" + key
		f.total++
		if l.Category == "delete" || l.Category == "destroy" || l.RiskLevel == "critical" {
			f.dangerous++
			if a.Level >= L4 {
				f.dangerousHigh++
			} else {
				f.misses = append(f.misses, fmt.Sprintf("DANGEROUS %s scored %s (%s/%s), label %s/%s", where, a.Level, a.SEP.Category, a.SEP.RiskLevel, l.Category, l.RiskLevel))
			}
		}
		if (l.Category == "read" || l.Category == "observe" || l.Category == "utility") && l.RiskLevel == "low" {
			f.benign++
			if a.Level <= L3 {
				f.benignLow++
			} else {
				f.misses = append(f.misses, fmt.Sprintf("BENIGN %s scored %s: %v %v", where, a.Level, a.Floors, a.Reasons))
			}
		}
		if a.SEP.Category == l.Category {
			f.category++
		} else {
			f.misses = append(f.misses, fmt.Sprintf("CATEGORY %s: %s, label %s", where, a.SEP.Category, l.Category))
		}
		if a.SEP.BlastRadius == l.BlastRadius {
			f.blast++
		} else {
			f.misses = append(f.misses, fmt.Sprintf("BLAST %s: %s, label %s (%s)", where, a.SEP.BlastRadius, l.BlastRadius, blastReason(a)))
		}
		if a.SEP.RiskLevel == l.RiskLevel {
			f.risk++
		} else {
			f.misses = append(f.misses, fmt.Sprintf("RISK %s: %s, label %s (%s, %s)", where, a.SEP.RiskLevel, l.RiskLevel, a.SEP.Category, l.Category))
		}
	}
	return f
}

func blastReason(a Assessment) string {
	for _, r := range a.Reasons {
		if strings.HasPrefix(r, "blast radius ") {
			return r
		}
	}
	return ""
}

func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// corpusTargets are the targets the engine is held to on every folder,
// in the order of corpusFigures.rows: dangerous tools at L4 or higher 100%,
// low-risk reads at L3 or lower 97%, category 90%, blast radius 80%,
// riskLevel 80%.
var corpusTargets = []float64{100, 97, 90, 80, 80}

// corpusRatchets hold, per folder, the figure achieved so far where a
// target is not yet reached: the test fails if a change falls below it, so
// the gap can only close. A figure absent here is held to its target. The
// values are the achieved percentages rounded down to a tenth.
var corpusRatchets = map[string]map[int]float64{
	// Every figure of both folders meets its target.
	"dev":   {},
	"dev-2": {},
}

// TestCorpusFigures prints how the engine agrees with the reviewers'
// labels, per corpus folder and over all of them together.
func TestCorpusFigures(t *testing.T) {
	var all corpusFigures
	for _, folder := range corpus.Folders() {
		f := measureFolder(t, folder)
		all.add(f)
		printFigures(folder, f)
	}
	printFigures("all", all)
	if os.Getenv("TOOLGATE_CORPUS_MISSES") != "" {
		for _, m := range all.misses {
			if strings.Contains(m, os.Getenv("TOOLGATE_CORPUS_MISSES")) || os.Getenv("TOOLGATE_CORPUS_MISSES") == "1" {
				t.Log(m)
			}
		}
	}
}

func printFigures(folder string, f corpusFigures) {
	for i, r := range f.rows() {
		fmt.Printf("corpus %s: %s: %d/%d (%.1f%%, target %.0f%%)\n", folder, r.name, r.got, r.of, pct(r.got, r.of), corpusTargets[i])
	}
}

// TestCorpusTargets holds the engine to the figures the project promises,
// on each corpus folder.
func TestCorpusTargets(t *testing.T) {
	for _, folder := range corpus.Folders() {
		f := measureFolder(t, folder)
		for i, r := range f.rows() {
			want := corpusTargets[i]
			if ratchet, ok := corpusRatchets[folder][i]; ok {
				want = ratchet
			}
			if p := pct(r.got, r.of); p < want-1e-9 {
				t.Errorf("%s: %s: %d/%d = %.1f%%, below %.1f%%", folder, r.name, r.got, r.of, p, want)
			}
		}
	}
}
