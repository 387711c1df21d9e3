package resultscan

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Encoded runs. A base64 or hex run long enough to hold a sentence is
// decoded, and what it decodes to is read like any text: a directive in
// it is a finding over the whole run. Runs that decode to binary (images,
// keys, hashes) or to text that asks nothing pass; a data: URI is an
// image, not a message, and is skipped.
const (
	minEncodedRun = 32
	maxEncodedRun = 16 << 10
)

// encodedRun looks for an encoded run that starts at the word at start and
// returns where it ends, or start when there is none worth decoding.
func (c *pass) encodedRun(start int) int {
	if c.depth >= maxDepth {
		return start
	}
	text := c.text
	// The run may have begun before the word: "0J/Qtd…" is one run.
	orig := start
	for start > 0 && start > orig-maxEncodedRun && isBase64Byte(text[start-1]) {
		start--
	}
	n := len(text)
	j := start
	hexOnly, mixed := true, false
	upper, lower, digit := false, false, false
	for j < n && j-start < maxEncodedRun {
		b := text[j]
		switch {
		case b >= 'A' && b <= 'Z':
			upper = true
			hexOnly = hexOnly && b <= 'F'
		case b >= 'a' && b <= 'z':
			lower = true
			hexOnly = hexOnly && b <= 'f'
		case b >= '0' && b <= '9':
			digit = true
		case b == '+' || b == '/' || b == '-' || b == '_':
			hexOnly = false
		case b == '=':
			j++
			for j < n && text[j] == '=' {
				j++
			}
			goto done
		default:
			goto done
		}
		j++
	}
done:
	run := text[start:j]
	mixed = upper && lower || (upper || lower) && digit
	if len(run) < minEncodedRun || !mixed {
		return orig
	}
	if start >= 7 && strings.Contains(text[max(0, start-40):start], "base64,") {
		return j // a data: URI
	}
	var dec []byte
	var err error
	sig := sigEncoded
	if hexOnly && len(run)%2 == 0 {
		dec, err = hex.DecodeString(run)
	} else {
		s := strings.TrimRight(run, "=")
		if strings.ContainsAny(s, "-_") {
			dec, err = base64.RawURLEncoding.DecodeString(s)
		} else {
			dec, err = base64.RawStdEncoding.DecodeString(s)
		}
	}
	if err != nil || !readable(dec) {
		return orig // read on as words: "create_or_update_file_contents" is a name
	}
	if len(c.blobs) < 64 {
		c.blobs = append(c.blobs, start)
	}
	c.scanDecoded(string(dec), sig, start, j)
	return j
}

// readable reports whether decoded bytes are text: valid UTF-8, mostly
// letters and spaces.
func readable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	good := 0
	for _, x := range b {
		if x >= 0x20 && x < 0x7f || x == '\n' || x == '\t' || x >= 0x80 {
			good++
		}
	}
	if good*10 < len(b)*9 {
		return false
	}
	// Prose has spaces between its words, or is written in a script
	// that needs none.
	spaces, wide := 0, 0
	for _, r := range string(b) {
		switch {
		case r == ' ':
			spaces++
		case r >= 0x3000:
			wide++
		}
	}
	return spaces*30 >= len(b) || wide*3 >= len(b)/3
}

// scanDecoded reads decoded (or smuggled) text one layer down. Any hit
// there, weak or strong, is a finding of signal sig over the encoded run:
// nobody encodes an order for a model by accident.
func (c *pass) scanDecoded(text string, sig signal, start, end int) {
	if c.depth >= maxDepth || text == "" {
		return
	}
	if c.child == nil {
		c.child = &pass{toks: make([]tok, 0, 32)}
	}
	ch := c.child
	ch.run(c.s, text, c.depth+1)
	if len(ch.hits) > 0 {
		c.hits = append(c.hits, hit{sig: sig, strong: true, start: start, end: end})
	}
	ch.text = ""
}

func isBase64Byte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '-' || b == '_'
}
