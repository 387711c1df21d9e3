package keysort

import "slices"

// smallObject is the most keys the insertion sort takes; larger objects
// go to slices.Sort, whose cost grows more slowly.
const smallObject = 12

// Bytewise sorts keys in byte order, exactly as slices.Sort does. Most
// objects have a handful of keys that differ in their first byte: an
// insertion sort that compares first bytes before whole strings costs a
// fraction of the generic sort, whose comparison of two strings is two
// calls into the runtime.
func Bytewise(keys []string) {
	if len(keys) > smallObject {
		slices.Sort(keys)
		return
	}
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && Less(k, keys[j-1]); j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

// Less is a < b, deciding on the first byte where it can.
func Less(a, b string) bool {
	if a != "" && b != "" && a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}
