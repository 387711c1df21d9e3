package keysort

import (
	"slices"
	"testing"
)

// Bytewise must order keys exactly as slices.Sort does: the walk's Fields,
// and so the order of findings, follow it.
func TestBytewiseIsByteOrder(t *testing.T) {
	for _, keys := range [][]string{
		nil,
		{"type"},
		{"type", "description", "enum", "default", "title"},
		{"b", "a", "", "ab", "aa", "a"},
		{"x-a", "x-b", "x", "X", "é", "e", "zz", "z"},
		{"m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "n"}, // over the insertion sort's bound
	} {
		got, want := slices.Clone(keys), slices.Clone(keys)
		Bytewise(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Bytewise(%q) = %q, want %q", keys, got, want)
		}
	}
}
