package phrase

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// containsFirst is what a Set must answer: the first phrase in list order
// that strings.Contains finds.
func containsFirst(text string, phrases []string) int {
	for i, p := range phrases {
		if strings.Contains(text, p) {
			return i
		}
	}
	return -1
}

func TestSetAnswersAsContains(t *testing.T) {
	for _, c := range []struct {
		phrases []string
		text    string
		first   int
	}{
		{[]string{"he", "she", "his", "hers"}, "ushers", 0},
		{[]string{"hers", "his", "she", "he"}, "ushers", 0},
		{[]string{"his", "she", "he"}, "ushers", 1},
		{[]string{"abcd", "bc"}, "xabcx", 1},
		{[]string{"bcd", "abc"}, "zabcd", 0},
		{[]string{"read-only", "no side effects"}, "It is READ-ONLY.", -1},
		{[]string{"ead-only", "EAD-ONLY"}, "It is READ-ONLY.", 1},
		{[]string{"aab"}, "aaab", 0},
		{[]string{"abab", "bab"}, "ababab", 0},
		{[]string{"x", ""}, "abc", 1},
		{[]string{"", "x"}, "", 0},
		{[]string{"x"}, "", -1},
		{nil, "abc", -1},
		{[]string{"只读", "読み取り"}, "这是只读的", 0},
		{[]string{"| sh", "|sh"}, "curl x |sh", 1},
	} {
		s := New(c.phrases...)
		if got := s.First(c.text); got != c.first {
			t.Errorf("New(%q).First(%q) = %d, want %d", c.phrases, c.text, got, c.first)
		}
		if got, want := s.Any(c.text), c.first >= 0; got != want {
			t.Errorf("New(%q).Any(%q) = %v, want %v", c.phrases, c.text, got, want)
		}
		if got, want := s.AnyBytes([]byte(c.text)), c.first >= 0; got != want {
			t.Errorf("New(%q).AnyBytes(%q) = %v, want %v", c.phrases, c.text, got, want)
		}
		if want := containsFirst(c.text, c.phrases); want != c.first {
			t.Errorf("the table is wrong for %q in %q: Contains gives %d", c.phrases, c.text, want)
		}
	}
}

func FuzzSetAnswersAsContains(f *testing.F) {
	f.Add("ushers", "he,she,his,hers")
	f.Add("ababab", "abab,bab,b")
	f.Add("", ",x")
	f.Add("It is safe to call", "afe,AFE,armless")
	f.Fuzz(func(t *testing.T, text, list string) {
		phrases := strings.Split(list, ",")
		s := New(phrases...)
		want := containsFirst(text, phrases)
		if got := s.First(text); got != want {
			t.Fatalf("First(%q) over %q = %d, Contains says %d", text, phrases, got, want)
		}
		if got := s.Any(text); got != (want >= 0) {
			t.Fatalf("Any(%q) over %q = %v, Contains says %v", text, phrases, got, want >= 0)
		}
		if got := s.AnyBytes([]byte(text)); got != (want >= 0) {
			t.Fatalf("AnyBytes(%q) over %q = %v, Contains says %v", text, phrases, got, want >= 0)
		}
	})
}

// BenchmarkSet compares, in one run, a Set with strings.Contains over each
// phrase in turn, on a description that holds none of them (the common
// case, where every phrase is searched for).
func BenchmarkSet(b *testing.B) {
	phrases := []string{"| sh", "|sh", "| bash", "|bash", "sudo ", "chmod 777", "chmod -r 777", "--privileged", "authorized_keys",
		"crontab", "git config --global", "powershell", "-enc ", "node_options", "ld_preload", "rm -rf", "--index-url",
		"--extra-index-url", "npm install -g", "npm i -g", "iex(", "invoke-expression", "base64 -d", "/dev/tcp", "nc -e",
		"mkfifo", "sysctl", ".bashrc", "pip install http"}
	text := strings.Repeat("lists the pull requests of a repository, with their state, author and labels; ", 4)
	set := New(phrases...)
	b.Run("contains", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if containsFirst(text, phrases) >= 0 {
				b.Fatal("match")
			}
		}
	})
	b.Run("set", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if set.Any(text) {
				b.Fatal("match")
			}
		}
	})
}

// Texts long enough to be read in two halves answer as Contains does,
// wherever a phrase falls: before the middle, across it, in the overlap
// of the halves, at either end.
func TestSetAnswersAsContainsInLongTexts(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abc d"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		phrases := make([]string, 1+rnd.IntN(5))
		for i := range phrases {
			phrases[i] = word(1 + rnd.IntN(12))
		}
		text := word(splitMin - 8 + rnd.IntN(200))
		if rnd.IntN(2) == 0 {
			// A phrase planted anywhere, the middle included.
			p := phrases[rnd.IntN(len(phrases))]
			at := rnd.IntN(len(text) - len(p) + 1)
			text = text[:at] + p + text[at+len(p):]
		}
		s := New(phrases...)
		want := containsFirst(text, phrases)
		if got := s.First(text); got != want {
			t.Fatalf("First(%q) over %q = %d, Contains says %d", text, phrases, got, want)
		}
		if got := s.Any(text); got != (want >= 0) {
			t.Fatalf("Any(%q) over %q = %v, Contains says %v", text, phrases, got, want >= 0)
		}
		if got := s.AnyBytes([]byte(text)); got != (want >= 0) {
			t.Fatalf("AnyBytes(%q) over %q = %v, Contains says %v", text, phrases, got, want >= 0)
		}
	}
}
