package clip

import "unicode/utf8"

// Marker ends every shortened string, so that a reader can tell a cut
// text from a whole one.
const Marker = "..."

// Cut returns s shortened to at most limit bytes and whether it was
// shortened. A shortened string ends in Marker when there is room for it,
// and is always cut on a rune boundary, so valid UTF-8 stays valid.
func Cut(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	if limit <= 0 {
		return "", true
	}
	room, marker := limit, ""
	if limit > len(Marker) {
		room, marker = limit-len(Marker), Marker
	}
	// Step back to the start of the rune that would be split.
	for room > 0 && !utf8.RuneStart(s[room]) {
		room--
	}
	return s[:room] + marker, true
}

// String returns s shortened to at most limit bytes, as Cut does.
func String(s string, limit int) string {
	out, _ := Cut(s, limit)
	return out
}

// Strings keeps at most n entries of list, each shortened to at most limit
// bytes. It returns nil for an empty list, as the API's omitempty lists
// expect.
func Strings(list []string, n, limit int) []string {
	var out []string
	for i, s := range list {
		if i == n {
			break
		}
		out = append(out, String(s, limit))
	}
	return out
}

// StringsWithLast is Strings for a list whose last entry matters most (the
// newest reason, a human's override): when entries must go, the first n-1
// are kept and the last.
func StringsWithLast(list []string, n, limit int) []string {
	if n > 0 && len(list) > n {
		list = append(append(make([]string, 0, n), list[:n-1]...), list[len(list)-1])
	}
	return Strings(list, n, limit)
}

// Runes shortens s to at most n runes, the last of them "…" when cut: for
// text shown to a person (an excerpt, a quoted value), where the budget is
// what fits on a line rather than bytes in an API field.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := range s {
		if count == n-1 {
			if utf8.RuneCountInString(s[i:]) > 1 {
				return s[:i] + "…"
			}
			return s
		}
		count++
	}
	return s
}
