package tooldef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
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

// The writer's two ways of writing an object, on its stack up to
// smallObject members and on the shared stack beyond, must both write the
// members in canonical order with their own values, nested objects of
// either size inside either.
func TestWriterObjectsInCanonicalOrder(t *testing.T) {
	for _, names := range [][]string{
		{},
		{"type"},
		{"type", "description", "enum", "default", "title"},
		{"b", "a", "", "ab", "aa", "ba", "c", "d"},                             // smallObject exactly
		{"b", "a", "", "ab", "aa", "ba", "c", "d", "e"},                        // one over
		{"m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "n"}, // over the insertion sort's bound
		{"é", "e", "\U0001F600", "\uFB33", "a"},                                // not ASCII: UTF-16 order
	} {
		obj := map[string]any{}
		all := make([]any, len(names))
		for i, n := range names {
			all[i] = n
		}
		for i, n := range names {
			obj[n] = map[string]any{"v": json.Number(fmt.Sprint(i)), n: all}
		}
		got, err := appendCanonical(nil, obj, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(mustJSON(t, obj))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("wrote %s, want %s", got, want)
		}
	}
}
