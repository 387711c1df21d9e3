package risk

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

var update = flag.Bool("update", false, "rewrite the golden files of the corpus assessments from the engine's current judgement")

// The golden files of TestCorpusGolden. The plain judgement of every tool is
// kept as text, so that a change of a rule shows in a diff which tools it
// moves; the judgements under the other inputs repeat most of it and are
// kept compressed (the test prints what differs).
const (
	goldenPlain    = "testdata/corpus-assessments.jsonl"
	goldenVariants = "testdata/corpus-assessments-variants.jsonl.gz"
)

// goldenRecord is one tool's whole judgement under one input.
type goldenRecord struct {
	Tool           string    `json:"tool"`
	Input          string    `json:"input"`
	Level          string    `json:"level"`
	EffectiveLevel string    `json:"effectiveLevel"`
	SEP            SEP       `json:"sep"`
	Floors         []string  `json:"floors"`
	Reasons        []string  `json:"reasons"`
	Disagreements  []string  `json:"disagreements"`
	Findings       []Finding `json:"findings"`
}

func recordOf(tool, input string, a Assessment) goldenRecord {
	return goldenRecord{Tool: tool, Input: input, Level: a.Level.String(), EffectiveLevel: a.EffectiveLevel.String(),
		SEP: a.SEP, Floors: a.Floors, Reasons: a.Reasons, Disagreements: a.Disagreements, Findings: a.Findings}
}

// goldenInput is one way of offering a tool to Assess. Beside the tool
// alone, the inputs declare low, middling and grave SEP-2793 metadata and
// hints on every tool, and put it on a trusted server with its calls
// approval-gated, on a remote server whose identity reaches the whole
// cluster with a sensitive path in the definition, and on a floored server
// with a poisoning finding: every stage of the judgement meets every tool.
type goldenInput struct {
	name  string
	input func(*tooldef.Tool) Input
}

var (
	trustedServer = AssessServer(Posture{URL: "http://mcp.tools.svc", Transport: TransportStreamableHTTP,
		Authenticated: true, Trust: "Vendor", InCluster: true})
	wideServer = AssessServer(Posture{URL: "http://mcp.example.com/sse", Transport: TransportSSE, Authenticated: true,
		Trust: "Community", Reach: Reach{ClusterWide: true, Secrets: true,
			Findings: []string{"may change state in every namespace", "may read secrets in every namespace"}}})
	flooredServer = AssessServer(Posture{URL: "https://mcp.example.com/mcp", Transport: TransportStreamableHTTP})

	sensitivePath = Finding{Signal: "sensitive-path", Field: "description", Excerpt: "~/.ssh/id_rsa"}
	hiddenText    = Finding{Signal: "hidden-instructions", Field: "description", Excerpt: "<IMPORTANT>"}
)

var goldenInputs = []goldenInput{
	{"plain", func(t *tooldef.Tool) Input { return Input{Tool: t} }},
	{"declared-low", func(t *tooldef.Tool) Input {
		return Input{Tool: declaring(t, map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true,
			"riskLevel": "low", "category": "read", "blastRadius": "item", "reversibility": "auto",
			"approvalRecommendation": "none", "minTrustLevel": json.Number("1"), "sideEffects": []any{}})}
	}},
	{"declared-middle", func(t *tooldef.Tool) Input {
		return Input{Tool: declaring(t, map[string]any{"riskLevel": "medium", "category": "mutate", "blastRadius": "namespace",
			"reversibility": "manual", "approvalRecommendation": "single", "minTrustLevel": json.Number("3"),
			"sideEffects": []any{"cost"}})}
	}},
	{"declared-high", func(t *tooldef.Tool) Input {
		return Input{Tool: declaring(t, map[string]any{"destructiveHint": true, "riskLevel": "critical", "category": "destroy",
			"blastRadius": "global", "reversibility": "none", "approvalRecommendation": "multi", "minTrustLevel": json.Number("5"),
			"sideEffects": []any{"state_loss", "privilege_change"}})}
	}},
	{"trusted-gated", func(t *tooldef.Tool) Input { return Input{Tool: t, Server: trustedServer, ApprovalGated: true} }},
	{"wide-reach", func(t *tooldef.Tool) Input {
		return Input{Tool: t, Server: wideServer, Findings: []Finding{sensitivePath}, ApprovalGated: true}
	}},
	{"floored", func(t *tooldef.Tool) Input {
		return Input{Tool: t, Server: flooredServer, Findings: []Finding{sensitivePath, hiddenText}}
	}},
}

// declaring returns a copy of t whose annotations add the given ones, each
// hint among them counted as declared by the server.
func declaring(t *tooldef.Tool, add map[string]any) *tooldef.Tool {
	c := *t
	c.Declared = maps.Clone(t.Declared)
	if c.Declared == nil {
		c.Declared = map[string]bool{}
	}
	for k, v := range add {
		c.Annotations = c.Annotations.With(k, v)
		if strings.HasSuffix(k, "Hint") {
			c.Declared[k] = true
		}
	}
	return &c
}

