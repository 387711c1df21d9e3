package gate

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/gate/argcheck"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gate/sse"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// watch is what the gate knows of one server's live catalogue, kept
// across configurations: the definitions it observed, the tools it
// blocked for a fingerprint mismatch, and the agent streams to tell when
// the list changes.
type watch struct {
	id string

	mu sync.Mutex
	// observed is the fingerprint of each tool as last listed, and the
	// configuration generation it was listed under ("" when the entry could
	// not be read as a definition).
	observed map[string]observation
	// blocked maps a tool to the fingerprint that differed from the
	// approved one, never empty; see the package documentation for when
	// it is lifted.
	blocked map[string]string
	// streams are the open agent streams that can carry a notification.
	streams map[*stream]struct{}
	// listing is the gate's own listing in progress, shared by the calls
	// that wait on it.
	listing *listing
	// requests are the agents' requests to the server not answered yet.
	requests *outstanding
	// relisting says the gate's re-listing after a list change runs;
	// relistAgain that another change came since it began, and relistVia
	// the agent session to list in then.
	relisting, relistAgain bool
	relistVia              via
	// tainted says the server has said something the scan flagged since
	// the gate started: a request it then sends the client unasked
	// (sampling, elicitation) is refused under a setting that acts.
	tainted atomic.Bool
}

type observation struct {
	fingerprint string
	gen         uint64
	// schema is the raw inputSchema of the definition observed, kept when
	// it is the approved one: what a call's arguments are checked against
	// and its Mcp-Param-* headers are written from.
	schema []byte
}

type listing struct {
	gen  uint64
	done chan struct{}
	err  error
}

func newWatch(id string) *watch {
	return &watch{id: id, observed: map[string]observation{}, blocked: map[string]string{}, streams: map[*stream]struct{}{}, requests: newOutstanding()}
}

// lift removes the blocks that ss's configuration resolves: those whose
// approved fingerprint is now the one the server changed to. It reports
// whether any was lifted.
func (w *watch) lift(ss *serverState) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	lifted := false
	for name, fp := range w.blocked {
		if t := ss.tools[name]; t != nil && t.Fingerprint == fp {
			delete(w.blocked, name)
			lifted = true
		}
	}
	return lifted
}

// forget drops every observation: the server said its list changed.
func (w *watch) forget() {
	w.mu.Lock()
	clear(w.observed)
	w.mu.Unlock()
}

func (w *watch) blockedSet() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]bool, len(w.blocked))
	for k := range w.blocked {
		out[k] = true
	}
	return out
}

// callView is what the watch knows of one tool, read at once: the
// fingerprint the server changed it to when the tool is blocked ("" when
// it is not), and its last observation, if any.
func (w *watch) callView(name string) (blocked string, o observation, observed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, observed = w.observed[name]
	return w.blocked[name], o, observed
}

// mismatch is one newly blocked tool.
type mismatch struct {
	tool                 *gateproto.Tool
	approved, observedFP string
}

// record stores what a list showed and blocks every tool whose definition
// differs from the approved one. It returns the tools newly blocked.
func (w *watch) record(ss *serverState, gen uint64, tools []listedTool) []mismatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []mismatch
	for _, l := range tools {
		if l.name == "" {
			continue
		}
		t := ss.tools[l.name]
		o := observation{fingerprint: l.fingerprint, gen: gen}
		if t != nil && l.fingerprint != "" && l.fingerprint == t.Fingerprint {
			// The approved definition: its schema judges the calls. One
			// fingerprint is one schema, so a list seen again costs nothing.
			if old, ok := w.observed[l.name]; ok && old.fingerprint == l.fingerprint && old.schema != nil {
				o.schema = old.schema
			} else {
				o.schema, _ = argcheck.InputSchema(l.raw) // none: calls take any object
			}
		}
		w.observed[l.name] = o
		if t == nil || t.Fingerprint == "" || l.fingerprint == "" || l.fingerprint == t.Fingerprint {
			continue
		}
		if w.blocked[l.name] != l.fingerprint {
			w.blocked[l.name] = l.fingerprint
			out = append(out, mismatch{tool: t, approved: t.Fingerprint, observedFP: l.fingerprint})
		}
	}
	return out
}

