package scan

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/clip"
)

// Encoded payloads. A model decodes base64 or hex without being asked, and
// a reviewer sees only noise, so a blob that decodes to readable text is the
// strongest form of this signal. Blobs that do not decode to text are
// reported only when long and random-looking; ordinary identifiers, UUIDs,
// digests (sha256 is 64 hex digits, sha512 128) and URL paths are not.

const (
	minBlob       = 40  // shortest base64 or hex run considered
	minOpaqueB64  = 120 // shortest non-text base64 run reported
	minOpaqueHex  = 129 // longer than a sha512 digest
	minEscapedRun = 10  // consecutive %XX, \xNN, \uNNNN or &#N; escapes
)

// b64 classes: 1 letters and digits, 2 '+' and '/', 3 '-' and '_'.
var b64Class = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 1
	}
	t['+'], t['/'] = 2, 2
	t['-'], t['_'] = 3, 3
	return
}()

func (c *textCtx) findEncoded() {
	o := c.orig
	// Runs shorter than minBlob are skipped without looking at most of
	// their bytes: test the last byte of the window first and jump past
	// the last separator found (i is always the start of a run).
	for i := 0; i+minBlob <= len(o); {
		k := i + minBlob - 1
		for k >= i && b64Class[o[k]] != 0 {
			k--
		}
		if k >= i {
			i = k + 1
			continue
		}
		j := i + minBlob
		for j < len(o) && b64Class[o[j]] != 0 {
			j++
		}
		if c.checkBlob(i, j) {
			return
		}
		i = j + 1
	}
	if c.punct&punctEq != 0 && strings.IndexByte(o, '=') >= 0 && c.findPadded() {
		return
	}
	if c.findSpacedHex() {
		return
	}
	if c.punct&punctPercent != 0 && strings.IndexByte(o, '%') >= 0 && c.findEscapes(percentRe, decodePercent) {
		return
	}
	if c.punct&punctBackslash != 0 && strings.IndexByte(o, '\\') >= 0 && c.findEscapes(backslashRe, decodeBackslash) {
		return
	}
	if c.punct&punctAmp != 0 && strings.Contains(o, "&#") {
		c.findEscapes(entityRe, decodeEntities)
	}
}

// checkBlob judges the run o[i:j] of base64 alphabet characters.
func (c *textCtx) checkBlob(i, j int) bool {
	o := c.orig
	run := o[i:j]
	inURL := tokenBefore(o, i, "://")
	isHex, std, url := true, false, false
	for k := 0; k < len(run); k++ {
		b := run[k]
		if !(('0' <= b && b <= '9') || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F')) {
			isHex = false
		}
		switch b64Class[b] {
		case 2:
			std = true
		case 3:
			url = true
		}
	}
	if isHex {
		h := run[:len(run)&^1]
		dec, err := hex.DecodeString(h)
		if err == nil && ((readable(dec) && c.decodedMatters(dec, len(run))) || (blobLike(dec) && c.decodedHits(dec))) {
			c.blobHit(i, j, dec)
			return true
		}
		if !inURL && len(run) >= minOpaqueHex {
			c.blobHit(i, j, nil)
			return true
		}
		return false
	}
	if std && url {
		// A path with dashes ("repos/my-org/my-repo"), not base64. Its
		// segments may still hide a blob; check each.
		for k := i; k < j; {
			l := k
			for l < j && o[l] != '/' {
				l++
			}
			if l-k >= minBlob && l-k < j-i && c.checkBlob(k, l) {
				return true
			}
			k = l + 1
		}
		return false
	}
	if isBase32(run) {
		if dec, ok := decodeBase32(run); ok && ((readable(dec) && c.decodedMatters(dec, len(run))) || (blobLike(dec) && c.decodedHits(dec))) {
			c.blobHit(i, j, dec)
			return true
		}
	}
	enc := base64.RawStdEncoding
	if url {
		enc = base64.RawURLEncoding
	}
	body := run
	if len(body)%4 == 1 {
		body = body[:len(body)-1]
	}
	if dec, err := enc.DecodeString(body); err == nil && ((readable(dec) && c.decodedMatters(dec, len(run))) || (blobLike(dec) && c.decodedHits(dec))) {
		c.blobHit(i, j, dec)
		return true
	}
	if !inURL && len(run) >= minOpaqueB64 && randomLooking(run) && !tokenBefore(o, i, "data:image/") {
		c.blobHit(i, j, nil)
		return true
	}
	return false
}

