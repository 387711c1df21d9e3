package membudget

import (
	"sync"
	"testing"
)

func TestBudget(t *testing.T) {
	if New(0) != nil || New(-1) != nil {
		t.Fatal("a budget of zero or less is not unlimited")
	}
	var unlimited *Budget
	if !unlimited.Take(1<<60) || unlimited.Used() != 0 || unlimited.Limit() != 0 {
		t.Fatal("a nil budget is not unlimited")
	}
	unlimited.Give(5)

	b := New(10)
	for _, step := range []struct {
		take, give int64
		ok         bool
		used       int64
	}{
		{take: 6, ok: true, used: 6},
		{take: 5, ok: false, used: 6}, // does not fit: nothing taken
		{take: 4, ok: true, used: 10}, // fills it exactly
		{give: 3, used: 7},
		{give: 100, used: 0}, // never credit
		{take: 10, ok: true, used: 10},
	} {
		if step.take > 0 {
			if got := b.Take(step.take); got != step.ok {
				t.Fatalf("Take(%d) = %v, want %v", step.take, got, step.ok)
			}
		} else {
			b.Give(step.give)
		}
		if b.Used() != step.used {
			t.Fatalf("used %d, want %d", b.Used(), step.used)
		}
	}
}

// TestConcurrentHoldersNeverExceedTheLimit: what is held at once never
// passes the limit, and everything given back leaves nothing held.
func TestConcurrentHoldersNeverExceedTheLimit(t *testing.T) {
	b := New(1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := int64(0)
	for range 16 {
		wg.Go(func() {
			for range 1000 {
				if b.Take(100) {
					mu.Lock()
					peak = max(peak, b.Used())
					mu.Unlock()
					b.Give(100)
				}
			}
		})
	}
	wg.Wait()
	if peak > 1000 || b.Used() != 0 {
		t.Fatalf("peak %d over the limit, or %d left held", peak, b.Used())
	}
}
