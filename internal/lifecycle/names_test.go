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