// minReadableBlob is the length from which any blob that decodes to text
// is reported. Shorter ones are documentation examples ("content, e.g.
// SGVsbG8gd29ybGQ...") unless the decoded text itself trips a rule.
const minReadableBlob = 80

// maxDecodeDepth bounds nesting: base64 of hex of ROT13 is three layers.
const maxDecodeDepth = 3

func (c *textCtx) decodedMatters(dec []byte, runLen int) bool {
	if runLen >= minReadableBlob {
		return true
	}
	return c.decodedHits(dec)
}

// decodedHits scans decoded text as any other text is scanned (phrase and
// intent rules, other languages, and encodings again, down to
// maxDecodeDepth) and reports whether anything was found.
func (c *textCtx) decodedHits(dec []byte) bool {
	if c.depth >= maxDecodeDepth {
		return false
	}
	sub := &textCtx{tool: c.tool, field: c.field, depth: c.depth + 1}
	sub.reset(string(dec), false)
	sub.prepare()
	sub.runPhraseRules()
	sub.intentSentences()
	sub.findForeign()
	sub.findEncoded()
	if len(sub.hits) == 0 {
		sub.findCiphers()
	}
	return len(sub.hits) > 0
}

// blobLike reports decoded bytes that are themselves an encoding (hex or
// base64 text), worth decoding again.
func blobLike(dec []byte) bool {
	if len(dec) < 16 {
		return false
	}
	for _, b := range dec {
		if b64Class[b] == 0 && b != '=' && b != ' ' {
			return false
		}
	}
	return true
}

// tokenBefore reports whether the whitespace-delimited token that ends at i
// contains marker (used to recognise URLs and image data URIs).
func tokenBefore(o string, i int, marker string) bool {
	b := i
	for b > 0 && i-b < 2048 {
		ch := o[b-1]
		if ch == ' ' || ch == '\n' || ch == '\t' || ch == '"' || ch == '\'' || ch == '(' || ch == '<' || ch == '`' {
			break
		}
		b--
	}
	return strings.Contains(o[b:i], marker)
}

// readable reports bytes that are text: valid UTF-8, almost all printable,
// mostly letters and spaces. Random bytes essentially never pass.
func readable(b []byte) bool {
	if len(b) < 16 || !utf8.Valid(b) {
		return false
	}
	total, printable, wordy := 0, 0, 0
	for _, r := range string(b) {
		total++
		if unicode.IsPrint(r) || r == '\n' || r == '\t' || r == '\r' {
			printable++
		}
		if unicode.IsLetter(r) || r == ' ' {
			wordy++
		}
	}
	return printable*10 >= total*9 && wordy*10 >= total*6
}

// randomLooking reports a run that mixes upper case, lower case and digits
// with many distinct characters, as encoded binary does and identifiers and
// paths do not.
func randomLooking(s string) bool {
	var up, low, dig bool
	var seen [128]bool
	distinct := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'A' <= b && b <= 'Z':
			up = true
		case 'a' <= b && b <= 'z':
			low = true
		case '0' <= b && b <= '9':
			dig = true
		}
		if !seen[b&127] {
			seen[b&127] = true
			distinct++
		}
	}
	return up && low && dig && distinct >= 30 && strings.Count(s, "/")*20 < len(s)
}

func (c *textCtx) blobHit(i, j int, dec []byte) {
	run := c.orig[i:j]
	ex := clip.Runes(escapeVisible(run), 44)
	if dec != nil {
		ex += ` decodes to "` + escapeVisible(string(dec)) + `"`
	} else {
		ex += " (" + itoa(j-i) + " encoded characters)"
	}
	c.hits = append(c.hits, hit{sig: sigEncoded, start: i, end: j, excerpt: clip.Runes(ex, maxExcerptRunes)})
}

var (
	percentRe   = regexp.MustCompile(`(?:%[0-9A-Fa-f]{2}){10,}`)
	backslashRe = regexp.MustCompile(`(?:\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]{1,6}\}){10,}`)
	entityRe    = regexp.MustCompile(`(?:&#[xX][0-9A-Fa-f]{1,6};|&#[0-9]{1,7};){10,}`)
)

