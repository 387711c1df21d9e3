package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// exchange is one agent request in flight.
type exchange struct {
	// facts are what the last decision of a tools/call was taken on: why
	// a held call is held, and what its arguments did, for the audit line;
	// nil for every other request, which would otherwise carry them all
	// (a few hundred bytes) on every exchange.
	facts    *decide.CallFacts
	st       *state
	ss       *serverState
	sess     *session
	w        http.ResponseWriter
	r        *http.Request
	body     []byte
	msg      rpcmsg.Message
	protocol string
	start    time.Time
	upstream time.Duration
	// held is the event stream the response began as while the call
	// waited for a human (see hold.go); nil otherwise.
	held *stream
	// answerRefused says the server's answer was not the one response to
	// the request, and did not reach the agent whole (the audit line says
	// so).
	answerRefused bool
	// abort says the response to the agent has begun and must end broken,
	// not completed: ServeHTTP aborts it once everything is recorded.
	abort bool
	// answered says the request's own answer reached the agent on its
	// POST's stream; answerElsewhere that the exchange ends before its
	// answer came, which may still come on another stream (a stream the
	// agent resumes, the SSE transport's). Together they decide whether the
	// request stays in the server's outstanding record after the exchange.
	answered, answerElsewhere bool
	// tracked is the token of the request in the outstanding record.
	tracked uint64
	// schema is the approved inputSchema of the tool a call names, once
	// decideCall has seen the server still send that definition.
	schema []byte
}

// recordSession is the session under which the server's record of
// outstanding requests keeps this exchange's: the agent's Mcp-Session-Id,
// the gate's session key on the SSE transport, "" when there is none.
func (x *exchange) recordSession() string {
	if x.ss.sse {
		if x.sess != nil {
			return x.sess.id
		}
		return ""
	}
	return x.r.Header.Get("Mcp-Session-Id")
}

// trackRequest records a request in the server's outstanding record before
// it is forwarded; when it cannot, it answers the agent itself and reports
// false. A request is never forwarded untracked: its answer, should it come
// on another stream, could not be judged.
func (g *Gate) trackRequest(x *exchange) bool {
	token, ok := x.ss.watch.requests.register(x.recordSession(), rpcmsg.IDKey(x.msg.ID), x.msg.Method, x.msg.Name, g.limits.MaxOutstanding, g.limits.IdleTimeout)
	if ok {
		x.tracked = token
		return true
	}
	g.limitHit("outstanding-requests", "too many requests not answered yet in one session", "server", x.ss.cfg.ID, "max", g.limits.MaxOutstanding)
	x.w.Header().Set("Retry-After", "1")
	writeRPCError(x.w, http.StatusServiceUnavailable, x.msg.ID, rpcmsg.CodeGate,
		fmt.Sprintf("toolgate: more than %d requests of this session not answered yet", g.limits.MaxOutstanding))
	return false
}

// untrackRequest ends the exchange's part in the outstanding record: the
// request is forgotten, unless its answer may still come elsewhere.
func (g *Gate) untrackRequest(x *exchange) {
	k := rpcmsg.IDKey(x.msg.ID)
	if x.answerElsewhere && !x.answered {
		x.ss.watch.requests.detach(x.recordSession(), k, x.tracked)
		return
	}
	x.ss.watch.requests.release(x.recordSession(), k, x.tracked)
}

// via is how the gate reaches a server on an agent's behalf: the session
// and protocol of the agent's request, kept after the request is gone.
type via struct {
	sessionID string
	protocol  string
	sess      *session
	// meta is the _meta of the agent's request (MCP 2026-07-28), whose
	// client members the gate's own requests repeat.
	meta []byte
}

// refresh moves the exchange to the configuration in force, reporting
// false when it no longer serves the server.
func (x *exchange) refresh(g *Gate) bool {
	st := g.state.Load()
	ss := st.servers[x.ss.cfg.ID]
	if ss == nil || !ss.cfg.Ready {
		return false
	}
	x.st, x.ss = st, ss
	return true
}

func (x *exchange) via() via {
	return via{sessionID: x.r.Header.Get("Mcp-Session-Id"), protocol: x.protocol, sess: x.sess, meta: x.msg.Meta}
}

