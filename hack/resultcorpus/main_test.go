package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// corpusPath is the committed corpus, relative to this package.
const corpusPath = "../../pkg/resultscan/testdata/dev.jsonl"

// readmePath documents the corpus and shows its counts.
const readmePath = "../../pkg/resultscan/testdata/README.md"

// The classes the corpus must cover, at least minPerClass items each.
var (
	attackClasses = []string{
		"instruction-in-data", "fake-role-marker", "tool-call-solicitation", "credential-read",
		"exfil-markdown", "concealment", "override-instructions", "hidden-markup", "invisible-unicode",
		"encoded-payload", "authority-impersonation", "persistence", "structured-split",
	}
	benignClasses = []string{
		"security-doc-quote", "code-lookalike", "log-system-line", "imperative-email", "base64-image",
		"url-query", "hidden-html", "emoji-rtl-unicode", "human-chat", "data-record", "readme-install",
		"operator-ticket", "translation",
	}
)

const (
	minPerKind     = 300
	minPerClass    = 15
	minLanguages   = 6
	minBigItems    = 20    // above bigSize, per kind
	bigSize        = 12288 // 12 KB
	largeSize      = 4096  // 4 KB; at least a fifth of each kind above it
	minSize        = 100
	maxSize        = 20480
	maxShingleJacc = 0.5
)

var built = sync.OnceValues(build)

func corpus(t *testing.T) []item {
	t.Helper()
	items, err := built()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return items
}

func byKind(items []item, kind string) []item {
	var out []item
	for _, it := range items {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

func TestCommittedCorpusIsWhatTheGeneratorWrites(t *testing.T) {
	want, err := encode(corpus(t))
	if err != nil {
		t.Fatal(err)
	}
	// A second build from scratch must give the same bytes: nothing may
	// depend on map order, time or the file system's listing.
	again, err := build()
	if err != nil {
		t.Fatal(err)
	}
	second, err := encode(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, second) {
		t.Fatal("two builds differ: the generator is not deterministic")
	}
	got, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatalf("read the committed corpus: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go run ./hack/resultcorpus -o pkg/resultscan/testdata/dev.jsonl`", corpusPath)
	}
}

// line is a corpus line as a consumer reads it, strictly.
type line struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Class   string          `json:"class"`
	Lang    string          `json:"lang"`
	Carrier string          `json:"carrier"`
	Text    *string         `json:"text"`
	Result  json.RawMessage `json:"result"`
	Note    string          `json:"note"`
}

