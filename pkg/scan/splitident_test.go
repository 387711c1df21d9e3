package scan

import (
	"slices"
	"testing"
)

func TestSplitIdent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"___", nil},
		{"read_file", []string{"read", "file"}},
		{"getUserProfile", []string{"get", "user", "profile"}},
		{"HTTPRequest", []string{"httprequest"}},
		{"list-files.v2/all items", []string{"list", "files", "v2", "all", "items"}},
		{"__a__B", []string{"a", "b"}},
		{"aB", []string{"a", "b"}},
		{"a_b_c_d_e_f_g_h_i_j", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}}, // more words than the stack holds
		{"Éclair_ÜBER", []string{"éclair", "über"}},
	} {
		if got := splitIdent(c.in); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("splitIdent(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
