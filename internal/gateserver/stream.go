package gateserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// reviewTimeout bounds authenticating one request: the TokenReview and the
// pod's read.
const reviewTimeout = 10 * time.Second

// stream is one gate's configuration stream. No goroutine is parked on a
// stream between two frames: its heartbeat, its resync, the end of its
// lifetime and the rebuilds an Invalidate asks for are timers whose
// callbacks do the work and return. An HTTP/1.1 stream, taken over from
// the HTTP server once its gate is authenticated, therefore costs no
// goroutine at all between frames; an HTTP/2 stream's handler waits for
// it to end, since the HTTP/2 server ends the stream when it returns.
type stream struct {
	id  identity
	srv *Server
	// ctx ends when the stream must: superseded by a newer stream of its
	// pod, the operator stopping, or (HTTP/2) the gate gone.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// pending is set while a rebuild is scheduled: more Invalidates before
	// it runs coalesce into it. It is atomic because Invalidate, which
	// must never wait on a gate, sets it under the server's lock.
	pending atomic.Bool

	// mu serialises what is done on the stream: writes, rebuilds, its end.
	mu sync.Mutex
	// out is where frames are written.
	out frameSink
	// served is what the checks read of the pod, last is the revision the
	// gate has, recheck is set when the next rebuild must read the pod
	// again (see rebuild).
	served  servedPod
	last    string
	recheck bool
	ended   bool
	// connected is set once the first configuration was sent.
	connected bool
	// done is closed when the stream ended.
	done                   chan struct{}
	heartbeat, resync, end *time.Timer
	stopWatch              func() bool
}

// log is the server's logger with the stream's pod. It is made when a line
// is written, which is seldom, rather than kept: a logger with values
// holds their encoding, a kilobyte a stream.
func (st *stream) log() logr.Logger {
	return st.srv.log.WithValues("namespace", st.id.Namespace, "pod", st.id.Pod)
}

// invalidate schedules a rebuild after the debounce, unless one is
// already scheduled. It never blocks.
func (st *stream) invalidate() { st.schedule(st.srv.o.Debounce) }

func (st *stream) schedule(after time.Duration) {
	if st.pending.CompareAndSwap(false, true) {
		time.AfterFunc(after, st.rebuild)
	}
}

// serveConfig authenticates a gate and holds its stream open.
func (s *Server) serveConfig(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "the configuration stream is read with GET", http.StatusMethodNotAllowed)
		return
	}
	// A gate that connects costs a TokenReview, a read of its pod and its
	// first configuration. A fleet that reconnects at once (the operator
	// restarted, a replica went away) would queue them all behind the API
	// client's rate limit, past the gates' own connect timeout, and every
	// gate would retry while its first attempt was still being served. So
	// only so many connect at once; the others are told to come back.
	select {
	case s.connecting <- struct{}{}:
	default:
		s.refuse(w, r, identity{}, refuse(http.StatusServiceUnavailable, failBusy,
			"this operator replica is connecting as many gates as it may; retry after the time given"))
		return
	}
	connecting := true
	doneConnecting := func() {
		if connecting {
			connecting = false
			<-s.connecting
		}
	}
	defer doneConnecting()
	authCtx, cancel := context.WithTimeout(r.Context(), reviewTimeout)
	id, served, ref := s.authenticateStream(authCtx, r)
	cancel()
	if ref != nil {
		s.refuse(w, r, id, ref)
		return
	}

	// An HTTP/1.1 stream is taken over from the HTTP server: it outlives
	// this handler, so its context is the server's, not the request's.
	// An HTTP/2 stream ends when this handler returns, and its request's
	// context ends when the gate goes.
	hijack := r.ProtoMajor == 1
	parent := r.Context()
	if hijack {
		parent = s.streamBase()
	}
	ctx, stop := context.WithCancelCause(parent)
	st := &stream{id: id, srv: s, ctx: ctx, cancel: stop, served: served.slim(), done: make(chan struct{})}
	if ref := s.admit(st); ref != nil {
		stop(nil)
		s.refuse(w, r, id, ref)
		return
	}
	if hijack {
		out, err := hijackStream(w, s.o.WriteTimeout)
		if err != nil {
			st.log().V(1).Info("could not take over the gate's connection", "error", err.Error())
			st.mu.Lock()
			st.endLocked("")
			st.mu.Unlock()
			return
		}
		st.out = out
	} else {
		st.out = newResponseSink(w, s.o.WriteTimeout)
	}
	st.start()
	// The gate no longer counts as connecting once its first
	// configuration is sent (or its stream ended before).
	doneConnecting()
	if !hijack {
		<-st.done
	}
}

