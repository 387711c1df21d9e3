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
	"github.com/toolgate/toolgate/internal/gateproto"
)

type pumpOptions struct {
	// listID is the id key of the tools/list this stream answers.
	listID string
	// sess is the session whose pending lists and waiters may be answered
	// on this stream.
	sess *session
}

var toolsChangedBytes = []byte(rpcmsg.NotificationToolsChanged)

var eventReaders = sync.Pool{New: func() any { return sse.NewReader(eofReader{}, 0) }}

// pump relays server-sent events to the agent one by one, flushing each,
// and judges only the events that can need it: the answer to a tools/list,
// an answer the gate itself waits for, a list-changed notification.
func (g *Gate) pump(x *exchange, body io.Reader, s *stream, opts pumpOptions) {
	rd := g.eventReader(body)
	defer putEventReader(rd)
	g.pumpFrom(x, rd, s, opts)
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

func (g *Gate) pumpFrom(x *exchange, rd *sse.Reader, s *stream, opts pumpOptions) {
	for {
		ev, err := rd.Next()
		if err != nil {
			if len(ev.Raw) > 0 && !errors.Is(err, sse.ErrEventTooLarge) {
				_ = s.write(ev.Raw)
			}
			if errors.Is(err, sse.ErrEventTooLarge) {
				g.limitHit("event-bytes", "server-sent event too large", "server", x.ss.cfg.ID, "max", g.limits.MaxEventBytes)
				if opts.listID != "" {
					_ = s.writeMessage(rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeGate,
						fmt.Sprintf("toolgate: the server sent an event over %d bytes", g.limits.MaxEventBytes)))
				}
			}
			return
		}
		out, drop := g.judgeEvent(x, &ev, opts)
		if drop {
			continue
		}
		if err := s.write(out); err != nil {
			return
		}
	}
}

func (g *Gate) judgeEvent(x *exchange, ev *sse.Event, opts pumpOptions) ([]byte, bool) {
	data := ev.Data
	if len(data) == 0 {
		return ev.Raw, false
	}
	expecting := opts.listID != "" || (opts.sess != nil && opts.sess.expecting())
	changed := bytes.Contains(data, toolsChangedBytes)
	if !expecting && !changed {
		return ev.Raw, false
	}
	m, err := rpcmsg.Scan(data)
	if err != nil {
		return ev.Raw, false // not a message the gate judges; the agent's client refuses it
	}
	if m.Method == rpcmsg.NotificationToolsChanged {
		// What the gate observed is stale from now on: a call must wait
		// for a fresh list, not race the one started here.
		x.ss.watch.forget()
		g.relistAsync(x.st, x.ss, x.via())
		return ev.Raw, false
	}
	if !m.IsResponse() {
		return ev.Raw, false
	}
	k := rpcmsg.IDKey(m.ID)
	if opts.sess != nil {
		if ch := opts.sess.takeWaiter(k); ch != nil {
			ch <- bytes.Clone(data)
			return nil, true
		}
	}
	isList := k == opts.listID
	if !isList && opts.sess != nil {
		isList = opts.sess.takePending(k)
	}
	if !isList {
		return ev.Raw, false
	}
	// Judge by the configuration in force now: a stream may have been
	// opened under an older one.
	lx := *x
	lx.msg = rpcmsg.Message{ID: m.ID, Method: rpcmsg.MethodToolsList}
	if !lx.refresh(g) {
		return sse.AppendEvent(nil, ev.ID, rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate, errServerNotReady.Error())), false
	}
	if int64(len(data)) > g.limits.MaxListBytes {
		g.limitHit("list-bytes", "tools/list response too large", "server", x.ss.cfg.ID, "max", g.limits.MaxListBytes)
		return sse.AppendEvent(nil, ev.ID, rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate,
			fmt.Sprintf("toolgate: the server's tools/list response exceeds %d bytes", g.limits.MaxListBytes))), false
	}
	out, err := g.filterForAgent(&lx, data)
	if err != nil {
		g.metrics.Errors.WithLabelValues("bad-list").Inc()
		g.log.Warn("tools/list response refused", "server", x.ss.cfg.ID, "error", err)
		out = rpcmsg.ErrorResponse(m.ID, rpcmsg.CodeGate, "toolgate: the server's tools/list response could not be checked")
	}
	if bytes.Equal(out, data) {
		return ev.Raw, false
	}
	return sse.AppendEvent(nil, ev.ID, out), false
}

