package v1alpha1

import (
	"slices"
	"testing"
)

// Levels order by their digit, and whatever is not one of the six ranks as
// the top one: a level compared as a string, or an unknown level ranked
// low, would let a tool past a ceiling it is above.
func TestLevelRank(t *testing.T) {
	for _, c := range []struct {
		level Level
		want  int
	}{
		{LevelVerified, 0}, {LevelSafe, 1}, {LevelLow, 2}, {LevelModerate, 3}, {LevelHigh, 4}, {LevelCritical, 5},
		{"", 5}, {"L6", 5}, {"L9", 5}, {"l2", 5}, {"L", 5}, {"L10", 5}, {"high", 5}, {"L-1", 5},
	} {
		if got := c.level.Rank(); got != c.want {
			t.Errorf("Level(%q).Rank() = %d, want %d", c.level, got, c.want)
		}
	}
}

func TestLevelCompare(t *testing.T) {
	for _, c := range []struct {
		a, b Level
		want int
	}{
		{LevelLow, LevelHigh, -1},
		{LevelHigh, LevelLow, 1},
		{LevelModerate, LevelModerate, 0},
		{LevelVerified, LevelCritical, -1},
		// An unknown level is never below a known one.
		{"L9", LevelCritical, 0},
		{"", LevelHigh, 1},
		{LevelCritical, "bogus", 0},
	} {
		if got := c.a.Compare(c.b); got != c.want {
			t.Errorf("Level(%q).Compare(%q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	levels := []Level{LevelCritical, "unknown", LevelVerified, LevelModerate, LevelSafe}
	slices.SortStableFunc(levels, Level.Compare)
	if want := []Level{LevelVerified, LevelSafe, LevelModerate, LevelCritical, "unknown"}; !slices.Equal(levels, want) {
		t.Errorf("sorted by Compare: %v, want %v", levels, want)
	}
}
