package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gate/sse"
)

type pumpOptions struct {
	// listID is the id key of the tools/list this stream answers.
	listID string
	// requestID is the id key of the request whose POST this stream
	// answers; empty on the streams of GET and subscriptions/listen.
	requestID string
	// listenID is the id key of the subscriptions/listen request whose
	// stream this is, whose own final response ends it.
	listenID string
	// sess is the session whose pending lists and waiters may be answered
	// on this stream.
	sess *session
	// out is the stream the events go to, set by pumpFrom.
	out *stream
}

var eventReaders = sync.Pool{New: func() any { return sse.NewReader(eofReader{}, 0) }}

// pump relays server-sent events to the agent one by one, flushing each,
// and judges only the events that can need it: the answer to a tools/list,
// an answer the gate itself waits for, a list-changed notification.
func (g *Gate) pump(x *exchange, body io.Reader, s *stream, opts pumpOptions) {
	evs := g.events(body)
	defer evs.close()
	g.pumpFrom(x, evs, s, opts)
}

// events reads a server's stream event by event, through a pooled reader
// it holds only while an event is arriving. A stream is quiet almost all
// its life — an agent's standalone stream lives as long as its session —
// and a reader's buffers held for each would cost every open session
// kilobytes for nothing; quiet, a stream holds one byte.
type events struct {
	g    *Gate
	body io.Reader
	rd   *sse.Reader
	// first is the byte that woke a quiet stream, read before a reader
	// is taken, and ahead what the reader reads: first, then the body.
	first [1]byte
	ahead aheadReader
}

func (g *Gate) events(body io.Reader) *events {
	e := &events{g: g, body: body}
	e.ahead.r = body
	return e
}

// next returns the next event, waiting for it without a reader.
func (e *events) next() (sse.Event, error) {
	if e.rd == nil {
		n, err := e.body.Read(e.first[:])
		for n == 0 && err == nil {
			n, err = e.body.Read(e.first[:])
		}
		if n == 0 {
			// The end of the stream, between events: what Next reports
			// of a stream with nothing left.
			return sse.Event{}, err
		}
		// A read error with the byte comes again from the body's next
		// read, once the reader reaches it.
		e.ahead.b = e.first[:n]
		e.rd = e.g.eventReader(&e.ahead)
	}
	return e.rd.Next()
}

// rest gives the reader back once the last event is used, if nothing of
// the next has been read: the stream is quiet again.
func (e *events) rest() {
	if e.rd != nil && e.rd.Buffered() == 0 && len(e.ahead.b) == 0 {
		putEventReader(e.rd)
		e.rd = nil
	}
}

// close gives the reader back for good.
func (e *events) close() {
	if e.rd != nil {
		putEventReader(e.rd)
		e.rd = nil
	}
}

// aheadReader reads b, then r.
type aheadReader struct {
	b []byte
	r io.Reader
}

func (a *aheadReader) Read(p []byte) (int, error) {
	if len(a.b) > 0 {
		n := copy(p, a.b)
		a.b = a.b[n:]
		return n, nil
	}
	return a.r.Read(p)
}

// eventReader takes a pooled reader of events from body.
func (g *Gate) eventReader(body io.Reader) *sse.Reader {
	rd := eventReaders.Get().(*sse.Reader)
	rd.Reset(body)
	// The bound is per gate, and readers are pooled: set it each time.
	rd.SetMax(g.limits.MaxEventBytes)
	return rd
}

func putEventReader(rd *sse.Reader) {
	rd.Reset(eofReader{})
	eventReaders.Put(rd)
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (g *Gate) pumpFrom(x *exchange, evs *events, s *stream, opts pumpOptions) {
	opts.out = s
	for {
		ev, err := evs.next()
		switch {
		case err == nil:
		case errors.Is(err, sse.ErrUnterminated):
			// The stream ended inside an event, which a lenient client still
			// dispatches: it is judged like any other and, if it passes,
			// sent terminated. Its raw bytes never go out unread.
			if len(ev.Data) == 0 {
				return
			}
			if out, act := g.judgeEvent(x, &ev, opts); act != skip {
				_ = s.write(terminate(out))
			}
			return
		case errors.Is(err, sse.ErrEventTooLarge):
			g.limitHit("event-bytes", "server-sent event too large", "server", x.ss.cfg.ID, "max", g.limits.MaxEventBytes)
			// The answer the agent waits for on this stream will not come:
			// it gets an error naming the bound instead of a silence.
			if opts.listID != "" || x.r.Method == http.MethodPost && x.msg.ID != nil {
				x.answered = true
				_ = s.writeMessage(rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeGate,
					fmt.Sprintf("toolgate: the server sent an event over %d bytes", g.limits.MaxEventBytes)))
			}
			return
		default:
			// The end of the stream, or a read that failed part way through
			// an event: what was read of it is not an event, and is dropped.
			return
		}
		out, act := g.judgeEvent(x, &ev, opts)
		if act == skip {
			evs.rest()
			continue
		}
		if err := s.write(out); err != nil || act == stop {
			return
		}
		evs.rest()
	}
}

