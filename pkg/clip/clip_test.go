package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"fits", "hello", 5, "hello", false},
		{"empty", "", 0, "", false},
		{"ascii", "hello world", 8, "hello...", true},
		{"no room for the marker", "hello", 3, "hel", true},
		{"zero budget", "hello", 0, "", true},
		// "é" is two bytes: a cut inside it steps back to its start.
		{"two-byte rune before the edge", "abcdéfgh", 7, "abcd...", true},
		{"two-byte rune on the edge", "abcéfgh", 7, "abc...", true},
		{"four-byte rune on the edge", "ab😀cdefgh", 8, "ab...", true},
		{"marker-only budget keeps runes whole", "😀😀", 3, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, cut := Cut(c.in, c.limit)
			if got != c.want || cut != c.cut {
				t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", c.in, c.limit, got, cut, c.want, c.cut)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	got := Strings([]string{"a", strings.Repeat("b", 10), "c"}, 2, 6)
	if len(got) != 2 || got[0] != "a" || got[1] != "bbb..." {
		t.Errorf("Strings = %q", got)
	}
	if Strings(nil, 3, 3) != nil {
		t.Error("an empty list should stay nil")
	}
}

// FuzzCut: whatever the input, the result fits, is valid UTF-8 when the
// input is, and is a prefix of the input (plus the marker) when cut.
func FuzzCut(f *testing.F) {
	f.Add("héllo wörld 😀", 7)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		got, cut := Cut(s, limit)
		if len(got) > limit {
			t.Fatalf("Cut(%q, %d) = %q is %d bytes", s, limit, got, len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q is not valid UTF-8", s, limit, got)
		}
		if !cut && got != s {
			t.Fatalf("uncut result differs")
		}
		if cut && !strings.HasPrefix(s, strings.TrimSuffix(got, Marker)) {
			t.Fatalf("Cut(%q, %d) = %q is not a prefix", s, limit, got)
		}
	})
}

func TestStringsWithLast(t *testing.T) {
	got := StringsWithLast([]string{"a", "b", "c", "newest"}, 3, 6)
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "newest" {
		t.Errorf("StringsWithLast = %q", got)
	}
	if got := StringsWithLast([]string{"a"}, 3, 6); len(got) != 1 {
		t.Errorf("a short list is kept whole: %q", got)
	}
}

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"héllo", 5, "héllo"},
		{"héllo", 6, "héllo"},
		{"héllo wörld", 5, "héll…"},
		{"ab", 1, "…"},
		{"a", 1, "a"},
		{"abc", 0, ""},
	} {
		if got := Runes(c.in, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
