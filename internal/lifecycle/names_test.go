package lifecycle

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func TestPinName(t *testing.T) {
	seen := map[string]string{}
	for _, tool := range []string{"delete_file", "Delete File", "delete-file", "deleteFile", "файл_удалить", "", "🔥", strings.Repeat("x", 300), "a.b/c"} {
		name := PinName("github", tool)
		if len(name) > 63 || !dns1123Label.MatchString(name) {
			t.Errorf("PinName(github, %q) = %q: not a DNS label", tool, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%q and %q share the pin name %q", tool, other, name)
		}
		seen[name] = tool
		if PinName("github", tool) != name {
			t.Errorf("PinName is not deterministic for %q", tool)
		}
	}
	if got := PinName("github", "delete_file"); !strings.HasPrefix(got, "github-delete-file-") {
		t.Errorf("readable slug expected, got %q", got)
	}
	if PinName(strings.Repeat("s", 80), "t") == PinName(strings.Repeat("s", 80), "u") {
		t.Error("long server names must not make tools share a pin")
	}
}

func TestPinNameCandidates(t *testing.T) {
	seen := map[string]bool{}
	for attempt := range PinNameCandidates {
		name := PinNameCandidate("github", "delete_file", attempt)
		if len(name) > 63 || !dns1123Label.MatchString(name) || seen[name] {
			t.Errorf("candidate %d %q: not a fresh DNS label", attempt, name)
		}
		seen[name] = true
	}
	if PinNameCandidate("github", "delete_file", 0) != PinName("github", "delete_file") {
		t.Error("the first candidate is the pin name")
	}
	// A long common prefix leaves the hash to tell names apart: 64 bits of it.
	a := PinName("srv", strings.Repeat("a", 100)+"1")
	b := PinName("srv", strings.Repeat("a", 100)+"2")
	if a == b || len(a)-strings.LastIndex(a, "-")-1 != hashLength {
		t.Errorf("%q and %q", a, b)
	}
}

// TestPinNameGolden pins the names down: a pin's name is computed only
// when the pin is created, so a change here does not move existing pins
// (they are found by spec), but it must be deliberate. Each hash is the
// first 16 hex digits of SHA-256 over "toolgate.dev/toolpin-name/v2", the
// server name and the tool name, each preceded by its length as a uvarint,
// then the attempt as a uvarint.
func TestPinNameGolden(t *testing.T) {
	for _, c := range []struct {
		server, tool string
		attempt      int
		want         string
	}{
		{"github", "delete_file", 0, "github-delete-file-9919f240b9ef1cf5"},
		{"github", "delete_file", 1, "github-delete-file-a3b909d706258b6e"},
		{"github", "delete_file", 3, "github-delete-file-f69da1f2825af9b1"},
		{"github", "Delete File", 0, "github-delete-file-0698008842735063"},
		// Servers whose names slug alike get names of their own.
		{"my.db", "query", 0, "my-db-query-71391d0fd63f1ab0"},
		{"my-db", "query", 0, "my-db-query-3b2549bd8bb7f73b"},
		{"my--db", "query", 0, "my-db-query-8189a52410fd68b7"},
		// Where the server name ends and the tool name begins counts.
		{"a", "b-c", 0, "a-b-c-28308610d307d34e"},
		{"a-b", "c", 0, "a-b-c-f427859e77504718"},
		// The name of the tool an earlier naming called
		// demo-get-weather-e33637ee6376db00 (a hash of the tool name alone).
		{"demo", "get_weather", 0, "demo-get-weather-fd5042e697fe7063"},
		{strings.Repeat("s", 80), "t", 0, "ssssssssssssssssssssssssssssssssssssssssssssss-096c8f15c79c4da9"},
		{"srv", "", 0, "srv-dbb174414cdff5bf"},
		{"srv", "🔥", 0, "srv-6ea0a84b86e569ca"},
	} {
		if got := PinNameCandidate(c.server, c.tool, c.attempt); got != c.want {
			t.Errorf("PinNameCandidate(%q, %q, %d) = %q, want %q", c.server, c.tool, c.attempt, got, c.want)
		}
	}
}

// TestPinNamesOfServersThatSlugAlike: servers of one namespace whose names
// slug alike, offering the same tools, share none of their candidate
// names, so none can take the names another's pins will need; nor do
// pairs that differ only in where the server name ends, or in bytes a
// separator might have been.
func TestPinNamesOfServersThatSlugAlike(t *testing.T) {
	pairs := [][2]string{
		{"my.db", "query"}, {"my-db", "query"}, {"my--db", "query"}, {"my---db", "query"}, {"my----db", "query"},
		{"my", "db-query"}, {"my-db-query", ""}, {"my.db", "Query"}, {"my.db", "query\x00"}, {"my.db", "query\x001"},
		{"a", "bc"}, {"ab", "c"}, {"a\x00b", "c"}, {"a", "\x00bc"}, {"a\x01", "bc"},
	}
	seen := map[string]string{}
	for _, p := range pairs {
		for attempt := range PinNameCandidates {
			name := PinNameCandidate(p[0], p[1], attempt)
			if len(name) > 63 || !dns1123Label.MatchString(name) {
				t.Errorf("%q: not a DNS label", name)
			}
			who := fmt.Sprintf("server %q tool %q attempt %d", p[0], p[1], attempt)
			if other, dup := seen[name]; dup {
				t.Errorf("%s and %s share the pin name %q", who, other, name)
			}
			seen[name] = who
		}
	}
	if !strings.HasPrefix(PinName("my.db", "query"), "my-db-query-") || !strings.HasPrefix(PinName("my-db", "query"), "my-db-query-") {
		t.Error("the slug must stay readable")
	}
}

// TestPinNameKeyIsUnambiguous: the hashed key of two different (server,
// tool, attempt) triples differs, whatever bytes the names hold.
func TestPinNameKeyIsUnambiguous(t *testing.T) {
	type triple struct {
		server, tool string
		attempt      int
	}
	triples := []triple{
		{"a", "bc", 0}, {"ab", "c", 0}, {"abc", "", 0}, {"", "abc", 0},
		{"a", "bc", 1}, {"a", "bc\x01", 0}, {"a", "bc\x00", 1}, {"a\x01", "bc", 0},
		{strings.Repeat("x", 127), "y", 0}, {strings.Repeat("x", 128), "", 0}, {strings.Repeat("x", 127), "y", 128},
	}
	seen := map[string]triple{}
	for _, tr := range triples {
		k := string(pinNameKey(tr.server, tr.tool, tr.attempt))
		if other, dup := seen[k]; dup {
			t.Errorf("%+v and %+v have one key", tr, other)
		}
		seen[k] = tr
	}
}
