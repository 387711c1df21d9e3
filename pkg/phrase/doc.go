// Package phrase answers "does this text hold any of these phrases?" for
// fixed lists of phrases, in one pass over the text whatever the list's
// length.
//
// The risk engine asks that question of every description and sentence it
// reads, for some thirty lists (the words of a risky command, a
// description that vouches for itself, one that says it returns secrets
// ...). Searching for each phrase in turn reads the text once per phrase;
// a Set reads it once, through an Aho–Corasick automaton compiled at
// start-up into a table of transitions over the bytes the phrases use.
// The answers are exactly strings.Contains's: phrases are matched byte for
// byte, case and all, and every occurrence counts, overlapping or not.
//
// It owns the matching only: which lists exist and what they mean stays
// with the rules that use them. It imports nothing beyond the standard
// library.
package phrase
