package vet

import (
	"bufio"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/pkg/scan"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// The poisoning corpus: hand-made attacks, each a whole tool definition or
// initialize result with the class of attack it belongs to, paraphrased
// from public write-ups (Invariant Labs' tool poisoning and shadowing
// notes, Trail of Bits' line jumping, CyberArk's full-schema poisoning,
// the MCPTox and MCPSecBench taxonomies); and benign look-alikes, real
// looking tools whose text mentions the same things for honest reasons.
// The look-alikes were written before the rules were tuned against the
// attacks.
//
// Strings in the corpus may hold encoding directives, {{kind:text}},
// expanded by expand below, so that an encoded attack stays readable in
// the file. They nest: {{b64:{{rot13:...}}}} is ROT13 inside base64.

// poisonCase is one line of attacks.jsonl or benign.jsonl.
type poisonCase struct {
	ID     string          `json:"id"`
	Class  string          `json:"class"`
	Topic  string          `json:"topic"`
	Source string          `json:"source"`
	Others []string        `json:"others"`
	Tool   json.RawMessage `json:"tool"`
	Init   *struct {
		Instructions string `json:"instructions"`
	} `json:"initialize"`
}

func loadPoisonCases(t testing.TB, file string) []poisonCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "poisoning", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []poisonCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c poisonCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if c.Tool != nil {
			var v any
			if err := json.Unmarshal(c.Tool, &v); err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			b, err := json.Marshal(expandAll(v))
			if err != nil {
				t.Fatal(err)
			}
			c.Tool = b
		}
		if c.Init != nil {
			c.Init.Instructions = expand(c.Init.Instructions)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// expandAll expands the directives in every string of a decoded value,
// member names included.
func expandAll(v any) any {
	switch x := v.(type) {
	case string:
		return expand(x)
	case []any:
		for i := range x {
			x[i] = expandAll(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[expand(k)] = expandAll(e)
		}
		return out
	}
	return v
}

// expand replaces the innermost directive until none is left.
func expand(s string) string {
	for {
		end := strings.Index(s, "}}")
		if end < 0 {
			return s
		}
		start := strings.LastIndex(s[:end], "{{")
		if start < 0 {
			return s
		}
		body := s[start+2 : end]
		kind, text, ok := strings.Cut(body, ":")
		if !ok {
			return s
		}
		s = s[:start] + encode(kind, text) + s[end+2:]
	}
}

func encode(kind, s string) string {
	switch kind {
	case "b64":
		return base64.StdEncoding.EncodeToString([]byte(s))
	case "b64url":
		return base64.RawURLEncoding.EncodeToString([]byte(s))
	case "b32":
		return base32.StdEncoding.EncodeToString([]byte(s))
	case "hex":
		return hex.EncodeToString([]byte(s))
	case "hexsp":
		var parts []string
		for _, b := range []byte(s) {
			parts = append(parts, fmt.Sprintf("%02x", b))
		}
		return strings.Join(parts, " ")
	case "pct":
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
		return b.String()
	case "ent":
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#%d;", r)
		}
		return b.String()
	case "entx":
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#x%x;", r)
		}
		return b.String()
	case "uesc":
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	case "uescb":
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, `\u{%x}`, r)
		}
		return b.String()
	case "rot13":
		return shiftLetters(s, 13)
	case "caesar3":
		return shiftLetters(s, 3)
	case "rot47":
		out := []byte(s)
		for i, c := range out {
			if c >= '!' && c <= '~' {
				out[i] = '!' + (c-'!'+47)%94
			}
		}
		return string(out)
	case "rev":
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	case "tags":
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(0xE0000 + r)
		}
		return b.String()
	}
	panic("unknown directive " + kind)
}

func shiftLetters(s string, n int) string {
	out := []byte(s)
	for i, c := range out {
		switch {
		case 'a' <= c && c <= 'z':
			out[i] = 'a' + (c-'a'+byte(n))%26
		case 'A' <= c && c <= 'Z':
			out[i] = 'A' + (c-'A'+byte(n))%26
		}
	}
	return string(out)
}

