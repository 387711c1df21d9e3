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
//
// The tries are made one at a time into one buffer, in the order of
// preference, and the first that reads as English is the answer: the
// rest are never made. Only the answer becomes a string.
func decipher(seg string) (string, bool) {
	letters, punct, nonSpace := 0, 0, 0
	var freq [26]int
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
	// seg is ASCII: text with a byte beyond it is no cipher whatever its
	// words, so they are counted only now.
	if words, english := englishWords(seg); words < minCipherWords || english > 0 {
		return "", false
	}
	var stack [1024]byte // findCiphers passes at most 1,024 bytes
	buf := stack[:0]
	if len(seg) > len(stack) {
		buf = make([]byte, 0, len(seg))
	}
	buf = buf[:len(seg)]
	if letters*10 >= nonSpace*7 {
		// The most frequent letters of English, in order.
		top := 0
		for k := range freq {
			if freq[k] > freq[top] {
				top = k
			}
		}
		for _, plain := range [...]int{'e' - 'a', 't' - 'a', 0, 'o' - 'a', 'i' - 'a', 'n' - 'a', 's' - 'a', 'r' - 'a'} {
			if shift := (top - plain + 26) % 26; shift != 0 {
				shiftBack(buf, seg, shift)
				if readsEnglish(buf) {
					return string(buf), true
				}
			}
		}
		reverse(buf, seg)
		if readsEnglish(buf) {
			return string(buf), true
		}
	}
	if punct*10 >= nonSpace*2 {
		rot47(buf, seg)
		if readsEnglish(buf) {
			return string(buf), true
		}
	}
	return "", false
}

// readsEnglish reports a try with two stopwords at least, one word in five.
func readsEnglish(t []byte) bool {
	n, eng := englishWords(t)
	return eng >= 2 && eng*5 >= n
}

// englishWords counts the words of an ASCII text, split at blank space as
// strings.Fields splits ASCII, and the stopwords among them, each word
// trimmed of the punctuation around it and lower-cased first. It makes
// no string: it is asked of every try of every candidate.
func englishWords[T string | []byte](t T) (words, english int) {
	for i := 0; i < len(t); {
		for i < len(t) && asciiBlank[t[i]] {
			i++
		}
		if i == len(t) {
			break
		}
		j := i
		for j < len(t) && !asciiBlank[t[j]] {
			j++
		}
		words++
		// Trimmed as strings.Trim(w, ".,;:!?\"'()") trims it.
		s, e := i, j
		for s < e && wordTrim[t[s]] {
			s++
		}
		for e > s && wordTrim[t[e-1]] {
			e--
		}
		if e > s && e-s <= maxStopword {
			var low [maxStopword]byte
			for k := s; k < e; k++ {
				c := t[k]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				low[k-s] = c
			}
			if stopwords[string(low[:e-s])] {
				english++
			}
		}
		i = j
	}
	return words, english
}

// maxStopword is the length of the longest of stopwords: a longer word is
// none of them.
const maxStopword = len("previous")

// asciiBlank is the blank space strings.Fields splits ASCII at; wordTrim
// the punctuation trimmed off a word before it is looked up.
var asciiBlank, wordTrim = func() (blank, trim [256]bool) {
	for _, b := range []byte("\t\n\v\f\r ") {
		blank[b] = true
	}
	for _, b := range []byte(".,;:!?\"'()") {
		trim[b] = true
	}
	return
}()

// shiftBack writes s shifted back by n letters into dst, which is as long.
func shiftBack(dst []byte, s string, n int) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			c = 'a' + byte((int(c-'a')-n+26)%26)
		case 'A' <= c && c <= 'Z':
			c = 'A' + byte((int(c-'A')-n+26)%26)
		}
		dst[i] = c
	}
}

// rot47 writes s through ROT47 into dst, which is as long.
func rot47(dst []byte, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '!' && c <= '~' {
			c = '!' + (c-'!'+47)%94
		}
		dst[i] = c
	}
}

// reverse writes s's bytes backwards into dst, which is as long.
func reverse(dst []byte, s string) {
	for i := 0; i < len(s); i++ {
		dst[len(s)-1-i] = s[i]
	}
}
