package resultscan

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// isZeroWidth is a character that renders as nothing inside a word.
func isZeroWidth(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\ufeff', '\u180e':
		return true
	}
	return false
}

// isInvisible is a character the reader of a rendering does not see:
// zero-width characters, bidirectional controls, tag characters,
// variation selectors.
func isInvisible(r rune) bool {
	switch {
	case isZeroWidth(r),
		r >= 0x202A && r <= 0x202E,
		r >= 0x2066 && r <= 0x2069,
		r >= 0xE0000 && r <= 0xE007F,
		r >= 0xFE00 && r <= 0xFE0F,
		r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// invisible reads a run of invisible characters at i. Tag characters spell
// ASCII the model reads and a person does not see: outside an emoji flag
// they are a finding, and what they spell is scanned too. A run of
// variation selectors can carry bytes the same way. A bidirectional
// override reorders what a person sees. A lone zero-width character
// between words, a joiner in an emoji, a selector after a symbol are how
// text is written, and pass.
func (c *pass) invisible(i int) int {
	text := c.text
	n := len(text)
	j := i
	tags, selectors, overrides, zeroWidth := 0, 0, 0, 0
	for j < n {
		r2, s2 := utf8.DecodeRuneInString(text[j:])
		if !isInvisible(r2) {
			break
		}
		switch {
		case r2 >= 0xE0000 && r2 <= 0xE007F:
			tags++
		case r2 >= 0xFE00 && r2 <= 0xFE0F || r2 >= 0xE0100 && r2 <= 0xE01EF:
			selectors++
		case r2 == 0x202D || r2 == 0x202E:
			overrides++
		case isZeroWidth(r2):
			zeroWidth++
		}
		j += s2
	}
	switch {
	case tags > 0 && !afterFlag(text, i):
		c.hits = append(c.hits, hit{sig: sigInvisible, strong: true, start: i, end: j})
	case selectors >= 4, overrides > 0, zeroWidth >= 16:
		// A run of zero-width characters spells bits, as selectors and
		// tags spell bytes: no writing needs sixteen in a row.
		c.hits = append(c.hits, hit{sig: sigInvisible, strong: true, start: i, end: j})
	}
	return j
}

// afterFlag reports whether the tag characters at i follow the black flag
// emoji, as subdivision flags do (🏴 + tags + cancel tag).
func afterFlag(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return r == 0x1F3F4
}

// lookalike folds a Cyrillic or Greek letter that looks like a Latin one,
// inside a word that is otherwise Latin, to that letter.
func lookalike(r rune) (rune, bool) {
	if r >= 0xFF01 && r <= 0xFF5E {
		return r - 0xFEE0, true // full-width ASCII
	}
	switch r {
	case 'а', 'А', 'α', 'Α':
		return 'a', true
	case 'е', 'Е', 'ε', 'Ε':
		return 'e', true
	case 'о', 'О', 'ο', 'Ο':
		return 'o', true
	case 'р', 'Р', 'ρ', 'Ρ':
		return 'p', true
	case 'с', 'С':
		return 'c', true
	case 'у', 'У':
		return 'y', true
	case 'х', 'Х', 'χ', 'Χ':
		return 'x', true
	case 'і', 'І', 'ι', 'Ι':
		return 'i', true
	case 'ј', 'Ј':
		return 'j', true
	case 'ѕ', 'Ѕ':
		return 's', true
	case 'ԁ':
		return 'd', true
	case 'ɡ':
		return 'g', true
	case 'ո':
		return 'n', true
	case 'т', 'Т', 'τ', 'Τ':
		return 't', true
	case 'м', 'М', 'Μ':
		return 'm', true
	case 'к', 'К', 'κ', 'Κ':
		return 'k', true
	case 'в', 'В', 'Β', 'β':
		return 'b', true
	case 'н', 'Н', 'Η':
		return 'h', true
	case 'ν':
		return 'v', true
	case 'Ζ':
		return 'z', true
	}
	return r, false
}

// excerpt renders about 120 runes of s around a span starting at start,
// with invisible and control characters escaped.
func excerpt(s string, start int) string {
	start = min(max(start, 0), len(s))
	for start > 0 && start < len(s) && s[start]&0xC0 == 0x80 {
		start--
	}
	b := start
	for k := 0; k < 30 && b > 0; k++ {
		_, sz := utf8.DecodeLastRuneInString(s[:b])
		if s[b-sz] == '\n' {
			break
		}
		b -= sz
	}
	var out strings.Builder
	runes := 0
	if b > 0 {
		out.WriteString("…")
		runes++
	}
	space := false
	i := b
	for i < len(s) && runes < 119 {
		r, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		switch {
		case r == ' ' || r == '\n' || r == '\t' || r == '\r':
			if !space {
				out.WriteByte(' ')
				runes++
			}
			space = true
			continue
		case r == utf8.RuneError && sz == 1:
			out.WriteString(`\x` + strconv.FormatUint(uint64(s[i-1]), 16))
		case isInvisible(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			out.WriteString(`\u` + strconv.FormatUint(uint64(r), 16))
		default:
			out.WriteRune(r)
		}
		space = false
		runes++
	}
	if i < len(s) {
		out.WriteString("…")
	}
	return out.String()
}