// streamBase is the context of the streams taken over from the HTTP
// server: it ends when the server stops.
func (s *Server) streamBase() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base == nil {
		return context.Background()
	}
	return s.base
}

// authenticate proves who the gate is from its token alone, then checks
// that the pod the token was bound to is still that pod.
func (s *Server) authenticate(ctx context.Context, r *http.Request) (identity, *corev1.Pod, *refusal) {
	token, ref := bearerToken(r)
	if ref != nil {
		return identity{}, nil, ref
	}
	id, ref := s.auth.authenticate(ctx, token)
	if ref != nil {
		return identity{}, nil, ref
	}
	served, ref := s.checkPod(ctx, id)
	return id, served.pod, ref
}

// authenticateStream authenticates a gate as authenticate does, and
// returns what its pod's checks read, for the stream to keep.
func (s *Server) authenticateStream(ctx context.Context, r *http.Request) (identity, servedPod, *refusal) {
	token, ref := bearerToken(r)
	if ref != nil {
		return identity{}, servedPod{}, ref
	}
	id, ref := s.auth.authenticate(ctx, token)
	if ref != nil {
		return identity{}, servedPod{}, ref
	}
	served, ref := s.checkPod(ctx, id)
	return id, served, ref
}

// refuse answers a request the server turns away, counts it and logs it.
// The token is never logged; the identity is, when the token proved one.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, id identity, ref *refusal) {
	s.metrics.authFailures.WithLabelValues(ref.label).Inc()
	kv := []any{"reason", ref.label, "status", ref.status, "remote", r.RemoteAddr}
	if id.Pod != "" {
		kv = append(kv, "namespace", id.Namespace, "pod", id.Pod, "serviceAccount", id.ServiceAccount)
	}
	if ref.label == failBusy {
		// One line per gate turned away while a fleet reconnects would
		// drown the log; the metric counts them.
		s.log.V(1).Info("refused a gate: "+ref.reason, kv...)
	} else {
		s.log.Info("refused a gate: "+ref.reason, kv...)
	}
	switch ref.status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ref.label)))
	}
	http.Error(w, ref.reason, ref.status)
}

// retryAfterSeconds is how long a gate turned away for the time being is
// told to wait. Gates turned away because the replica is busy connecting
// others are spread over a few seconds, so that they do not all come back
// in the same one.
func retryAfterSeconds(label string) int {
	if label == failBusy {
		return minBusyRetry + rand.N(busyRetrySpread+1)
	}
	return 5
}

// A gate turned away while the replica connects others retries after
// minBusyRetry to minBusyRetry+busyRetrySpread seconds.
const (
	minBusyRetry    = 1
	busyRetrySpread = 4
)

// start sends the first configuration, then arms the stream's timers:
// heartbeats, the resync, the end of its lifetime. From then on a new
// configuration is sent whenever an Invalidate changes the revision,
// until the gate goes, the token expires, the pod is gone, or the
// operator stops.
func (st *stream) start() {
	s := st.srv
	st.mu.Lock()
	defer st.mu.Unlock()
	// The stream's context may end from now on: superseded, shut down, or
	// the gate gone.
	st.stopWatch = context.AfterFunc(st.ctx, st.contextDone)
	if st.ended {
		return
	}
	if !st.push(true) {
		st.endLocked("")
		return
	}
	st.connected = true
	st.log().Info("gate connected", "revision", st.last)

	lifetime := s.o.MaxStreamLifetime
	if !st.id.Expiry.IsZero() {
		lifetime = min(lifetime, time.Until(st.id.Expiry))
	}
	st.end = time.AfterFunc(lifetime, func() {
		// The gate reconnects with the token the kubelet rotated in,
		// and is authenticated again.
		st.finish("the stream's lifetime or the token's is over; reconnect with the current token")
	})
	st.heartbeat = time.AfterFunc(s.o.HeartbeatInterval, st.beat)
	st.resync = time.AfterFunc(jittered(s.o.Resync), st.resyncNow)
}