var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP serves the agent.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { //nolint:errorlint // net/http panics with this exact value
				panic(v)
			}
			g.metrics.Errors.WithLabelValues("panic").Inc()
			g.log.Error("panic serving a request; refused", "panic", v, "stack", string(debug.Stack()))
			writeRPCError(w, http.StatusInternalServerError, nil, rpcmsg.CodeInternalError, "toolgate: internal error")
		}
	}()
	if !hostAllowed(r) {
		// A page the agent's browser visits, rebinding a name to
		// loopback: worth seeing in the log.
		g.metrics.Errors.WithLabelValues("host-refused").Inc()
		g.log.Warn("refused a request whose Host is not a loopback name", "host", clip.String(r.Host, 256), "remote", r.RemoteAddr)
		http.Error(w, "toolgate: Host must be a loopback name", http.StatusForbidden)
		return
	}
	id, ok := gateproto.ServerIDFromPath(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	st := g.state.Load()
	if st == nil {
		writeRPCError(w, http.StatusServiceUnavailable, nil, rpcmsg.CodeGate, errNoConfig.Error())
		return
	}
	ss := st.servers[id]
	switch {
	case ss == nil:
		writeRPCError(w, http.StatusNotFound, nil, rpcmsg.CodeGate, errUnknownServer.Error())
		return
	case !ss.cfg.Ready:
		writeRPCError(w, http.StatusServiceUnavailable, nil, rpcmsg.CodeGate, errServerNotReady.Error())
		return
	}
	if r.Method == http.MethodGet {
		// A standalone stream: bounded apart from the requests, which
		// its session still has to send.
		select {
		case g.streams <- struct{}{}:
			g.metrics.Streams.Inc()
			defer func() { <-g.streams; g.metrics.Streams.Dec() }()
		default:
			g.limitHit("streams", "too many streams open", "max", g.limits.MaxStreams)
			w.Header().Set("Retry-After", "1")
			writeRPCError(w, http.StatusServiceUnavailable, nil, rpcmsg.CodeGate, fmt.Sprintf("toolgate: more than %d streams open", g.limits.MaxStreams))
			return
		}
	} else {
		select {
		case g.inflight <- struct{}{}:
			g.metrics.InFlight.Inc()
			defer func() { <-g.inflight; g.metrics.InFlight.Dec() }()
		default:
			g.refuseInFlight(w, r, ss)
			return
		}
	}
	x := &exchange{st: st, ss: ss, w: w, r: r, start: time.Now(), protocol: r.Header.Get("Mcp-Protocol-Version")}
	// The agent's Mcp-Method and Mcp-Name never reach the server: a POST's
	// are rewritten from the message the gate judged (servePOST).
	setStandardHeaders(r.Header, nil, x.protocol)
	switch r.Method {
	case http.MethodPost:
		g.servePOST(x)
	case http.MethodGet:
		if ss.sse {
			g.serveSSEStream(x)
		} else {
			g.serveGET(x)
		}
	case http.MethodDelete:
		g.serveDELETE(x)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
	if x.abort {
		// The way net/http ends a response part way through its body: the
		// connection (HTTP/1.1) or stream (HTTP/2) is reset, and the
		// agent's client reads an error, never a whole body.
		panic(http.ErrAbortHandler)
	}
}

// refuseInFlight answers a request that finds the in-flight bound hit.
func (g *Gate) refuseInFlight(w http.ResponseWriter, r *http.Request, ss *serverState) {
	g.limitHit("in-flight", "too many requests in flight", "max", g.limits.MaxInFlight)
	if r.Method == http.MethodDelete && !ss.sse {
		// The agent ended its session: the gate forgets it even when it
		// cannot pass the DELETE on now, or the session would hold its
		// place in the table until it idles out, and a busy gate would
		// refuse new sessions for ones nobody uses.
		g.forgetSession(ss, r.Header.Get("Mcp-Session-Id"))
	}
	w.Header().Set("Retry-After", "1")
	writeRPCError(w, http.StatusServiceUnavailable, nil, rpcmsg.CodeGate, fmt.Sprintf("toolgate: more than %d requests in flight", g.limits.MaxInFlight))
}

// onIdle is what an idle timeout does: it says so, then cancels the
// request to the server, which ends the agent's answer.
func (g *Gate) onIdle(x *exchange, cancel context.CancelFunc) context.CancelFunc {
	return func() {
		g.limitHit("upstream-idle-timeout", "the server went silent within its answer", "server", x.ss.cfg.ID,
			"method", x.msg.Method, "timeout", g.limits.IdleTimeout)
		cancel()
	}
}

// limitHit counts and logs a bound hit: limit is the bound's label, as
// toolgate_gate_limits_hit_total names it, and why says what hit it.
func (g *Gate) limitHit(limit, why string, args ...any) {
	g.metrics.LimitsHit.WithLabelValues(limit).Inc()
	g.log.Warn("bound hit", append([]any{"limit", limit, "why", why}, args...)...)
}

func writeRPCError(w http.ResponseWriter, status int, id []byte, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(rpcmsg.ErrorResponse(id, code, msg))
}

// hostAllowed refuses a request to a loopback listener whose Host is not a
// loopback name: a web page the agent's browser visits could otherwise
// reach the gate by DNS rebinding.
func hostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !isLoopback(la.String()) {
		return true
	}
	return isLoopback(r.Host)
}

func isLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (g *Gate) servePOST(x *exchange) {
	w, r := x.w, x.r
	buf := bodyBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 {
			bodyBuffers.Put(buf)
		}
	}()
	if !utf8Body(r.Header.Get("Content-Type")) {
		// The gate reads a message as UTF-8; a server that honoured
		// another charset would read other members from the same bytes.
		g.metrics.Errors.WithLabelValues("bad-request").Inc()
		writeRPCError(w, http.StatusUnsupportedMediaType, nil, rpcmsg.CodeInvalidRequest, "toolgate: a message must be JSON in UTF-8")
		return
	}
	if r.ContentLength > g.limits.MaxRequestBytes {
		g.limitHit("request-bytes", "request body too large", "bytes", r.ContentLength)
		writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcmsg.CodeInvalidRequest, fmt.Sprintf("toolgate: request body exceeds %d bytes", g.limits.MaxRequestBytes))
		return
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, g.limits.MaxRequestBytes)); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			g.limitHit("request-bytes", "request body too large", "max", mbe.Limit)
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcmsg.CodeInvalidRequest, fmt.Sprintf("toolgate: request body exceeds %d bytes", mbe.Limit))
			return
		}
		http.Error(w, "toolgate: reading the request failed", http.StatusBadRequest)
		return
	}
	x.body = buf.Bytes()
	msg, err := rpcmsg.Scan(x.body)
	folded := errors.Is(err, rpcmsg.ErrFoldedName)
	if folded {
		// Read whole, and refused below with CheckRequest's refusals once
		// the session is known, so that the agent reads the refusal where
		// it reads answers, and a call's is audited.
		err = nil
	}
	if err != nil {
		g.metrics.Errors.WithLabelValues("bad-request").Inc()
		code, text := rpcmsg.CodeParseError, "toolgate: the message is not valid JSON-RPC"
		if errors.Is(err, rpcmsg.ErrBatch) {
			code, text = rpcmsg.CodeInvalidRequest, "toolgate: JSON-RPC batches are not supported"
		}
		g.log.Debug("request refused", "server", x.ss.cfg.ID, "error", err)
		writeRPCError(w, http.StatusBadRequest, nil, code, text)
		return
	}
	x.msg = msg
	setStandardHeaders(r.Header, &x.msg, x.protocol)
	if strings.HasPrefix(rpcmsg.IDKey(msg.ID), "s:"+internalIDPrefix) {
		// The gate's own requests share the session; an agent must not be
		// able to pose as it.
		writeRPCError(w, http.StatusBadRequest, msg.ID, rpcmsg.CodeInvalidRequest, "toolgate: request ids starting with "+internalIDPrefix+" are reserved")
		return
	}

	if x.ss.sse {
		s, _ := g.sessions.session(x.ss.watch, r.URL.Query().Get("session"), "", false)
		if s == nil {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		x.sess = s
	} else if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		s, ok := g.sessions.session(x.ss.watch, sid, "", true)
		if !ok {
			g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
			writeRPCError(w, http.StatusServiceUnavailable, msg.ID, rpcmsg.CodeGate, fmt.Sprintf("toolgate: more than %d sessions", g.limits.MaxSessions))
			return
		}
		x.sess = s
	}

	if disguisedMethod(msg.Method) {
		// A server may match method names more loosely than the gate.
		g.metrics.Errors.WithLabelValues("disguised-method").Inc()
		g.log.Warn("request refused: a judged method written another way", "server", x.ss.cfg.ID, "method", msg.Method)
		g.refuseMethod(x)
		return
	}
	if err := rpcmsg.CheckRequest(x.body); err != nil || folded {
		if err == nil {
			err = rpcmsg.ErrFoldedName
		}
		// Scan has read the message whole, so this is a name a peer
		// folding names reads as another member.
		g.refuseAmbiguous(x, err)
		return
	}
	if msg.IsRequest() {
		if !g.trackRequest(x) {
			return
		}
		defer g.untrackRequest(x)
	}
	switch {
	case msg.Method == rpcmsg.MethodToolsCall:
		if msg.ID == nil {
			writeRPCError(w, http.StatusBadRequest, nil, rpcmsg.CodeInvalidRequest, "toolgate: tools/call must be a request")
			return
		}
		// The server is sent the call the gate judged, written anew:
		// nothing of the agent's bytes but the arguments and _meta it read.
		x.body = rpcmsg.CallRequest(msg.ID, &x.msg)
		g.serveCall(x)
	case msg.Method == rpcmsg.MethodInitialize && !x.ss.sse && g.sessions.full():
		g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
		writeRPCError(w, http.StatusServiceUnavailable, msg.ID, rpcmsg.CodeGate, fmt.Sprintf("toolgate: more than %d sessions", g.limits.MaxSessions))
	default:
		if msg.Method == notificationCancelled {
			g.cancelHeld(x)
		}
		g.forward(x)
		g.observeLatency(x)
	}
}