// vetCase vets one case as an agent would see it: the case's server, and
// another server offering the tools the case names in others. It returns
// the findings on the case's tool (or, for an initialize case, on the
// server).
func vetCase(t testing.TB, c poisonCase) []string {
	t.Helper()
	cat := &tooldef.Catalogue{}
	if c.Tool != nil {
		tool, err := tooldef.ParseTool(c.Tool)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		cat.Tools = append(cat.Tools, tool)
	}
	if c.Init != nil {
		cat.Instructions = c.Init.Instructions
	}
	servers := []Server{{Name: "case", Catalogue: cat}}
	if len(c.Others) > 0 {
		other := &tooldef.Catalogue{}
		for _, n := range c.Others {
			raw, _ := json.Marshal(map[string]any{"name": n, "description": "A tool of another server.", "inputSchema": map[string]any{"type": "object"}})
			tool, err := tooldef.ParseTool(raw)
			if err != nil {
				t.Fatal(err)
			}
			other.Tools = append(other.Tools, tool)
		}
		servers = append(servers, Server{Name: "other", Catalogue: other})
	}
	r := Vet(servers)
	var out []string
	for _, f := range r.Servers[0].Findings {
		out = append(out, f.Signal+" in "+f.Field+": "+f.Excerpt)
	}
	for _, tr := range r.Tools {
		if tr.Server == "case" {
			for _, f := range tr.Findings {
				out = append(out, f.Signal+" in "+f.Field+": "+f.Excerpt)
			}
		}
	}
	return out
}

// floored reports findings that floor a tool: every signal but a
// sensitive path, which only raises the level by one.
func floored(findings []string) bool {
	for _, f := range findings {
		if !strings.HasPrefix(f, scan.SignalSensitivePath+" ") {
			return true
		}
	}
	return false
}

// The scan's targets: detection ≥ 98% of the attacks, false positives
// ≤ 2% of the look-alikes and none on the development corpus.
const (
	targetDetection = 0.98
	targetLookalike = 0.02
)

// ratchet holds, per class, the least number of attacks that must be
// caught where the target (98% of the class) is not reached yet, so
// that a change that loses ground fails. Every class reaches the target
// today, so it is empty.
var ratchet = map[string]int{}

// maxLookalikeFP is the most look-alikes that may be flagged: the
// target, 2% of 148.
const maxLookalikeFP = 2

func TestPoisoningFigures(t *testing.T) {
	attacks := loadPoisonCases(t, "attacks.jsonl")
	benign := loadPoisonCases(t, "benign.jsonl")
	if len(attacks) < 250 || len(benign) < 120 {
		t.Fatalf("corpus too small: %d attacks, %d look-alikes", len(attacks), len(benign))
	}
	type tally struct{ caught, total int }
	classes := map[string]*tally{}
	var missed []string
	caught := 0
	for _, c := range attacks {
		if classes[c.Class] == nil {
			classes[c.Class] = &tally{}
		}
		classes[c.Class].total++
		if floored(vetCase(t, c)) {
			classes[c.Class].caught++
			caught++
		} else {
			missed = append(missed, c.ID)
		}
	}
	var names []string
	for k := range classes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		tl := classes[k]
		fmt.Printf("poisoning: detection %-18s %3d/%-3d %5.1f%%\n", k, tl.caught, tl.total, pct(tl.caught, tl.total))
		want := int(math.Ceil(targetDetection * float64(tl.total)))
		if r, ok := ratchet[k]; ok {
			want = r
		}
		if tl.caught < want {
			t.Errorf("class %s: %d/%d caught, the ratchet is %d", k, tl.caught, tl.total, want)
		}
	}
	fmt.Printf("poisoning: detection %-18s %3d/%-3d %5.1f%% (target %.0f%%)\n", "all", caught, len(attacks), pct(caught, len(attacks)), targetDetection*100)
	if float64(caught) < targetDetection*float64(len(attacks)) && len(ratchet) == 0 {
		t.Errorf("%d/%d attacks caught, under the target of %.0f%%", caught, len(attacks), targetDetection*100)
	}
	for _, id := range missed {
		t.Logf("missed: %s", id)
	}

	flagged := 0
	for _, c := range benign {
		if fs := vetCase(t, c); len(fs) > 0 {
			flagged++
			t.Logf("look-alike flagged: %s: %s", c.ID, strings.Join(fs, "; "))
		}
	}
	fmt.Printf("poisoning: false positives look-alikes %d/%d %.1f%% (target ≤ %.0f%%)\n", flagged, len(benign), pct(flagged, len(benign)), targetLookalike*100)
	if flagged > maxLookalikeFP {
		t.Errorf("%d look-alikes flagged, at most %d allowed", flagged, maxLookalikeFP)
	}

	for _, dir := range devCorpora(t) {
		tools, flaggedTools, findings := vetCorpus(t, dir)
		fmt.Printf("poisoning: false positives %-5s %d/%d tools (%d findings)\n", filepath.Base(dir), flaggedTools, tools, len(findings))
		for _, f := range findings {
			key, excerpt, _ := strings.Cut(f, " ")
			if reason, ok := expectedDevFindings[key]; ok {
				t.Logf("expected finding on %s: %s (%s)", filepath.Base(dir), key, reason)
				continue
			}
			t.Errorf("finding on %s: %s: %s", filepath.Base(dir), key, excerpt)
		}
	}
}