// contextDone ends the stream when its context ends, saying why when the
// gate is still there to hear it.
func (st *stream) contextDone() {
	why := ""
	switch cause := context.Cause(st.ctx); {
	case errors.Is(cause, errSuperseded):
		why = errSuperseded.Error()
	case st.srv.isClosed():
		why = errShutdown.Error()
	}
	st.finish(why)
}

// finish ends the stream, first telling the gate why when why is set.
func (st *stream) finish(why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.endLocked(why)
}

// endLocked ends the stream once: it tells the gate why (when why is
// set), stops the timers, closes the connection of a stream taken over,
// and forgets the stream.
func (st *stream) endLocked(why string) {
	if st.ended {
		return
	}
	st.ended = true
	if why != "" && st.out != nil {
		st.sayLocked(why)
	}
	for _, t := range []*time.Timer{st.heartbeat, st.resync, st.end} {
		if t != nil {
			t.Stop()
		}
	}
	if st.stopWatch != nil {
		st.stopWatch()
	}
	if st.out != nil {
		st.out.close()
	}
	st.cancel(nil)
	st.srv.release(st)
	close(st.done)
	if st.connected {
		st.log().Info("gate stream closed")
	}
}

// sayLocked tells the gate why its stream closes.
func (st *stream) sayLocked(why string) {
	if err := st.send(gateproto.Frame{Type: gateproto.FrameError, Error: why}); err != nil {
		st.log().V(1).Info("could not tell the gate why its stream closes", "error", err.Error())
	}
}

// beat sends a heartbeat, which is also how a gate gone from a stream
// taken over is found: nothing reads that connection.
func (st *stream) beat() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return
	}
	if err := st.send(gateproto.Frame{Type: gateproto.FrameHeartbeat}); err != nil {
		st.log().V(1).Info("gate gone", "error", err.Error())
		st.endLocked("")
		return
	}
	st.heartbeat.Reset(st.srv.o.HeartbeatInterval)
}

// resyncNow rebuilds with the pod read again. Nothing tells the server
// when a pod's own labels change (it may not watch pods), and they pick
// its policies: look again now and then, whatever else happened.
func (st *stream) resyncNow() {
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return
	}
	st.recheck = true
	st.resync.Reset(jittered(st.srv.o.Resync))
	st.mu.Unlock()
	st.schedule(0)
}

// rebuild builds the pod's configuration again and sends it when its
// revision changed.
//
// The pod is read again from the API server only when recheck is set: at
// the periodic resync, and when its namespace's labels changed. A rebuild
// for a change elsewhere keeps the pod last read and looks only at its
// namespace's labels, in the cache, so that a change that reaches every
// gate costs no read of every pod. A pod replaced, deleted or given
// another gate after its stream opened is therefore seen at the next
// resync (or when its gate, restarted by that change, connects again and
// is refused), not at the next change of policy.
func (st *stream) rebuild() {
	s := st.srv
	st.mu.Lock()
	defer st.mu.Unlock()
	// Invalidates from now on schedule another rebuild.
	st.pending.Store(false)
	// Before the first configuration is sent there is nothing to rebuild:
	// the first is built after whatever asked for this.
	if st.ended || !st.connected {
		return
	}
	checkCtx, cancel := context.WithTimeout(st.ctx, reviewTimeout)
	var ref *refusal
	if !st.recheck && st.served.nsRead {
		// The checks' verdict depends on the pod, unchanged since it was
		// read, and its namespace's labels: look at those.
		var labels map[string]string
		if labels, ref = namespaceLabels(checkCtx, s.o.NamespaceReader, st.id.Namespace); ref == nil && !maps.Equal(labels, st.served.nsLabels) {
			st.recheck = true
		}
	}
	if ref == nil && st.recheck {
		st.recheck = false
		var fresh servedPod
		if fresh, ref = s.checkPod(checkCtx, st.id); ref == nil {
			st.served = fresh.slim()
		}
	}
	cancel()
	if st.ended {
		// The stream's context ended while the pod was read.
		return
	}
	if ref != nil {
		st.log().Info("closing a gate's stream: "+ref.reason, "reason", ref.label)
		st.endLocked(ref.reason)
		return
	}
	if !st.push(false) {
		st.endLocked("")
	}
}

// jittered spreads d over ±20%, so that the streams of a replica do not
// all rebuild in the same second.
func jittered(d time.Duration) time.Duration {
	return d - d/5 + rand.N(2*d/5+1)
}

