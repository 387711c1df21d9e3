package membudget

import "sync"

// Budget is limit bytes shared by whoever holds it; a nil *Budget is
// unlimited.
type Budget struct {
	limit int64
	mu    sync.Mutex
	used  int64
}

// New returns a budget of limit bytes; zero or less is unlimited (nil).
func New(limit int64) *Budget {
	if limit <= 0 {
		return nil
	}
	return &Budget{limit: limit}
}

// Limit is the budget's size in bytes; zero when unlimited.
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is how many bytes are held now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Take holds n more bytes if they fit, and says whether they did.
func (b *Budget) Take(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// Give returns n bytes taken before. Giving back more than is held
// leaves nothing held rather than credit.
func (b *Budget) Give(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = max(0, b.used-n)
}