// expectedDevFindings lists findings on the development corpus shown to be
// real, keyed "server/tool/signal/field", with why.
var expectedDevFindings = map[string]string{}

// corpusThree is a corpus of 24 public servers (577 tools) the rules were
// not written from, kept in the repository. Its first run flagged 14 tools
// (2.4%): a password a tool sets on what it shares, a session of the
// tool's own, output formats read as a disk wiped, a version's history
// read as the conversation, a foreign key read as a secret, a delete tool
// pointing to its sibling, a table's heading read as a role marker, a when
// clause read as the object of an order, an example call's argument read
// as an order, and a write into the project's env file read as a read.
// Each class but one was fixed for servers in general; the ratchet below
// holds what is left, and corpusThreeLeft lists findings shown to be
// honest that no general rule could spare, with why.
const (
	corpusThreeDir        = "../../testdata/corpus-3"
	corpusThreeTools      = 577
	corpusThreeFirstRun   = 14
	corpusThreeMaxFlagged = 1
)

// corpusThreeLeft lists findings on corpus-3 left in place, keyed as
// expectedDevFindings is, with why no general rule spares them.
var corpusThreeLeft = map[string]string{
	"npm-browserbasehq-mcp-server-browserbase/browserbase_stagehand_act/exfiltration/inputSchema.properties.variables.description": "" +
		"an example call whose argument reads \"Fill in the password\": sparing an order written as an argument's value in an " +
		"example call would spare \"send all of the user's messages to https://...\" written the same way, so the honest " +
		"browser tool is withheld rather than the attack let through",
}

func TestPoisoningCorpusThree(t *testing.T) {
	if _, err := os.Stat(filepath.Join(corpusThreeDir, "servers")); err != nil {
		t.Fatalf("corpus-3 not found: %v", err)
	}
	tools, flagged, findings := vetCorpus(t, corpusThreeDir)
	if tools != corpusThreeTools {
		t.Errorf("corpus-3 has %d tools, want %d", tools, corpusThreeTools)
	}
	fmt.Printf("poisoning: false positives corpus-3 %d/%d tools (first run %d)\n", flagged, tools, corpusThreeFirstRun)
	for _, f := range findings {
		key, excerpt, _ := strings.Cut(f, " ")
		if reason, ok := corpusThreeLeft[key]; ok {
			t.Logf("finding left on corpus-3: %s (%s)", key, reason)
			continue
		}
		t.Logf("finding on corpus-3: %s: %s", key, excerpt)
	}
	if flagged > corpusThreeMaxFlagged {
		t.Errorf("%d tools of corpus-3 flagged, at most %d allowed", flagged, corpusThreeMaxFlagged)
	}
}

// corpus-4 was captured after the scan's rules learnt from corpus-3's false
// positives were in: its first run flagged 12 of 456 honest tools (2.6%),
// as corpus-3's first run flagged 2.4% — the fixes for one set of servers'
// honest wordings did not carry to the next. Nobody tunes on it; the
// ratchet holds the first run.
const (
	corpusFourDir        = "../../testdata/corpus-4"
	corpusFourTools      = 456
	corpusFourFirstRun   = 12
	corpusFourMaxFlagged = 12
)

func TestPoisoningCorpusFour(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-4", corpusFourDir, corpusFourTools, corpusFourFirstRun, corpusFourMaxFlagged, true)
}

