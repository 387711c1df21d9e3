// Package clip keeps text within a byte budget without breaking it: every
// bound toolgate applies to a string it writes (an API field, a condition
// message, an excerpt, a diff line) goes through here.
//
// It owns how text is shortened — on a rune boundary, never splitting a
// UTF-8 sequence, with a visible marker so a reader knows something was
// left out — to a budget in bytes (API fields: Cut, String, Strings,
// StringsWithLast) or in runes (text laid out for a person: Runes). It does not own the budgets themselves: those are the API's
// (api/v1alpha1/limits.go) or the caller's.
package clip