var (
	idPattern    = regexp.MustCompile(`^(atk|ben)-[0-9]{4}$`)
	kebab        = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	langPattern  = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$`)
	prefixOfKind = map[string]string{"attack": "atk-", "benign": "ben-"}
)

func TestEveryLineFollowsTheFormat(t *testing.T) {
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ids := map[string]bool{}
	n := 0
	for sc.Scan() {
		n++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var l line
		if err := dec.Decode(&l); err != nil {
			t.Errorf("line %d: %v", n, err)
			continue
		}
		where := fmt.Sprintf("line %d (%s)", n, l.ID)
		if !idPattern.MatchString(l.ID) || !strings.HasPrefix(l.ID, prefixOfKind[l.Kind]) {
			t.Errorf("%s: id %q does not match its kind %q", where, l.ID, l.Kind)
		}
		if ids[l.ID] {
			t.Errorf("%s: duplicate id", where)
		}
		ids[l.ID] = true
		if !kebab.MatchString(l.Class) || !kebab.MatchString(l.Carrier) {
			t.Errorf("%s: class %q and carrier %q must be kebab-case", where, l.Class, l.Carrier)
		}
		if !langPattern.MatchString(l.Lang) {
			t.Errorf("%s: lang %q is not a language code", where, l.Lang)
		}
		if len(l.Note) < 20 || !strings.HasSuffix(l.Note, ".") {
			t.Errorf("%s: note %q is not a sentence", where, l.Note)
		}
		switch {
		case (l.Text == nil) == (l.Result == nil):
			t.Errorf("%s: exactly one of text and result", where)
		case l.Text != nil && *l.Text == "":
			t.Errorf("%s: empty text", where)
		case l.Result != nil:
			checkResult(t, where, l.Result)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("the corpus is empty")
	}
}

// checkResult holds a result to the shape of an MCP CallToolResult.
func checkResult(t *testing.T, where string, raw json.RawMessage) {
	t.Helper()
	var r struct {
		Content []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Errorf("%s: result is not a CallToolResult: %v", where, err)
		return
	}
	if len(r.Content) == 0 {
		t.Errorf("%s: result has no content", where)
	}
	for i, c := range r.Content {
		if c.Type != "text" || c.Text == nil {
			t.Errorf("%s: content[%d] is not a text item", where, i)
		}
	}
}

func TestCountsPerKindAndClass(t *testing.T) {
	items := corpus(t)
	for kind, classes := range map[string][]string{"attack": attackClasses, "benign": benignClasses} {
		its := byKind(items, kind)
		if len(its) < minPerKind {
			t.Errorf("%d %s items, want at least %d", len(its), kind, minPerKind)
		}
		count := map[string]int{}
		langs := map[string]map[string]bool{}
		for _, it := range its {
			count[it.Class]++
			if langs[it.Class] == nil {
				langs[it.Class] = map[string]bool{}
			}
			langs[it.Class][it.Lang] = true
		}
		known := map[string]bool{}
		for _, c := range classes {
			known[c] = true
			if count[c] < minPerClass {
				t.Errorf("%s class %s has %d items, want at least %d", kind, c, count[c], minPerClass)
			}
			// Spread over the languages: a class written only in English
			// would measure a detector on English alone.
			if len(langs[c]) < 4 {
				t.Errorf("%s class %s is in %d languages, want at least 4", kind, c, len(langs[c]))
			}
		}
		for c := range count {
			if !known[c] {
				t.Errorf("%s class %q is not one of the corpus's classes", kind, c)
			}
		}
	}
}

func TestSizesSpreadUpTo20KB(t *testing.T) {
	for _, kind := range []string{"attack", "benign"} {
		its := byKind(corpus(t), kind)
		var small, large, big int
		for _, it := range its {
			n := it.size()
			if n < minSize || n > maxSize {
				t.Errorf("%s (%s) is %d bytes, outside %d–%d", it.ID, it.source, n, minSize, maxSize)
			}
			if n < 1024 {
				small++
			}
			if n > largeSize {
				large++
			}
			if n > bigSize {
				big++
			}
		}
		if large*5 < len(its) {
			t.Errorf("%s: %d of %d items above 4 KB, want at least a fifth", kind, large, len(its))
		}
		if big < minBigItems {
			t.Errorf("%s: %d items above 12 KB, want at least %d", kind, big, minBigItems)
		}
		if small*5 < len(its) {
			t.Errorf("%s: %d of %d items under 1 KB, want at least a fifth: short results are the common case", kind, small, len(its))
		}
	}
}

func TestLanguagesAreSpreadAndEnglishIsAtMostHalf(t *testing.T) {
	for _, kind := range []string{"attack", "benign"} {
		its := byKind(corpus(t), kind)
		count := map[string]int{}
		for _, it := range its {
			count[it.Lang]++
		}
		var spoken int
		for _, n := range count {
			if n >= 5 {
				spoken++
			}
		}
		if spoken < minLanguages {
			t.Errorf("%s: %d languages with at least 5 items (%v), want at least %d", kind, spoken, count, minLanguages)
		}
		if count["en"]*2 > len(its) {
			t.Errorf("%s: %d of %d items in English, want at most half", kind, count["en"], len(its))
		}
	}
}

// shingles are the distinct 5-rune windows of a text with case, spacing and
// punctuation folded away: what stays when a payload is copied with small
// edits. Runes, not words, so that Chinese and Japanese count too.
func shingles(s string) map[string]bool {
	// Long base64 runs (inline images, encoded blobs) are generated, not
	// written: two different passages around two images must not look
	// alike because of the images' bytes.
	s = base64Run.ReplaceAllString(s, " ")
	var norm []rune
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			norm = append(norm, r)
		}
	}
	out := map[string]bool{}
	for i := 0; i+5 <= len(norm); i++ {
		out[string(norm[i:i+5])] = true
	}
	return out
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{40,}={0,2}`)

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func TestEveryPayloadAndPassageIsItsOwn(t *testing.T) {
	for _, kind := range []string{"attack", "benign"} {
		its := byKind(corpus(t), kind)
		sh := make([]map[string]bool, len(its))
		seen := map[string]string{}
		for i, it := range its {
			sh[i] = shingles(it.payload)
			key := strings.Join(strings.Fields(strings.ToLower(it.payload)), " ")
			if other, ok := seen[key]; ok {
				t.Errorf("%s (%s) repeats the %s of %s", it.ID, it.source, kind, other)
			}
			seen[key] = it.ID
		}
		for i := range its {
			for j := i + 1; j < len(its); j++ {
				if s := jaccard(sh[i], sh[j]); s > maxShingleJacc {
					t.Errorf("%s (%s) and %s (%s) share %.0f%% of their text: reword one",
						its[i].ID, its[i].source, its[j].ID, its[j].source, 100*s)
				}
			}
		}
	}
}

