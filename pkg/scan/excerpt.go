package scan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/clip"
)

// excerpt renders at most maxExcerptRunes runes of s from a hit at start:
// some context before the hit, then the hit and what follows. Invisible and
// control characters, invalid bytes and (with escConf) look-alike letters
// are escaped, and runs of spaces are collapsed, so the excerpt shows a
// reviewer what the model reads.
func excerpt(s string, start int, escConf bool) string {
	if start < 0 {
		start = 0
	}
	if start > len(s) {
		start = len(s)
	}
	// Back up about 40 runes for context, but not past a line start.
	b := start
	for n := 0; n < 40 && b > 0; n++ {
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
	i := b
	lastSpace := false
loop:
	for i < len(s) {
		r, sz := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == ' ':
			if lastSpace {
				i += sz
				continue
			}
			piece = " "
		case r == utf8.RuneError && sz <= 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case r >= 0xE0020 && r <= 0xE007E:
			// A run of tag characters is text smuggled as ASCII; show
			// what it says rather than a wall of escapes.
			var tag strings.Builder
			k := i
			for k < len(s) {
				tr, tsz := utf8.DecodeRuneInString(s[k:])
				if tr < 0xE0020 || tr > 0xE007E {
					break
				}
				tag.WriteByte(byte(tr - 0xE0000))
				k += tsz
			}
			room := maxExcerptRunes - 1 - runes - len(`[tag text: ""]`)
			if room < 8 {
				break loop
			}
			out.WriteString(`[tag text: "` + clip.Runes(escapeVisible(tag.String()), room) + `"]`)
			runes += utf8.RuneCountInString(`[tag text: ""]`) + min(room, utf8.RuneCountInString(tag.String()))
			lastSpace = false
			i = k
			continue
		default:
			piece = escapeRune(r, escConf)
		}
		lastSpace = r == ' '
		pr := utf8.RuneCountInString(piece)
		if runes+pr > maxExcerptRunes-1 {
			break
		}
		out.WriteString(piece)
		runes += pr
		i += sz
	}
	if i < len(s) {
		out.WriteString("…")
	}
	return out.String()
}

// escapeRune returns r itself when it is safe to show, else an escape.
func escapeRune(r rune, escConf bool) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\t':
		return `\t`
	case r == '\r':
		return `\r`
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return fmt.Sprintf(`\x%02x`, r)
	case r < 0x80:
		return string(r)
	case isInvisible(r) || r == 0x2028 || r == 0x2029 || !unicode.IsPrint(r) && !unicode.IsSpace(r):
		if r > 0xFFFF {
			return fmt.Sprintf(`\U%08x`, r)
		}
		return fmt.Sprintf(`\u%04x`, r)
	case unicode.IsSpace(r):
		return " "
	case escConf:
		if _, ok := confusable(r); ok || isCompat(r) {
			return fmt.Sprintf(`\u%04x`, r)
		}
	}
	return string(r)
}

// escapeVisible escapes a whole string the way excerpts do.
func escapeVisible(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); {
		r, sz := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && sz <= 1 {
			fmt.Fprintf(&out, `\x%02x`, s[i])
		} else {
			out.WriteString(escapeRune(r, false))
		}
		i += sz
	}
	return out.String()
}