// terminate makes an event end with the blank line that dispatches it.
func terminate(ev []byte) []byte {
	switch {
	case bytes.HasSuffix(ev, []byte("\n\n")) || bytes.HasSuffix(ev, []byte("\r\n\r\n")):
		return ev
	case bytes.HasSuffix(ev, []byte("\n")):
		return append(ev, '\n')
	}
	return append(ev, "\n\n"...)
}

// eventAction is what the pump does with a judged event.
type eventAction int

const (
	relay eventAction = iota // write the bytes judgeEvent returned
	skip                     // write nothing
	stop                     // write the bytes, then end the stream
)

// judgeEvent decides one event and returns the bytes to write. Every event
// that carries data is read as a JSON-RPC message: one the gate cannot
// read is never relayed, since the agent's client may read it differently
// (a duplicate member, invalid UTF-8 …) and take it for the answer to a
// tools/list. On a POST's stream such an event is replaced by a JSON-RPC
// error answering the POST's request, and ends the stream; on other
// streams it is dropped.
func (g *Gate) judgeEvent(x *exchange, ev *sse.Event, opts pumpOptions) ([]byte, eventAction) {
	data := ev.Data
	if len(data) == 0 {
		return ev.Raw, relay
	}
	m, err := rpcmsg.Scan(data)
	if err != nil {
		const why = "the server sent an event that is not a JSON-RPC message the gate can read"
		g.eventRefused(x, why, err)
		if opts.requestID != "" {
			x.answered = true // with the error, which ends the stream
			return sse.AppendEvent(nil, "", rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeGate, "toolgate: "+why)), stop
		}
		return nil, skip
	}
	if m.Method == rpcmsg.NotificationToolsChanged {
		// What the gate observed is stale from now on: a call must wait
		// for a fresh list, not race the one started here.
		x.ss.watch.forget()
		g.relistAsync(x.ss, x.via())
		return ev.Raw, relay
	}
	if !m.IsResponse() {
		// A notification (a log line, progress) or a request of the
		// server's (sampling, elicitation): what it says is scanned.
		out, outcome := g.judgeSaid(x, said{method: m.Method, id: m.ID, request: m.IsRequest()}, data)
		switch outcome {
		case saidRefused:
			go g.refuseServerRequest(x, bytes.Clone(m.ID))
			return nil, skip
		case saidDrop, saidAnswered:
			return nil, skip
		}
		if bytes.Equal(out, data) {
			return ev.Raw, relay
		}
		return sse.AppendEvent(nil, ev.ID, out), relay
	}
	k := rpcmsg.IDKey(m.ID)
	if opts.sess != nil {
		if ch := opts.sess.takeWaiter(k); ch != nil {
			ch <- bytes.Clone(data)
			return nil, skip
		}
	}
	isList := k == opts.listID
	method, tool := "", ""
	switch {
	case isList || opts.requestID != "" && k == opts.requestID:
		x.answered = true
		method = x.msg.Method
	case opts.listenID != "" && k == opts.listenID:
		return ev.Raw, relay
	default:
		// An answer to some other request: the agent's client will route
		// it by its id whatever stream it came on, so it passes only when
		// it answers a request the agent has outstanding, and as a list's
		// answer only filtered.
		var ok bool
		method, tool, ok = x.ss.watch.requests.take(x.recordSession(), k)
		if !ok {
			why := "the server answered no request the agent has outstanding"
			if opts.requestID != "" {
				why = "the server answered another request on a request's stream"
			}
			g.eventRefused(x, why, nil)
			return nil, skip
		}
		if method == answerAmbiguous {
			g.eventRefused(x, "the server answered an id under which a tools/list and an initialize are both outstanding", nil)
			return nil, skip
		}
		isList = method == rpcmsg.MethodToolsList
	}
	if !isList {
		if rpcmsg.CarriesInstructions(method) {
			out, err := g.judgeInstructions(x, method, data)
			if err != nil {
				return sse.AppendEvent(nil, ev.ID, rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate, g.instructionsRefused(x, err))), relay
			}
			if !bytes.Equal(out, data) {
				return sse.AppendEvent(nil, ev.ID, out), relay
			}
			return ev.Raw, relay
		}
		if !scansAnswerTo(method) {
			return ev.Raw, relay
		}
		own := opts.requestID != "" && k == opts.requestID
		sm := said{method: method, tool: tool, id: m.ID, holdable: own, stream: opts.out}
		if own && method == rpcmsg.MethodToolsCall {
			sm.tool = x.msg.Name
		}
		out, outcome := g.judgeSaid(x, sm, data)
		switch {
		case outcome != saidPass:
			return nil, skip
		case bytes.Equal(out, data):
			return ev.Raw, relay
		}
		return sse.AppendEvent(nil, ev.ID, out), relay
	}
	// Judge by the configuration in force now: a stream may have been
	// opened under an older one.
	lx := *x
	lx.msg = rpcmsg.Message{ID: m.ID, Method: rpcmsg.MethodToolsList}
	if !lx.refresh(g) {
		return sse.AppendEvent(nil, ev.ID, rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate, errServerNotReady.Error())), relay
	}
	if int64(len(data)) > g.limits.MaxListBytes {
		g.limitHit("list-bytes", "tools/list response too large", "server", x.ss.cfg.ID, "max", g.limits.MaxListBytes)
		return sse.AppendEvent(nil, ev.ID, rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate,
			fmt.Sprintf("toolgate: the server's tools/list response exceeds %d bytes", g.limits.MaxListBytes))), relay
	}
	out, err := g.filterForAgent(&lx, data)
	if err != nil {
		out = rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate, g.listRefused(x, err))
	}
	if bytes.Equal(out, data) {
		return ev.Raw, relay
	}
	return sse.AppendEvent(nil, ev.ID, out), relay
}

