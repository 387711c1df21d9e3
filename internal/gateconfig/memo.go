package gateconfig

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// groupMemo remembers, per namespace, the configuration evaluated for each
// set of matching policies: every pod a Deployment runs matches the same
// policies and is served the same configuration but for its own name (and,
// where argument rules read it, its labels), so that after a change one
// evaluation serves the whole group instead of one per pod.
//
// An entry lives until the namespace is invalidated, or at most ttl: the
// informer handlers that call Invalidate are the same ones that tell the
// gate server a configuration may have changed, so a stream that rebuilds
// because of a change never finds an entry from before it. The ttl only
// bounds the damage of a change no handler reported.
type groupMemo struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	// byNS holds each namespace's entries by group key.
	byNS map[string]map[string]*groupEntry
	// clock counts invalidations; invalidatedAt holds, per namespace, the
	// count at its last invalidation, and invalidatedAll the count at the
	// last invalidation of every namespace. A build notes the count before
	// it reads anything (snapshot) and may share or store an evaluation
	// only if no invalidation of its namespace came since: a build that
	// listed a policy before its change must not leave what it evaluates
	// for the builds that the change started.
	clock          uint64
	invalidatedAt  map[string]uint64
	invalidatedAll uint64
}

// snapshot is the invalidation count a build starts from: taken before the
// build reads the cache, it is what get compares against.
func (m *groupMemo) snapshot() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clock
}

// staleLocked reports whether namespace was invalidated after the build
// that took snapshot since started. m.mu must be held.
func (m *groupMemo) staleLocked(namespace string, since uint64) bool {
	return m.invalidatedAll > since || m.invalidatedAt[namespace] > since
}

// groupEntry is one group's evaluation, or the one under way: done is
// closed when cfg and err are set. Pods of the group that build meanwhile
// wait for it instead of evaluating too, so that a change that reaches
// every stream at once costs one evaluation per group, not one per stream.
type groupEntry struct {
	done chan struct{}
	at   time.Time
	cfg  *evaluated
	err  error
}

// evaluated is a group's configuration, without a pod's name, agent or
// revision, and its encoding, made once for every pod of the group.
type evaluated struct {
	cfg *gateproto.Config
	// enc is nil where the configuration carries each pod's agent: each
	// pod's is then encoded whole.
	enc *gateproto.Group
}

func newGroupMemo(ttl time.Duration) *groupMemo {
	return &groupMemo{ttl: ttl, now: time.Now, byNS: map[string]map[string]*groupEntry{}, invalidatedAt: map[string]uint64{}}
}

// groupKey names the set of policies a pod matches. The policies' content
// is not part of it: any change of a policy invalidates its namespace,
// which drops the entry.
func groupKey(policies []toolgatev1alpha1.ToolPolicy) string {
	names := make([]string, len(policies))
	for i := range policies {
		names[i] = policies[i].Name
	}
	slices.Sort(names)
	// Names are DNS subdomains: they hold no slash.
	return strings.Join(names, "/")
}

// get returns the group's configuration, evaluating it with eval unless an
// entry from since the last invalidation holds it or is being made. The
// configuration returned is shared by every pod of the group and must not
// be modified. An evaluation that fails is not remembered: the next build,
// and each pod that waited on it, tries again.
//
// since is the build's snapshot, taken before it read what the key comes
// from: when the namespace was invalidated after it, the build's reads may
// be older than the change, and it evaluates for itself alone.
func (m *groupMemo) get(ctx context.Context, namespace, key string, since uint64, eval func() (*evaluated, error)) (*evaluated, error) {
	now := m.now()
	m.mu.Lock()
	if m.staleLocked(namespace, since) {
		m.mu.Unlock()
		return eval()
	}
	entries := m.byNS[namespace]
	if entries == nil {
		entries = map[string]*groupEntry{}
		m.byNS[namespace] = entries
	}
	e := entries[key]
	if e != nil && now.Sub(e.at) >= m.ttl {
		e = nil
	}
	if e != nil {
		m.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e.cfg, nil
		}
		// Another pod's evaluation failed, perhaps only because its gate
		// left and cancelled it: this pod's own is the one to judge by.
		return eval()
	}
	e = &groupEntry{done: make(chan struct{}), at: now}
	entries[key] = e
	m.mu.Unlock()

	e.cfg, e.err = eval()
	close(e.done)
	if e.err != nil {
		m.mu.Lock()
		if m.byNS[namespace][key] == e {
			delete(m.byNS[namespace], key)
		}
		m.mu.Unlock()
	}
	return e.cfg, e.err
}

// invalidate drops the entries of a namespace, or of every namespace when
// namespace is empty. An evaluation under way is not stopped; its waiters
// get what it makes, as they would have without the memo, and the stream
// that rebuilds because of this invalidation starts a new one.
func (m *groupMemo) invalidate(namespace string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clock++
	if namespace == "" {
		m.invalidatedAll = m.clock
		clear(m.byNS)
		// Every namespace's own mark is older now; forget them, so that
		// the marks of namespaces long gone do not pile up.
		clear(m.invalidatedAt)
		return
	}
	m.invalidatedAt[namespace] = m.clock
	delete(m.byNS, namespace)
}