// refuseAmbiguous refuses a message whose member names a peer could read
// otherwise than the gate did (rpcmsg.CheckRequest): with JSON-RPC's
// "invalid request", where the agent reads responses, a log line naming
// the member, a count, and for a tools/call an audit line whose tool is
// unknown — which of the names the server would have run cannot be told.
func (g *Gate) refuseAmbiguous(x *exchange, err error) {
	g.metrics.Errors.WithLabelValues("ambiguous-request").Inc()
	g.log.Warn("request refused: member names a peer may read otherwise", "server", x.ss.cfg.ID,
		"method", clip.String(x.msg.Method, 128), "error", clip.String(err.Error(), 512))
	if x.msg.Method == rpcmsg.MethodToolsCall {
		g.metrics.Calls.WithLabelValues(x.ss.cfg.ID, gatemetrics.UnknownTool, "", string(decide.Refuse)).Inc()
		g.auditLine(x.st, x.ss, decisionLine{
			tool: gatemetrics.UnknownTool, decision: decide.Refuse, reason: decide.ReasonAmbiguousMessage,
			rpcID: clip.String(string(x.msg.ID), 128),
		})
	}
	const text = "toolgate: the message has member names a server may read another way"
	if x.msg.ID == nil {
		writeRPCError(x.w, http.StatusBadRequest, nil, rpcmsg.CodeInvalidRequest, text)
		return
	}
	resp := rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeInvalidRequest, text)
	if x.ss.sse && x.sess != nil {
		if s := x.sess.getStream(); s != nil && s.writeMessage(resp) == nil {
			x.w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	writeRPCError(x.w, http.StatusOK, x.msg.ID, rpcmsg.CodeInvalidRequest, text)
}

// refuseMethod answers a request whose method the gate does not let
// through with JSON-RPC's "method not found", where the agent reads
// responses: on the SSE transport, the session's stream. A notification has
// no response to carry it, and is refused with the HTTP status alone.
func (g *Gate) refuseMethod(x *exchange) {
	const text = "toolgate: method not available through the gate"
	if x.msg.ID == nil {
		writeRPCError(x.w, http.StatusBadRequest, nil, rpcmsg.CodeMethodNotFound, text)
		return
	}
	resp := rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeMethodNotFound, text)
	if x.ss.sse && x.sess != nil {
		if s := x.sess.getStream(); s != nil && s.writeMessage(resp) == nil {
			x.w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	writeRPCError(x.w, http.StatusOK, x.msg.ID, rpcmsg.CodeMethodNotFound, text)
}

func methodLabel(m string) string {
	switch m {
	case rpcmsg.MethodToolsCall, rpcmsg.MethodToolsList, rpcmsg.MethodInitialize, rpcmsg.MethodSubscriptionsListen:
		return m
	case "":
		return "response"
	}
	return "other"
}

func (g *Gate) observeLatency(x *exchange) {
	total := time.Since(x.start)
	added := total - x.upstream
	if added < 0 {
		added = 0
	}
	m := methodLabel(x.msg.Method)
	g.metrics.AddedLatency.WithLabelValues(x.ss.cfg.ID, m).Observe(added.Seconds())
	if x.upstream > 0 {
		g.metrics.UpstreamLatency.WithLabelValues(x.ss.cfg.ID, m).Observe(x.upstream.Seconds())
	}
}

// target is the server URL a POST goes to.
func (x *exchange) target() string {
	if x.ss.sse && x.sess != nil {
		return x.sess.endpoint
	}
	return x.ss.cfg.Upstream.URL
}

// forward sends the agent's message to the server and streams the answer
// back; only the answer to a tools/list is read whole and filtered.
func (g *Gate) forward(x *exchange) {
	w := x.w
	ctx, cancel := context.WithCancel(x.r.Context())
	defer cancel()
	t0 := time.Now()
	resp := g.sendForAgent(ctx, x, http.MethodPost, x.target(), x.body, "")
	if resp == nil {
		x.upstream += time.Since(t0)
		return
	}
	listen := x.msg.Method == rpcmsg.MethodSubscriptionsListen
	body := resp.Body
	if !listen {
		body = newIdleBody(resp.Body, g.limits.IdleTimeout, g.onIdle(x, cancel))
	}
	defer func() {
		_ = body.Close()
		x.upstream += time.Since(t0)
	}()
	if !g.checkStatus(x, resp) {
		return
	}
	if x.msg.Method == rpcmsg.MethodInitialize && x.sess == nil && !x.ss.sse {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			if _, ok := g.sessions.session(x.ss.watch, sid, "", true); !ok {
				g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
			}
		}
	}
	copyResponseHeaders(w.Header(), resp.Header)
	if !x.msg.IsRequest() || x.ss.sse {
		// Nothing answers here: a notification or a response expects no
		// message back, and on the SSE transport the answer to a request
		// comes on the session's stream, whatever this body holds.
		x.answerElsewhere = x.ss.sse
		g.relayBodiless(x, resp, body)
		return
	}
	isList := x.msg.Method == rpcmsg.MethodToolsList
	mt := mediaType(resp.Header.Get("Content-Type"))
	if mt != "" {
		w.Header().Set("Content-Type", mt)
	}
	switch mt {
	case "text/event-stream":
		s := newStream(w)
		if listen {
			s.subscription = x.msg.ID
			x.ss.watch.addStream(s)
			defer x.ss.watch.removeStream(s)
		} else {
			defer s.close()
		}
		w.WriteHeader(resp.StatusCode)
		if listen {
			_ = s.rc.Flush() // a stream that may stay quiet for long
		} else {
			s.flushHeadersSoon()
		}
		opts := pumpOptions{sess: x.sess}
		if listen {
			opts.listenID = rpcmsg.IDKey(x.msg.ID)
		} else {
			opts.requestID = rpcmsg.IDKey(x.msg.ID)
		}
		if isList {
			opts.listID = rpcmsg.IDKey(x.msg.ID)
		}
		g.pump(x, body, s, opts)
		// A stream that ended without the answer may be resumed by the
		// agent on a GET (MCP 2025-11-25), where the answer then comes.
		x.answerElsewhere = !listen
	case "application/json":
		switch {
		case isList:
			g.serveListJSON(x, resp, body)
		case rpcmsg.CarriesInstructions(x.msg.Method):
			g.serveInstructionsJSON(x, resp, body)
		case scansAnswerTo(x.msg.Method):
			g.serveSaidJSON(x, resp, body)
		default:
			g.relayAnswer(x, resp, body)
		}
	default:
		g.relayOther(x, resp, body)
	}
}

// relayOther answers the agent when the server's answer to a request (or
// a GET) is of a media type the gate does not read (or cannot parse): MCP
// answers a request with JSON or an event stream. Such a body is never
// copied unread — the agent's client might parse its type more leniently
// and read a message in it — so only an empty answer passes; anything else
// is refused with 502.
func (g *Gate) relayOther(x *exchange, resp *http.Response, body io.Reader) {
	var one [1]byte
	n, _ := io.ReadFull(body, one[:])
	if n == 0 {
		x.w.Header().Del("Content-Type")
		x.w.Header().Del("Content-Length")
		x.w.WriteHeader(resp.StatusCode)
		return
	}
	ct := resp.Header.Get("Content-Type")
	g.metrics.Errors.WithLabelValues("upstream-content-type").Inc()
	g.log.Warn("server's answer refused: a media type the gate does not read", "server", x.ss.cfg.ID, "method", x.msg.Method, "contentType", ct)
	for _, k := range forwardedResponseHeaders {
		x.w.Header().Del(k)
	}
	writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, fmt.Sprintf("toolgate: the server answered with content type %q, which is neither JSON nor an event stream", ct))
}

