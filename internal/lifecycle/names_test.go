package lifecycle

import (
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