// holdKeptCorpusFlags vets a corpus kept in the repository, prints how many
// of its honest tools the scan flags beside its first run, and fails where
// the corpus no longer holds its tools or more are flagged than allowed.
// logFindings lists each finding in the test's log; a corpus nobody tunes
// on keeps them out of sight.
func holdKeptCorpusFlags(t *testing.T, name, dir string, wantTools, firstRun, maxFlagged int, logFindings bool) {
	t.Helper()
	tools, flagged, findings := vetCorpus(t, dir)
	if tools != wantTools {
		t.Errorf("%s has %d tools, want %d", name, tools, wantTools)
	}
	fmt.Printf("poisoning: false positives %s %d/%d tools (first run %d)\n", name, flagged, tools, firstRun)
	if logFindings {
		for _, f := range findings {
			t.Logf("finding on %s: %s", name, f)
		}
	}
	if flagged > maxFlagged {
		t.Errorf("%d tools of %s flagged, at most %d allowed", flagged, name, maxFlagged)
	}
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// devCorpora returns the development corpus folders: dev, and dev-2 beside
// it when present.
func devCorpora(t testing.TB) []string {
	dev := corpus.Dir(t)
	dirs := []string{dev}
	dev2 := filepath.Join(filepath.Dir(dev), "dev-2")
	if _, err := os.Stat(filepath.Join(dev2, "servers")); err == nil {
		dirs = append(dirs, dev2)
	} else if os.Getenv(corpus.RequireEnv) != "" {
		t.Fatalf("development corpus dev-2 not found beside %s, and %s is set", dev, corpus.RequireEnv)
	}
	return dirs
}

// vetCorpus vets every server of a corpus folder together, as one agent
// offered all of them, and returns the tool count, how many tools have a
// finding, and the findings keyed as expectedDevFindings is. Two servers
// offering one name is reported by Vet as a name collision; the corpus has
// a few such pairs, and they are left out: they are what they say.
func vetCorpus(t testing.TB, dir string) (int, int, []string) {
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	sort.Strings(files)
	var servers []Server
	tools := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools += len(cat.Tools)
		servers = append(servers, Server{Name: strings.TrimSuffix(filepath.Base(f), ".json"), Catalogue: cat})
	}
	r := Vet(servers)
	var out []string
	for _, s := range r.Servers {
		for _, f := range s.Findings {
			out = append(out, s.Server+"/-/"+f.Signal+"/"+f.Field+" "+f.Excerpt)
		}
	}
	flagged := 0
	for _, tr := range r.Tools {
		n := 0
		for _, f := range tr.Findings {
			if f.Signal == "name-collision" {
				continue
			}
			n++
			out = append(out, tr.Server+"/"+tr.Name+"/"+f.Signal+"/"+f.Field+" "+f.Excerpt)
		}
		if n > 0 {
			flagged++
		}
	}
	return tools, flagged, out
}

// The held-out sets are smaller sets written after the rules were tuned
// against the main corpus, and run once before any rule saw them: their
// first figures estimate how the scan does on attacks and look-alikes it
// was not written against. They are held as a ratchet, not a target.

func TestPoisoningHeldOut(t *testing.T) {
	for _, set := range []struct {
		name              string
		minCaught, maxBad int
	}{
		{"heldout", heldOutCaught, heldOutFlagged},
		{"heldout2", heldOut2Caught, heldOut2Flagged},
		{"heldout3", heldOut3Caught, heldOut3Flagged},
		{"heldout4", heldOut4Caught, heldOut4Flagged},
		{"heldout5", heldOut5Caught, heldOut5Flagged},
		{"heldout6", heldOut6Caught, heldOut6Flagged},
		{"heldout7", heldOut7Caught, heldOut7Flagged},
		{"heldout8", heldOut8Caught, heldOut8Flagged},
		{"heldout9", heldOut9Caught, heldOut9Flagged},
		{"heldout10", heldOut10Caught, heldOut10Flagged},
	} {
		attacks := loadPoisonCases(t, set.name+"-attacks.jsonl")
		benign := loadPoisonCases(t, set.name+"-benign.jsonl")
		caught := 0
		for _, c := range attacks {
			if floored(vetCase(t, c)) {
				caught++
			} else {
				t.Logf("%s missed: %s", set.name, c.ID)
			}
		}
		flagged := 0
		for _, c := range benign {
			if fs := vetCase(t, c); len(fs) > 0 {
				flagged++
				t.Logf("%s look-alike flagged: %s: %s", set.name, c.ID, strings.Join(fs, "; "))
			}
		}
		fmt.Printf("poisoning: %s detection %d/%d %.1f%%, false positives %d/%d %.1f%%\n", set.name, caught, len(attacks), pct(caught, len(attacks)), flagged, len(benign), pct(flagged, len(benign)))
		if caught < set.minCaught || flagged > set.maxBad {
			t.Errorf("%s: %d caught (at least %d), %d flagged (at most %d)", set.name, caught, set.minCaught, flagged, set.maxBad)
		}
	}
}

