package tooldef

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/toolgate/toolgate/internal/corpus"
)

const deleteRepo = `{
  "name": "delete_repository",
  "description": "Delete a repository. This cannot be undone.",
  "inputSchema": {"type": "object", "properties": {"owner": {"type": "string"}, "repo": {"type": "string"}}, "required": ["owner", "repo"]},
  "annotations": {"destructiveHint": true}
}`

func mustParse(t testing.TB, s string) *Tool {
	t.Helper()
	tool, err := ParseTool([]byte(s))
	if err != nil {
		t.Fatalf("ParseTool: %v\n%s", err, s)
	}
	return tool
}

// reorder re-encodes a JSON value with every object's keys in reverse order
// and different whitespace, to prove neither counts.
func reorder(t testing.TB, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := SortedKeys(x)
			b.WriteString("{ \n")
			for i := len(keys) - 1; i >= 0; i-- {
				k, _ := json.Marshal(keys[i])
				b.Write(k)
				b.WriteString(" :\t")
				write(x[keys[i]])
				if i > 0 {
					b.WriteString(" ,\n")
				}
			}
			b.WriteString("}")
		case []any:
			b.WriteString("[ ")
			for i, e := range x {
				if i > 0 {
					b.WriteString(" , ")
				}
				write(e)
			}
			b.WriteString(" ]")
		default:
			j, _ := json.Marshal(x)
			b.Write(j)
		}
	}
	write(v)
	return b.String()
}

func TestFingerprintIgnoresFormattingAndKeyOrder(t *testing.T) {
	a := mustParse(t, deleteRepo)
	b := mustParse(t, reorder(t, deleteRepo))
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatalf("key order or whitespace changed the fingerprint:\n%s\n%s", a.Canonical(), b.Canonical())
	}
	if !strings.HasPrefix(a.Fingerprint(), "sha256:") || len(a.Fingerprint()) != 71 {
		t.Fatalf("fingerprint %q is not sha256:<64 hex>", a.Fingerprint())
	}
	// Escapes that denote the same string are the same string.
	c := mustParse(t, strings.Replace(deleteRepo, `"Delete a repository.`, `"\u0044elete a repository.`, 1))
	if c.Fingerprint() != a.Fingerprint() {
		t.Error("a JSON escape of the same character changed the fingerprint")
	}
}

func TestFingerprintIsStable(t *testing.T) {
	// A fixed value, computed independently (sort_keys, no spaces, SHA-256),
	// guards against an accidental change of canonical form,
	// which would send every pin in every cluster into re-review.
	const want = "sha256:c8aef6a0089a5ca2f10efe4c6304fb50d861f0b5536aa48d595ba34466882024"
	got := mustParse(t, deleteRepo).Fingerprint()
	if got != want {
		t.Logf("fingerprint of the reference tool is %s", got)
		t.Logf("canonical form: %s", mustParse(t, deleteRepo).Canonical())
		t.Fatalf("canonical form changed: fingerprint %s, want %s", got, want)
	}
}

func TestDefaultHintsDoNotCount(t *testing.T) {
	bare := mustParse(t, `{"name":"x","description":"d"}`)
	spelled := mustParse(t, `{"name":"x","description":"d","annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`)
	empty := mustParse(t, `{"name":"x","description":"d","annotations":{}}`)
	if bare.Fingerprint() != spelled.Fingerprint() || bare.Fingerprint() != empty.Fingerprint() {
		t.Fatal("spelling out the default hints changed the fingerprint")
	}
	if len(bare.Declared) != 0 || len(spelled.Declared) != 4 {
		t.Errorf("declared hints: bare %v, spelled %v", bare.Declared, spelled.Declared)
	}
	if !bare.Hint("destructiveHint") || bare.Hint("readOnlyHint") {
		t.Error("absent hints must read as the MCP defaults")
	}
}

func TestEveryEditChangesTheFingerprint(t *testing.T) {
	base := mustParse(t, deleteRepo)
	edits := map[string]string{
		"description":         strings.Replace(deleteRepo, "cannot be undone", "cannot be undone ", 1),
		"name":                strings.Replace(deleteRepo, "delete_repository", "delete_repo", 1),
		"title added":         strings.Replace(deleteRepo, `"name"`, `"title":"Delete","name"`, 1),
		"new property":        strings.Replace(deleteRepo, `"repo": {"type": "string"}`, `"repo": {"type": "string"}, "note": {"type": "string"}`, 1),
		"required dropped":    strings.Replace(deleteRepo, `["owner", "repo"]`, `["owner"]`, 1),
		"annotation flipped":  strings.Replace(deleteRepo, `"destructiveHint": true`, `"destructiveHint": false`, 1),
		"declared SEP field":  strings.Replace(deleteRepo, `"destructiveHint": true`, `"destructiveHint": true, "riskLevel": "low"`, 1),
		"_meta":               strings.Replace(deleteRepo, `"name"`, `"_meta":{"x":1},"name"`, 1),
		"unknown field":       strings.Replace(deleteRepo, `"name"`, `"icons":[],"name"`, 1),
		"output schema":       strings.Replace(deleteRepo, `"name"`, `"outputSchema":{"type":"object"},"name"`, 1),
		"number in schema":    strings.Replace(deleteRepo, `"type": "object",`, `"type": "object", "maxProperties": 2,`, 1),
		"invisible character": strings.Replace(deleteRepo, "Delete a", "Delete\u200b a", 1),
	}
	for name, edited := range edits {
		if edited == deleteRepo {
			t.Fatalf("edit %q did not apply", name)
		}
		if mustParse(t, edited).Fingerprint() == base.Fingerprint() {
			t.Errorf("edit %q did not change the fingerprint", name)
		}
	}
}