// push builds the pod's configuration and sends it when it is the
// stream's first or its revision is not the one the gate has. It returns
// false when the stream must end; it has then told the gate why, when
// the gate is there to hear it.
func (st *stream) push(first bool) bool {
	s := st.srv
	b, err := s.build(st.ctx, st.served.pod, st.id)
	if err != nil {
		s.metrics.buildErrors.Inc()
		st.log().Error(err, "building a gate's configuration")
		// The details stay in the operator's log: the gate's log is
		// readable in the agent's namespace, and the error may name
		// objects of others.
		st.sayLocked("the operator could not build this pod's configuration; the gate keeps its last one")
		return false
	}
	cfg := b.cfg
	if !first && cfg.Revision == st.last {
		return true
	}
	if b.enc != nil {
		err = st.out.writeConfig(b.enc)
	} else {
		err = st.send(gateproto.Frame{Type: gateproto.FrameConfig, Config: cfg})
	}
	if err != nil {
		if errors.Is(err, errFrameTooLarge) {
			st.log().Error(err, "a gate's configuration is too large to send", "revision", cfg.Revision)
			st.sayLocked("the configuration is larger than a frame may be; the gate keeps its last one")
		} else {
			st.log().V(1).Info("gate gone", "error", err.Error())
		}
		return false
	}
	s.metrics.pushes.Inc()
	if !first {
		st.log().Info("pushed a new configuration", "revision", cfg.Revision, "previous", st.last)
	}
	st.last = cfg.Revision
	return true
}

// send writes one frame.
func (st *stream) send(f gateproto.Frame) error {
	b, err := encodeFrame(f)
	if err != nil {
		return err
	}
	return st.out.writeLine(b, newline)
}

// built is a pod's configuration, and its encoding when the Builder made
// one.
type built struct {
	cfg *gateproto.Config
	enc *gateproto.Encoded
}

// build asks the Builder for the pod's configuration and checks it is
// this pod's. A configuration that fails Validate is still sent: the gate
// is the one place the contract is enforced, refuses it whole and says so
// in its own metrics, keeping its last good one; the operator logs and
// counts it so that the bug is seen where it can be fixed. A configuration
// an EncodingBuilder returns was validated when it was built, and is not
// validated again.
func (s *Server) build(ctx context.Context, pod *corev1.Pod, id identity) (built, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.BuildTimeout)
	defer cancel()
	var b built
	if eb, ok := s.o.Builder.(EncodingBuilder); ok {
		enc, err := eb.BuildEncoded(ctx, pod)
		if err != nil {
			return built{}, err
		}
		if enc == nil || enc.Config == nil {
			return built{}, errors.New("the builder returned no configuration")
		}
		b = built{cfg: enc.Config, enc: enc}
	} else {
		cfg, err := s.o.Builder.Build(ctx, pod)
		if err != nil {
			return built{}, err
		}
		if cfg == nil {
			return built{}, errors.New("the builder returned no configuration")
		}
		b = built{cfg: cfg}
	}
	if b.cfg.Namespace != id.Namespace || b.cfg.Pod != id.Pod {
		return built{}, fmt.Errorf("the builder made a configuration for %s/%s, not for the token's pod %s/%s",
			b.cfg.Namespace, b.cfg.Pod, id.Namespace, id.Pod)
	}
	if b.enc == nil {
		if err := b.cfg.Validate(); err != nil {
			s.metrics.invalid.Inc()
			s.log.Error(err, "a gate's configuration fails validation; the gate will refuse it",
				"namespace", id.Namespace, "pod", id.Pod, "revision", b.cfg.Revision)
		}
	}
	return b, nil
}

// writeChunk is the size of the pieces a frame is written in: the HTTP/2
// server's buffer of a response's body, so that no DATA frame is larger.
const writeChunk = 4 << 10

// errFrameTooLarge refuses to send a frame above gateproto.MaxFrameBytes,
// which the gate would refuse anyway.
var errFrameTooLarge = errors.New("frame larger than gateproto.MaxFrameBytes")

var newline = []byte{'\n'}

// encodeFrame encodes one frame, without its newline.
func encodeFrame(f gateproto.Frame) ([]byte, error) {
	f.Version = gateproto.Version
	f.Time = time.Now().UTC()
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s frame: %w", f.Type, err)
	}
	if len(b)+1 > gateproto.MaxFrameBytes {
		return nil, fmt.Errorf("%w: %d bytes", errFrameTooLarge, len(b)+1)
	}
	return b, nil
}

