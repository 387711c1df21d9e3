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
