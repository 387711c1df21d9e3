package gateclient

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// Defaults of Options.
const (
	// DefaultHeartbeatTimeout is three of the operator's default heartbeat
	// intervals (15s): one lost heartbeat is not a dead operator.
	DefaultHeartbeatTimeout = 45 * time.Second
	DefaultConnectTimeout   = 10 * time.Second
	DefaultInitialBackoff   = 500 * time.Millisecond
	DefaultMaxBackoff       = 30 * time.Second
)

// healthyAfter is how long a stream with a good configuration must last
// to reset the backoff: an operator that closes every stream just after
// its first frame must not be redialled in a tight loop.
const healthyAfter = 5 * time.Second

// Bounds on what the client reads besides frames.
const (
	maxTokenBytes      = 16 << 10
	maxCABytes         = 1 << 20
	maxRefusalBytes    = 1 << 10
	maxResponseHeaders = 64 << 10
)

// Options configure a Client.
type Options struct {
	// URL is the operator's gate endpoint, "https://host:port".
	URL string
	// TokenFile holds the projected service-account token of audience
	// gateproto.Audience; it is read again at every connection, because the
	// kubelet rotates it.
	TokenFile string
	// CAFile holds the PEM CA that signed the operator's serving
	// certificate. It is read again at every connection, so a rotated CA
	// is picked up; it is the only CA trusted.
	CAFile string
	// Logger receives connection events.
	Logger *slog.Logger
	// HeartbeatTimeout is how long a silent stream is trusted before the
	// client reconnects.
	HeartbeatTimeout time.Duration
	// ConnectTimeout bounds each of dialling, the TLS handshake and
	// waiting for the response headers.
	ConnectTimeout time.Duration
	// InitialBackoff and MaxBackoff bound the wait between connection
	// attempts, which grows exponentially with jitter and starts again
	// from InitialBackoff after a healthy connection.
	InitialBackoff, MaxBackoff time.Duration
}

// Stats is the client's state, for the gate's metrics and readiness.
type Stats struct {
	// Connected is true while a stream is up.
	Connected bool
	// Revision is the revision last applied, AppliedAt when; empty and
	// zero before the first configuration.
	Revision  string
	AppliedAt time.Time
	// Connections counts the streams that were opened (HTTP 200).
	Connections uint64
	// Configs counts the valid configurations received, applied or the
	// same as the one in force: a gate that reconnects is served again
	// when this moves, though nothing new is applied.
	Configs uint64
	// Refused counts frames refused: malformed, of another protocol
	// version, carrying a configuration that fails Validate, or one the
	// gate's apply refused.
	Refused uint64
	// LastRefusal says which configuration was last refused and why; empty
	// when none was.
	LastRefusal string
	// LastError says why the last connection attempt or stream ended.
	LastError string
}

// Client holds one configuration stream to the operator.
type Client struct {
	opts Options

	// transport carries calls and finding reports over HTTP/2, one
	// connection for all; streamTransport carries the configuration
	// stream over HTTP/1.1 (see transportFor). Both are reused while the
	// CA stays the same.
	transport, streamTransport *http.Transport
	caPEM                      []byte
	// trMu guards the transports and caPEM: calls share them with the
	// stream.
	trMu sync.Mutex

	// reports holds a token for each finding report on its way.
	reports chan struct{}

	mu    sync.Mutex
	stats Stats
}

// New checks the options and returns a client that has not connected yet.
func New(o Options) (*Client, error) {
	if o.URL == "" || o.TokenFile == "" || o.CAFile == "" {
		return nil, errors.New("gateclient: URL, TokenFile and CAFile are required")
	}
	if !strings.HasPrefix(o.URL, "https://") {
		return nil, fmt.Errorf("gateclient: URL %q: the operator is reached over https only", o.URL)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HeartbeatTimeout, DefaultHeartbeatTimeout)
	def(&o.ConnectTimeout, DefaultConnectTimeout)
	def(&o.InitialBackoff, DefaultInitialBackoff)
	def(&o.MaxBackoff, DefaultMaxBackoff)
	o.URL = strings.TrimSuffix(o.URL, "/")
	return &Client{opts: o, reports: make(chan struct{}, maxReportsInFlight)}, nil
}