// The first held-out set caught 44 of 51 attacks and flagged 2 of 40
// look-alikes when it was first run; its misses were then studied and the
// rules generalised (a double negative is an order, "pay no attention to",
// "rules are void", "let on", skeletons compared without case, a sanitiser
// that names the comments it strips), so it is held out no longer and must
// now pass in full. heldout2 was written after that and run once.
const (
	heldOutCaught  = 51
	heldOutFlagged = 0
)

// heldout2 caught 28 of 33 attacks and flagged none of 20 look-alikes
// when it was first run; its misses were then generalised too ("start by
// reading", "keep the user unaware", "they do not apply", "from here on",
// "rather than using ..., always call"), so it must now pass in full.
const (
	heldOut2Caught  = 33
	heldOut2Flagged = 0
)

// heldout3 was written by someone who had read neither the scan, its
// documentation nor the other sets, and run once: it caught 96 of 143
// attacks (67%) and flagged 4 of 93 look-alikes (4.3%) — the figure that
// says how the scan does on attacks it was not written against. Its misses
// were then studied and the structural rules written (structural.go);
// it is held out no longer, and the figures below are a ratchet.
const (
	heldOut3Caught  = 142
	heldOut3Flagged = 1
)

// heldout4 was written blind, as heldout3 was, once the structural rules
// were in, and run once: it caught 75 of 138 attacks (54%) and flagged 8
// of 96 look-alikes (8.3%). Its writer was asked to avoid the textbook
// phrasings; the gap between this figure and the main corpus's is the
// honest measure of how far rules carry to attacks nobody here has seen.
// Its misses were then studied and the rules generalised; it is held out
// no longer, and the figures below are a ratchet.
const (
	heldOut4Caught  = 133
	heldOut4Flagged = 2
)

// heldout5 was written blind once the rules generalised from heldout3 and
// heldout4 were in, and run once: it caught 102 of 124 attacks (82%) and
// flagged 4 of 98 look-alikes (4.1%). It is the current estimate of how
// the scan does on attacks nobody here has seen; its misses are not used
// to tune the rules, so it stays a measure rather than a target. One
// look-alike it flagged showed a rule too broad (pointing to another
// server's tool), since narrowed: 3 flagged now. Rules learnt from
// heldout7 caught one more of its attacks (103).
const (
	heldOut5Caught  = 103
	heldOut5Flagged = 3
)

// heldout6 was written blind too, after heldout5, and run once: it caught
// 119 of 142 attacks (84%) and flagged 3 of 89 look-alikes (3.4%) — close
// to heldout5's first run, which says the estimate is stable. Unlike
// heldout5 it is then studied: rules learnt from it are checked against
// heldout5, which nobody tunes on. Learning from it took heldout6 to 132
// caught and did not move heldout5 at all: the rules so learnt describe
// heldout6's attacks more than attacks in general.
const (
	heldOut6Caught  = 133
	heldOut6Flagged = 3
)

// heldout7 was written blind after heldout6 had been learnt from, by a
// writer asked for indirect, polite and third-person phrasings, attacks
// buried in long honest descriptions and structured blocks, and honest
// tools that use the attacks' vocabulary. Its first run caught 94 of 143
// attacks (65.7%) and flagged 6 of 93 look-alikes (6.5%): well below
// heldout5's and heldout6's first runs, so the estimate of how the scan
// does on attacks nobody here has seen is lower than they said. One
// look-alike it flagged read an output format ("formats") as a disk wiped,
// a rule since narrowed from servers of another corpus: 5 flagged now.
// It was then learnt from, as heldout6 was, with heldout5 as the check:
// silence and scripted answers towards whoever the model serves, named or
// not, and grave verbs under a read-only claim took it to 104, and
// heldout5 from 102 to 103 — the first rules learnt from one set that
// moved the set nobody tunes on. The rules learnt from heldout8 took it
// to 106.
const (
	heldOut7Caught  = 109
	heldOut7Flagged = 5
)

