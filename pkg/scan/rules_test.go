package scan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lastBytes finds the byte a literal or a class of bytes ends an
// expression with, and nothing for an expression that may end otherwise;
// every match of a rule's pre, on any text, ends with one of its bytes.
func TestLastBytes(t *testing.T) {
	for _, c := range []struct {
		re   string
		want string
	}{
		{`/`, "/"},
		{`\.`, "."},
		{`(?:^|[^a-z0-9_])\.`, "."},
		{`\bread\s+\.config[/\\]`, `/\`},
		{`<[a-z]+\s`, "\t\n\f\r "},
		{`\bfrom\s+`, ""},
		{`<\s*/?\s*`, ""},
		{`(?:a|b)`, "ab"},
		{`(?:ab|c\s+)`, ""},
		{`(?i)x`, ""},
		{`é`, ""},
		{`\b`, ""},
	} {
		got := ""
		if set := lastBytes(c.re); set != nil {
			for b, ok := range set {
				if ok {
					got += string(rune(b))
				}
			}
		}
		if got != c.want {
			t.Errorf("lastBytes(%q) = %q, want %q", c.re, got, c.want)
		}
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"read ", "cat ", "open ", "copy ", "the ", " ", ".", "/", `\`, "config", "var/", "run/", "x", "_", "-", "<", "div ", "\n"}
	for _, r := range rules {
		if r.preLast == nil {
			continue
		}
		for range 3000 {
			var b strings.Builder
			for range 1 + rnd.IntN(6) {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			}
			text := b.String()
			if r.pre.MatchString(text) && !r.preLast[text[len(text)-1]] {
				t.Fatalf("%s matches %q, which ends with a byte preLast does not hold", r.pre, text)
			}
		}
	}
}