// eventRefused counts and logs an event the gate does not relay.
func (g *Gate) eventRefused(x *exchange, why string, err error) {
	g.metrics.Errors.WithLabelValues("bad-event").Inc()
	g.log.Warn("server-sent event not relayed", "why", why, "server", x.ss.cfg.ID, "method", x.msg.Method, "error", err)
}

// serveSSEStream serves the GET of the SSE transport: it opens the
// server's stream, gives the agent a message endpoint on the gate in place
// of the server's, and relays the stream.
func (g *Gate) serveSSEStream(x *exchange) {
	ctx, cancel := context.WithCancel(x.r.Context())
	defer cancel()
	resp := g.sendForAgent(ctx, x, http.MethodGet, x.ss.cfg.Upstream.URL, nil, "text/event-stream")
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if !g.checkStatus(x, resp) {
		return
	}
	evs := g.events(resp.Body)
	defer evs.close()
	first, err := nextWithin(evs, x.ss.headerTimeout, cancel)
	if err != nil || first.Name != "endpoint" {
		g.metrics.Errors.WithLabelValues("upstream-protocol").Inc()
		g.log.Error("SSE server did not send its endpoint first", "server", x.ss.cfg.ID, "error", err)
		writeRPCError(x.w, http.StatusBadGateway, nil, rpcmsg.CodeGate, "toolgate: the server did not open an SSE session")
		return
	}
	endpoint, err := x.ss.url.Parse(string(bytes.TrimSpace(first.Data)))
	if err != nil || endpoint.Scheme != x.ss.url.Scheme || endpoint.Host != x.ss.url.Host {
		// The endpoint would take the gate's credentials to another host.
		g.metrics.Errors.WithLabelValues("upstream-protocol").Inc()
		g.log.Error("SSE server named a message endpoint on another origin", "server", x.ss.cfg.ID)
		writeRPCError(x.w, http.StatusBadGateway, nil, rpcmsg.CodeGate, "toolgate: the server named a message endpoint on another origin")
		return
	}
	key := randomKey()
	sess, ok := g.sessions.session(x.ss.watch, key, endpoint.String(), true)
	if !ok {
		g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
		http.Error(x.w, fmt.Sprintf("toolgate: more than %d sessions", g.limits.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	defer g.sessions.drop(sess)
	x.sess = sess
	s := newStream(x.w)
	sess.setGet(s)
	x.ss.watch.addStream(s)
	defer x.ss.watch.removeStream(s)

	copyResponseHeaders(x.w.Header(), resp.Header)
	x.w.Header().Set("Content-Type", "text/event-stream")
	x.w.WriteHeader(resp.StatusCode)
	own := ServerPath(x.ss.cfg.ID) + "?session=" + url.QueryEscape(key)
	if err := s.write([]byte("event: endpoint\ndata: " + own + "\n\n")); err != nil {
		return
	}
	evs.rest()
	g.pumpFrom(x, evs, s, pumpOptions{sess: sess})
}

// nextWithin reads one event, cancelling the stream if none comes in time.
func nextWithin(evs *events, d time.Duration, cancel context.CancelFunc) (sse.Event, error) {
	t := time.AfterFunc(d, cancel)
	defer t.Stop()
	return evs.next()
}
