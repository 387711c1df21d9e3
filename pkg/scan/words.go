package scan

import "sort"

// The phrase rules and the intent rules both read every word of a text:
// the phrase rules to find the anchors that start a rule, the intent rules
// to class each word by the lexicon. A word is looked up once, in the
// phrase rules' pass over the whole text, in one index that holds both,
// and the intent tokenizer reads the classes that pass recorded instead of
// hashing the word again.
//
// The two passes split words differently: the phrase rules take runs of
// letters, digits and '_', the tokenizer takes what lies between blank
// space and punctuation and keeps paths, addresses, code spans and quoted
// names whole. The tokenizer uses a recorded class only for a token that
// is exactly one of the phrase rules' words; for any other token it looks
// the word up itself, as before, so that every class is what the lexicon
// says of that token.

// wordEntry is what one word is to the two rule families: the phrase rules
// it anchors (bit i = rules[i], and secretBit) and its lexicon classes.
type wordEntry struct{ anchors, cls uint64 }

// wordRec is a word of the clean text that has lexicon classes, by the
// clean offset it starts at.
type wordRec struct {
	pos int32
	cls uint64
}

// wordIndex holds every anchor word and every lexicon word lookupWord can
// return (1 to 63 bytes), with wordFirst and wordBloom rejecting most other
// words before the map is consulted, as anchorFirst and lexFirst do for
// each alone. For every word w, wordIndex[w].anchors is anchorIndex[w] and
// wordIndex[w].cls is lookupWord(w).
var wordIndex, wordBloom, wordFirst, wordMaxLen = func() (map[string]wordEntry, *bloom, *[256]uint64, int) {
	m := make(map[string]wordEntry, len(anchorIndex)+len(lexicon))
	for w, a := range anchorIndex {
		e := m[w]
		e.anchors = a
		m[w] = e
	}
	for w, cls := range lexicon {
		if len(w) == 0 || len(w) > 63 || cls == 0 {
			continue
		}
		e := m[w]
		e.cls = cls
		m[w] = e
	}
	b := &bloom{}
	var first [256]uint64
	n := 0
	for w := range m {
		b.add(w)
		first[w[0]] |= 1 << uint(len(w))
		n = max(n, len(w))
	}
	return m, b, &first, n
}()

// lookupBoth returns what a word of the phrase rules' pass is to both rule
// families.
func lookupBoth(w string) wordEntry {
	if n := len(w); n == 0 || n > wordMaxLen || wordFirst[w[0]]&(1<<uint(n)) == 0 || !wordBloom.may(w) {
		return wordEntry{}
	}
	return wordIndex[w]
}

// wordCursor reads the classes the phrase rules' pass recorded, for the
// tokens of one sentence in the order they start.
type wordCursor struct {
	t    string // the clean text
	recs []wordRec
	k    int
	ok   bool // the records are those of t; otherwise every token is looked up
}

// wordsFrom returns a cursor over the recorded words from clean offset s.
func (c *textCtx) wordsFrom(s int) wordCursor {
	if !c.wordsKnown {
		return wordCursor{}
	}
	recs := c.words
	k := sort.Search(len(recs), func(k int) bool { return int(recs[k].pos) >= s })
	return wordCursor{t: c.clean, recs: recs, k: k, ok: true}
}

// class returns the lexicon classes of the token w that starts at clean
// offset i: from the records when w is one whole word of the phrase rules'
// pass, else by a lookup. Tokens must come in increasing order of i.
func (wc *wordCursor) class(w string, i int) uint64 {
	if !wc.ok || !wholeWord(wc.t, w, i) {
		return lookupWord(w)
	}
	for wc.k < len(wc.recs) && int(wc.recs[wc.k].pos) < i {
		wc.k++
	}
	if wc.k < len(wc.recs) && int(wc.recs[wc.k].pos) == i {
		return wc.recs[wc.k].cls
	}
	return 0
}

// wholeWord reports whether w, at offset i of t, is a whole run of word
// bytes: one word of the phrase rules' pass.
func wholeWord(t, w string, i int) bool {
	if w == "" || (i > 0 && isWordByte(t[i-1])) || (i+len(w) < len(t) && isWordByte(t[i+len(w)])) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if !isWordByte(w[k]) {
			return false
		}
	}
	return true
}
