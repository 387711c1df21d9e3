package risk

import (
	"slices"
	"testing"
)

// sortNames must order names exactly as slices.Sort does: the parameters,
// and so the reasons that name them, follow it.
func TestSortNamesIsByteOrder(t *testing.T) {
	for _, names := range [][]string{
		nil,
		{"path"},
		{"path", "content", "mode", "overwrite", "Path"},
		{"b", "a", "", "ab", "aa", "a"},
		{"x_a", "x-b", "x", "X", "é", "e", "zz", "z"},
		{"m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "n"}, // over the insertion sort's bound
	} {
		got, want := slices.Clone(names), slices.Clone(names)
		sortNames(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("sortNames(%q) = %q, want %q", names, got, want)
		}
	}
}
