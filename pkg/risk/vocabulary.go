package risk

import "sort"

// Vocabulary lists, for each SEP-2793 field the engine fills and for the
// level, every value the engine gives it. Whoever stores a judgement
// checks its own enums against this (toolgate's API does, in a test), so
// that a value the engine starts to emit cannot be refused at admission.
func Vocabulary() map[string][]string {
	levels := make([]string, 0, int(L5)+1)
	for l := L0; l <= L5; l++ {
		levels = append(levels, l.String())
	}
	return map[string][]string{
		"level":                  levels,
		"riskLevel":              keysOf(severityRank),
		"category":               keysOf(categoryRank),
		"blastRadius":            keysOf(blastOrder),
		"reversibility":          keysOf(reversibilityRank),
		"approvalRecommendation": keysOf(approvalRank),
	}
}

func keysOf(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