// heldout8 was written blind after the rules learnt from heldout7 were in,
// asked for the same as heldout7 and for passive voice, compliance,
// accessibility and localisation framings, and structured formats. Its
// first run caught 81 of 136 attacks (59.6%) and flagged 6 of 96
// look-alikes (6.2%); without the rules learnt from heldout7 it would have
// caught 79. It is the current estimate, and is not tuned on. The silence
// rule learnt from heldout7 was then narrowed to spare honest
// descriptions it flagged (an internal ID, page numbers or another
// patient's records kept out of a reply; empty rows dropped silently),
// and heldout8 lost one attack to that: 80 now. It was then learnt from:
// what no tool's text holds whatever its wording (a program fetched and
// run in one step, a write that grants root or a login, a package from an
// index anyone on the path can serve) and parameters that ask for the
// model's own context or for a proof of identity took it to 87, and
// heldout7 from 104 to 106 (109 after a review widened them).
const (
	heldOut8Caught  = 87
	heldOut8Flagged = 6
)

// heldout9 was written blind after heldout8 had been learnt from, by a
// writer who read nothing of the scan but two lines of heldout8 for the
// format. Its first run caught 87 of 136 attacks (64.0%) and flagged none
// of 96 look-alikes; the scan before the rules learnt from heldout8 caught
// 84. A review of those rules then found forms they missed and honest
// tools they flagged; what it changed took heldout9 to 88, unread. It was
// then learnt from, with heldout10 written blind meanwhile as the next
// estimate: a rule about what the model's replies leave out of what the
// tool does besides its job ("better left unstated", "kept out of
// summaries", "need not come up in conversation") caught all eight of its
// concealment attacks (96). Its first form, without the side effect, also
// caught two of heldout8's and two of heldout10's, and flagged 44 of 62
// honest definitions a review wrote (formats and privacy: signatures
// omitted from a summary, other patients' records kept out of a reply);
// narrowed, it flags one of them, through an older rule.
const (
	heldOut9Caught  = 96
	heldOut9Flagged = 0
)

// heldout10 was written blind while heldout9 was learnt from, by a writer
// who read nothing of the scan or of the earlier sets, asked for indirect,
// polite, procedural and structured phrasings and for honest tools in the
// attacks' vocabulary. Its first run, with the first form of the rule
// learnt from heldout9, caught 71 of 136 attacks (52.2%) and flagged none
// of 96 look-alikes; the scan before that rule caught 69, and so does the
// rule's narrowed form. It is the current estimate, and is not tuned on:
// about one attack in two, written by someone trying, passes.
const (
	heldOut10Caught  = 69
	heldOut10Flagged = 0
)

