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
	// id is the session's id: the server's Mcp-Session-Id, or the gate's
	// own key on the SSE transport. The server's record of outstanding
	// requests is kept under it.
	id string
	// endpoint is the server's message URL (SSE transport only).
	endpoint string

	mu       sync.Mutex
	get      *stream
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
	s := &session{key: key, server: server, id: id, endpoint: endpoint, waiters: map[string]chan []byte{}, lastUsed: now}
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
			g.dropOutstandingLocked(s)
		}
	}
	g.metrics.Sessions.Set(float64(len(g.sessions)))
}

func (g *Gate) dropSession(s *session) {
	g.mu.Lock()
	if g.sessions[s.key] == s {
		delete(g.sessions, s.key)
		g.dropOutstandingLocked(s)
	}
	g.metrics.Sessions.Set(float64(len(g.sessions)))
	g.mu.Unlock()
}

// dropOutstandingLocked forgets the requests a gone session had
// outstanding: no stream of it remains to answer them. g.mu is held.
func (g *Gate) dropOutstandingLocked(s *session) {
	if w := g.watches[s.server]; w != nil {
		w.requests.drop(s.id)
	}
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

func randomKey() string { return rand.Text() }