// configFrame returns the pieces of a configuration frame whose
// configuration is already encoded: the frame is written around the
// encoding, not encoded again. The bytes are those encodeFrame would
// write, and its newline.
func configFrame(enc *gateproto.Encoded) ([]any, error) {
	head, err := json.Marshal(gateproto.Frame{Version: gateproto.Version, Type: gateproto.FrameConfig, Time: time.Now().UTC()})
	if err != nil {
		return nil, fmt.Errorf("encoding a %s frame: %w", gateproto.FrameConfig, err)
	}
	// Config is the field after Time, and the others are empty: the
	// encoding goes where json.Marshal would put it, before the last brace.
	head = append(head[:len(head)-1], `,"config":`...)
	if n := len(head) + enc.Len() + len("}\n"); n > gateproto.MaxFrameBytes {
		return nil, fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
	}
	return []any{head, enc, []byte("}\n")}, nil
}

// frameSink is where a stream's frames go: an HTTP/2 response, or the
// connection of an HTTP/1.1 stream taken over from the HTTP server.
type frameSink interface {
	// writeLine writes the pieces of one frame and sends them, within
	// the write timeout. Each piece is a []byte or an io.WriterTo.
	writeLine(pieces ...any) error
	// writeConfig writes a configuration frame around its encoding.
	writeConfig(enc *gateproto.Encoded) error
	// close ends the stream's body; it may be called once.
	close()
}

// responseSink writes frames to an HTTP response, which stays open while
// the handler waits.
type responseSink struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func newResponseSink(w http.ResponseWriter, timeout time.Duration) *responseSink {
	w.Header().Set("Content-Type", gateproto.StreamContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return &responseSink{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (r *responseSink) writeConfig(enc *gateproto.Encoded) error {
	pieces, err := configFrame(enc)
	if err != nil {
		return err
	}
	return r.writeLine(pieces...)
}

// close does nothing: the response ends when its handler returns.
func (r *responseSink) close() {}

// writeFrame sends one frame as one line on a response and flushes it,
// within the write timeout: a gate that stops reading must not hold a
// goroutine forever.
func (s *Server) writeFrame(w http.ResponseWriter, rc *http.ResponseController, f gateproto.Frame) error {
	b, err := encodeFrame(f)
	if err != nil {
		return err
	}
	return (&responseSink{w: w, rc: rc, timeout: s.o.WriteTimeout}).writeLine(b, newline)
}

// writeConfigFrame sends a configuration frame, already encoded, on a
// response.
func (s *Server) writeConfigFrame(w http.ResponseWriter, rc *http.ResponseController, enc *gateproto.Encoded) error {
	return (&responseSink{w: w, rc: rc, timeout: s.o.WriteTimeout}).writeConfig(enc)
}

func (r *responseSink) writeLine(pieces ...any) error {
	_ = r.rc.SetWriteDeadline(time.Now().Add(r.timeout))
	cw := chunkWriter{w: r.w}
	if err := writePieces(cw, pieces); err != nil {
		return err
	}
	if err := r.rc.Flush(); err != nil {
		return err
	}
	// The deadline bounds this write only. Over HTTP/2 it is a timer on
	// the stream that resets it when it fires, written to or not: left
	// set, it would end every stream that stays quiet for WriteTimeout,
	// shorter than the heartbeat, and each gate would reconnect (a review,
	// a read of its pod) every few seconds.
	return r.rc.SetWriteDeadline(time.Time{})
}

func writePieces(w io.Writer, pieces []any) error {
	for _, p := range pieces {
		var err error
		switch p := p.(type) {
		case []byte:
			_, err = w.Write(p)
		case io.WriterTo:
			_, err = p.WriteTo(w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chunkWriter writes in pieces no larger than the response's own buffer:
// the HTTP/2 framer keeps a buffer as large as the largest frame it ever
// wrote on the connection, and a configuration sent whole would leave
// every gate's connection holding one of its size.
type chunkWriter struct{ w io.Writer }

func (c chunkWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		m, err := c.w.Write(b[:n])
		written += m
		if err != nil {
			return written, err
		}
		b = b[n:]
	}
	return written, nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