// checkStatus answers the agent itself when the server's status is not a
// success, and reports whether the response should be relayed.
func (g *Gate) checkStatus(x *exchange, resp *http.Response) bool {
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return true
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		// The credentials are the gate's, not the agent's: the agent can do
		// nothing about them, and must not be sent into an OAuth flow.
		g.metrics.Errors.WithLabelValues("upstream-auth").Inc()
		g.log.Error("server refused the gate's credentials", "server", x.ss.cfg.ID, "status", resp.StatusCode)
		writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, "toolgate: the server refused the gate's credentials")
		return false
	default:
		// The body is never relayed: whatever its type says, the agent's
		// client may read a message in it, unjudged. The status passes (a
		// 404 tells the agent its session is gone), with the gate's own
		// error naming it.
		g.metrics.Errors.WithLabelValues("upstream-status").Inc()
		g.log.Warn("server answered with an error status", "server", x.ss.cfg.ID, "method", x.msg.Method, "status", resp.StatusCode)
		status := resp.StatusCode
		if status < 400 {
			status = http.StatusBadGateway
		}
		writeRPCError(x.w, status, x.msg.ID, rpcmsg.CodeGate, fmt.Sprintf("toolgate: the server answered HTTP %d", resp.StatusCode))
		return false
	}
}

