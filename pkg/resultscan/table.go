package resultscan

// wordTable is the lexicon as the scan reads it: open addressing on a
// 64-bit FNV-1a hash of the lower-cased word, one probe for most words.
// A Go map costs a hash and a probe of its own per word, and the lookup of
// every word of every result is most of the scan's time.
type wordTable struct {
	mask  uint64
	slots []wordSlot
}

type wordSlot struct {
	h     uint64
	key   string
	roles role
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func newWordTable(m map[string]role) *wordTable {
	n := uint64(1)
	for n < uint64(len(m))*4 {
		n <<= 1
	}
	t := &wordTable{mask: n - 1, slots: make([]wordSlot, n)}
	for k, r := range m {
		h := fnv([]byte(k))
		i := h & t.mask
		for t.slots[i].key != "" {
			i = (i + 1) & t.mask
		}
		t.slots[i] = wordSlot{h: h, key: k, roles: r}
	}
	return t
}

// get returns the roles of w, whose hash is h.
func (t *wordTable) get(h uint64, w []byte) role {
	i := h & t.mask
	for {
		s := &t.slots[i]
		if s.key == "" {
			return 0
		}
		if s.h == h && s.key == string(w) {
			return s.roles
		}
		i = (i + 1) & t.mask
	}
}

var words, stems *wordTable

func init() {
	words = newWordTable(lexicon)
	stems = newWordTable(stemLexicon)
}