// Run connects, and reconnects with backoff, until ctx ends. It calls apply
// with every valid configuration whose revision differs from the last one
// applied; apply must not block for long. Nothing else ever reaches apply:
// a gate that never reached the operator is never given a configuration.
// A configuration apply returns an error for is refused like an invalid
// one: counted, logged, and not recorded as applied, so the revision last
// applied stays that of the configuration in force, and the same revision
// is offered to apply again when the operator sends it again.
func (c *Client) Run(ctx context.Context, apply func(*gateproto.Config) error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = c.opts.InitialBackoff
	b.MaxInterval = c.opts.MaxBackoff
	b.RandomizationFactor = 0.5
	b.Multiplier = 2
	b.Reset()
	defer func() {
		c.trMu.Lock()
		defer c.trMu.Unlock()
		if c.transport != nil {
			c.transport.CloseIdleConnections()
			c.streamTransport.CloseIdleConnections()
		}
	}()
	for {
		healthy, err := c.stream(ctx, apply)
		c.setConnected(false)
		if ctx.Err() != nil {
			return nil
		}
		if healthy {
			b.Reset()
		}
		wait := b.NextBackOff()
		var busy *refusedError
		if errors.As(err, &busy) && busy.retryAfter > wait {
			// The operator said when to come back: sooner would only be
			// turned away again, and it spreads the gates it turns away.
			wait = min(busy.retryAfter, c.opts.MaxBackoff)
		}
		c.mu.Lock()
		c.stats.LastError = err.Error()
		c.mu.Unlock()
		c.opts.Logger.Warn("configuration stream ended; reconnecting", "error", err.Error(), "after", wait.String())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// Connected reports whether the stream is up now.
func (c *Client) Connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.Connected
}

// LastApplied returns the revision last applied and when; empty before the
// first configuration.
func (c *Client) LastApplied() (revision string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.Revision, c.stats.AppliedAt
}

// Refused returns how many frames the client refused.
func (c *Client) Refused() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.Refused
}

// Stats returns a copy of the client's state.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *Client) setConnected(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Connected = v
}

// stream opens one stream and reads it until it ends. healthy is true when
// the stream delivered a good configuration and lasted healthyAfter, which
// resets the backoff; the error says why the stream ended.
func (c *Client) stream(ctx context.Context, apply func(*gateproto.Config) error) (healthy bool, err error) {
	token, err := readBounded(c.opts.TokenFile, maxTokenBytes)
	if err != nil {
		return false, fmt.Errorf("reading the token: %w", err)
	}
	tok := strings.TrimSpace(string(token))
	if tok == "" {
		return false, errors.New("reading the token: the file is empty")
	}
	if _, err := c.transportFor(); err != nil {
		return false, err
	}
	c.trMu.Lock()
	tr := c.streamTransport
	c.trMu.Unlock()

	// The stream's context is cancelled when no frame came for
	// HeartbeatTimeout: that unblocks the read of a silent connection.
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(c.opts.HeartbeatTimeout+c.opts.ConnectTimeout, func() {
		cancel(errSilent)
	})
	defer watchdog.Stop()

	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.opts.URL+gateproto.ConfigPath, nil)
	if err != nil {
		return false, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", gateproto.StreamContentType)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return false, fmt.Errorf("connecting to the operator: %w", causeOr(sctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBytes))
		return false, &refusedError{status: resp.Status, msg: strings.TrimSpace(string(msg)), retryAfter: retryAfter(resp)}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != gateproto.StreamContentType {
		return false, fmt.Errorf("the operator answered %q, not %s", resp.Header.Get("Content-Type"), gateproto.StreamContentType)
	}

	c.mu.Lock()
	c.stats.Connected = true
	c.stats.Connections++
	c.mu.Unlock()
	connectedAt := time.Now()
	defer func() { healthy = healthy && time.Since(connectedAt) >= healthyAfter }()
	c.opts.Logger.Info("configuration stream connected", "proto", resp.Proto)
	watchdog.Reset(c.opts.HeartbeatTimeout)

	sc := bufio.NewScanner(resp.Body)
	// A frame is at most MaxFrameBytes with its newline; the buffer grows
	// to that only when a frame needs it.
	sc.Buffer(make([]byte, 0, 64<<10), gateproto.MaxFrameBytes)
	for sc.Scan() {
		watchdog.Reset(c.opts.HeartbeatTimeout)
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		done, good, err := c.handle(line, apply)
		healthy = healthy || good
		if done {
			return healthy, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			c.refuse("a frame is larger than the protocol allows", "limit", gateproto.MaxFrameBytes)
			return healthy, fmt.Errorf("reading the stream: a frame is larger than %d bytes", gateproto.MaxFrameBytes)
		}
		return healthy, fmt.Errorf("reading the stream: %w", causeOr(sctx, err))
	}
	// Over HTTP/1.1 a stream cut by the watchdog may read as a clean end.
	if cause := context.Cause(sctx); errors.Is(cause, errSilent) {
		return healthy, fmt.Errorf("reading the stream: %w", cause)
	}
	return healthy, errors.New("the operator closed the stream")
}

// refusedError is the operator's refusal of a stream, with the wait it
// asked for, if any.
type refusedError struct {
	status, msg string
	retryAfter  time.Duration
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("the operator refused the stream: %s: %s", e.status, e.msg)
}

// retryAfter reads the Retry-After of a 503 or 429 in seconds (the form
// the operator sends); zero when there is none.
func retryAfter(resp *http.Response) time.Duration {
	if resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(min(n, 3600)) * time.Second
}

// errSilent ends a stream on which no frame came for HeartbeatTimeout.
var errSilent = errors.New("no frame from the operator within the heartbeat timeout")