// corpusJudgements judges every tool of every corpus folder under every
// golden input, in a fixed order: folder, server file, the catalogue's
// order, input.
func corpusJudgements(t *testing.T) (plain, variants []goldenRecord) {
	for _, folder := range corpus.Folders() {
		files, _ := filepath.Glob(filepath.Join(corpus.FolderDir(t, folder), "servers", "*.json"))
		slices.Sort(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			seen := map[string]int{}
			domain := ReadDomain(cat.Tools)
			for _, tool := range cat.Tools {
				key := folder + "/" + strings.TrimSuffix(filepath.Base(f), ".json") + "/" + tool.Name
				if seen[key]++; seen[key] > 1 {
					key += fmt.Sprintf("#%d", seen[key])
				}
				for _, in := range goldenInputs {
					input := in.input(tool)
					input.Domain = domain
					r := recordOf(key, in.name, Assess(input))
					if in.name == "plain" {
						plain = append(plain, r)
					} else {
						variants = append(variants, r)
					}
				}
			}
		}
	}
	return plain, variants
}

// TestCorpusGolden holds the engine's whole judgement of every corpus tool
// — level, effective level, the SEP-2793 fields, floors, reasons in their
// order, disagreements and findings — under every golden input to the
// golden files. A change of the engine that moves any judgement fails here
// and names the tools it moved; a change of a rule that means to move them
// rewrites the files with -update and shows the moves in its diff.
func TestCorpusGolden(t *testing.T) {
	plain, variants := corpusJudgements(t)
	if *update {
		writeGolden(t, goldenPlain, plain, false)
		writeGolden(t, goldenVariants, variants, true)
		return
	}
	compareGolden(t, goldenPlain, plain, false)
	compareGolden(t, goldenVariants, variants, true)
}

func encodeRecords(records []goldenRecord) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the reasons read as they were written
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			panic(err) // every field is a string, a list of strings or a struct of them
		}
	}
	return buf.Bytes()
}

func writeGolden(t *testing.T, path string, records []goldenRecord, compressed bool) {
	t.Helper()
	data := encodeRecords(records)
	if compressed {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d judgements to %s", len(records), path)
}

func readGolden(t *testing.T, path string, compressed bool) []goldenRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/risk -run TestCorpusGolden -update to write it)", err)
	}
	defer f.Close()
	var r io.Reader = f
	if compressed {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r = zr
	}
	var out []goldenRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var g goldenRecord
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// compareGolden fails on every judgement that differs from the golden
// file's, naming the tool, the input and each field that moved.
func compareGolden(t *testing.T, path string, got []goldenRecord, compressed bool) {
	t.Helper()
	want := readGolden(t, path, compressed)
	wantBy := make(map[string]goldenRecord, len(want))
	for _, w := range want {
		wantBy[w.Tool+" "+w.Input] = w
	}
	moved := 0
	for _, g := range got {
		id := g.Tool + " " + g.Input
		w, ok := wantBy[id]
		if !ok {
			t.Errorf("%s: %s is not in the golden file", path, id)
			moved++
			continue
		}
		delete(wantBy, id)
		if diff := recordDiff(w, g); diff != "" {
			moved++
			if moved <= 20 {
				t.Errorf("%s under %s moved:\n%s", g.Tool, g.Input, diff)
			}
		}
	}
	for id := range wantBy {
		t.Errorf("%s: %s is in the golden file but no longer judged", path, id)
		moved++
	}
	if moved > 0 {
		t.Errorf("%s: %d of %d judgements differ from the golden file (go test ./pkg/risk -run TestCorpusGolden -update rewrites it, for a change that means to move them)", path, moved, len(got))
	}
}

// recordDiff names each field of two records that differs, with both
// values. Fields are compared as encoded: a list that was absent (null) and
// one that is empty ([]) differ, as they do in the reports built on them.
func recordDiff(want, got goldenRecord) string {
	var b strings.Builder
	field := func(name string, w, g any) {
		wj, _ := json.Marshal(w)
		gj, _ := json.Marshal(g)
		if string(wj) != string(gj) {
			fmt.Fprintf(&b, "  %s: was %s\n  %s: now %s\n", name, wj, name, gj)
		}
	}
	field("level", want.Level, got.Level)
	field("effectiveLevel", want.EffectiveLevel, got.EffectiveLevel)
	field("sep", want.SEP, got.SEP)
	field("floors", want.Floors, got.Floors)
	field("reasons", want.Reasons, got.Reasons)
	field("disagreements", want.Disagreements, got.Disagreements)
	field("findings", want.Findings, got.Findings)
	return b.String()
}