func TestParseToolErrors(t *testing.T) {
	for input, want := range map[string]string{
		`[]`:                              "not a JSON object",
		`null`:                            "tool is null",
		`{"description":"x"}`:             "tool has no name",
		`{"name":""}`:                     "tool name is empty",
		`{"name":7}`:                      "tool name is not a string",
		`{"name":"x","description":3}`:    "description is not a string",
		`{"name":"x","inputSchema":[]}`:   "inputSchema is not a JSON object",
		`{"name":"x","annotations":"no"}`: "annotations is not a JSON object",
		`{"name":"x","annotations":{"readOnlyHint":"yes"}}`: "annotations.readOnlyHint is string, not a boolean",
	} {
		_, err := ParseTool([]byte(input))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTool(%s) = %v, want an error containing %q", input, err, want)
		}
	}
}

func TestParseCatalogueShapes(t *testing.T) {
	tools := `[{"name":"a"},{"name":"b"}]`
	for name, input := range map[string]string{
		"bare array":        tools,
		"tools/list result": `{"tools":` + tools + `}`,
		"JSON-RPC response": `{"jsonrpc":"2.0","id":2,"result":{"tools":` + tools + `}}`,
		"capture":           `{"server":"x","initialize":{"instructions":"hi","serverInfo":{"name":"srv"}},"tools":` + tools + `}`,
	} {
		cat, err := ParseCatalogue([]byte(input), DefaultLimits)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(cat.Tools) != 2 || cat.Tools[0].Name != "a" || cat.Tools[1].Name != "b" {
			t.Errorf("%s: got %d tools", name, len(cat.Tools))
		}
		if name == "capture" && (cat.Instructions != "hi" || cat.ServerName != "srv") {
			t.Errorf("capture: instructions %q, server %q", cat.Instructions, cat.ServerName)
		}
	}
}

