package lifecycle

import (
	"sort"
	"time"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// Retention says how long the pins of tools gone from a server are kept.
type Retention struct {
	// After is how long a removed pin that was trusted, and that nobody
	// decided on, is kept after its tool was last seen.
	After time.Duration
	// MaxRemoved is the most removed pins without decisions a server keeps;
	// beyond it the oldest go, trusted ones first, so that a server that
	// renames its tools on every probe cannot grow pins without bound.
	MaxRemoved int
}

// Expired returns the names of the pins to delete. A pin with decisions is
// never among them: its review record outlives its tool. A removed pin
// whose definition nobody trusts (it awaited review, or was rejected) is
// kept past After, since it stops a renamed copy from being trusted on
// first use, and goes only when MaxRemoved is reached.
func Expired(pins []toolgatev1alpha1.ToolPin, now time.Time, r Retention) []string {
	type candidate struct {
		name      string
		untrusted bool
		lastSeen  time.Time
	}
	var removed []candidate
	for _, p := range pins {
		if p.Status.State != toolgatev1alpha1.PinRemoved || len(p.Status.Decisions) > 0 {
			continue
		}
		c := candidate{name: p.Name, untrusted: Untrusted(p.Status), lastSeen: p.CreationTimestamp.Time}
		if p.Status.LastSeenTime != nil {
			c.lastSeen = p.Status.LastSeenTime.Time
		}
		removed = append(removed, c)
	}
	// Trusted before untrusted, oldest first, so the cap takes what
	// protects least.
	sort.Slice(removed, func(i, j int) bool {
		if removed[i].untrusted != removed[j].untrusted {
			return !removed[i].untrusted
		}
		if !removed[i].lastSeen.Equal(removed[j].lastSeen) {
			return removed[i].lastSeen.Before(removed[j].lastSeen)
		}
		return removed[i].name < removed[j].name
	})
	over := len(removed) - r.MaxRemoved
	var out []string
	for _, c := range removed {
		switch {
		case r.MaxRemoved > 0 && over > 0:
			over--
		case !c.untrusted && r.After > 0 && now.Sub(c.lastSeen) >= r.After:
		default:
			continue
		}
		out = append(out, c.name)
	}
	sort.Strings(out)
	return out
}