// sendForAgent sends one request to the server on behalf of the agent's
// exchange. When the server cannot be reached the agent has already been
// answered and the response is nil.
func (g *Gate) sendForAgent(ctx context.Context, x *exchange, method, target string, body []byte, accept string) *http.Response {
	var rd io.Reader
	if body != nil {
		// A bytes.Reader lets the request carry its Content-Length.
		rd = bytes.NewReader(body)
	}
	req, err := newUpstreamRequest(ctx, x.ss, method, target, rd, x.r.Header)
	if err != nil {
		g.upstreamFailed(x, err)
		return nil
	}
	if x.msg.Method == rpcmsg.MethodToolsCall && statelessProtocol(x.protocol) {
		paramHeaders(req.Header, x.schema, x.msg.Arguments)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := x.ss.send(req)
	if err != nil {
		g.upstreamFailed(x, err)
		return nil
	}
	return resp
}

func (g *Gate) upstreamFailed(x *exchange, err error) {
	if x.r.Context().Err() != nil {
		return // the agent went away
	}
	kind, text := "upstream-unreachable", "toolgate: the server is unreachable"
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		kind, text = "upstream-timeout", "toolgate: the server did not answer in time"
		g.limitHit("response-header-timeout", "server did not answer in time", "server", x.ss.cfg.ID, "timeout", x.ss.headerTimeout)
	}
	g.metrics.Errors.WithLabelValues(kind).Inc()
	g.log.Error("request to the server failed", "server", x.ss.cfg.ID, "method", x.msg.Method, "error", err)
	if x.ss.sse && x.sess != nil && x.msg.ID != nil {
		if s := x.sess.getStream(); s != nil {
			_ = s.writeMessage(rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeGate, text))
			x.w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, text)
}

// mediaType is the media type of a Content-Type, lower-case, without
// parameters. Parameters that do not parse (application/json;;) do not hide
// the type: a client lenient about them reads the body as that type, so
// the gate must judge it as that type too.
func mediaType(ct string) string {
	switch ct {
	case "application/json", "text/event-stream":
		// What servers send, exactly as ParseMediaType would return it,
		// without the map of parameters it builds for every answer.
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return ""
	}
	return mt
}