// findEscapes reports runs of escapes that spell out ASCII letters and
// digits, which nobody needs to escape: percent-encoded non-ASCII text in a
// URL is fine, "%69%67%6E%6F%72%65" is obfuscation.
func (c *textCtx) findEscapes(re *regexp.Regexp, decode func(string) string) bool {
	for _, m := range re.FindAllStringIndex(c.orig, 16) {
		dec := decode(c.orig[m[0]:m[1]])
		alnum := 0
		for i := 0; i < len(dec); i++ {
			b := dec[i]
			if ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9') {
				alnum++
			}
		}
		if utf8.RuneCountInString(dec) >= minEscapedRun && alnum*2 >= len(dec) {
			c.blobHit(m[0], m[1], []byte(dec))
			return true
		}
	}
	return false
}

func decodePercent(s string) string {
	out := make([]byte, 0, len(s)/3)
	for i := 0; i+2 < len(s); i += 3 {
		out = append(out, unhex(s[i+1])<<4|unhex(s[i+2]))
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

func decodeBackslash(s string) string {
	var out []rune
	for i := 0; i < len(s); {
		if i+1 >= len(s) || s[i] != '\\' {
			i++
			continue
		}
		switch {
		case s[i+1] == 'x' && i+4 <= len(s):
			out = append(out, rune(unhex(s[i+2])<<4|unhex(s[i+3])))
			i += 4
		case s[i+1] == 'u' && i+2 < len(s) && s[i+2] == '{':
			k := strings.IndexByte(s[i:], '}')
			if k < 0 {
				return string(out)
			}
			out = append(out, parseHexRune(s[i+3:i+k]))
			i += k + 1
		case s[i+1] == 'u' && i+6 <= len(s):
			out = append(out, parseHexRune(s[i+2:i+6]))
			i += 6
		default:
			i++
		}
	}
	return string(out)
}

func decodeEntities(s string) string {
	var out []rune
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimPrefix(part, "&#")
		if part == "" {
			continue
		}
		if part[0] == 'x' || part[0] == 'X' {
			out = append(out, parseHexRune(part[1:]))
			continue
		}
		var r rune
		for i := 0; i < len(part) && r <= unicode.MaxRune; i++ {
			r = r*10 + rune(part[i]-'0')
		}
		out = append(out, r)
	}
	return string(out)
}

func parseHexRune(s string) rune {
	var r rune
	for i := 0; i < len(s) && r <= unicode.MaxRune; i++ {
		r = r<<4 | rune(unhex(s[i]))
	}
	return r
}

func unhex(b byte) byte {
	switch {
	case '0' <= b && b <= '9':
		return b - '0'
	case 'a' <= b && b <= 'f':
		return b - 'a' + 10
	case 'A' <= b && b <= 'F':
		return b - 'A' + 10
	}
	return 0
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Hidden markup, on the clean text. The CSS and hidden-attribute forms are
// phrase rules (see rules.go); these start with a rare literal and are
// cheap to look for directly.
var mdCommentRe = regexp.MustCompile(`(?m)^[ \t]{0,3}\[[^\]\n]*\]:[ \t]*(?:#|<>|//)[ \t]*(?:\(|"|'|$)`)

func (c *textCtx) findMarkup() {
	if c.hasHit(sigMarkup) {
		return
	}
	t := c.clean
	if c.punct&punctLT != 0 && c.markupElement(t) {
		return
	}
	if c.punct&punctBracket != 0 && strings.Contains(t, "]:") {
		if m := mdCommentRe.FindStringIndex(t); m != nil {
			c.addCleanHit(sigMarkup, m[0], m[1])
		}
	}
}

// markupElement reports an HTML comment or a script element in the clean
// text t.
func (c *textCtx) markupElement(t string) bool {
	k := strings.Index(t, "<!--")
	if k >= 0 && !strings.Contains(t[k+4:], "-->") {
		// An opener that never closes, after words on its line ("Add
		// <!--[if mso]> conditionals for Outlook"), is shown as typed by a
		// markdown renderer: the syntax written out, hiding nothing. One
		// at the start of a line opens an HTML block, which hides the rest
		// of the text, and is still reported.
		for k >= 0 && inlineOpener(t, k) {
			// Every later opener of the line follows words too: the next
			// that may count starts a line of its own.
			nl := strings.IndexByte(t[k:], '\n')
			if nl < 0 {
				k = -1
				break
			}
			k += nl
			if n := strings.Index(t[k:], "<!--"); n >= 0 {
				k += n
			} else {
				k = -1
			}
		}
	}
	if k >= 0 {
		body := t[k+4:]
		if e := strings.Index(body, "-->"); e >= 0 {
			body = body[:e]
		}
		if strings.IndexFunc(body, func(r rune) bool { return r > ' ' && r != '-' && r != '.' && r != '…' }) >= 0 && !lintPragma(body) && !namedComment(t, k, body) {
			c.addCleanHit(sigMarkup, k, k+4)
			return true
		}
	}
	if k := strings.Index(t, "<script"); k >= 0 {
		// A script element, not the name of one: a sanitiser that says it
		// strips "<script> and <style> elements" has no closing tag.
		if e := k + 7; (e == len(t) || !isWordByte(t[e])) && strings.Contains(t[e:min(len(t), e+2000)], "</script") {
			c.addCleanHit(sigMarkup, k, e)
			return true
		}
	}
	return false
}

// inlineOpener reports that t[k] follows words on its line: not the first
// thing of the line, of a list item or of a quote.
func inlineOpener(t string, k int) bool {
	line := t[strings.LastIndexByte(t[:k], '\n')+1 : k]
	line = strings.TrimLeft(line, " \t>")
	// A list item's marker: "-", "*", "+", "1." or "1)".
	if m := strings.TrimLeft(line, "0123456789"); len(m) < len(line) && (strings.HasPrefix(m, ".") || strings.HasPrefix(m, ")")) {
		line = m[1:]
	} else if strings.HasPrefix(line, "-") || strings.HasPrefix(line, "*") || strings.HasPrefix(line, "+") {
		line = line[1:]
	}
	return strings.TrimSpace(line) != ""
}

// mdImageExfilRe is a markdown image whose URL carries a placeholder in its
// query ("![](https://x.io/p?d={conversation})"): when the client renders
// the model's answer, the image fetch delivers whatever the model filled
// in, without a tool call.
var mdImageExfilRe = regexp.MustCompile(`!\[[^\]\n]{0,200}\]\(\s*<?(?:https?:)?//[^)\s]*[?&#][^)\s]*=\s*(?:\{|<|\$|%7b|%3c|\[)`)

// findImageExfil reports markdown images built to leak data.
func (c *textCtx) findImageExfil() {
	if c.hasHit(sigExfil) || c.punct&punctBang == 0 || !strings.Contains(c.clean, "![") {
		return
	}
	if m := mdImageExfilRe.FindStringIndex(c.clean); m != nil {
		c.addCleanHit(sigExfil, m[0], m[1])
	}
}

// namedComment reports a comment that names comments: "strips <!--
// comments -->" in a sanitiser's description is documentation, and a body
// of one word cannot carry an instruction.
func namedComment(t string, k int, body string) bool {
	if len(strings.Fields(body)) > 1 {
		return false
	}
	lo, hi := sentenceBounds(t, k, k+4)
	for _, v := range []string{"strip", "remov", "sanitiz", "sanitis", "drop", "escap", "clean", "filter", "comments such as", "comments like", "comment such as", "comments (e.g.", "comments, e.g."} {
		if strings.Contains(t[lo:hi], v) {
			return true
		}
	}
	return false
}

// lintPragma reports HTML comments that tools put in READMEs for their own
// use ("<!-- prettier-ignore -->", "<!-- toc -->"), which descriptions
// copied from a README carry along. The match is exact, so that a pragma
// cannot carry a message.
func lintPragma(body string) bool {
	return lintPragmaRe.MatchString(strings.TrimSpace(body))
}

// The Go convention's generated-file marker ("Code generated by X. DO NOT
// EDIT.") is matched whole too: a generator's name, nothing else.
var lintPragmaRe = regexp.MustCompile(`^(?:(?:code\s+)?(?:auto-?)?generated\s+(?:by|from)\s+[\w@/.:-]{1,80}?\.?\s+do\s+not\s+edit\.?|prettier-ignore(?:-start|-end)?|markdownlint-(?:disable|enable|capture|restore|disable-next-line|disable-line|disable-file|enable-file)(?:\s+md\d{3})*|/?toc(?:stop)?|end\s?toc|omit\s+in\s+toc|#?(?:end)?region(?:\s+[\w-]+)?|more|truncate)$`)

// isBase32 reports a run in the base32 alphabet only (upper case and the
// digits 2-7), which base64 would decode to noise.
func isBase32(run string) bool {
	for i := 0; i < len(run); i++ {
		b := run[i]
		if !(('A' <= b && b <= 'Z') || ('2' <= b && b <= '7')) {
			return false
		}
	}
	return true
}

func decodeBase32(run string) ([]byte, bool) {
	body := run[:len(run)/8*8]
	if len(body) < 16 {
		return nil, false
	}
	dec, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(body)
	return dec, err == nil
}

// minPadded is the shortest padded base64 run tried: below minBlob a run
// is reported only when its decoded text trips a rule, and the padding
// says it is base64 at all.
const minPadded = 16

// findPadded tries short base64 runs that end in padding ("Y2F0IH4v...=").
func (c *textCtx) findPadded() bool {
	o := c.orig
	for k := 0; k < len(o); k++ {
		if o[k] != '=' || (k > 0 && o[k-1] == '=') {
			continue
		}
		i := k
		for i > 0 && b64Class[o[i-1]] != 0 && k-i < minBlob {
			i--
		}
		if n := k - i; n >= minPadded && n < minBlob && (i == 0 || b64Class[o[i-1]] == 0) {
			end := k + 1
			if end < len(o) && o[end] == '=' {
				end++
			}
			if dec, err := base64.StdEncoding.DecodeString(o[i:end]); err == nil && readable(dec) && c.decodedHits(dec) {
				c.blobHit(i, end, dec)
				return true
			}
		}
	}
	return false
}

// findSpacedHex finds hex bytes written apart ("69 67 6e 6f 72 65 ..."),
// at least minEscapedRun of them.
func (c *textCtx) findSpacedHex() bool {
	o := c.orig
	isHexB := func(b byte) bool { return spacedHexClass[b] == 1 }
	for from := 0; ; {
		i := nextSpacedHex(o, from)
		if i < 0 {
			return false
		}
		j, n := i, 0
		for j+1 < len(o) && isHexB(o[j]) && isHexB(o[j+1]) && (j+2 == len(o) || o[j+2] == ' ' || o[j+2] == ':' || o[j+2] == '\n' || o[j+2] == '.') {
			n++
			j += 3
			if j-1 < len(o) && o[j-1] == '.' {
				break
			}
		}
		if n < minEscapedRun {
			from = i + 1
			continue
		}
		end := min(j-1, len(o))
		hexs := strings.NewReplacer(" ", "", ":", "", "\n", "", ".", "").Replace(o[i:end])
		if dec, err := hex.DecodeString(hexs[:len(hexs)&^1]); err == nil && readable(dec) {
			c.blobHit(i, end, dec)
			return true
		}
		from = j + 1
	}
}

// nextSpacedHex returns the first offset i of o after a space at from or
// later where " hh hh " starts a run that may be long enough (i+30 bytes
// of o left), or -1. Most texts hold no such run, and every byte of every
// text would otherwise be looked at: the search tests the last byte of
// each seven-byte window first and moves past what it rules out, as
// Horspool's search does — a byte that is neither a space nor a hex digit
// rules out every window holding it, a space every window but those that
// put it at a space.
func nextSpacedHex(o string, from int) int {
	for p := from; p+3*minEscapedRun+1 <= len(o); {
		switch spacedHexClass[o[p+6]] {
		case 0:
			p += 7
		case 1:
			p++
		default:
			if o[p] == ' ' && o[p+3] == ' ' && spacedHexClass[o[p+1]] == 1 && spacedHexClass[o[p+2]] == 1 &&
				spacedHexClass[o[p+4]] == 1 && spacedHexClass[o[p+5]] == 1 {
				return p + 1
			}
			p += 3
		}
	}
	return -1
}

// spacedHexClass is 1 for a hex digit, 2 for a space, 0 for any other byte.
var spacedHexClass = func() (t [256]uint8) {
	for _, b := range []byte("0123456789abcdefABCDEF") {
		t[b] = 1
	}
	t[' '] = 2
	return
}()
