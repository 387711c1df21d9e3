package gate

import (
	"crypto/rand"
	"sync"
	"time"
)

// session is what the gate tracks of one MCP session with a server: the
// agent's GET stream, which the gate may write to, and the requests whose
// responses will come on it. Sessions of the streamable transport are
// keyed by the server's Mcp-Session-Id, which passes through unchanged;
// sessions of the SSE transport by a key of the gate's own, carried in the
// message endpoint the gate gives the agent.
type session struct {
	key    string
	server string
	// endpoint is the server's message URL (SSE transport only).
	endpoint string

	mu       sync.Mutex
	get      *stream
	pending  map[string]struct{}    // agent tools/list awaiting a response on the GET stream
	waiters  map[string]chan []byte // the gate's own requests, by id
	lastUsed time.Time
}

func sessionKey(server, id string) string { return server + "\x00" + id }

// session returns the session of a server with the given id, creating it
// when asked; it returns nil when the bound on sessions is hit.
func (g *Gate) session(server, id, endpoint string, create bool) (*session, bool) {
	key := sessionKey(server, id)
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sessions[key]; s != nil {
		s.mu.Lock()
		s.lastUsed = now
		s.mu.Unlock()
		return s, true
	}
	if !create {
		return nil, true
	}
	if len(g.sessions) >= g.limits.MaxSessions {
		g.sweepLocked(now)
		if len(g.sessions) >= g.limits.MaxSessions {
			return nil, false
		}
	}
	s := &session{key: key, server: server, endpoint: endpoint, pending: map[string]struct{}{}, waiters: map[string]chan []byte{}, lastUsed: now}
	g.sessions[key] = s
	g.metrics.Sessions.Set(float64(len(g.sessions)))
	return s, true
}

// sweepLocked forgets sessions idle for longer than the bound and not
// holding a stream open.
func (g *Gate) sweepLocked(now time.Time) {
	for k, s := range g.sessions {
		s.mu.Lock()
		idle := s.get == nil && now.Sub(s.lastUsed) > g.limits.SessionIdleTimeout
		s.mu.Unlock()
		if idle {
			delete(g.sessions, k)
		}
	}
	g.metrics.Sessions.Set(float64(len(g.sessions)))
}

func (g *Gate) dropSession(s *session) {
	g.mu.Lock()
	if g.sessions[s.key] == s {
		delete(g.sessions, s.key)
	}
	g.metrics.Sessions.Set(float64(len(g.sessions)))
	g.mu.Unlock()
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

func (s *session) addPending(k string) {
	s.mu.Lock()
	if len(s.pending) < 4096 {
		s.pending[k] = struct{}{}
	}
	s.mu.Unlock()
}

func (s *session) takePending(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending[k]
	delete(s.pending, k)
	return ok
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

func randomKey() string { return rand.Text() }