// utf8Body reports whether a request's Content-Type lets its body be read
// as UTF-8: no charset, or utf-8 by any spelling of its name.
func utf8Body(ct string) bool {
	if ct == "application/json" {
		return true // no charset: what agents send, without parsing it
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return !strings.Contains(strings.ToLower(ct), "charset")
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8")
}

var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// heldSpace bounds the whitespace the gate holds back after the last byte
// of an answer it has not written yet; more than that is dropped. It means
// nothing to JSON, and a server must not make the gate hold much memory.
const heldSpace = 512

// relayAnswer streams the JSON answer to the agent's request as it arrives
// (a result may be large, and is never buffered whole), through an
// rpcmsg.AnswerCheck: the agent's client routes a JSON body by the id in
// it, so a body that is not exactly one response to this request — one
// carrying the id of a tools/list pending elsewhere and an unfiltered list,
// a batch, a request, two ids — must never reach it whole.
//
// To that end the last byte that is not whitespace (the object's closing
// brace) is always held back, and written only once the check has accepted
// the whole body. A body refused before anything was written is answered
// with a JSON-RPC error instead; the first buffer (32 KiB) is read whole
// before anything is written, so that a small answer is always refused
// that way. A body refused later has its response aborted, which the
// agent's client reads as a failed request. The server's Content-Length is
// never passed on (copyResponseHeaders does not copy it), since the agent
// may be given fewer bytes.
func (g *Gate) relayAnswer(x *exchange, resp *http.Response, body io.Reader) {
	check := rpcmsg.NewAnswerCheck(x.msg.ID)
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	rc := http.NewResponseController(x.w)
	x.w.Header().Del("Content-Length")
	var held [1 + heldSpace]byte
	nheld, started := 0, false
	n, err := io.ReadFull(body, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	for {
		if n > 0 {
			data := buf[:n]
			if cerr := check.Write(data); cerr != nil {
				g.refuseAnswer(x, started, cerr)
				return
			}
			if last := lastNonSpace(data); last >= 0 {
				if !started {
					x.w.WriteHeader(resp.StatusCode)
					started = true
				}
				if _, werr := x.w.Write(held[:nheld]); werr != nil {
					return
				}
				if _, werr := x.w.Write(data[:last]); werr != nil {
					return
				}
				nheld = copy(held[:], data[last:])
			} else {
				nheld += copy(held[nheld:], data)
			}
			if started && err == nil && n < len(buf) {
				_ = rc.Flush()
			}
		}
		if err != nil {
			break
		}
		n, err = body.Read(buf)
	}
	if !errors.Is(err, io.EOF) {
		// The server's answer broke off (or went silent past the idle
		// timeout): what came of it is not a whole answer.
		if !started {
			g.upstreamFailed(x, err)
			return
		}
		g.log.Warn("server's answer broke off; the agent's response is aborted", "server", x.ss.cfg.ID, "method", x.msg.Method, "error", err)
		x.abort = true
		return
	}
	if cerr := check.Close(); cerr != nil {
		g.refuseAnswer(x, started, cerr)
		return
	}
	if !started {
		x.w.WriteHeader(resp.StatusCode)
	}
	_, _ = x.w.Write(held[:nheld])
	_ = rc.Flush()
}

// lastNonSpace is the index of the last byte of p that is not JSON
// whitespace, -1 when there is none.
func lastNonSpace(p []byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return i
		}
	}
	return -1
}

// errBadAnswerText is what the agent is told when a server's answer is not
// the response to its request.
const errBadAnswerText = "toolgate: the server's answer is not a JSON-RPC response to this request"

// answerRefused counts and logs a server's answer that is not the one
// response to the request.
func (g *Gate) answerRefused(x *exchange, err error) {
	x.answerRefused = true
	g.metrics.Errors.WithLabelValues("bad-answer").Inc()
	g.log.Warn("server's answer refused: not the one JSON-RPC response to the request", "server", x.ss.cfg.ID, "method", x.msg.Method, "error", err)
}

// refuseAnswer refuses a server's answer: with a JSON-RPC error when
// nothing of it was written, by aborting the response when it had begun.
func (g *Gate) refuseAnswer(x *exchange, started bool, err error) {
	g.answerRefused(x, err)
	if started {
		x.abort = true
		return
	}
	for _, k := range forwardedResponseHeaders {
		x.w.Header().Del(k)
	}
	writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, errBadAnswerText)
}

// relayBodiless answers a POST whose answer carries no message — a
// notification's or a response's (202, nothing), or any POST's on the SSE
// transport, whose messages come on the stream — with the server's status
// alone: a body there is no answer to anything, and could carry a message
// a lenient client reads unjudged.
func (g *Gate) relayBodiless(x *exchange, resp *http.Response, body io.Reader) {
	var one [1]byte
	if n, _ := io.ReadFull(body, one[:]); n > 0 {
		g.log.Debug("body of an answer that carries no message dropped", "server", x.ss.cfg.ID, "method", x.msg.Method, "status", resp.StatusCode)
	}
	x.w.Header().Del("Content-Type")
	x.w.Header().Del("Content-Length")
	x.w.WriteHeader(resp.StatusCode)
}

func (g *Gate) serveListJSON(x *exchange, resp *http.Response, body io.Reader) {
	data, err := readBounded(body, g.limits.MaxListBytes)
	if err != nil {
		g.listFailed(x, err)
		return
	}
	if err := rpcmsg.CheckAnswer(data, x.msg.ID); err != nil {
		// Filtered or not, the answer to another request must not pass
		// for this one's.
		g.refuseAnswer(x, false, err)
		return
	}
	if !x.refresh(g) {
		writeRPCError(x.w, http.StatusServiceUnavailable, x.msg.ID, rpcmsg.CodeGate, errServerNotReady.Error())
		return
	}
	out, err := g.filterForAgent(x, data)
	if err != nil {
		g.listFailed(x, err)
		return
	}
	x.w.Header().Del("Content-Length")
	x.w.WriteHeader(resp.StatusCode)
	_, _ = x.w.Write(out)
}