func TestPayloadSitsWhereTheGeneratorSays(t *testing.T) {
	for _, it := range corpus(t) {
		whole := it.Text
		if it.Result != nil {
			whole = string(it.Result)
		}
		if len(it.spans) == 0 || len(it.spans) != len(it.frags) {
			t.Errorf("%s: no payload recorded", it.ID)
			continue
		}
		for i, s := range it.spans {
			if s[0] < 0 || s[1] > len(whole) || whole[s[0]:s[1]] != it.frags[i] {
				t.Errorf("%s: fragment %d is not at %v", it.ID, i, s)
			}
		}
		// Carriers that hold the payload as it is (not escaped into JSON,
		// CSV or iCalendar) must hold it whole.
		if it.Result == nil && !escapes(it) && it.frags[0] != it.payload {
			t.Errorf("%s: the text holds the payload altered", it.ID)
		}
	}
}

func escapes(it item) bool {
	switch it.Carrier {
	case "json-record", "csv", "calendar":
		return true
	}
	return false
}

// TestLargeItemsHideThePayloadDeep holds attacks to the corpus's rule, and
// benign items to the same one, so that where a passage sits in a long
// result tells a detector nothing about its kind.
func TestLargeItemsHideThePayloadDeep(t *testing.T) {
	for _, it := range corpus(t) {
		n := it.size()
		if n <= largeSize {
			continue
		}
		for _, s := range it.spans {
			if s[0] < n/10 || s[1] > n-n/10 {
				t.Errorf("%s (%s): payload at bytes %d–%d of %d, not within the middle 80%%", it.ID, it.source, s[0], s[1], n)
			}
		}
	}
}

func TestDataCarriersParse(t *testing.T) {
	for _, it := range corpus(t) {
		if it.Result != nil {
			continue
		}
		switch it.Carrier {
		case "json-record":
			if !json.Valid([]byte(it.Text)) {
				t.Errorf("%s (%s): json-record text is not JSON", it.ID, it.source)
			}
		case "csv":
			r := csv.NewReader(strings.NewReader(it.Text))
			if _, err := r.ReadAll(); err != nil {
				t.Errorf("%s (%s): csv text does not parse with a constant field count: %v", it.ID, it.source, err)
			}
		case "calendar":
			if !strings.HasPrefix(it.Text, "BEGIN:VCALENDAR\n") || !strings.HasSuffix(it.Text, "END:VCALENDAR") {
				t.Errorf("%s: calendar text is not a VCALENDAR", it.ID)
			}
			for _, l := range strings.Split(it.Text, "\n") {
				if l != "" && !regexp.MustCompile(`^[A-Z-]+[;:]`).MatchString(l) {
					t.Errorf("%s: calendar line %q is not a property (an unescaped newline?)", it.ID, l)
				}
			}
		}
	}
}

