package risk

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

func TestTokenize(t *testing.T) {
	for name, want := range map[string][]string{
		"delete_repo":       {"delete", "repo"},
		"k8s_delete_pod":    {"k8s", "delete", "pod"},
		"s3_list_buckets":   {"s3", "list", "buckets"},
		"pods_delete":       {"pods", "delete"},
		"deleteRepository":  {"delete", "repository"},
		"repo.delete":       {"repo", "delete"},
		"helm-uninstall":    {"helm", "uninstall"},
		"HTTPServerRestart": {"http", "server", "restart"},
		"API-post-search":   {"api", "post", "search"},
		"ns/resources_list": {"ns", "resources", "list"},
		"":                  nil,
		"___":               nil,
	} {
		if got := Tokenize(name); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"delete_repo", "deleteRepository", "HTTPServer", "a.b-c/d e", "\xff\xfe", "ÄÖÜ_straße", "getHTTPSUrl2Go", "A1bC__dE9f", "xMLHttpRequest"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		if isASCII(s) && !slices.Equal(toks, tokenizeRunes(s)) {
			t.Fatalf("the ASCII tokenizer differs: %q against %q", toks, tokenizeRunes(s))
		}
		if len(toks) > 65 {
			t.Fatalf("%d tokens: the tokenizer must stay bounded", len(toks))
		}
		for _, tok := range toks {
			if tok == "" {
				t.Fatal("empty token")
			}
		}
	})
}

func FuzzLowerText(f *testing.F) {
	// The long ones cross the chunks lowerText converts at a time.
	for _, s := range []string{"Deletes ALL", "ÄÖÜ Straße", "", "\xff", strings.Repeat("Ab", 300), strings.Repeat("x", 255) + "YZ" + strings.Repeat("q", 256) + "W"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lowerText(s), strings.ToLower(s); got != want {
			t.Fatalf("lowerText(%q) = %q, want %q", s, got, want)
		}
	})
}

// appendTokens must cut a name exactly as Tokenize does, into a buffer of
// any size, after whatever the buffer held.
func TestAppendTokensAsTokenize(t *testing.T) {
	for _, s := range []string{"", "_", "get_user", "HTTPServerURL", "k8s-pod.listAll", "déjàVu_name",
		"a_b_c_d_e_f_g_h_i_j_k", "already lower words", "X"} {
		var buf [2]string
		got := appendTokens(append(buf[:0], "kept"), s)
		want := append([]string{"kept"}, Tokenize(s)...)
		if !slices.Equal(got, want) {
			t.Errorf("appendTokens(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzFlatten(f *testing.F) {
	for _, s := range []string{"allNamespaces", "all_namespaces", "all-namespaces", "a.b", "ÄÖ_x", "", "_", "plain", strings.Repeat("Ab_", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.ToLower(separators.Replace(s))
		if got := flatten(s); got != want {
			t.Fatalf("flatten(%q) = %q, want %q", s, got, want)
		}
		// The walk flattens its names together: each must come out as
		// flatten makes it.
		for _, p := range schemaParams(tooldef.FromAny(map[string]any{"properties": map[string]any{s: map[string]any{"type": "string"}, "Other_Name": map[string]any{}}})) {
			if p.flat != flatten(p.name) {
				t.Fatalf("schemaParams flattened %q to %q", p.name, p.flat)
			}
		}
	})
}
