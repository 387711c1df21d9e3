package scan

import (
	"slices"
	"strconv"
	"testing"
)

func TestAppendIdentWords(t *testing.T) {
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
		if got := appendIdentWords(nil, c.in); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("appendIdentWords(nil, %q) = %q, want %q", c.in, got, c.want)
		}
		var buf [8]string
		if got := appendIdentWords(buf[:0], c.in); !slices.Equal(got, c.want) {
			t.Errorf("appendIdentWords(buf, %q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A pooled toolInfo keeps the room of its lists and its set of parameters
// from one tool to the next: what it answers must be the new tool's alone.
func TestToolInfoReused(t *testing.T) {
	var ti toolInfo
	ti.fill([]Text{{"name", "delete_SSH_key"}, {"inputSchema.properties.KeyFile", "KeyFile"}, {"inputSchema.properties.host", "host"}})
	if !slices.Equal(ti.nameWords, []string{"delete", "ssh", "key"}) || !ti.paramIn([]string{"file"}) || !ti.hasParam("keyfile") || !ti.hasParam("HOST") {
		t.Fatalf("first tool: nameWords %q, paramIn(file) %v, hasParam(keyfile) %v", ti.nameWords, ti.paramIn([]string{"file"}), ti.hasParam("keyfile"))
	}
	ti.fill([]Text{{"name", "list"}, {"inputSchema.properties.query", "query"}})
	if !slices.Equal(ti.nameWords, []string{"list"}) || ti.paramIn([]string{"file"}) || ti.paramIn([]string{"host"}) || ti.hasParam("keyfile") || ti.hasParam("host") || !ti.hasParam("query") || !ti.paramIn([]string{"que"}) {
		t.Fatalf("second tool: nameWords %q, params %q, words %q, set %v", ti.nameWords, ti.params, ti.paramWords, ti.paramSet)
	}
	ti.fill(nil)
	if len(ti.nameWords) != 0 || ti.paramIn([]string{"q"}) || ti.hasParam("query") {
		t.Fatalf("no tool: nameWords %q, words %q, set %v", ti.nameWords, ti.paramWords, ti.paramSet)
	}
	many := []Text{{"name", "wide"}}
	for i := range maxKeptParams + 1 {
		many = append(many, Text{"inputSchema.properties.p" + strconv.Itoa(i), "p" + strconv.Itoa(i)})
	}
	ti.fill(many)
	if !ti.hasParam("p64") {
		t.Fatal("wide tool: p64 missing")
	}
	ti.fill([]Text{{"name", "narrow"}})
	if ti.paramSet != nil || ti.hasParam("p1") {
		t.Fatalf("a set of %d parameters was kept for the next tool", maxKeptParams+1)
	}
}
