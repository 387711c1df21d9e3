package gate

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// Secrets of each shape the preview must hide, built from parts so that
// no whole credential sits in the source. hidden is a part of each that a
// reviewer must never see.
var (
	githubToken = "ghp_" + "R8xT2mQ9vL4kW7nB3cY6" + "hJ1pD5sF0gZaEuKoIiVt"
	awsKey      = "AKIA" + "Z3MPLQ7RW2XK9T4B"
	jwt         = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJhZ2VudC0wIiwiaWF0IjoxNzAwMDAwMDAwfQ" + ".Qm9ndXNTaWduYXR1cmVGb3JUZXN0aW5nT25seTEyMw"
	bearer      = "mF7qL2xR9tK4vN8wB3zC6" + "yH1pD5sG0jAeUoIiQaZ"
	slackToken  = "xoxb-" + "2048-1024-" + "Zq8Wn3Lr6Tt1Vb9Km4"
	pemKey      = "-----BEGIN RSA PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"-----END RSA PRIVATE KEY-----\n"
)

func TestArgumentsPreviewRedacts(t *testing.T) {
	for _, tc := range []struct {
		name string
		args string
		// hidden must not appear in the preview; shown must.
		hidden []string
		shown  []string
	}{
		{
			name:   "secret-looking names",
			args:   `{"path":"/srv","password":"hunter2","apiKey":"k-123","Authorization":"Basic dXNlcjpwYXNz","sessionId":"s-9","x_token":"t-1"}`,
			hidden: []string{"hunter2", "k-123", "dXNlcjpwYXNz", "s-9", "t-1"},
			shown:  []string{`"path":"/srv"`, `"password":"[redacted]"`, `"apiKey":"[redacted]"`},
		},
		{
			name:   "a GitHub token under an innocent name",
			args:   `{"query":"` + githubToken + `"}`,
			hidden: []string{githubToken[8:]},
			shown:  []string{`"query":"ghp_`, "[redacted]"},
		},
		{
			name:   "a bearer header inside a command",
			args:   `{"cmd":"curl -H 'Authorization: Bearer ` + bearer + `' https://api.example.com/v1"}`,
			hidden: []string{bearer[4:]},
			shown:  []string{"curl -H", "https://api.example.com/v1"},
		},
		{
			name:   "a short bearer token and a password flag inside a command",
			args:   `{"cmd":"curl -H \"Authorization: Bearer abc123\" --password=hunter2 -u me https://x"}`,
			hidden: []string{"abc123", "hunter2"},
			shown:  []string{"-u me https://x"},
		},
		{
			name:   "a private key block",
			args:   mustJSON(t, map[string]any{"content": "key follows\n" + pemKey + "done"}),
			hidden: []string{"MIIEowIBAAKCAQEA", "VTLw7onLRnrq0", "END RSA PRIVATE KEY"},
			shown:  []string{"key follows", "BEGIN RSA PRIVATE KEY", "done"},
		},
		{
			name:   "a private key block cut short",
			args:   mustJSON(t, map[string]any{"content": pemKey[:120]}),
			hidden: []string{"MIIEowIBAAKCAQEA"},
			shown:  []string{"BEGIN RSA PRIVATE KEY"},
		},
		{
			name:   "an AWS access key",
			args:   `{"note":"use ` + awsKey + ` for the bucket"}`,
			hidden: []string{awsKey[8:]},
			shown:  []string{"for the bucket"},
		},
		{
			name:   "a JWT",
			args:   `{"text":"session is ` + jwt + `"}`,
			hidden: []string{jwt[20:]},
			shown:  []string{"session is"},
		},
		{
			name:   "a Slack token",
			args:   `{"text":"` + slackToken + `"}`,
			hidden: []string{"Zq8Wn3Lr6Tt1Vb9Km4"},
		},
		{
			name:   "a secret as a key",
			args:   `{"` + githubToken + `":1}`,
			hidden: []string{githubToken[8:]},
		},
		{
			name:   "nested objects and arrays",
			args:   `{"a":{"b":[{"c":"` + githubToken + `"},{"secret":"s3cr3t"}],"d":["` + jwt + `"]},"ok":[1,2.50,true,null]}`,
			hidden: []string{githubToken[8:], "s3cr3t", jwt[20:]},
			shown:  []string{`"secret":"[redacted]"`, `"ok":[1,2.50,true,null]`},
		},
		{
			name:   "arguments that are an array",
			args:   `["` + githubToken + `","plain"]`,
			hidden: []string{githubToken[8:]},
			shown:  []string{`"plain"`},
		},
		{
			name:  "arguments that are a string",
			args:  `"hello <world>"`,
			shown: []string{`"hello <world>"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ArgumentsPreview([]byte(tc.args))
			for _, h := range tc.hidden {
				if strings.Contains(got, h) {
					t.Errorf("the preview shows %q: %s", h, got)
				}
			}
			for _, s := range tc.shown {
				if !strings.Contains(got, s) {
					t.Errorf("the preview lacks %q: %s", s, got)
				}
			}
		})
	}
}

func TestArgumentsPreviewIsBounded(t *testing.T) {
	huge := mustJSON(t, map[string]any{"a": strings.Repeat("x", 1<<20), "b": "tail"})
	if got := ArgumentsPreview([]byte(huge)); len(got) > previewValueBytes+64 || !strings.Contains(got, `"b":"tail"`) {
		t.Errorf("a long value is not clipped to its share (%d bytes): %.120s…", len(got), got)
	}
	// A secret at the end of a long value is masked before the clip, so no
	// head of it shows either.
	long := mustJSON(t, map[string]any{"q": strings.Repeat("y", previewValueBytes-10) + githubToken})
	if got := ArgumentsPreview([]byte(long)); strings.Contains(got, githubToken[:12]) {
		t.Errorf("the clip left a secret's head: %s", got)
	}

	many := map[string]any{}
	for i := range 5000 {
		many["key"+strconv.Itoa(i)] = strings.Repeat("v", 200)
	}
	if got := ArgumentsPreview([]byte(mustJSON(t, many))); len(got) > gateproto.MaxArgumentsPreview || len(got) < gateproto.MaxArgumentsPreview/2 {
		t.Errorf("the preview of many members is %d bytes, want close to and at most %d", len(got), gateproto.MaxArgumentsPreview)
	}

	deep := strings.Repeat(`{"a":`, 200) + `"` + githubToken + `"` + strings.Repeat("}", 200)
	got := ArgumentsPreview([]byte(deep))
	if !strings.Contains(got, `"[…]"`) || strings.Contains(got, "ghp_") || len(got) > gateproto.MaxArgumentsPreview {
		t.Errorf("deep arguments are not cut at depth %d: %.200s", previewDepth, got)
	}
	// Deeper than the JSON decoder follows: no preview, no panic.
	if got := ArgumentsPreview([]byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000))); len(got) > gateproto.MaxArgumentsPreview {
		t.Errorf("very deep arguments gave %d bytes", len(got))
	}
	for _, bad := range []string{"", "{", `{"a":}`, "\xff"} {
		if got := ArgumentsPreview([]byte(bad)); got != "" {
			t.Errorf("ArgumentsPreview(%q) = %q, want nothing", bad, got)
		}
	}
}

func TestArgumentsDigest(t *testing.T) {
	digest := func(s string) string {
		t.Helper()
		d, err := ArgumentsDigest([]byte(s))
		if err != nil {
			t.Fatalf("ArgumentsDigest(%s): %v", s, err)
		}
		if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
			t.Fatalf("ArgumentsDigest(%s) = %q, want sha256: and 64 hex digits", s, d)
		}
		return d
	}
	base := digest(`{"path":"/srv","opts":{"depth":2,"all":true},"names":["a","b"]}`)
	for _, same := range []string{
		`{"names":["a","b"],"opts":{"all":true,"depth":2},"path":"/srv"}`,
		"{ \"path\" : \"/srv\",\n\t\"opts\":{\"depth\":2.0,\"all\":true}, \"names\":[ \"a\" , \"b\" ] }",
		`{"path":"\/srv","opts":{"depth":2e0,"all":true},"names":["\u0061","b"]}`,
	} {
		if got := digest(same); got != base {
			t.Errorf("the same arguments written %s have digest %s, want %s", same, got, base)
		}
	}
	for _, other := range []string{
		`{"path":"/srv/","opts":{"depth":2,"all":true},"names":["a","b"]}`,
		`{"path":"/srv","opts":{"depth":3,"all":true},"names":["a","b"]}`,
		`{"path":"/srv","opts":{"depth":2,"all":true},"names":["b","a"]}`,
		`{"path":"/srv","opts":{"depth":"2","all":true},"names":["a","b"]}`,
		`{"path":"/srv","opts":{"depth":2,"all":true},"names":["a","b"],"extra":null}`,
	} {
		if got := digest(other); got == base {
			t.Errorf("other arguments %s share the digest %s", other, got)
		}
	}
	// Absent arguments are the empty object.
	if empty := digest(`{}`); digest("") != empty || digest("null") != empty {
		t.Error("absent or null arguments do not digest as {}")
	}
	for _, bad := range []string{"{", `{"a":1,}`, "\xff"} {
		if _, err := ArgumentsDigest([]byte(bad)); err == nil {
			t.Errorf("ArgumentsDigest(%q) succeeded", bad)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPreviewSaysWhenItIsPartial: the preview says whether it shows every
// argument in full, so that a reviewer is never told "these arguments"
// of something redacted or cut.
func TestPreviewSaysWhenItIsPartial(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		complete   bool
	}{
		{"plain", `{"repo":"toolgate","force":false,"n":3}`, true},
		{"none", ``, true},
		{"null", `null`, true},
		{"a secret-named key", `{"password":"hunter2"}`, false},
		{"a secret in a value", `{"q":"ghp_` + strings.Repeat("a", 36) + `"}`, false},
		{"a setting in a value", `{"cmd":"curl -H 'Authorization: Bearer abcdefgh'"}`, false},
		{"a long value", `{"body":"` + strings.Repeat("x", previewValueBytes+1) + `"}`, false},
		{"a long number", `{"n":1` + strings.Repeat("0", previewValueBytes+1) + `}`, false},
		{"too deep", strings.Repeat(`{"a":`, previewDepth+3) + `1` + strings.Repeat(`}`, previewDepth+3), false},
		{"too many", mustJSON(t, map[string]string{"a": strings.Repeat("x", 200), "b": strings.Repeat("y", 200), "c": strings.Repeat("z", 200),
			"d": strings.Repeat("x", 200), "e": strings.Repeat("x", 200), "f": strings.Repeat("x", 200), "g": strings.Repeat("x", 200),
			"h": strings.Repeat("x", 200), "i": strings.Repeat("x", 200), "j": strings.Repeat("x", 200), "k": strings.Repeat("x", 200),
			"l": strings.Repeat("x", 200), "m": strings.Repeat("x", 200), "n": strings.Repeat("x", 200), "o": strings.Repeat("x", 200),
			"p": strings.Repeat("x", 200), "q": strings.Repeat("x", 200), "r": strings.Repeat("x", 200), "s": strings.Repeat("x", 200),
			"t": strings.Repeat("x", 200), "u": strings.Repeat("x", 200)}), false},
		{"not JSON", `{"a":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, complete := Preview([]byte(tc.args))
			if complete != tc.complete {
				t.Errorf("complete = %v, want %v (preview %.120q)", complete, tc.complete, text)
			}
			if text != ArgumentsPreview([]byte(tc.args)) {
				t.Error("Preview and ArgumentsPreview differ")
			}
		})
	}
}
