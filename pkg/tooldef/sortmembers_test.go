package tooldef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// sortMembers orders members by their names' bytes, whichever sort it
// takes, and canonicalMembers as RFC 8785 does, by their UTF-16 code
// units; for ASCII names the two are one order.
func TestSortMembersIsByteOrderAndCanonicalMembersUTF16(t *testing.T) {
	for _, names := range [][]string{
		nil,
		{"type"},
		{"type", "description", "enum", "default", "title"},
		{"b", "a", "", "ab", "aa"},
		{"x_a", "x-b", "x", "X", "zz", "z"},
		{"m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "n"}, // over the insertion sort's bound
		{"é", "e", "\U0001F600", "\uFB33", "a"},                                // not ASCII: the two orders differ
		{"n", "\U0001F600", "m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "\uFB33", "b", "a"},
	} {
		ms := make([]Member, len(names))
		for i, n := range names {
			ms[i] = Member{Key: n, Value: i}
		}
		sortMembers(ms)
		got := make([]string, len(ms))
		for i, m := range ms {
			got[i] = m.Key
			if names[m.Value.(int)] != m.Key {
				t.Fatalf("a member lost its value: %q", m.Key)
			}
		}
		if want := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
			t.Errorf("sortMembers(%s) = %q, want byte order %q", strings.Join(names, ","), got, want)
		}
		canon := canonicalMembers(&Object{members: ms, nonASCII: anyNonASCII(ms)})
		got = got[:0]
		for _, m := range canon {
			got = append(got, m.Key)
		}
		want := slices.Clone(names)
		slices.SortFunc(want, compareUTF16)
		if !slices.Equal(got, want) {
			t.Errorf("canonicalMembers(%s) = %q, want UTF-16 order %q", strings.Join(names, ","), got, want)
		}
	}
}

// An object made from Go maps of any size, nested in one another, is
// written with its members in canonical order with their own values.
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
		got, err := appendCanonical(nil, ObjectOf(obj), 0)
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
