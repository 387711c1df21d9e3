package tooldef

import (
	"sort"
	"strings"
	"unicode"
)

// Thresholds of NearCopy. They are deliberately loose: a near copy that is
// not one costs a human review, while a near copy taken for a new tool is
// trusted on first use.
const (
	// nearWords is the least share of description words two near copies
	// have in common (Jaccard index of the word sets).
	nearWords = 0.8
	// nearParameters is the least share of parameter names they have in
	// common.
	nearParameters = 0.75
	// maxEditRunes bounds the descriptions compared by edit distance; longer
	// ones are compared by their words alone.
	maxEditRunes = 2000
)

// NearCopy reports whether b is, for a reviewer and for a model, the same
// tool as a, give or take what costs whoever controls a server nothing to
// change: the name, the titles, _meta, white space, letter case and
// punctuation, a few words of the description, a parameter or so. It is
// how a definition that awaits review or was rejected is recognised under
// another name with a trailing space, an empty _meta or a new title added:
// exact matching of the body is not enough.
//
// The measure: the parameter names (at every depth of the input schema)
// share at least three quarters of their union, and the descriptions,
// lower-cased with white space and punctuation folded, are either within a
// small edit distance (two edits, or one in ten characters) or share at
// least four fifths of their words.
func NearCopy(a, b *Tool) bool {
	if a == nil || b == nil {
		return false
	}
	if jaccard(parameterNames(a.InputSchema), parameterNames(b.InputSchema)) < nearParameters {
		return false
	}
	da, db := foldText(a.Description), foldText(b.Description)
	if da == db {
		return true
	}
	ra, rb := []rune(da), []rune(db)
	if len(ra) <= maxEditRunes && len(rb) <= maxEditRunes {
		if editDistance(ra, rb) <= max(2, max(len(ra), len(rb))/10) {
			return true
		}
	}
	return jaccard(strings.Fields(da), strings.Fields(db)) >= nearWords
}

// foldText lower-cases s and folds every run of white space and
// punctuation into one space.
func foldText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space && b.Len() > 0 {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// parameterNames lists the property names of a schema at every depth,
// each with its path, so that the shape of the input counts and not only
// its top level.
func parameterNames(schema any) []string {
	var out []string
	var walk func(prefix string, node any, depth int)
	walk = func(prefix string, node any, depth int) {
		m, ok := node.(*Object)
		if !ok || depth > 16 {
			return
		}
		for _, p := range m.GetObject("properties").Members() {
			out = append(out, prefix+strings.ToLower(p.Key))
			walk(prefix+strings.ToLower(p.Key)+".", p.Value, depth+1)
		}
		if items, ok := m.Lookup("items"); ok {
			walk(prefix+"[].", items, depth+1)
		}
	}
	walk("", schema, 0)
	sort.Strings(out)
	return out
}

// jaccard is the size of the intersection of two sets over that of their
// union; two empty sets are the same set.
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	set := make(map[string]uint8, len(a)+len(b))
	for _, s := range a {
		set[s] |= 1
	}
	for _, s := range b {
		set[s] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}

// editDistance is the Levenshtein distance of two rune strings, in two
// rows of memory.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
