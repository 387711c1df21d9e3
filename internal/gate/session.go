package gate

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// session is what the gate tracks of one MCP session with a server: the
// agent's GET stream, which the gate may write to, and the requests whose
// responses will come on it. Sessions of the streamable transport are
// keyed by the server's Mcp-Session-Id, which passes through unchanged;
// sessions of the SSE transport by a key of the gate's own, carried in the
// message endpoint the gate gives the agent.
type session struct {
	key    sessionKey
	server string
	// id is the session's id: the server's Mcp-Session-Id, or the gate's
	// own key on the SSE transport. The server's record of outstanding
	// requests is kept under it.
	id string
	// endpoint is the server's message URL (SSE transport only).
	endpoint string
	// requests is the server's record of outstanding requests, from which
	// the session's are dropped when it goes.
	requests *outstanding

	mu       sync.Mutex
	get      *stream
	waiters  map[string]chan []byte // the gate's own requests, by id
	lastUsed time.Time
}

// sessionKey names a session in the table: the server's and the session's
// ids. A struct, not the two joined, so that looking one up on every
// request builds no string.
type sessionKey struct{ server, id string }

// sessionTable is the gate's bounded record of MCP sessions, under a lock
// of its own: it is consulted on every request that names a session.
type sessionTable struct {
	max  int
	idle time.Duration
	// count is the gauge of the sessions tracked.
	count prometheus.Gauge

	mu    sync.Mutex
	byKey map[sessionKey]*session
}

func newSessionTable(limit int, idle time.Duration, count prometheus.Gauge) *sessionTable {
	return &sessionTable{max: limit, idle: idle, count: count, byKey: map[sessionKey]*session{}}
}

// session returns the session with the given id of the server w watches,
// creating it when asked; it reports false when the bound on sessions is
// hit.
func (t *sessionTable) session(w *watch, id, endpoint string, create bool) (*session, bool) {
	key := sessionKey{w.id, id}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byKey[key]; s != nil {
		s.mu.Lock()
		s.lastUsed = now
		s.mu.Unlock()
		return s, true
	}
	if !create {
		return nil, true
	}
	if len(t.byKey) >= t.max {
		t.sweepLocked(now)
		if len(t.byKey) >= t.max {
			return nil, false
		}
	}
	s := &session{key: key, server: w.id, id: id, endpoint: endpoint, requests: w.requests, waiters: map[string]chan []byte{}, lastUsed: now}
	t.byKey[key] = s
	t.count.Set(float64(len(t.byKey)))
	return s, true
}

// full reports whether the bound on sessions is hit, once the idle ones
// are forgotten.
func (t *sessionTable) full() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byKey) >= t.max {
		t.sweepLocked(time.Now())
	}
	return len(t.byKey) >= t.max
}

// sweepLocked forgets sessions idle for longer than the bound and not
// holding a stream open.
func (t *sessionTable) sweepLocked(now time.Time) {
	for k, s := range t.byKey {
		s.mu.Lock()
		idle := s.get == nil && now.Sub(s.lastUsed) > t.idle
		s.mu.Unlock()
		if idle {
			delete(t.byKey, k)
			s.requests.drop(s.id)
		}
	}
	t.count.Set(float64(len(t.byKey)))
}

// drop forgets a session, and the requests it had outstanding: no stream
// of it remains to answer them.
func (t *sessionTable) drop(s *session) {
	t.mu.Lock()
	if t.byKey[s.key] == s {
		delete(t.byKey, s.key)
		s.requests.drop(s.id)
	}
	t.count.Set(float64(len(t.byKey)))
	t.mu.Unlock()
}

func (s *session) setGet(st *stream) {
	s.mu.Lock()
	s.get = st
	s.mu.Unlock()
}

func (s *session) getStream() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get
}

func (s *session) clearGet(st *stream) {
	s.mu.Lock()
	if s.get == st {
		s.get = nil
	}
	s.mu.Unlock()
}

func (s *session) addWaiter(k string) chan []byte {
	ch := make(chan []byte, 1)
	s.mu.Lock()
	s.waiters[k] = ch
	s.mu.Unlock()
	return ch
}

func (s *session) removeWaiter(k string) {
	s.mu.Lock()
	delete(s.waiters, k)
	s.mu.Unlock()
}

func (s *session) takeWaiter(k string) chan []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.waiters[k]
	delete(s.waiters, k)
	return ch
}

// heldCalls are the calls waiting for a human, by heldKey, so that the
// agent's notifications/cancelled withdraws its call.
type heldCalls struct {
	mu    sync.Mutex
	byKey map[string]context.CancelFunc
}

// add registers a held call's cancel until release.
func (h *heldCalls) add(k string, cancel context.CancelFunc) (release func()) {
	h.mu.Lock()
	h.byKey[k] = cancel
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.byKey, k)
		h.mu.Unlock()
	}
}

// get returns the cancel of the held call of that key, nil when there is
// none.
func (h *heldCalls) get(k string) context.CancelFunc {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byKey[k]
}

// len is how many calls are held.
func (h *heldCalls) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byKey)
}

func randomKey() string { return rand.Text() }
