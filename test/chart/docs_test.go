package chart

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestInstallDocNamesEveryValue: every leaf of values.yaml is named in the
// values table of docs/install.md, and every name there is a value, so the
// table cannot fall behind the chart.
//
// A leaf is a key whose value is not a map with keys: a scalar, a list or
// an empty map ({}). A row names values in its first cell, each in
// backticks, and a name covers a path when it is the path or one of its
// parents (so `resources` covers resources.requests.cpu):
//
//   - `a.b.c` is a path from the top;
//   - `.d` is the previous name of the cell with its last segment replaced
//     (`approval.approvers.users`, `.groups` names approval.approvers.groups);
//   - `a.*` is the same as `a`, written to say "everything under a".
func TestInstallDocNamesEveryValue(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root(), "charts", "toolgate", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	var leaves []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(prefix+k+".", sub)
				continue
			}
			leaves = append(leaves, prefix+k)
		}
	}
	walk("", values)
	sort.Strings(leaves)

	doc, err := os.ReadFile(filepath.Join(root(), "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := docValueNames(t, string(doc))
	covered := func(leaf, name string) bool { return leaf == name || strings.HasPrefix(leaf, name+".") }
	for _, leaf := range leaves {
		if !slices.ContainsFunc(names, func(n string) bool { return covered(leaf, n) }) {
			t.Errorf("docs/install.md's values table does not name %s", leaf)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(leaves, func(l string) bool { return covered(l, n) }) {
			t.Errorf("docs/install.md's values table names %s, which values.yaml does not have", n)
		}
	}
}

// docValueNames are the names the first cells of the values table give,
// expanded as TestInstallDocNamesEveryValue says.
func docValueNames(t *testing.T, doc string) []string {
	t.Helper()
	_, table, ok := strings.Cut(doc, "\n| value | default | meaning |\n|---|---|---|\n")
	if !ok {
		t.Fatal("docs/install.md has no table headed | value | default | meaning |")
	}
	var names []string
	tick := regexp.MustCompile("`([^`]+)`")
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "|") {
			break // the table ends at its first line that is no row
		}
		cell := strings.SplitN(row, "|", 3)[1]
		prev := ""
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			name := strings.TrimSuffix(m[1], ".*")
			if strings.HasPrefix(name, ".") {
				i := strings.LastIndex(prev, ".")
				if i < 0 {
					t.Fatalf("docs/install.md: %s follows no dotted name in %q", name, row)
				}
				name = prev[:i] + name
			}
			names = append(names, name)
			prev = name
		}
	}
	if len(names) == 0 {
		t.Fatal("docs/install.md's values table names nothing")
	}
	return names
}