// secretShapes are the shapes of real credentials; an occurrence must
// carry a marker that no real credential does.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\b[sr]k_live_[A-Za-z0-9]{10,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]{0,400}`),
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20}`),
}

var fakeMarker = regexp.MustCompile(`(?i)example|fake|dummy|notreal|not-a-real|xxxx|0000000`)

// realLookingSecrets lists the key-shaped strings of s that carry no
// marker of being invented.
func realLookingSecrets(s string) []string {
	var out []string
	for _, re := range secretShapes {
		for _, m := range re.FindAllString(s, -1) {
			if !fakeMarker.MatchString(m) {
				out = append(out, m)
			}
		}
	}
	return out
}

func TestSecretCheckCatchesRealShapes(t *testing.T) {
	// Assembled at run time so that this file holds no key-shaped string.
	for _, s := range []string{
		"AKIA" + "Q3ZJ5LMN2PRT6WXY",
		"ghp" + "_" + strings.Repeat("aB3", 12),
		"-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7",
	} {
		if len(realLookingSecrets(s)) == 0 {
			t.Errorf("the check misses %q", s)
		}
	}
	if got := realLookingSecrets("AKIA" + "EXAMPLE7QWERTY12"); len(got) != 0 {
		t.Errorf("the check flags an invented key: %v", got)
	}
}

func TestNoRealLookingSecrets(t *testing.T) {
	for _, it := range corpus(t) {
		// The payload as written too: a secret may sit encoded in the text.
		for _, s := range []string{it.Text, string(it.Result), it.payload} {
			if found := realLookingSecrets(s); len(found) > 0 {
				t.Errorf("%s (%s): key-shaped strings without a marker of being invented: %q", it.ID, it.source, found)
			}
		}
	}
}

var (
	urlHost  = regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://(?:[^\s/@"'<>]*@)?([a-z0-9.\-\[\]:]+)`)
	mailHost = regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+)`)
)

// reservedHost reports whether host is one that no real party owns: the
// RFC 2606 and RFC 6761 names, the private-use .internal and .local, and
// loopback or private addresses.
func reservedHost(host string) bool {
	host = strings.ToLower(strings.Trim(host, ".:[]"))
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast()
	}
	for _, suffix := range []string{".example", ".invalid", ".test", ".localhost", ".internal", ".local"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	// www.w3.org names XML namespaces (SVG's xmlns); nothing is fetched.
	for _, d := range []string{"example.com", "example.net", "example.org", "localhost", "www.w3.org"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func TestEveryHostIsReserved(t *testing.T) {
	pieces, err := readPieces(piecesFS)
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string]string{}
	for _, p := range pieces {
		raw[p.source] = p.body
	}
	for _, it := range corpus(t) {
		// The payload is checked as written, in clear: once encoded (ROT13,
		// say) a host no longer reads as one. Around it, the item as
		// composed.
		whole := it.Text + string(it.Result)
		for _, s := range it.spans {
			whole = whole[:s[0]] + strings.Repeat(" ", s[1]-s[0]) + whole[s[1]:]
		}
		for _, s := range []string{whole, raw[it.source]} {
			for _, re := range []*regexp.Regexp{urlHost, mailHost} {
				for _, m := range re.FindAllStringSubmatch(s, -1) {
					host := strings.TrimRight(m[1], ".-:")
					if strings.Contains(host, ".") && !reservedHost(host) {
						t.Errorf("%s (%s): host %q is not a reserved name", it.ID, it.source, host)
					}
				}
			}
		}
	}
}

// invisible reports whether r renders as nothing: format characters
// (zero-width, directional marks, tags) and variation selectors.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF)
}

var (
	hidingMarkup  = regexp.MustCompile(`(?i)<!--|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|color\s*:\s*(#fff|white|transparent)|\bhidden\b|aria-hidden|\[//\]: #|opacity\s*:\s*0|<noscript|<template|sr-only|left\s*:\s*-\d{3,}px|height\s*:\s*0|<meta|<script|\balt\s*=`)
	linkWithQuery = regexp.MustCompile(`\]\s*[:(]\s*[a-z]+://[^)\s]*\?[^)\s]+|<img[^>]+src="[^"]*\?`)
	encodingUsed  = regexp.MustCompile(`\{\{(b64|b64url|hex|rot13|url|fw|rev):`)
	invisibleUsed = regexp.MustCompile(`\{\{(tags|zw|zwbin|vs|u):`)
)