type listedTool struct {
	name, fingerprint string
	// raw is the definition as the server sent it (aliasing the list).
	raw []byte
}

// stream is one open response to the agent that carries server-sent
// events, into which the gate may write events of its own.
type stream struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	rc     *http.ResponseController
	closed bool
	// wrote is set by the first write; headerTimer flushes the headers
	// alone if no event comes soon after them.
	wrote       bool
	headerTimer *time.Timer
	// subscription is the raw id of a subscriptions/listen request, for
	// the _meta of notifications written on its stream.
	subscription []byte
	buf          []byte
	// notices is the list_changed notice due on the stream, under a lock
	// of its own: marking one due must not wait for a write to an agent
	// that does not read.
	notices struct {
		sync.Mutex
		// due says a notice is to be written; writing that a writer
		// goroutine runs, which writes it; broken that a write failed,
		// and none is written again.
		due, writing, broken bool
	}
}

func newStream(w http.ResponseWriter) *stream {
	return &stream{w: w, rc: http.NewResponseController(w)}
}

// headerFlushDelay is how long the headers of an event stream wait for its
// first event before they are flushed alone. Most answers to a POST follow
// their headers at once: sending both in one write saves a syscall and a
// packet on every call, while a stream that stays quiet (a slow tool, a
// held call) still tells the agent within this delay that it is open.
const headerFlushDelay = 20 * time.Millisecond

// flushHeadersSoon arranges for the headers to go out alone should no
// event follow them within headerFlushDelay.
func (s *stream) flushHeadersSoon() {
	s.headerTimer = time.AfterFunc(headerFlushDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.wrote && !s.closed {
			_ = s.rc.Flush()
		}
	})
}

// write writes b and flushes, under the stream's lock so that events never
// interleave.
func (s *stream) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return http.ErrHandlerTimeout
	}
	s.wrote = true
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// writeMessage writes one JSON-RPC message as an event.
func (s *stream) writeMessage(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return http.ErrHandlerTimeout
	}
	s.wrote = true
	s.buf = sse.AppendEvent(s.buf[:0], "", msg)
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.rc.Flush()
}

// close marks the stream closed: nothing, the header timer included, writes
// to it after the handler returns.
func (s *stream) close() {
	s.mu.Lock()
	s.closed = true
	if s.headerTimer != nil {
		s.headerTimer.Stop()
	}
	s.mu.Unlock()
}

// addStream makes s a stream the gate tells of list changes.
func (w *watch) addStream(s *stream) {
	w.mu.Lock()
	w.streams[s] = struct{}{}
	w.mu.Unlock()
}

func (w *watch) removeStream(s *stream) {
	s.close()
	w.mu.Lock()
	delete(w.streams, s)
	w.mu.Unlock()
}

// noticeDue marks a list_changed notice due on the stream; one already due
// covers this change too. The notice is written by a goroutine that runs
// only while one is due: a stream costs none while it is quiet, which is
// almost always — an agent's standalone stream lives as long as its
// session — and a flood of changes costs at most one per stream.
func (s *stream) noticeDue() {
	n := &s.notices
	n.Lock()
	n.due = true
	start := !n.writing && !n.broken
	n.writing = n.writing || start
	n.Unlock()
	if start {
		go s.writeNotices()
	}
}

// writeNotices writes the stream's due notices until none is due, or the
// stream is closed or broken.
func (s *stream) writeNotices() {
	n := &s.notices
	for {
		n.Lock()
		if !n.due {
			n.writing = false
			n.Unlock()
			return
		}
		n.due = false
		n.Unlock()
		if s.writeMessage(rpcmsg.ToolsChanged(s.subscription)) != nil {
			n.Lock()
			n.writing, n.broken = false, true
			n.Unlock()
			return
		}
	}
}
