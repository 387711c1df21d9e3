package gateserver

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// How fast a gate may open pending calls. A call waits for a person, so a
// pod that opens more than one a second for long is not waiting for
// anyone: it is churning the shared pin (each call costs reads, two
// status writes and two Events) and the bounded call history with it.
// The bursts leave room for a model's parallel tool calls.
// A namespace's bucket is CallRateScale times a pod's.
const (
	DefaultCallsPerSecond  = 1
	DefaultCallBurst       = 8
	CallRateScale          = 4
	callLimiterIdle        = 10 * time.Minute
	callLimiterPruneAtSize = 4096
)

// callRates holds a token bucket per pod and per namespace. The buckets
// are golang.org/x/time/rate's; this only keys and prunes them.
type callRates struct {
	perSecond rate.Limit
	burst     int
	mu        sync.Mutex
	buckets   map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newCallRates(perSecond float64, burst int) *callRates {
	return &callRates{perSecond: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// allow takes one call from the pod's and the namespace's buckets, and
// says which is empty when one is ("" when the call may open). A call
// refused by the namespace's bucket gives its pod token back.
func (c *callRates) allow(namespace, podUID string, now time.Time) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buckets) >= callLimiterPruneAtSize {
		for k, b := range c.buckets {
			if now.Sub(b.seen) > callLimiterIdle {
				delete(c.buckets, k)
			}
		}
	}
	pod := c.get("pod/"+podUID, c.perSecond, c.burst, now)
	ns := c.get("ns/"+namespace, c.perSecond*CallRateScale, c.burst*CallRateScale, now)
	r := pod.ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		r.CancelAt(now)
		return "pod"
	}
	if !ns.AllowN(now, 1) {
		r.CancelAt(now)
		return "namespace"
	}
	return ""
}

func (c *callRates) get(key string, l rate.Limit, burst int, now time.Time) *rate.Limiter {
	b := c.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l, burst)}
		c.buckets[key] = b
	}
	b.seen = now
	return b.lim
}
