package scan

import (
	"math/bits"
	"slices"
)

// Eight bytes at a time: the tests below look at a word of a string at
// once, for the loops that read every byte of every text and field.

const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// load8 reads s[i:i+8] as a little-endian word; the compiler makes it one
// load.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// lowBytes[n] keeps the first n bytes of a word load8 read.
var lowBytes = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, 0xffffffffffffffff}

// shortTable maps the words of at most eight bytes of a lexicon to their
// bits, keyed by the word's bytes read as a little-endian number: looking
// a word up costs a multiplication and an integer comparison, where a map
// hashes the string and compares it byte by byte.
type shortTable struct {
	// slot holds 1 + the index in ent of the word hashed there, 0 for an
	// empty slot; collisions go to the next slot.
	slot [shortSlots]uint16
	ent  []shortEntry
}

type shortEntry struct {
	key  uint64
	n    int
	bits uint64
}

// shortSlots is the size of a shortTable, a power of two well above the
// number of words, so that most words not in it find an empty slot.
const shortSlots = 4096

func shortSlot(key uint64) uint64 {
	return key * 0x9E3779B97F4A7C15 >> (64 - 12)
}

func newShortTable(m map[string]uint64) *shortTable {
	words := make([]string, 0, len(m))
	for w := range m {
		if len(w) > 0 && len(w) <= 8 {
			words = append(words, w)
		}
	}
	if len(words) > shortSlots/2 {
		panic("scan: too many short words for their table")
	}
	slices.Sort(words) // the same table from one run to the next
	t := &shortTable{}
	for _, w := range words {
		var key uint64
		for i := len(w) - 1; i >= 0; i-- {
			key = key<<8 | uint64(w[i])
		}
		t.ent = append(t.ent, shortEntry{key, len(w), m[w]})
		i := shortSlot(key)
		for t.slot[i] != 0 {
			i = (i + 1) & (shortSlots - 1)
		}
		t.slot[i] = uint16(len(t.ent))
	}
	return t
}

// get returns the bits of the word of n bytes (1 to 8) whose bytes read
// as a little-endian number are key; 0 when it is not in the table.
func (t *shortTable) get(key uint64, n int) uint64 {
	for i := shortSlot(key); ; i = (i + 1) & (shortSlots - 1) {
		k := t.slot[i]
		if k == 0 {
			return 0
		}
		if e := &t.ent[k-1]; e.key == key && e.n == n {
			return e.bits
		}
	}
}

// store8 writes x to b[i:i+8], little-endian.
func store8(b []byte, i int, x uint64) {
	b = b[i : i+8]
	b[0], b[1], b[2], b[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	b[4], b[5], b[6], b[7] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
}

// hasBelow8 reports whether a byte of x is below n (n <= 128); the answer
// is exact, though which byte is not.
func hasBelow8(x uint64, n byte) bool {
	return (x-ones8*uint64(n))&^x&high8 != 0
}

// hasByte8 reports whether a byte of x is b.
func hasByte8(x uint64, b byte) bool {
	return hasBelow8(x^(ones8*uint64(b)), 1)
}

// lower8 lower-cases the ASCII capitals in x, whose bytes must all be
// below 0x80: a byte from 'A' to 'Z' gains 0x20.
func lower8(x uint64) uint64 {
	ge := x + ones8*(0x80-'A')     // high bit set from 'A' up
	gt := x + ones8*(0x80-('Z'+1)) // high bit set above 'Z'
	return x | (ge&^gt&high8)>>2
}

// letterRun returns how many of the bytes of x, from the first, are ASCII
// lower-case letters: 8 when all are. The word loops skip a word's letters
// with it and look at the byte that ends the run on its own.
func letterRun(x uint64) int {
	ge := x + ones8*(0x80-'a')     // high bit set from 'a' up (bytes below 0x80)
	gt := x + ones8*(0x80-('z'+1)) // high bit set above 'z'
	// A byte of 0x80 or more is not a letter, whatever its sums say; a
	// sum that carried into the next byte did so from a byte that is not
	// a letter either, which comes first.
	other := (^ge | gt | x) & high8
	return bits.TrailingZeros64(other) >> 3
}
