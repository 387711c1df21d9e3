package scan

import (
	"strings"

	"github.com/toolgate/toolgate/pkg/clip"
)

// Trivial ciphers. A model undoes ROT13, a Caesar shift, ROT47 or
// reversed text when told to, and a reviewer sees gibberish. Such text is
// recognised by what it lacks: a run of words without a single common
// English word. Only such runs are deciphered, with the shift that
// frequency analysis suggests, and the result is kept when it reads as
// English and then trips a rule like any other text. Honest gibberish
// (identifiers, other languages) does not decipher to English, and honest
// English is never deciphered at all.

// stopwords are common English words; reversed text spells them backwards.
var stopwords = map[string]bool{
	"the": true, "and": true, "to": true, "of": true, "a": true, "in": true, "is": true, "for": true, "on": true,
	"with": true, "this": true, "that": true, "it": true, "you": true, "be": true, "or": true, "are": true, "as": true,
	"by": true, "from": true, "your": true, "all": true, "not": true, "do": true, "any": true, "if": true, "an": true,
	"user": true, "tool": true, "send": true, "before": true, "read": true, "ignore": true, "previous": true,
}

// minCipherWords is the fewest words a run needs to be tried.
const minCipherWords = 5

// findCiphers tries the clauses the intent pass found without a common
// English word, and, when the text is dense in the characters ROT47 turns
// letters into, the text after each ": " (where a payload is introduced).
func (c *textCtx) findCiphers() {
	if c.depth >= maxDecodeDepth || c.hasHit(sigEncoded) {
		return
	}
	o := c.orig
	spans := c.cipherSpans
	if rot47Dense(o) {
		spans = append(spans, [2]int{0, len(o)})
		for k := strings.Index(o, ": "); k >= 0 && len(spans) < 16; {
			spans = append(spans, [2]int{k + 2, len(o)})
			n := strings.Index(o[k+2:], ": ")
			if n < 0 {
				break
			}
			k += 2 + n
		}
	}
	for _, sp := range spans {
		s, e := sp[0], min(sp[1], sp[0]+1024, len(o))
		if s >= e {
			continue
		}
		seg := o[s:e]
		if dec, ok := decipher(seg); ok && c.decodedHits([]byte(dec)) {
			c.hits = append(c.hits, hit{sig: sigEncoded, start: s, end: e,
				excerpt: clip.Runes(clip.Runes(escapeVisible(seg), 44)+` deciphers to "`+escapeVisible(dec)+`"`, maxExcerptRunes)})
			return
		}
	}
}

// rot47Dense reports a text with many of the characters ROT47 maps common
// letters to (e is 6, t is E, a is 2, o is @, : is i).
func rot47Dense(o string) bool {
	n := 0
	for i := 0; i < len(o); i++ {
		n += int(rot47Marks[o[i]])
	}
	return n >= 8 && n*20 >= len(o)
}

// rot47Marks counts the characters ROT47 turns letters into: a table
// rather than a switch, since every text is counted and most are long.
var rot47Marks = func() (t [256]uint8) {
	for _, b := range []byte("@:?<>=") {
		t[b] = 1
	}
	return
}()

// decipher returns seg deciphered when seg has no English word but a
// shift, ROT47 or reversal of it has several.
func decipher(seg string) (string, bool) {
	words, english, letters, punct, nonSpace := 0, 0, 0, 0, 0
	var freq [26]int
	for _, w := range strings.Fields(seg) {
		words++
		lw := strings.ToLower(strings.Trim(w, ".,;:!?\"'()"))
		if stopwords[lw] {
			english++
		}
	}
	if words < minCipherWords || english > 0 {
		return "", false
	}
	for i := 0; i < len(seg); i++ {
		b := seg[i]
		switch {
		case b >= 0x80:
			return "", false
		case 'a' <= b && b <= 'z':
			freq[b-'a']++
			letters++
		case 'A' <= b && b <= 'Z':
			freq[b-'A']++
			letters++
		case b > ' ' && !('0' <= b && b <= '9'):
			punct++
		}
		if b > ' ' {
			nonSpace++
		}
	}
	var tries []string
	if letters*10 >= nonSpace*7 {
		// The most frequent letters of English, in order.
		top := 0
		for k := range freq {
			if freq[k] > freq[top] {
				top = k
			}
		}
		for _, plain := range []int{'e' - 'a', 't' - 'a', 0, 'o' - 'a', 'i' - 'a', 'n' - 'a', 's' - 'a', 'r' - 'a'} {
			if shift := (top - plain + 26) % 26; shift != 0 {
				tries = append(tries, shiftBack(seg, shift))
			}
		}
		tries = append(tries, reverse(seg))
	}
	if punct*10 >= nonSpace*2 {
		tries = append(tries, rot47(seg))
	}
	for _, t := range tries {
		n, eng := 0, 0
		for _, w := range strings.Fields(t) {
			n++
			if stopwords[strings.ToLower(strings.Trim(w, ".,;:!?\"'()"))] {
				eng++
			}
		}
		if eng >= 2 && eng*5 >= n {
			return t, true
		}
	}
	return "", false
}

func shiftBack(s string, n int) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = 'a' + byte((int(c-'a')-n+26)%26)
		case 'A' <= c && c <= 'Z':
			b[i] = 'A' + byte((int(c-'A')-n+26)%26)
		}
	}
	return string(b)
}

func rot47(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= '!' && c <= '~' {
			b[i] = '!' + (c-'!'+47)%94
		}
	}
	return string(b)
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
