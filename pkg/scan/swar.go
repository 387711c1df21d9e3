package scan

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