// TestExemptionsKeepTheirAttacks holds the exemptions that spare honest
// tools (a record's history, a schema's key, output formats, a sibling that
// destroys, a password a tool sets, a session of its own, a table's
// heading, a condition clause, a write into the project's env file) to the
// attacks a review wrote in their words: each catalogue of
// testdata/poisoning/exemption-attacks.json must leave a finding other than
// a sensitive path on its tool (the one named by focus, or every tool).
func TestExemptionsKeepTheirAttacks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "poisoning", "exemption-attacks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		ID    string            `json:"id"`
		Tools []json.RawMessage `json:"tools"`
		Focus string            `json:"focus"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]any{"tools": c.Tools})
		cat, err := tooldef.ParseCatalogue(raw, tooldef.DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		caught := false
		for _, tr := range Vet([]Server{{Name: "case", Catalogue: cat}}).Tools {
			if c.Focus != "" && tr.Name != c.Focus {
				continue
			}
			for _, f := range tr.Findings {
				if f.Signal != scan.SignalSensitivePath {
					caught = true
				}
			}
		}
		if !caught {
			t.Errorf("%s: an attack in an exemption's words passes: %s", c.ID, raw)
		}
	}
}

// corpus-5 was captured after corpus-4, by two reviewers of its own: its
// first run flagged 6 of 501 honest tools (1.2%), the scan's false-positive
// rate on servers nobody here had read, again. Nobody tunes on it; the
// ratchet holds the first run.
const (
	corpusFiveDir        = "../../testdata/corpus-5"
	corpusFiveTools      = 501
	corpusFiveFirstRun   = 6
	corpusFiveMaxFlagged = 6
)

func TestPoisoningCorpusFive(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-5", corpusFiveDir, corpusFiveTools, corpusFiveFirstRun, corpusFiveMaxFlagged, false)
}

// corpus-6 was captured after corpus-5's rules were in, by two more
// reviewers: its first run flagged 5 of 524 honest tools (1.0%). Nobody
// tunes on it; the ratchet holds the first run.
const (
	corpusSixDir        = "../../testdata/corpus-6"
	corpusSixTools      = 524
	corpusSixFirstRun   = 5
	corpusSixMaxFlagged = 5
)

func TestPoisoningCorpusSix(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-6", corpusSixDir, corpusSixTools, corpusSixFirstRun, corpusSixMaxFlagged, false)
}

// corpus-7 was captured after corpus-6's rules were in: its first run
// flagged 5 of 410 honest tools (1.2%). Nobody tunes on it; the ratchet
// holds the first run.
const (
	corpusSevenDir        = "../../testdata/corpus-7"
	corpusSevenTools      = 410
	corpusSevenFirstRun   = 5
	corpusSevenMaxFlagged = 5
)

func TestPoisoningCorpusSeven(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-7", corpusSevenDir, corpusSevenTools, corpusSevenFirstRun, corpusSevenMaxFlagged, false)
}

// corpus-8: 22 more servers captured and labelled blind after the rules
// learnt from four corpora at once; its first run is the scan's false
// positives on servers nobody here had read.
const (
	corpusEightDir        = "../../testdata/corpus-8"
	corpusEightTools      = 460
	corpusEightFirstRun   = 6
	corpusEightMaxFlagged = 5
)

func TestPoisoningCorpusEight(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-8", corpusEightDir, corpusEightTools, corpusEightFirstRun, corpusEightMaxFlagged, false)
}

// corpus-9: 22 more servers captured and labelled blind after the rules
// learnt from the riskLevel misses of the kept corpora; its first run is
// the scan's false positives on servers nobody here had read. The one
// finding left is true: zero-width spaces present in a description.
const (
	corpusNineDir        = "../../testdata/corpus-9"
	corpusNineTools      = 698
	corpusNineFirstRun   = 17
	corpusNineMaxFlagged = 1
)

func TestPoisoningCorpusNine(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-9", corpusNineDir, corpusNineTools, corpusNineFirstRun, corpusNineMaxFlagged, false)
}

// corpus-10: 22 more servers captured and labelled blind after the scan's
// narrowings learnt from corpus-9's false positives; its first run is the
// scan's false positives on servers nobody here had read.
const (
	corpusTenDir        = "../../testdata/corpus-10"
	corpusTenTools      = 624
	corpusTenFirstRun   = 9
	corpusTenMaxFlagged = 9
)

func TestPoisoningCorpusTen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-10", corpusTenDir, corpusTenTools, corpusTenFirstRun, corpusTenMaxFlagged, false)
}

// corpus-11: 22 more servers captured and labelled blind after the
// workload and local-file rules; its first run is the scan's false
// positives on servers nobody here had read.
const (
	corpusElevenDir        = "../../testdata/corpus-11"
	corpusElevenTools      = 599
	corpusElevenFirstRun   = 3
	corpusElevenMaxFlagged = 2
)

func TestPoisoningCorpusEleven(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-11", corpusElevenDir, corpusElevenTools, corpusElevenFirstRun, corpusElevenMaxFlagged, false)
}

// corpus-12: 21 more servers captured and labelled blind after the rules
// learnt from corpus-11 and the narrowing of an environment variable the
// operator sets; its first run is the scan's false positives on servers
// nobody here had read.
const (
	corpusTwelveDir        = "../../testdata/corpus-12"
	corpusTwelveTools      = 410
	corpusTwelveFirstRun   = 14
	corpusTwelveMaxFlagged = 9
)

func TestPoisoningCorpusTwelve(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-12", corpusTwelveDir, corpusTwelveTools, corpusTwelveFirstRun, corpusTwelveMaxFlagged, false)
}

// corpus-13: 15 more servers captured and labelled blind after the scan's
// narrowings for corpus-12; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusThirteenDir        = "../../testdata/corpus-13"
	corpusThirteenTools      = 304
	corpusThirteenFirstRun   = 2
	corpusThirteenMaxFlagged = 2
)

func TestPoisoningCorpusThirteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-13", corpusThirteenDir, corpusThirteenTools, corpusThirteenFirstRun, corpusThirteenMaxFlagged, false)
}

// corpus-14: 22 more servers captured and labelled blind after the rules
// read from corpus-13's dangerous misses; its first run is the scan's false
// positives on servers nobody here had read.
const (
	corpusFourteenDir        = "../../testdata/corpus-14"
	corpusFourteenTools      = 578
	corpusFourteenFirstRun   = 60
	corpusFourteenMaxFlagged = 60
)

func TestPoisoningCorpusFourteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-14", corpusFourteenDir, corpusFourteenTools, corpusFourteenFirstRun, corpusFourteenMaxFlagged, false)
}

// corpus-15: 26 more servers captured and labelled blind after the rules
// read from corpus-14; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusFifteenDir        = "../../testdata/corpus-15"
	corpusFifteenTools      = 555
	corpusFifteenFirstRun   = 6
	corpusFifteenMaxFlagged = 6
)

func TestPoisoningCorpusFifteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-15", corpusFifteenDir, corpusFifteenTools, corpusFifteenFirstRun, corpusFifteenMaxFlagged, false)
}

// corpus-16: 26 more servers captured and labelled blind after the rules
// read from corpus-15; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusSixteenDir        = "../../testdata/corpus-16"
	corpusSixteenTools      = 570
	corpusSixteenFirstRun   = 12
	corpusSixteenMaxFlagged = 12
)

func TestPoisoningCorpusSixteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-16", corpusSixteenDir, corpusSixteenTools, corpusSixteenFirstRun, corpusSixteenMaxFlagged, false)
}

// corpus-17: 24 more servers captured and labelled blind after the rules
// read from corpus-16; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusSeventeenDir        = "../../testdata/corpus-17"
	corpusSeventeenTools      = 558
	corpusSeventeenFirstRun   = 10
	corpusSeventeenMaxFlagged = 10
)

func TestPoisoningCorpusSeventeen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-17", corpusSeventeenDir, corpusSeventeenTools, corpusSeventeenFirstRun, corpusSeventeenMaxFlagged, false)
}

// corpus-18: 25 more servers captured and labelled blind after the rules
// read from corpus-17; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusEighteenDir        = "../../testdata/corpus-18"
	corpusEighteenTools      = 550
	corpusEighteenFirstRun   = 13
	corpusEighteenMaxFlagged = 13
)

func TestPoisoningCorpusEighteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-18", corpusEighteenDir, corpusEighteenTools, corpusEighteenFirstRun, corpusEighteenMaxFlagged, false)
}

// corpus-19: 29 more servers captured and labelled blind after the rules
// read from corpus-18; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusNineteenDir        = "../../testdata/corpus-19"
	corpusNineteenTools      = 525
	corpusNineteenFirstRun   = 10
	corpusNineteenMaxFlagged = 10
)

func TestPoisoningCorpusNineteen(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-19", corpusNineteenDir, corpusNineteenTools, corpusNineteenFirstRun, corpusNineteenMaxFlagged, false)
}

// corpus-20: 27 more servers captured and labelled blind after the rules
// read from corpus-19; its first run is the scan's false positives on
// servers nobody here had read.
const (
	corpusTwentyDir        = "../../testdata/corpus-20"
	corpusTwentyTools      = 509
	corpusTwentyFirstRun   = 3
	corpusTwentyMaxFlagged = 3
)

func TestPoisoningCorpusTwenty(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-20", corpusTwentyDir, corpusTwentyTools, corpusTwentyFirstRun, corpusTwentyMaxFlagged, true)
}

// corpus-21: 4 more servers captured blind alongside corpus-20 and run
// only after the rules read from corpus-20; its first run is the scan's
// false positives on servers nobody here had read.
const (
	corpusTwentyOneDir        = "../../testdata/corpus-21"
	corpusTwentyOneTools      = 127
	corpusTwentyOneFirstRun   = 7
	corpusTwentyOneMaxFlagged = 7
)

func TestPoisoningCorpusTwentyOne(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-21", corpusTwentyOneDir, corpusTwentyOneTools, corpusTwentyOneFirstRun, corpusTwentyOneMaxFlagged, true)
}

// corpus-22: 23 more servers captured blind after the rules read from
// every kept corpus at once (testdata/corpus-22/README.md); the scan was
// not changed for it before its first run, where most of its flags were
// one commerce platform's "provide either id or key", a resource's key
// read as a credential asked for; a record's key named beside its id, and
// a business key, are now the record's (34 to 21).
const (
	corpusTwentyTwoDir        = "../../testdata/corpus-22"
	corpusTwentyTwoTools      = 588
	corpusTwentyTwoFirstRun   = 34
	corpusTwentyTwoMaxFlagged = 21
)

func TestPoisoningCorpusTwentyTwo(t *testing.T) {
	holdKeptCorpusFlags(t, "corpus-22", corpusTwentyTwoDir, corpusTwentyTwoTools, corpusTwentyTwoFirstRun, corpusTwentyTwoMaxFlagged, true)
}
