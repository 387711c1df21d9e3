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
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// reviewTimeout bounds authenticating one request: the TokenReview and the
// pod's read.
const reviewTimeout = 10 * time.Second

// stream is one gate's configuration stream.
type stream struct {
	id identity
	// notify holds at most one pending Invalidate: more before the stream
	// rebuilds coalesce into it.
	notify chan struct{}
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (st *stream) invalidate() {
	select {
	case st.notify <- struct{}{}:
	default:
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

	ctx, stop := context.WithCancelCause(r.Context())
	defer stop(nil)
	st := &stream{id: id, notify: make(chan struct{}, 1), ctx: ctx, cancel: stop}
	if ref := s.admit(st); ref != nil {
		s.refuse(w, r, id, ref)
		return
	}
	defer s.release(st)
	s.run(w, st, served.slim(), doneConnecting)
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

// run sends the first configuration at once, then heartbeats, and a new
// configuration whenever an Invalidate changes the revision, until the
// gate goes, the token expires, the pod is gone, or the operator stops.
// connected is called once the first configuration is sent (or the
// stream ends before): the gate no longer counts as connecting.
func (s *Server) run(w http.ResponseWriter, st *stream, served servedPod, connected func()) {
	pod := served.pod
	log := s.log.WithValues("namespace", st.id.Namespace, "pod", st.id.Pod)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", gateproto.StreamContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(f gateproto.Frame) error { return s.writeFrame(w, rc, f) }
	sendConfig := func(b built) error {
		if b.enc != nil {
			return s.writeConfigFrame(w, rc, b.enc)
		}
		return send(gateproto.Frame{Type: gateproto.FrameConfig, Config: b.cfg})
	}
	closeWith := func(reason string) {
		if err := send(gateproto.Frame{Type: gateproto.FrameError, Error: reason}); err != nil {
			log.V(1).Info("could not tell the gate why its stream closes", "error", err.Error())
		}
	}

	last, ok := s.push(st, pod, "", true, sendConfig, closeWith, log)
	connected()
	if !ok {
		return
	}
	log.Info("gate connected", "revision", last)
	defer log.Info("gate stream closed")

	lifetime := s.o.MaxStreamLifetime
	if !st.id.Expiry.IsZero() {
		lifetime = min(lifetime, time.Until(st.id.Expiry))
	}
	end := time.NewTimer(lifetime)
	defer end.Stop()
	heartbeat := time.NewTicker(s.o.HeartbeatInterval)
	defer heartbeat.Stop()
	resync := time.NewTimer(jittered(s.o.Resync))
	defer resync.Stop()
	var debounce *time.Timer
	var rebuild <-chan time.Time
	// recheck is set when the pending rebuild is the periodic resync's:
	// only then is the pod read again from the API server (and when its
	// namespace's labels changed). A rebuild for a change elsewhere keeps
	// the pod last read and looks only at its namespace's labels, in the
	// cache, so that a change that reaches every gate costs no read of
	// every pod. A pod replaced, deleted or given another gate after its
	// stream opened is therefore seen at the next resync (or when its
	// gate, restarted by that change, connects again and is refused), not
	// at the next change of policy.
	recheck := false
	defer func() {
		if debounce != nil {
			debounce.Stop()
		}
	}()

	for {
		select {
		case <-st.ctx.Done():
			switch cause := context.Cause(st.ctx); {
			case errors.Is(cause, errSuperseded):
				closeWith(errSuperseded.Error())
			case s.isClosed():
				closeWith(errShutdown.Error())
			}
			return
		case <-end.C:
			// The gate reconnects with the token the kubelet rotated in,
			// and is authenticated again.
			closeWith("the stream's lifetime or the token's is over; reconnect with the current token")
			return
		case <-heartbeat.C:
			if err := send(gateproto.Frame{Type: gateproto.FrameHeartbeat}); err != nil {
				log.V(1).Info("gate gone", "error", err.Error())
				return
			}
		case <-st.notify:
			if rebuild == nil {
				debounce = time.NewTimer(s.o.Debounce)
				rebuild = debounce.C
			}
		case <-resync.C:
			// Nothing tells the server when a pod's own labels change (it
			// may not watch pods), and they pick its policies: look again
			// now and then, whatever else happened.
			resync.Reset(jittered(s.o.Resync))
			recheck = true
			if rebuild == nil {
				debounce = time.NewTimer(0)
				rebuild = debounce.C
			}
		case <-rebuild:
			rebuild = nil
			checkCtx, cancel := context.WithTimeout(st.ctx, reviewTimeout)
			var ref *refusal
			if !recheck && served.nsRead {
				// The checks' verdict depends on the pod, unchanged since
				// it was read, and its namespace's labels: look at those.
				var labels map[string]string
				if labels, ref = namespaceLabels(checkCtx, s.o.NamespaceReader, st.id.Namespace); ref == nil && !maps.Equal(labels, served.nsLabels) {
					recheck = true
				}
			}
			if ref == nil && recheck {
				recheck = false
				var fresh servedPod
				if fresh, ref = s.checkPod(checkCtx, st.id); ref == nil {
					served = fresh.slim()
					pod = served.pod
				}
			}
			cancel()
			if ref != nil {
				log.Info("closing a gate's stream: "+ref.reason, "reason", ref.label)
				closeWith(ref.reason)
				return
			}
			if last, ok = s.push(st, pod, last, false, sendConfig, closeWith, log); !ok {
				return
			}
		}
	}
}

// jittered spreads d over ±20%, so that the streams of a replica do not
// all rebuild in the same second.
func jittered(d time.Duration) time.Duration {
	return d - d/5 + rand.N(2*d/5+1)
}

// push builds the pod's configuration and sends it when it is the
// stream's first or its revision is not last. It returns the revision the gate now has, and false when the
// stream must close (it has then said why).
func (s *Server) push(st *stream, pod *corev1.Pod, last string, first bool, sendConfig func(built) error,
	closeWith func(string), log logr.Logger) (string, bool) {
	b, err := s.build(st.ctx, pod, st.id)
	if err != nil {
		s.metrics.buildErrors.Inc()
		log.Error(err, "building a gate's configuration")
		// The details stay in the operator's log: the gate's log is
		// readable in the agent's namespace, and the error may name
		// objects of others.
		closeWith("the operator could not build this pod's configuration; the gate keeps its last one")
		return last, false
	}
	cfg := b.cfg
	if !first && cfg.Revision == last {
		return last, true
	}
	if err := sendConfig(b); err != nil {
		if errors.Is(err, errFrameTooLarge) {
			log.Error(err, "a gate's configuration is too large to send", "revision", cfg.Revision)
			closeWith("the configuration is larger than a frame may be; the gate keeps its last one")
		} else {
			log.V(1).Info("gate gone", "error", err.Error())
		}
		return last, false
	}
	s.metrics.pushes.Inc()
	if !first {
		log.Info("pushed a new configuration", "revision", cfg.Revision, "previous", last)
	}
	return cfg.Revision, true
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

// writeFrame sends one frame as one line and flushes it, within the write
// timeout: a gate that stops reading must not hold a goroutine forever.
func (s *Server) writeFrame(w http.ResponseWriter, rc *http.ResponseController, f gateproto.Frame) error {
	f.Version = gateproto.Version
	f.Time = time.Now().UTC()
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encoding a %s frame: %w", f.Type, err)
	}
	if len(b)+1 > gateproto.MaxFrameBytes {
		return fmt.Errorf("%w: %d bytes", errFrameTooLarge, len(b)+1)
	}
	return s.writeLine(w, rc, b, []byte{'\n'})
}

// writeConfigFrame sends a configuration frame whose configuration is
// already encoded: the frame is written around the encoding, not encoded
// again. The bytes are those writeFrame would write.
func (s *Server) writeConfigFrame(w http.ResponseWriter, rc *http.ResponseController, enc *gateproto.Encoded) error {
	head, err := json.Marshal(gateproto.Frame{Version: gateproto.Version, Type: gateproto.FrameConfig, Time: time.Now().UTC()})
	if err != nil {
		return fmt.Errorf("encoding a %s frame: %w", gateproto.FrameConfig, err)
	}
	// Config is the field after Time, and the others are empty: the
	// encoding goes where json.Marshal would put it, before the last brace.
	head = append(head[:len(head)-1], `,"config":`...)
	if n := len(head) + enc.Len() + len("}\n"); n > gateproto.MaxFrameBytes {
		return fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
	}
	return s.writeLine(w, rc, head, enc, []byte("}\n"))
}

// writeLine writes the pieces of one frame and flushes them, within the
// write timeout. Each piece is a []byte or an io.WriterTo.
func (s *Server) writeLine(w http.ResponseWriter, rc *http.ResponseController, pieces ...any) error {
	_ = rc.SetWriteDeadline(time.Now().Add(s.o.WriteTimeout))
	cw := chunkWriter{w: w}
	for _, p := range pieces {
		var err error
		switch p := p.(type) {
		case []byte:
			_, err = cw.Write(p)
		case io.WriterTo:
			_, err = p.WriteTo(cw)
		}
		if err != nil {
			return err
		}
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	// The deadline bounds this write only. Over HTTP/2 it is a timer on
	// the stream that resets it when it fires, written to or not: left
	// set, it would end every stream that stays quiet for WriteTimeout,
	// shorter than the heartbeat, and each gate would reconnect (a review,
	// a read of its pod) every few seconds.
	return rc.SetWriteDeadline(time.Time{})
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
