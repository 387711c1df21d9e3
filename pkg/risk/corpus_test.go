package risk

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
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
	// Reversibility and SensitiveRead are reported beside the targets:
	// the SEP's reversibility and whether the tool can reveal secrets.
	Reversibility string `json:"reversibility"`
	SensitiveRead bool   `json:"sensitiveRead"`
}

func corpusRoot(t testing.TB) string {
	return corpus.Dir(t)
}

// loadFolder assesses every tool of one corpus folder, keyed by
// "server/tool", and reads its labels.
func loadFolder(t testing.TB, dir string) (map[string]Assessment, []label) {
	out := map[string]Assessment{}
	for f, cat := range folderCatalogues(t, dir) {
		server := strings.TrimSuffix(filepath.Base(f), ".json")
		domain := ReadDomain(cat.Tools)
		for _, tool := range cat.Tools {
			out[server+"/"+tool.Name] = Assess(Input{Tool: tool, Domain: domain})
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

// folderCatalogues yields each server file of a corpus folder with its
// parsed catalogue, failing the test on a file that does not read or parse.
func folderCatalogues(t testing.TB, dir string) iter.Seq2[string, *tooldef.Catalogue] {
	return func(yield func(string, *tooldef.Catalogue) bool) {
		files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if !yield(f, cat) {
				return
			}
		}
	}
}

// corpusFigures counts the five agreement figures the engine is held to.
type corpusFigures struct {
	dangerous, dangerousHigh int
	benign, benignLow        int
	category, blast, risk    int
	reversibility, sensitive int
	total                    int
	misses                   []string
	// classes counts misses by their kind and values alone ("category
	// write, label admin"), without the tool.
	classes map[string]int
}

func (f *corpusFigures) add(g corpusFigures) {
	f.dangerous += g.dangerous
	f.dangerousHigh += g.dangerousHigh
	f.benign += g.benign
	f.benignLow += g.benignLow
	f.category += g.category
	f.blast += g.blast
	f.risk += g.risk
	f.reversibility += g.reversibility
	f.sensitive += g.sensitive
	f.total += g.total
	f.misses = append(f.misses, g.misses...)
	for c, n := range g.classes {
		if f.classes == nil {
			f.classes = map[string]int{}
		}
		f.classes[c] += n
	}
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

// reportedRows are figures printed beside the targets, with no target of
// their own: the rest of the SEP vocabulary the labels carry.
func (f corpusFigures) reportedRows() []figure {
	return []figure{
		{name: "reversibility equal to the label", got: f.reversibility, of: f.total},
		{name: "data_exfiltration side effect exactly where the label says the tool can reveal secrets", got: f.sensitive, of: f.total},
	}
}

// heldOutSeed fixes which servers of each folder are held back. A rule is
// written from the misses of the written-from part only; the held-back part
// says whether it holds for servers it was not written from. Changing the
// seed after rules were written against a split defeats the purpose: the
// new held-back part will have been looked at.
const heldOutSeed = "toolgate held-back servers, first draw"

// heldBack reports whether a server of a folder is in the held-back part:
// about one server in three, chosen by a digest of the seed, the folder and
// the server's file name, so the split is fixed, independent of the order
// of files, and new servers fall on either side by the same rule.
func heldBack(folder, server string) bool {
	sum := sha256.Sum256([]byte(heldOutSeed + "\x00" + folder + "\x00" + server))
	return sum[0]%3 == 0
}

// folderParts are one folder's figures over all its servers and over each
// part of the split.
type folderParts struct {
	all, writtenFrom, heldBack corpusFigures
}

// measureFolder compares one folder's judgements with its labels, over the
// whole folder and over each part of the held-out split.
func measureFolder(t testing.TB, folder string) folderParts {
	results, labels := loadFolder(t, corpus.FolderDir(t, folder))
	var p folderParts
	for _, l := range labels {
		key := l.Server + "/" + l.Tool
		a, ok := results[key]
		if !ok {
			t.Fatalf("labelled tool %s/%s is not in the corpus folder %s", l.Server, l.Tool, folder)
		}
		one := compareLabel(folder+"/"+key, a, l)
		p.all.add(one)
		if heldBack(folder, l.Server) {
			p.heldBack.add(one)
		} else {
			p.writtenFrom.add(one)
		}
	}
	return p
}

// compareLabel counts one labelled tool's agreement with its judgement.
func compareLabel(where string, a Assessment, l label) corpusFigures {
	var f corpusFigures
	f.total++
	if l.Category == "delete" || l.Category == "destroy" || l.RiskLevel == "critical" {
		f.dangerous++
		if a.Level >= L4 {
			f.dangerousHigh++
		} else {
			f.miss("DANGEROUS", fmt.Sprintf("%s scored %s (%s/%s), label %s/%s", where, a.Level, a.SEP.Category, a.SEP.RiskLevel, l.Category, l.RiskLevel),
				fmt.Sprintf("dangerous %s (label %s/%s) scored %s", a.SEP.Category, l.Category, l.RiskLevel, a.Level))
		}
	}
	if (l.Category == "read" || l.Category == "observe" || l.Category == "utility") && l.RiskLevel == "low" {
		f.benign++
		if a.Level <= L3 {
			f.benignLow++
		} else {
			f.miss("BENIGN", fmt.Sprintf("%s scored %s: %v %v", where, a.Level, a.Floors, a.Reasons),
				fmt.Sprintf("low-risk %s scored %s", l.Category, a.Level))
		}
	}
	if a.SEP.Category == l.Category {
		f.category++
	} else {
		f.miss("CATEGORY", fmt.Sprintf("%s: %s, label %s", where, a.SEP.Category, l.Category),
			fmt.Sprintf("category %s, label %s", a.SEP.Category, l.Category))
	}
	if a.SEP.BlastRadius == l.BlastRadius {
		f.blast++
	} else {
		f.miss("BLAST", fmt.Sprintf("%s: %s, label %s (%s)", where, a.SEP.BlastRadius, l.BlastRadius, blastReason(a)),
			fmt.Sprintf("blast radius %s, label %s", a.SEP.BlastRadius, l.BlastRadius))
	}
	if a.SEP.Reversibility == l.Reversibility {
		f.reversibility++
	}
	if slices.Contains(a.SEP.SideEffects, "data_exfiltration") == l.SensitiveRead {
		f.sensitive++
	}
	if a.SEP.RiskLevel == l.RiskLevel {
		f.risk++
	} else {
		f.miss("RISK", fmt.Sprintf("%s: %s, label %s (%s, %s)", where, a.SEP.RiskLevel, l.RiskLevel, a.SEP.Category, l.Category),
			fmt.Sprintf("riskLevel %s, label %s", a.SEP.RiskLevel, l.RiskLevel))
	}
	return f
}

// miss records one disagreement: in full (naming the tool) and as its
// class alone, which is all that is printed of the held-back part.
func (f *corpusFigures) miss(kind, detail, class string) {
	f.misses = append(f.misses, kind+" "+detail)
	if f.classes == nil {
		f.classes = map[string]int{}
	}
	f.classes[class]++
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

// corpusRatchets hold, per part, the figure achieved so far where a
// target is not yet reached: the test fails if a change falls below it, so
// the gap can only close. A figure absent here is held to its target. The
// values are the achieved percentages rounded down to a tenth. The parts are
// each folder whole ("dev") and its held-back servers ("dev held-back").
var corpusRatchets = map[string]map[int]float64{
	"dev":             {},
	"dev-2":           {},
	"dev held-back":   {},
	"dev-2 held-back": {},
}

// TestCorpusFigures prints how the engine agrees with the reviewers'
// labels, per corpus folder, per part of its held-out split and over all
// of them together. TOOLGATE_CORPUS_MISSES=1 (or a substring to match)
// lists the written-from part's misses one by one; the held-back part's
// are printed only by class, so that no rule is written from them.
func TestCorpusFigures(t *testing.T) {
	var all, allWritten, allHeld corpusFigures
	for _, folder := range corpus.Folders() {
		p := measureFolder(t, folder)
		all.add(p.all)
		allWritten.add(p.writtenFrom)
		allHeld.add(p.heldBack)
		printFigures(folder, p.all)
		printFigures(folder+" written-from", p.writtenFrom)
		printFigures(folder+" held-back", p.heldBack)
	}
	printFigures("all", all)
	printFigures("all written-from", allWritten)
	printFigures("all held-back", allHeld)
	printClasses("held-back", allHeld)
	if m := os.Getenv("TOOLGATE_CORPUS_MISSES"); m != "" {
		for _, miss := range allWritten.misses {
			if m == "1" || strings.Contains(miss, m) {
				t.Log(miss)
			}
		}
	}
}

func printFigures(part string, f corpusFigures) {
	for i, r := range f.rows() {
		fmt.Printf("corpus %s: %s: %d/%d (%.1f%%, target %.0f%%)\n", part, r.name, r.got, r.of, pct(r.got, r.of), corpusTargets[i])
	}
	for _, r := range f.reportedRows() {
		fmt.Printf("corpus %s: %s: %d/%d (%.1f%%, reported)\n", part, r.name, r.got, r.of, pct(r.got, r.of))
	}
}

// printClasses prints a part's misses by class, the most frequent first.
func printClasses(part string, f corpusFigures) {
	classes := make([]string, 0, len(f.classes))
	for c := range f.classes {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool {
		if f.classes[classes[i]] != f.classes[classes[j]] {
			return f.classes[classes[i]] > f.classes[classes[j]]
		}
		return classes[i] < classes[j]
	})
	for _, c := range classes {
		fmt.Printf("corpus %s miss: %s: %d\n", part, c, f.classes[c])
	}
}

// TestCorpusTargets holds the engine to the figures the project promises,
// on each corpus folder and on each folder's held-back part.
func TestCorpusTargets(t *testing.T) {
	for _, folder := range corpus.Folders() {
		p := measureFolder(t, folder)
		for part, f := range map[string]corpusFigures{folder: p.all, folder + " held-back": p.heldBack} {
			for i, r := range f.rows() {
				want := corpusTargets[i]
				if ratchet, ok := corpusRatchets[part][i]; ok {
					want = ratchet
				}
				if got := pct(r.got, r.of); got < want-1e-9 {
					t.Errorf("%s: %s: %d/%d = %.1f%%, below %.1f%%", part, r.name, r.got, r.of, got, want)
				}
			}
		}
	}
}

// TestHeldOutSplit keeps the split meaningful: each folder's held-back part
// holds between a quarter and a half of its servers, and some of every kind
// of labelled tool the targets count.
func TestHeldOutSplit(t *testing.T) {
	for _, folder := range corpus.Folders() {
		servers := corpus.FolderServers(t, folder)
		held := 0
		for _, f := range servers {
			if heldBack(folder, strings.TrimSuffix(filepath.Base(f), ".json")) {
				held++
			}
		}
		if held*4 < len(servers) || held*2 > len(servers) {
			t.Errorf("%s: %d of %d servers held back, want a quarter to a half", folder, held, len(servers))
		}
		p := measureFolder(t, folder)
		if p.heldBack.dangerous == 0 || p.heldBack.benign == 0 {
			t.Errorf("%s: the held-back part has %d dangerous and %d low-risk labelled tools; it must have some of each", folder, p.heldBack.dangerous, p.heldBack.benign)
		}
	}
}