func TestParseCatalogueErrors(t *testing.T) {
	for input, want := range map[string]string{
		"": "input is empty",
		"{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}": "line 3, column",
		`{"tools": [{"name": "a"}`:                          "JSON ends early",
		`"tools"`:                                           "input is a JSON string",
		`{"result": 3}`:                                     `"result" is not an object`,
		`{"items": []}`:                                     `object has no "tools" key`,
		`{"tools": {}}`:                                     `"tools" is not an array`,
		`{"tools": [{"name":"a"},{"title":"b"}]}`:           "tools[1]: tool has no name",
		`[{"name":"a"},{"name":"a"}]`:                       `tools[0] and tools[1] are both named "a"`,
		`{"tools": [], "nextCursor": "p2"}`:                 "one page of several",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`: "JSON-RPC error response",
		`[{"name":"a"}] [{"name":"b"}]`:                                   "unexpected data after the JSON value",
	} {
		_, err := ParseCatalogue([]byte(input), DefaultLimits)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCatalogue(%q) = %v, want an error containing %q", input, err, want)
		}
	}
	big := make([]byte, 2048)
	if _, err := ParseCatalogue(big, Limits{MaxBytes: 1024}); err == nil || !strings.Contains(err.Error(), "over the limit of 1024") {
		t.Errorf("oversized input: %v", err)
	}
	if _, err := ParseCatalogue([]byte(`[{"name":"a"},{"name":"b"}]`), Limits{MaxTools: 1}); err == nil || !strings.Contains(err.Error(), "2 tools, over the limit of 1") {
		t.Errorf("too many tools: %v", err)
	}
	long := `[{"name":"a","description":"` + strings.Repeat("x", 100) + `"}]`
	_, err := ParseCatalogue([]byte(long), Limits{MaxStringBytes: 64})
	if err == nil || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a string of 100 bytes, over the limit of 64") {
		t.Errorf("overlong string: %v", err)
	}
	two := `[{"name":"a"},{"name":"b"}]`
	for _, lim := range []Limits{{MaxBytes: int64(len(two) - 1)}, {MaxTools: 1}} {
		if _, err := ParseCatalogue([]byte(two), lim); !errors.Is(err, ErrTooLarge) {
			t.Errorf("limit %+v: %v does not wrap ErrTooLarge", lim, err)
		}
	}
}

// corpusDir is the shared development corpus beside the repository.
func corpusDir(t testing.TB) string {
	return filepath.Join(corpus.Dir(t), "servers")
}

func TestCorpusParsesAndReorderingKeepsFingerprints(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.json"))
	if len(files) == 0 {
		t.Fatal("corpus is empty")
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := ParseCatalogue(data, DefaultLimits)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		for _, tool := range cat.Tools {
			raw, _ := json.Marshal(tool.Object)
			// The canonical form assembled part by part equals the
			// canonicaliser's output over the whole definition.
			if whole, err := jcs.Transform(raw); err != nil || string(whole) != string(tool.Canonical()) {
				t.Errorf("%s/%s: assembled canonical form differs from RFC 8785 over the whole (%v)", filepath.Base(f), tool.Name, err)
			}
			// The form written again on demand is the one the
			// fingerprint hashed, of the length kept.
			if c := tool.Canonical(); digest(c) != tool.Fingerprint() || len(c) != tool.CanonicalLen() {
				t.Errorf("%s/%s: the canonical form written on demand is not the one fingerprinted (%d bytes, %d kept)", filepath.Base(f), tool.Name, len(c), tool.CanonicalLen())
			}
			// Built again from Go maps, as a program builds a
			// definition, the tree gives the same digests.
			if fromMaps, err := ParseToolValue(FromAny(ToAny(tool.Object))); err != nil || fromMaps.Fingerprint() != tool.Fingerprint() || !maps.Equal(fromMaps.PartDigests(), tool.PartDigests()) {
				t.Errorf("%s/%s: digests of the tree built from Go maps differ from those of the decoded tree (%v)", filepath.Base(f), tool.Name, err)
			}
			again := mustParse(t, reorder(t, string(raw)))
			if again.Fingerprint() != tool.Fingerprint() {
				t.Errorf("%s/%s: reordering changed the fingerprint", filepath.Base(f), tool.Name)
			}
			n++
		}
	}
	t.Logf("%d tools in %d files parsed and fingerprinted", n, len(files))
}

// TestCorpusEveryEditChangesTheFingerprint is the property over real
// definitions: editing the description, the schema or one annotation of any
// tool changes its fingerprint, and Compare names the part.
func TestCorpusEveryEditChangesTheFingerprint(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.json"))
	edits := map[string]func(obj map[string]any){
		PartDescription: func(obj map[string]any) {
			d, _ := obj["description"].(string)
			obj["description"] = d + "."
		},
		PartInputSchema: func(obj map[string]any) {
			s, _ := obj["inputSchema"].(map[string]any)
			if s == nil {
				s = map[string]any{"type": "object"}
			}
			props, _ := s["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			props["sidenote"] = map[string]any{"type": "string"}
			s["properties"] = props
			obj["inputSchema"] = s
		},
		PartAnnotations: func(obj map[string]any) {
			ann := obj["annotations"].(map[string]any)
			ann["destructiveHint"] = !ann["destructiveHint"].(bool)
		},
	}
	n := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		cat, err := ParseCatalogue(data, DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range cat.Tools {
			raw, _ := json.Marshal(tool.Object)
			for part, edit := range edits {
				var obj map[string]any
				if err := json.Unmarshal(raw, &obj); err != nil {
					t.Fatal(err)
				}
				edit(obj)
				edited, _ := json.Marshal(obj)
				changed := mustParse(t, string(edited))
				d := Compare(tool, changed)
				if d == nil || changed.Fingerprint() == tool.Fingerprint() {
					t.Errorf("%s/%s: editing %s kept the fingerprint", filepath.Base(f), tool.Name, part)
					continue
				}
				if len(d.Parts) != 1 || d.Parts[0] != part {
					t.Errorf("%s/%s: editing %s reported parts %v", filepath.Base(f), tool.Name, part, d.Parts)
				}
				n++
			}
		}
	}
	t.Logf("%d edits of corpus tools, each one detected", n)
}

func TestBodyFingerprintIgnoresOnlyTheName(t *testing.T) {
	a := mustParse(t, deleteRepo)
	renamed := mustParse(t, strings.Replace(deleteRepo, "delete_repository", "remove_repository", 1))
	if a.Fingerprint() == renamed.Fingerprint() {
		t.Fatal("a rename must change the fingerprint")
	}
	body := func(tool *Tool) string {
		f, err := tool.BodyFingerprint()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if body(a) != body(renamed) {
		t.Error("a rename alone must keep the body fingerprint")
	}
	edited := mustParse(t, strings.Replace(deleteRepo, "cannot be undone", "can be undone", 1))
	if body(edited) == body(a) {
		t.Error("an edit of the body must change the body fingerprint")
	}
}