// filterForAgent observes a tools/list response and returns it with only
// what the configuration exposes.
func (g *Gate) filterForAgent(x *exchange, data []byte) ([]byte, error) {
	st, ss := x.st, x.ss
	audit := st.cfg.Mode == gateproto.ModeAudit
	var blocked map[string]bool
	out, res, err := rpcmsg.FilterList(nil, data, rpcmsg.ListOptions{
		Observe: func(tools []rpcmsg.Listed) {
			g.record(st, ss, tools)
			blocked = ss.watch.blockedSet()
		},
		Keep: func(l *rpcmsg.Listed) bool {
			t := ss.tools[l.Name]
			if t == nil || blocked[l.Name] || l.Fingerprint != t.Fingerprint {
				return false
			}
			switch t.Decision {
			case gateproto.DecisionExposed, gateproto.DecisionApprovalGated:
				return true
			}
			return audit && t.AuditForwardable
		},
		Cache:    x.protocol >= protocolStateless,
		MaxTTLMs: g.limits.ListTTL.Milliseconds(),
	})
	if err != nil {
		return nil, err
	}
	if !res.IsError {
		kept := 0
		for _, t := range res.Tools {
			if t.Kept {
				kept++
			}
		}
		g.log.Debug("tools/list filtered", "server", ss.cfg.ID, "listed", len(res.Tools), "kept", kept)
	}
	return out, nil
}

// record stores a list's definitions and acts on the mismatches found.
func (g *Gate) record(st *state, ss *serverState, tools []rpcmsg.Listed) {
	lt := make([]listedTool, 0, len(tools))
	for _, t := range tools {
		lt = append(lt, listedTool{name: t.Name, fingerprint: t.Fingerprint})
	}
	mm := ss.watch.record(ss, st.gen, lt)
	for _, m := range mm {
		g.metrics.FingerprintMismatches.WithLabelValues(ss.cfg.ID, m.tool.Name).Inc()
		g.log.Warn("tool withheld: the server sent a definition other than the approved one",
			"server", ss.cfg.ID, "tool", m.tool.Name, "approved", m.approved, "observed", m.observedFP)
		g.auditLine(st, ss, decisionLine{
			tool: m.tool.Name, fingerprint: m.observedFP, level: m.tool.Level,
			decision: decisionWithhold, reason: reasonChanged, callID: "",
		})
	}
	if len(mm) > 0 {
		g.setToolGauges(ss)
		g.notifyToolsChanged(ss.watch)
	}
}

// notifyToolsChanged tells every open agent stream of a server that its
// tool list changed. Each write runs on its own: an agent that does not
// read its stream must not hold up the others, or Apply.
func (g *Gate) notifyToolsChanged(w *watch) {
	w.mu.Lock()
	streams := make([]*stream, 0, len(w.streams))
	for s := range w.streams {
		streams = append(streams, s)
	}
	w.mu.Unlock()
	for _, s := range streams {
		go func() { _ = s.writeMessage(rpcmsg.ToolsChanged(s.subscription)) }()
	}
}

// relistAsync lists a server again after it said its list changed, so that
// a changed definition is withheld before the agent lists it.
func (g *Gate) relistAsync(st *state, ss *serverState, v via) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*ss.headerTimeout)
		defer cancel()
		if cur := g.state.Load(); cur != nil && cur.servers[ss.cfg.ID] != nil {
			st, ss = cur, cur.servers[ss.cfg.ID]
		}
		if !ss.cfg.Ready {
			return
		}
		if err := g.establish(ctx, st, ss, v); err != nil {
			g.log.Warn("listing the server after its list changed failed", "server", ss.cfg.ID, "error", err)
		}
	}()
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
	if !g.checkStatus(x, resp, resp.Body) {
		return
	}
	rd := g.eventReader(resp.Body)
	defer putEventReader(rd)
	first, err := nextWithin(rd, x.ss.headerTimeout, cancel)
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
	sess, ok := g.session(x.ss.cfg.ID, key, endpoint.String(), true)
	if !ok {
		g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
		http.Error(x.w, fmt.Sprintf("toolgate: more than %d sessions", g.limits.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	defer g.dropSession(sess)
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
	g.pumpFrom(x, rd, s, pumpOptions{sess: sess})
}

// nextWithin reads one event, cancelling the stream if none comes in time.
func nextWithin(rd *sse.Reader, d time.Duration, cancel context.CancelFunc) (sse.Event, error) {
	t := time.AfterFunc(d, cancel)
	defer t.Stop()
	return rd.Next()
}