// causeOr returns why ctx ended when it did (a silent stream), else err.
func causeOr(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errSilent) {
		return cause
	}
	return err
}

// handle acts on one frame. done is true when the operator ends the
// stream; good when the frame gave the gate a valid configuration.
func (c *Client) handle(line []byte, apply func(*gateproto.Config) error) (done, good bool, err error) {
	var f gateproto.Frame
	if err := json.Unmarshal(line, &f); err != nil {
		c.refuse("a frame is not valid JSON", "error", err.Error())
		return false, false, nil
	}
	if f.Version != gateproto.Version {
		c.refuse("a frame speaks another protocol version", "version", f.Version, "want", gateproto.Version)
		return false, false, nil
	}
	switch f.Type {
	case gateproto.FrameHeartbeat:
		return false, false, nil
	case gateproto.FrameError:
		return true, false, fmt.Errorf("the operator closed the stream: %s", f.Error)
	case gateproto.FrameConfig:
		if err := f.Config.Validate(); err != nil {
			rev := ""
			if f.Config != nil {
				rev = f.Config.Revision
			}
			c.refuseConfig("a configuration fails validation; the last good one is kept", rev, err)
			return false, false, nil
		}
		c.mu.Lock()
		c.stats.Configs++
		same := f.Config.Revision == c.stats.Revision
		c.mu.Unlock()
		if same {
			return false, true, nil
		}
		if err := apply(f.Config); err != nil {
			c.refuseConfig("the gate refused a configuration; the last good one is kept", f.Config.Revision, err)
			return false, false, nil
		}
		c.mu.Lock()
		c.stats.Revision, c.stats.AppliedAt = f.Config.Revision, time.Now()
		c.mu.Unlock()
		c.opts.Logger.Info("configuration applied", "revision", f.Config.Revision,
			"namespace", f.Config.Namespace, "pod", f.Config.Pod, "servers", len(f.Config.Servers))
		return false, true, nil
	default:
		// Call outcomes and frame types of a later minor
		// revision are not this stream's business yet.
		c.opts.Logger.Debug("ignoring a frame", "type", string(f.Type))
		return false, false, nil
	}
}

// refuseConfig counts, logs and records a refused configuration.
func (c *Client) refuseConfig(why, revision string, err error) {
	c.mu.Lock()
	c.stats.LastRefusal = fmt.Sprintf("revision %q: %v", revision, err)
	c.mu.Unlock()
	c.refuse(why, "revision", revision, "error", err.Error())
}

// refuse counts and logs a refused frame, why saying what was wrong
// with it.
func (c *Client) refuse(why string, kv ...any) {
	c.mu.Lock()
	c.stats.Refused++
	c.mu.Unlock()
	c.opts.Logger.Warn("refused a frame", append([]any{"why", why}, kv...)...)
}

// transportFor returns the HTTP/2 transport trusting the CA in CAFile,
// made anew, with the stream's, when the CA changed.
//
// The configuration stream goes over HTTP/1.1, on a connection of its
// own: the operator then holds no goroutine and no HTTP/2 state for it
// between frames (an HTTP/2 stream costs it three goroutines and the
// connection's framer and header tables, most of its memory per gate).
// The token and TLS are the same either way. Calls and finding reports,
// which come and go, share one HTTP/2 connection.
func (c *Client) transportFor() (*http.Transport, error) {
	c.trMu.Lock()
	defer c.trMu.Unlock()
	caPEM, err := readBounded(c.opts.CAFile, maxCABytes)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	if c.transport != nil && bytes.Equal(caPEM, c.caPEM) {
		return c.transport, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("reading the CA: no PEM certificate in the file")
	}
	timeout := c.opts.ConnectTimeout
	tr := &http.Transport{
		DialContext:            (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: maxResponseHeaders,
		IdleConnTimeout:        90 * time.Second,
		HTTP2: &http.HTTP2Config{
			// A connection on which nothing arrives is pinged; an
			// unanswered ping closes it, and the stream with it.
			SendPingTimeout: c.opts.HeartbeatTimeout,
			PingTimeout:     timeout,
		},
	}
	// The stream's connection is its own and closes with it (the operator
	// says so); a silent one is found by the heartbeat timeout, and a dead
	// peer by TCP's keep-alives. A connection whose stream was refused is
	// kept for the next attempt, so that a gate told to come back later
	// costs the operator no second TLS handshake.
	var h1 http.Protocols
	h1.SetHTTP1(true)
	stream := &http.Transport{
		DialContext:            tr.DialContext,
		TLSClientConfig:        tr.TLSClientConfig.Clone(),
		Protocols:              &h1,
		MaxIdleConnsPerHost:    1,
		IdleConnTimeout:        tr.IdleConnTimeout,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: maxResponseHeaders,
	}
	if c.transport != nil {
		c.transport.CloseIdleConnections()
		c.streamTransport.CloseIdleConnections()
	}
	c.transport, c.streamTransport, c.caPEM = tr, stream, caPEM
	return tr, nil
}

// readBounded reads a small file whole, refusing one larger than limit.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}
