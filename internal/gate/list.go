package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gate/sse"
)

// The list path: what the gate knows of a server's live catalogue comes
// from the lists it judges — the agents' (filterForAgent, whose answer it
// filters) and its own (establish, when a call waits on a definition the
// gate has not seen; relist, when the server says its list changed) — and
// every one of them is recorded in the server's watch (record), where a
// definition other than the approved one blocks the tool.

// knownToolBytes bounds the tool definitions the gate remembers the
// fingerprints of (rpcmsg.Known): a catalogue of about a hundred tools,
// beside the 30 MiB the gate is meant to stay within.
const knownToolBytes = 128 << 10

// internalIDPrefix starts the ids of the gate's own requests to a server.
const internalIDPrefix = "toolgate/"

// establish makes sure the gate has observed the server's live catalogue
// under the configuration in force, listing it itself when it has not.
// Concurrent callers share one listing.
func (g *Gate) establish(ctx context.Context, st *state, ss *serverState, v via) error {
	w := ss.watch
	w.mu.Lock()
	if l := w.listing; l != nil && l.gen == st.gen {
		w.mu.Unlock()
		select {
		case <-l.done:
			return l.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l := &listing{gen: st.gen, done: make(chan struct{})}
	w.listing = l
	w.mu.Unlock()
	l.err = g.listServer(ctx, st, ss, v)
	close(l.done)
	w.mu.Lock()
	if w.listing == l {
		w.listing = nil
	}
	w.mu.Unlock()
	return l.err
}

// listServer reads every page of the server's tools/list in the agent's
// session, so the gate sees what the agent would be shown, and records it.
func (g *Gate) listServer(ctx context.Context, st *state, ss *serverState, v via) error {
	var meta []byte
	if statelessProtocol(v.protocol) {
		meta = rpcmsg.ClientMeta(v.meta, v.protocol)
	}
	cursor := ""
	for range g.limits.MaxListPages {
		id := []byte(strconv.Quote(internalIDPrefix + strconv.FormatUint(g.ids.Add(1), 10)))
		data, err := g.roundTrip(ctx, ss, v, id, rpcmsg.ListRequest(id, cursor, meta))
		if err != nil {
			return err
		}
		meter := g.newListMeter()
		_, res, err := rpcmsg.FilterList(nil, data, rpcmsg.ListOptions{
			Observe: func(tools []rpcmsg.Listed) { g.record(st, ss, tools) },
			Charge:  meter.charge,
			Known:   g.known,
		})
		meter.close()
		if err != nil {
			if errors.Is(err, errDecodeBudget) {
				g.limitHit("list-decoded-bytes", "tools/list over its memory budget", "server", ss.cfg.ID, "error", err)
			}
			return err
		}
		if res.IsError {
			return errors.New("the server answered tools/list with an error")
		}
		if res.NextCursor == "" {
			return nil
		}
		cursor = res.NextCursor
	}
	g.limitHit("list-pages", "server's tools/list has too many pages", "server", ss.cfg.ID, "max", g.limits.MaxListPages)
	return fmt.Errorf("tools/list has more than %d pages", g.limits.MaxListPages)
}

// roundTrip sends one request of the gate's own to a server and returns
// the response message.
func (g *Gate) roundTrip(ctx context.Context, ss *serverState, v via, id, body []byte) ([]byte, error) {
	target := ss.cfg.Upstream.URL
	var wait chan []byte
	if ss.sse {
		if v.sess == nil {
			return nil, errors.New("no SSE session")
		}
		target = v.sess.endpoint
		k := rpcmsg.IDKey(id)
		wait = v.sess.addWaiter(k)
		defer v.sess.removeWaiter(k)
	}
	req, err := newUpstreamRequest(ctx, ss, http.MethodPost, target, bytes.NewReader(body), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if v.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", v.sessionID)
	}
	if v.protocol != "" {
		req.Header.Set("Mcp-Protocol-Version", v.protocol)
	}
	if statelessProtocol(v.protocol) {
		req.Header.Set(headerMethod, rpcmsg.MethodToolsList)
	}
	resp, err := ss.send(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		return nil, fmt.Errorf("the server answered tools/list with HTTP %d: %q", resp.StatusCode, b)
	}
	if wait != nil {
		select {
		case data := <-wait:
			return data, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		data, err := readBounded(resp.Body, g.limits.MaxListBytes)
		if err != nil {
			if errors.Is(err, errListTooLarge) {
				g.limitHit("list-bytes", "tools/list response too large", "server", ss.cfg.ID, "max", g.limits.MaxListBytes)
			}
			return nil, err
		}
		return data, nil
	case "text/event-stream":
		want := rpcmsg.IDKey(id)
		rd := sse.NewReader(resp.Body, g.limits.MaxEventBytes)
		for {
			ev, err := rd.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, errors.New("the server closed the stream before answering tools/list")
				}
				return nil, err
			}
			if len(ev.Data) == 0 {
				continue
			}
			m, err := rpcmsg.Scan(ev.Data)
			if err == nil && m.IsResponse() && rpcmsg.IDKey(m.ID) == want {
				return bytes.Clone(ev.Data), nil
			}
		}
	}
	return nil, fmt.Errorf("the server answered tools/list with content type %q", resp.Header.Get("Content-Type"))
}

// filterForAgent observes a tools/list response and returns it with only
// what the configuration exposes.
func (g *Gate) filterForAgent(x *exchange, data []byte) ([]byte, error) {
	st, ss := x.st, x.ss
	mode := st.cfg.Mode
	var blocked map[string]bool
	meter := g.newListMeter()
	defer meter.close()
	out, res, err := rpcmsg.FilterList(nil, data, rpcmsg.ListOptions{
		Observe: func(tools []rpcmsg.Listed) {
			g.record(st, ss, tools)
			blocked = ss.watch.blockedSet()
		},
		Keep: func(l *rpcmsg.Listed) bool {
			return decide.Shown(mode, ss.tools[l.Name], blocked[l.Name], l.Fingerprint)
		},
		Cache:    statelessProtocol(x.protocol),
		MaxTTLMs: g.limits.ListTTL.Milliseconds(),
		Charge:   meter.charge,
		Known:    g.known,
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
		lt = append(lt, listedTool{name: t.Name, fingerprint: t.Fingerprint, raw: t.Raw})
	}
	mm := ss.watch.record(ss, st.gen, lt)
	for _, m := range mm {
		g.metrics.FingerprintMismatches.WithLabelValues(ss.cfg.ID, m.tool.Name).Inc()
		g.log.Warn("tool withheld: the server sent a definition other than the approved one",
			"server", ss.cfg.ID, "tool", m.tool.Name, "approved", m.approved, "observed", m.observedFP)
		g.auditLine(st, ss, decisionLine{
			tool: m.tool.Name, fingerprint: m.observedFP, level: m.tool.Level,
			decision: decide.Withhold, reason: decide.ReasonFingerprintChanged,
		})
	}
	if len(mm) > 0 {
		g.setToolGauges(ss)
		g.notifyToolsChanged(ss.watch)
	}
}

// notifyToolsChanged tells every open agent stream of a server that its
// tool list changed. It only marks each stream: the stream's own notice
// writer writes the notice, so that an agent that does not read its stream
// holds up neither the others nor Apply, and notices coalesce — a stream
// has at most one waiting, however many changes came.
func (g *Gate) notifyToolsChanged(w *watch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.streams {
		s.noticeDue()
	}
}

// relistAsync lists a server again after it said its list changed, so that
// a changed definition is withheld before the agent lists it. Listings
// coalesce: at most one runs per server, and a change it did not see
// makes it run once more, however many changes came meanwhile — a server
// must not make the gate hold a goroutine per notification.
func (g *Gate) relistAsync(ss *serverState, v via) {
	w := ss.watch
	w.mu.Lock()
	w.relistVia = v
	if w.relisting {
		w.relistAgain = true
		w.mu.Unlock()
		return
	}
	w.relisting = true
	w.mu.Unlock()
	go g.relistLoop(ss, v)
}

func (g *Gate) relistLoop(ss *serverState, v via) {
	w := ss.watch
	for {
		g.relist(ss, v)
		w.mu.Lock()
		if !w.relistAgain {
			w.relisting = false
			w.relistVia = via{}
			w.mu.Unlock()
			return
		}
		w.relistAgain = false
		v = w.relistVia
		w.mu.Unlock()
	}
}

// relist lists a server once, under the configuration in force.
func (g *Gate) relist(ss *serverState, v via) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*ss.headerTimeout)
	defer cancel()
	cur := g.state.Load()
	if cur == nil || cur.servers[ss.cfg.ID] == nil {
		return
	}
	st := cur
	ss = cur.servers[ss.cfg.ID]
	if !ss.cfg.Ready {
		return
	}
	if err := g.establish(ctx, st, ss, v); err != nil {
		g.log.Warn("listing the server after its list changed failed", "server", ss.cfg.ID, "error", err)
	}
}
