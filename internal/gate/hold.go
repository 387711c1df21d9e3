package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
)

// A call waiting for a human may wait minutes. What the agent's client
// sees meanwhile depends on the transport and on what it accepts:
//
//   - streamable HTTP (both protocol generations), when the client accepts
//     text/event-stream (the spec requires it to): the gate answers the
//     POST at once with an SSE stream; every ApprovalKeepAlive it writes a
//     notifications/progress for the request's _meta.progressToken, when
//     it carried one, and otherwise an SSE comment, which clients ignore
//     but which keeps proxies and idle timers from closing the stream. The
//     call's response (the server's, or the refusal) follows on that
//     stream.
//   - the old SSE transport (2024-11-05): the same notifications or
//     comments go on the session's event stream, where the response also
//     comes.
//   - a client that accepts only JSON hears nothing until the response.
//
// When the agent gives up first — it cancels the request (closing the
// stream) or sends notifications/cancelled for it — the gate closes its
// pending call with the operator, which records it Withdrawn: it can no
// longer be approved, and the gate never forwards it.

// notificationCancelled is the notification an MCP client sends when it
// gives up on a request.
const notificationCancelled = "notifications/cancelled"

// heldKey names a held call by server, session and request id.
func heldKey(server, session string, id []byte) string {
	return server + "\x00" + session + "\x00" + rpcmsg.IDKey(id)
}

func (x *exchange) sessionID() string {
	if x.ss.sse {
		return x.r.URL.Query().Get("session")
	}
	return x.r.Header.Get("Mcp-Session-Id")
}

// holdCall registers the call's cancel under its key until release.
func (g *Gate) holdCall(x *exchange, cancel context.CancelFunc) (release func()) {
	return g.held.add(heldKey(x.ss.cfg.ID, x.sessionID(), x.msg.ID), cancel)
}

// cancelHeld withdraws the held call a notifications/cancelled names, in
// the agent's own session.
func (g *Gate) cancelHeld(x *exchange) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(x.body, &n) != nil || len(n.Params.RequestID) == 0 {
		return
	}
	if cancel := g.held.get(heldKey(x.ss.cfg.ID, x.sessionID(), n.Params.RequestID)); cancel != nil {
		g.log.Info("the agent cancelled a call waiting for approval", "server", x.ss.cfg.ID, "requestId", string(n.Params.RequestID))
		cancel()
	}
}

// keepAlive starts telling the agent that its call waits, as described
// above, and returns the function that stops it; stop returns once nothing
// more will be written.
func (g *Gate) keepAlive(x *exchange, callID string) (stop func()) {
	var target *stream
	switch {
	case x.ss.sse:
		if x.sess != nil {
			target = x.sess.getStream()
		}
	case acceptsEventStream(x.r):
		s := newStream(x.w)
		h := x.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		x.w.WriteHeader(http.StatusOK)
		_ = s.rc.Flush()
		x.held = s
		target = s
	}
	if target == nil {
		return func() {}
	}
	return g.keepAliveOn(target, x.msg.Meta, callID, "call")
}

// keepAliveOn tells the agent on target, until stopped, that its call (or
// its call's result) waits for a person: progress notifications when the
// request asked for progress, SSE comments otherwise.
func (g *Gate) keepAliveOn(target *stream, meta []byte, callID, what string) (stop func()) {
	token := progressToken(meta)
	tick := func(n int) {
		if token != nil {
			_ = target.writeMessage(progressNotification(token, n, "toolgate: "+what+" "+callID+" is waiting for a human's approval"))
			return
		}
		_ = target.write([]byte(": toolgate: " + what + " " + callID + " is waiting for approval\n\n"))
	}
	tick(1)
	done, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(g.limits.ApprovalKeepAlive)
		defer t.Stop()
		for n := 2; ; n++ {
			select {
			case <-quit:
				return
			case <-t.C:
				tick(n)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}

func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// progressToken returns the raw progressToken of a request's _meta, nil
// when it has none.
func progressToken(meta []byte) json.RawMessage {
	if len(meta) == 0 {
		return nil
	}
	var m struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(meta, &m) != nil || len(m.Token) == 0 || string(m.Token) == "null" {
		return nil
	}
	return m.Token
}

func progressNotification(token json.RawMessage, n int, message string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"method":  "notifications/progress",
		"params":  map[string]any{"progressToken": token, "progress": n, "message": message},
	})
	return b
}

// forwardHeld forwards an approved call whose response to the agent has
// already begun as an event stream: the server's answer is relayed into
// it, as an event when the server answered with JSON.
func (g *Gate) forwardHeld(x *exchange) {
	s := x.held
	defer s.close()
	ctx, cancel := context.WithCancel(x.r.Context())
	defer cancel()
	fail := func(text string) { _ = s.writeMessage(rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeGate, text)) }
	req, err := newUpstreamRequest(ctx, x.ss, http.MethodPost, x.target(), bytes.NewReader(x.body), x.r.Header)
	if err != nil {
		fail("toolgate: the server is unreachable")
		return
	}
	req.ContentLength = int64(len(x.body))
	if statelessProtocol(x.protocol) {
		paramHeaders(req.Header, x.schema, x.msg.Arguments)
	}
	t0 := time.Now()
	resp, err := x.ss.send(req)
	if err != nil {
		x.upstream += time.Since(t0)
		g.metrics.Errors.WithLabelValues("upstream-unreachable").Inc()
		g.log.Error("request to the server failed", "server", x.ss.cfg.ID, "method", x.msg.Method, "error", err)
		fail("toolgate: the server is unreachable")
		return
	}
	body := newIdleBody(resp.Body, g.limits.IdleTimeout, g.onIdle(x, cancel))
	defer func() {
		_ = body.Close()
		x.upstream += time.Since(t0)
	}()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		g.metrics.Errors.WithLabelValues("upstream-status").Inc()
		fail(fmt.Sprintf("toolgate: the server answered HTTP %d", resp.StatusCode))
		return
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "text/event-stream":
		// The stream answers this call: an answer to another request on it
		// could pass for a tools/list's.
		g.pump(x, body, s, pumpOptions{sess: x.sess, requestID: rpcmsg.IDKey(x.msg.ID)})
	case "application/json":
		data, err := readBounded(body, int64(g.limits.MaxEventBytes))
		if err != nil {
			fail("toolgate: the server's answer is too large")
			return
		}
		// An event is written whole, so the whole answer is checked first:
		// it must be the response to this call and nothing else.
		if err := rpcmsg.CheckAnswer(data, x.msg.ID); err != nil {
			g.answerRefused(x, err)
			fail(errBadAnswerText)
			return
		}
		out, outcome := g.judgeSaid(x, said{method: x.msg.Method, tool: x.msg.Name, id: x.msg.ID, holdable: true, stream: s}, bytes.TrimSpace(data))
		if outcome == saidPass {
			_ = s.writeMessage(out)
		}
	default:
		_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
		fail("toolgate: the server answered with content type " + resp.Header.Get("Content-Type"))
	}
}