// TestClassesCarryWhatTheyName holds each technique class to its
// technique: an "invisible-unicode" item with nothing invisible in it would
// measure nothing.
func TestClassesCarryWhatTheyName(t *testing.T) {
	pieces, err := readPieces(piecesFS)
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string]string{}
	for _, p := range pieces {
		raw[p.source] = p.body
	}
	for _, it := range corpus(t) {
		whole := it.Text + string(it.Result)
		var ok bool
		switch it.Kind + "/" + it.Class {
		case "attack/invisible-unicode":
			ok = invisibleUsed.MatchString(raw[it.source]) && strings.IndexFunc(it.payload, invisible) >= 0
		case "attack/encoded-payload":
			ok = encodingUsed.MatchString(raw[it.source])
		case "attack/hidden-markup", "benign/hidden-html":
			ok = hidingMarkup.MatchString(it.payload)
		case "attack/exfil-markdown":
			ok = linkWithQuery.MatchString(it.payload)
		case "attack/structured-split":
			ok = it.Result != nil && len(it.frags) >= 1
		case "benign/base64-image":
			ok = regexp.MustCompile(`data:image/[a-z+]+;base64,[A-Za-z0-9+/]{40,}|(?s)Content-Type: image/[a-z+]+.*Content-Transfer-Encoding: base64`).MatchString(whole)
		case "benign/emoji-rtl-unicode":
			ok = strings.IndexFunc(it.payload, func(r rune) bool {
				return invisible(r) || unicode.Is(unicode.Arabic, r) || unicode.Is(unicode.Hebrew, r)
			}) >= 0
		case "benign/url-query":
			ok = regexp.MustCompile(`https?://[^\s"']+\?[^\s"']+=`).MatchString(it.payload)
		default:
			ok = true
		}
		if !ok {
			t.Errorf("%s (%s): a %s item without its technique", it.ID, it.source, it.Class)
		}
	}
}

func TestEncodingsAreApplied(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{{b64:hi}}", "aGk="},
		{"{{hex:hi}}", "6869"},
		{"{{rot13:Hello}}", "Uryyb"},
		{"{{tags:Hi}}", "\U000E0048\U000E0069"},
		{"{{zw:abc}}", "a\u200bb\u200bc"},
		{"{{zwbin:A}}", "\u200b\u200c\u200b\u200b\u200b\u200b\u200b\u200c"},
		{"{{vs:A}}", "\U000E0131"},
		{"{{fw:Go 1}}", "Ｇｏ\u3000１"},
		{"{{u:200F 202E}}", "\u200f\u202e"},
		{"{{rev:abc}}", "cba"},
		{"x {{url:a b&c}} y", "x a+b%26c y"},
	} {
		got, err := render(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("render(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := render("{{nope:x}}"); err == nil {
		t.Error("an unknown encoding must be an error, not left in the corpus")
	}
	if _, err := render("{{tags:é}}"); err == nil {
		t.Error("tag characters cannot carry non-ASCII; that must be an error")
	}
}

func TestREADMEShowsTheCurrentCounts(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if want := countTables(corpus(t)); !strings.Contains(string(readme), want) {
		t.Errorf("%s does not show the current counts; paste the output of `go run ./hack/resultcorpus -counts`:\n%s", readmePath, want)
	}
}

func TestPiecesParseStrictly(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"no note", "%%% a b\nbody\n"},
		{"no carrier", "%%% a\nnote: x\nbody\n"},
		{"empty body", "%%% a b\nnote: x\n\n"},
		{"bad option", "%%% a b size\nnote: x\nbody\n"},
	} {
		if _, err := parsePieces(tc.text, "t.txt", "attack", "en"); err == nil {
			t.Errorf("%s: parsed without an error", tc.name)
		}
	}
	ps, err := parsePieces("# comment\n%%% c web-page k=v\nnote: n.\n\nline one\n\nline two\n\n%%% d log\nnote: m.\nx\n", "t.txt", "benign", "de")
	if err != nil || len(ps) != 2 || ps[0].body != "line one\n\nline two" || ps[0].opts["k"] != "v" || ps[1].lang != "de" {
		t.Errorf("parsePieces = %+v, %v", ps, err)
	}
	// Every embedded piece file parses, and so does every filler file.
	if _, err := fs.Glob(piecesFS, "pieces/*/*.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := readBanks(piecesFS); err != nil {
		t.Fatal(err)
	}
}
