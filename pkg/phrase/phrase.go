package phrase

import "math"

// Set is a compiled list of phrases. It is immutable and safe for
// concurrent use.
type Set struct {
	// class maps a byte to its column in next: bytes no phrase uses share
	// column 0, so the table stays small.
	class [256]uint8
	cols  int
	// next is the automaton's transition table, state by state.
	next []uint32
	// first is, for each state, the lowest index of a phrase that ends
	// there (itself or through its suffixes), or none.
	first []int32
	// empty is the lowest index of an empty phrase, or none: the empty
	// phrase is in every text.
	empty int32
	// longest is the length of the longest phrase.
	longest int
}

const none = math.MaxInt32

// New compiles phrases. It panics if the phrases use more than 255
// distinct bytes, which no list of words does.
func New(phrases ...string) *Set {
	s := &Set{empty: none}
	// Columns for the bytes the phrases use, in order of first use.
	for _, p := range phrases {
		s.longest = max(s.longest, len(p))
		for i := 0; i < len(p); i++ {
			if s.class[p[i]] == 0 {
				if s.cols == 255 {
					panic("phrase: more than 255 distinct bytes")
				}
				s.cols++
				s.class[p[i]] = uint8(s.cols)
			}
		}
	}
	s.cols++ // column 0: every other byte
	// The trie: goto[state*cols+col], 0 meaning no edge (state 0 is the
	// root, which no edge leads back to).
	trie := make([]uint32, s.cols)
	first := []int32{none}
	for idx, p := range phrases {
		if p == "" {
			s.empty = min(s.empty, int32(idx))
			continue
		}
		st := uint32(0)
		for i := 0; i < len(p); i++ {
			c := uint32(s.class[p[i]])
			if trie[st*uint32(s.cols)+c] == 0 {
				trie[st*uint32(s.cols)+c] = uint32(len(first))
				trie = append(trie, make([]uint32, s.cols)...)
				first = append(first, none)
			}
			st = trie[st*uint32(s.cols)+c]
		}
		first[st] = min(first[st], int32(idx))
	}
	// Breadth first, each state's failure is the longest proper suffix of
	// its path that is also a path; its missing edges are its failure's,
	// which is nearer the root and so already complete.
	n := len(first)
	fail := make([]uint32, n)
	next := make([]uint32, n*s.cols)
	cols := uint32(s.cols)
	queue := make([]uint32, 0, n)
	for c := uint32(0); c < cols; c++ {
		if t := trie[c]; t != 0 {
			next[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		f := fail[st]
		first[st] = min(first[st], first[f])
		for c := uint32(0); c < cols; c++ {
			if t := trie[st*cols+c]; t != 0 {
				fail[t] = next[f*cols+c]
				next[st*cols+c] = t
				queue = append(queue, t)
			} else {
				next[st*cols+c] = next[f*cols+c]
			}
		}
	}
	// Transitions are stored as the target's offset in the table, with
	// outBit set when a phrase ends at the target: the scan then needs no
	// multiplication and no second table for the common byte.
	for i, t := range next {
		next[i] = t * cols
		if first[t] != none {
			next[i] |= outBit
		}
	}
	s.next, s.first = next, first
	return s
}

// outBit marks a transition into a state where a phrase ends.
const outBit = 1 << 31

// A text of at least splitMin bytes is read as two halves at once, each
// by its own walk of the automaton: a walk's next state depends on the one
// before, so one walk waits on each load of the table, and two independent
// walks interleaved go nearly twice as fast. The second half starts
// longest-1 bytes before the middle, so that a phrase that ends in it is
// wholly inside it; a phrase that ends before the middle is wholly inside
// the first. Between them the two walks find every phrase the one walk
// would.
const splitMin = 64

// halves returns the two parts of text the walks read, and whether text is
// long enough to split.
func (s *Set) halves(text string) (a, b string, ok bool) {
	n := len(text)
	if n < splitMin || n/2 < s.longest {
		return "", "", false
	}
	mid := n / 2
	return text[:mid], text[mid-s.longest+1:], true
}

// Any reports whether text holds any of the phrases: the same as
// strings.Contains of each in turn.
func (s *Set) Any(text string) bool {
	if s.empty != none {
		return true
	}
	next := s.next
	off := uint32(0)
	if a, b, ok := s.halves(text); ok {
		// b is at least as long as a.
		b2 := b[:len(a)]
		offB := uint32(0)
		for i := 0; i < len(a); i++ {
			off = next[off+uint32(s.class[a[i]])]
			offB = next[offB+uint32(s.class[b2[i]])]
			if (off|offB)&outBit != 0 {
				return true
			}
		}
		text, off = b[len(a):], offB
	}
	for i := 0; i < len(text); i++ {
		off = next[off+uint32(s.class[text[i]])]
		if off&outBit != 0 {
			return true
		}
	}
	return false
}

// AnyBytes is Any of a byte slice, for a caller that builds a short text
// in a buffer of its own (a name with its separators dropped) and would
// otherwise make a string of it to ask.
func (s *Set) AnyBytes(text []byte) bool {
	if s.empty != none {
		return true
	}
	next := s.next
	off := uint32(0)
	for _, c := range text {
		off = next[off+uint32(s.class[c])]
		if off&outBit != 0 {
			return true
		}
	}
	return false
}

// First returns the index of the first phrase, in the order given to New,
// that text holds, or -1: the phrase a loop of strings.Contains over the
// list would stop at.
func (s *Set) First(text string) int {
	best := s.empty
	if best == 0 {
		return 0
	}
	next, cols := s.next, uint32(s.cols)
	off := uint32(0)
	if a, b, ok := s.halves(text); ok {
		b2 := b[:len(a)]
		offB := uint32(0)
		for i := 0; i < len(a); i++ {
			off = next[off+uint32(s.class[a[i]])]
			offB = next[offB+uint32(s.class[b2[i]])]
			if (off|offB)&outBit == 0 {
				continue
			}
			if off&outBit != 0 {
				off &^= outBit
				best = min(best, s.first[off/cols])
			}
			if offB&outBit != 0 {
				offB &^= outBit
				best = min(best, s.first[offB/cols])
			}
			if best == 0 {
				return 0
			}
		}
		text, off = b[len(a):], offB
	}
	for i := 0; i < len(text); i++ {
		off = next[off+uint32(s.class[text[i]])]
		if off&outBit != 0 {
			off &^= outBit
			if f := s.first[off/cols]; f < best {
				if best = f; best == 0 {
					return 0
				}
			}
		}
	}
	if best == none {
		return -1
	}
	return int(best)
}
