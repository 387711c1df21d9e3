package tooldef

import (
	"slices"
	"strings"
	"testing"
)

// sortMembers must order members as RFC 8785 does; for ASCII names that
// is byte order, whichever sort it takes.
func TestSortMembersIsCanonicalOrder(t *testing.T) {
	for _, names := range [][]string{
		nil,
		{"type"},
		{"type", "description", "enum", "default", "title"},
		{"b", "a", "", "ab", "aa"},
		{"x_a", "x-b", "x", "X", "zz", "z"},
		{"m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "n"}, // over the insertion sort's bound
		{"é", "e", "\U0001F600", "\uFB33", "a"},                                // not ASCII: UTF-16 order
	} {
		ms := make([]member, len(names))
		for i, n := range names {
			ms[i] = member{key: n, val: i}
		}
		sortMembers(ms)
		want := slices.Clone(names)
		slices.SortFunc(want, compareUTF16)
		got := make([]string, len(ms))
		for i, m := range ms {
			got[i] = m.key
			if names[m.val.(int)] != m.key {
				t.Fatalf("a member lost its value: %q", m.key)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("sortMembers(%s) = %q, want %q", strings.Join(names, ","), got, want)
		}
	}
}