var errListTooLarge = errors.New("tools/list response too large")

func readBounded(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errListTooLarge
	}
	return data, nil
}

func (g *Gate) listFailed(x *exchange, err error) {
	writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, g.listRefused(x, err))
}

// listRefused counts and logs a tools/list response the gate will not
// relay, and returns what the agent is told instead.
func (g *Gate) listRefused(x *exchange, err error) string {
	switch {
	case errors.Is(err, errListTooLarge):
		g.limitHit("list-bytes", "tools/list response too large", "server", x.ss.cfg.ID, "max", g.limits.MaxListBytes)
		return fmt.Sprintf("toolgate: the server's tools/list response exceeds %d bytes", g.limits.MaxListBytes)
	case errors.Is(err, errDecodeBudget):
		g.limitHit("list-decoded-bytes", "tools/list over its memory budget", "server", x.ss.cfg.ID, "error", err)
		return "toolgate: the server's tools/list response needs more memory to check than the gate allows (" + rootCause(err) + ")"
	case errors.Is(err, rpcmsg.ErrAmbiguous):
		g.metrics.Errors.WithLabelValues("ambiguous-answer").Inc()
		g.log.Warn("tools/list response refused: member names a peer may read otherwise", "server", x.ss.cfg.ID, "error", clip.String(err.Error(), 512))
		return "toolgate: the server's tools/list response has member names a client may read another way"
	}
	g.metrics.Errors.WithLabelValues("bad-list").Inc()
	g.log.Warn("tools/list response refused", "server", x.ss.cfg.ID, "error", err)
	return "toolgate: the server's tools/list response could not be checked"
}

// rootCause is the part of a budget error that says which bound it hit,
// without the position in the list it was hit at.
func rootCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, errDecodeBudget.Error()+": "); i >= 0 {
		return msg[i+len(errDecodeBudget.Error())+2:]
	}
	return msg
}

func (g *Gate) serveGET(x *exchange) {
	// The stream to the server ends with the agent's request, whose
	// context net/http cancels when this handler returns (and the body is
	// closed before): no context of its own is needed.
	ctx := x.r.Context()
	if sid := x.r.Header.Get("Mcp-Session-Id"); sid != "" {
		s, ok := g.sessions.session(x.ss.watch, sid, "", true)
		if !ok {
			g.limitHit("sessions", "too many sessions", "max", g.limits.MaxSessions)
			http.Error(x.w, fmt.Sprintf("toolgate: more than %d sessions", g.limits.MaxSessions), http.StatusServiceUnavailable)
			return
		}
		x.sess = s
	}
	resp := g.sendForAgent(ctx, x, http.MethodGet, x.ss.cfg.Upstream.URL, nil, "")
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if !g.checkStatus(x, resp) {
		return
	}
	copyResponseHeaders(x.w.Header(), resp.Header)
	if mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		// A GET answers with an event stream or nothing: any other body
		// could hold a message the agent's client reads unjudged.
		g.relayOther(x, resp, resp.Body)
		return
	}
	x.w.Header().Set("Content-Type", "text/event-stream")
	s := newStream(x.w)
	x.ss.watch.addStream(s)
	defer x.ss.watch.removeStream(s)
	if x.sess != nil {
		x.sess.setGet(s)
		defer x.sess.clearGet(s)
	}
	x.w.WriteHeader(resp.StatusCode)
	_ = s.rc.Flush()
	g.pump(x, resp.Body, s, pumpOptions{sess: x.sess})
}

func (g *Gate) serveDELETE(x *exchange) {
	if x.ss.sse {
		w := x.w
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	resp := g.sendForAgent(x.r.Context(), x, http.MethodDelete, x.ss.cfg.Upstream.URL, nil, "")
	// Forgotten whatever the server answered: the agent ended it.
	g.forgetSession(x.ss, x.r.Header.Get("Mcp-Session-Id"))
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if !g.checkStatus(x, resp) {
		return
	}
	copyResponseHeaders(x.w.Header(), resp.Header)
	x.w.WriteHeader(resp.StatusCode)
}

// forgetSession drops the session sid of the server ss from the gate's
// table, if the gate tracks it.
func (g *Gate) forgetSession(ss *serverState, sid string) {
	if sid == "" {
		return
	}
	if s, _ := g.sessions.session(ss.watch, sid, "", false); s != nil {
		g.sessions.drop(s)
	}
}
