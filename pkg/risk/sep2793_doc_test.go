package risk

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSEP2793ChapterNamesRealTests: every test the SEP-2793 chapter's
// conformance table names exists in the file it names (subtests by their
// row name), so that the table cannot point at a test that was moved or
// never written.
func TestSEP2793ChapterNamesRealTests(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "sep-2793.md"))
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile("`([a-z0-9_/.-]+_test\\.go): (Test[A-Za-z0-9_]+)(?:/([A-Za-z0-9_]+))?`").FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 24 {
		t.Fatalf("found %d test references in the chapter's table; want one per row at least", len(refs))
	}
	for _, r := range refs {
		file, fn, sub := r[1], r[2], r[3]
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s names %s, which cannot be read: %v", r[0], file, err)
			continue
		}
		if !strings.Contains(string(src), "func "+fn+"(") {
			t.Errorf("%s: %s has no func %s", r[0], file, fn)
		}
		if sub != "" && !strings.Contains(string(src), `"`+sub+`"`) {
			t.Errorf("%s: %s has no subtest named %q", r[0], file, sub)
		}
	}
}
