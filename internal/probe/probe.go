package probe

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Reason says why a probe failed, in words a user can act on. Its values
// are the API's condition reasons, so a failure reads the same in a
// condition, an event and a metric.
type Reason string

// Failure reasons.
const (
	// Unreachable: nothing answered (DNS, connection refused, TLS).
	Unreachable Reason = toolgatev1alpha1.ReasonUnreachable
	// Unauthorized: the server refused the credentials (HTTP 401 or 403).
	Unauthorized Reason = toolgatev1alpha1.ReasonUnauthorized
	// Timeout: the server did not finish within the probe's deadline.
	Timeout Reason = toolgatev1alpha1.ReasonTimeout
	// InvalidResponse: the server answered with something that is not a
	// valid MCP response or tool catalogue.
	InvalidResponse Reason = toolgatev1alpha1.ReasonInvalidResponse
	// TooLarge: the server's answer exceeds a bound; none of it is trusted.
	TooLarge Reason = toolgatev1alpha1.ReasonTooLarge
)

// Error is a failed probe.
type Error struct {
	Reason Reason
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Reason, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// ReasonOf says why err failed a probe: the Reason of a probe Error, and
// InvalidResponse for anything else, so that no failure goes unexplained.
func ReasonOf(err error) Reason {
	var perr *Error
	if errors.As(err, &perr) {
		return perr.Reason
	}
	return InvalidResponse
}

// Limits bound a probe.
type Limits struct {
	// MaxTools is the most tools a catalogue may have, over all pages.
	MaxTools int
	// MaxPages is the most tools/list pages read.
	MaxPages int
	// MaxResponseBytes caps one HTTP response body (and one SSE event).
	MaxResponseBytes int64
	// MaxTotalBytes caps all response bodies of one probe together.
	MaxTotalBytes int64
	// MaxStringBytes caps any one string: a description, a name, the
	// instructions.
	MaxStringBytes int
}

// DefaultLimits are generous for real servers.
var DefaultLimits = Limits{
	MaxTools:         toolgatev1alpha1.DefaultMaxTools,
	MaxPages:         100,
	MaxResponseBytes: 8 << 20,
	MaxTotalBytes:    32 << 20,
	MaxStringBytes:   256 << 10,
}

// Config says how to reach one server.
type Config struct {
	// URL of the MCP endpoint.
	URL string
	// Transport is the API's transport; empty means streamable HTTP.
	Transport toolgatev1alpha1.Transport
	// Header is sent with every request (Authorization, custom headers).
	Header http.Header
	// TLS configures server verification for https; nil uses the system
	// roots.
	TLS *tls.Config
	// Timeout bounds the whole probe.
	Timeout time.Duration
	// ConnectTimeout bounds dialing, the TLS handshake and waiting for
	// response headers.
	ConnectTimeout time.Duration
	// Limits bound what the server may send.
	Limits Limits
	// ClientVersion is reported to the server in initialize.
	ClientVersion string
	// RootCAsPEM is the PEM bundle TLS.RootCAs was built from. The probe
	// does not read it; it identifies the configuration, so that a rotated
	// CA triggers a probe.
	RootCAsPEM []byte
}

// Result is what a probe found.
type Result struct {
	ServerName      string
	ServerTitle     string
	ServerVersion   string
	ProtocolVersion string
	Instructions    string
	Catalogue       *tooldef.Catalogue
	Pages           int
	Bytes           int64
	Duration        time.Duration
}

// Probe connects to the server, initializes, and reads its whole catalogue.
func Probe(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = toolgatev1alpha1.DefaultProbeTimeout
	}
	if cfg.ConnectTimeout <= 0 || cfg.ConnectTimeout > cfg.Timeout {
		cfg.ConnectTimeout = min(10*time.Second, cfg.Timeout)
	}
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	meter := &meter{limits: cfg.Limits}
	httpClient := newHTTPClient(cfg, meter)
	defer httpClient.CloseIdleConnections()

	var transport mcp.Transport
	switch cfg.Transport {
	case "", toolgatev1alpha1.TransportStreamableHTTP:
		transport = &mcp.StreamableClientTransport{
			Endpoint: cfg.URL, HTTPClient: httpClient,
			MaxRetries:           -1, // a probe reports failure; it does not hammer
			DisableStandaloneSSE: true,
			MaxEventSize:         int(cfg.Limits.MaxResponseBytes),
		}
	case toolgatev1alpha1.TransportSSE:
		transport = &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient, MaxEventSize: int(cfg.Limits.MaxResponseBytes)}
	default:
		return nil, &Error{Reason: InvalidResponse, Err: fmt.Errorf("unknown transport %q", cfg.Transport)}
	}
	capture := &capture{pending: map[any]bool{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgate", Version: cfg.ClientVersion}, nil)
	session, err := client.Connect(ctx, &captureTransport{inner: transport, capture: capture}, nil)
	if err != nil {
		return nil, classify(ctx, meter, fmt.Errorf("initialize: %w", err))
	}
	defer session.Close()

	init := session.InitializeResult()
	res := &Result{}
	if init != nil {
		res.ProtocolVersion = init.ProtocolVersion
		res.Instructions = init.Instructions
		if init.ServerInfo != nil {
			res.ServerName, res.ServerTitle, res.ServerVersion = init.ServerInfo.Name, init.ServerInfo.Title, init.ServerInfo.Version
		}
	}
	if limit := cfg.Limits.MaxStringBytes; limit > 0 {
		for what, s := range map[string]string{"instructions": res.Instructions, "server name": res.ServerName, "server title": res.ServerTitle, "server version": res.ServerVersion} {
			if len(s) > limit {
				return nil, &Error{Reason: TooLarge, Err: fmt.Errorf("the server's %s are %d bytes, over the limit of %d", what, len(s), limit)}
			}
		}
	}

	// Page through tools/list. The SDK decodes each page; the raw page
	// captured off the connection is what is kept.
	rawTools := []json.RawMessage{} // an empty catalogue is [], not null
	seen := map[string]bool{}
	cursor := ""
	for {
		if res.Pages >= cfg.Limits.MaxPages {
			return nil, &Error{Reason: TooLarge, Err: fmt.Errorf("more than %d pages of tools", cfg.Limits.MaxPages)}
		}
		page, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, classify(ctx, meter, fmt.Errorf("tools/list: %w", err))
		}
		res.Pages++
		raw := capture.take()
		if raw == nil {
			return nil, &Error{Reason: InvalidResponse, Err: errors.New("tools/list: no response captured")}
		}
		var body struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, &Error{Reason: InvalidResponse, Err: fmt.Errorf("tools/list page %d: %w", res.Pages, err)}
		}
		rawTools = append(rawTools, body.Tools...)
		if len(rawTools) > cfg.Limits.MaxTools {
			return nil, &Error{Reason: TooLarge, Err: fmt.Errorf("more than %d tools", cfg.Limits.MaxTools)}
		}
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			return nil, &Error{Reason: InvalidResponse, Err: fmt.Errorf("tools/list: the cursor %q came back a second time", page.NextCursor)}
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}

	all, err := json.Marshal(rawTools)
	if err != nil {
		return nil, &Error{Reason: InvalidResponse, Err: err}
	}
	cat, err := tooldef.ParseCatalogue(all, tooldef.Limits{MaxTools: cfg.Limits.MaxTools, MaxStringBytes: cfg.Limits.MaxStringBytes})
	if err != nil {
		if errors.Is(err, tooldef.ErrTooLarge) {
			return nil, &Error{Reason: TooLarge, Err: fmt.Errorf("tools/list: %w", err)}
		}
		return nil, &Error{Reason: InvalidResponse, Err: fmt.Errorf("tools/list: %w", err)}
	}
	cat.Instructions, cat.ServerName = res.Instructions, res.ServerName
	res.Catalogue = cat
	res.Bytes = meter.total()
	res.Duration = time.Since(start)
	return res, nil
}

// classify turns an SDK or transport error into a Reason.
func classify(ctx context.Context, m *meter, err error) error {
	switch {
	case m.overLimit() != nil:
		return &Error{Reason: TooLarge, Err: m.overLimit()}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &Error{Reason: Timeout, Err: err}
	case m.status() == http.StatusUnauthorized || m.status() == http.StatusForbidden:
		return &Error{Reason: Unauthorized, Err: fmt.Errorf("the server answered HTTP %d: %w", m.status(), err)}
	case m.status() >= 400:
		return &Error{Reason: InvalidResponse, Err: fmt.Errorf("the server answered HTTP %d: %w", m.status(), err)}
	}
	// Whatever failed before the server sent a response (DNS, a refused
	// connection, a TLS handshake, a reset) means nothing answered.
	if !m.answered() {
		return &Error{Reason: Unreachable, Err: err}
	}
	return &Error{Reason: InvalidResponse, Err: err}
}

// captureTransport keeps the raw result of every tools/list response.
type captureTransport struct {
	inner   mcp.Transport
	capture *capture
}

func (t *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, capture: t.capture}, nil
}

type capture struct {
	mu      sync.Mutex
	pending map[any]bool
	last    json.RawMessage
}

func (c *capture) take() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw := c.last
	c.last = nil
	return raw
}

type captureConn struct {
	mcp.Connection
	capture *capture
}

func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.capture.mu.Lock()
		c.capture.pending[req.ID.Raw()] = true
		c.capture.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.capture.mu.Lock()
		if c.capture.pending[resp.ID.Raw()] {
			delete(c.capture.pending, resp.ID.Raw())
			c.capture.last = append(json.RawMessage(nil), resp.Result...)
		}
		c.capture.mu.Unlock()
	}
	return msg, err
}

// meter bounds and observes the HTTP traffic of one probe.
type meter struct {
	limits Limits
	mu     sync.Mutex
	bytes  int64
	last   int
	got    bool
	over   error
}

func (m *meter) total() int64 { m.mu.Lock(); defer m.mu.Unlock(); return m.bytes }
func (m *meter) status() int  { m.mu.Lock(); defer m.mu.Unlock(); return m.last }
func (m *meter) answered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.got
}
func (m *meter) overLimit() error { m.mu.Lock(); defer m.mu.Unlock(); return m.over }

// newHTTPClient builds the probe's HTTP client: its own transport with
// connect deadlines and TLS settings, headers on every request, and capped
// response bodies.
func newHTTPClient(cfg Config, m *meter) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	base := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        cfg.TLS,
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.ConnectTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
	}
	origin, _ := url.Parse(cfg.URL)
	return &http.Client{
		Transport: &boundedTransport{base: base, header: cfg.Header, meter: m, origin: origin},
		// Redirects could carry credentials to another host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type boundedTransport struct {
	base   *http.Transport
	header http.Header
	meter  *meter
	// origin is the configured endpoint. Every request must go to its
	// scheme, host and port: an SSE server names the URL to post to, and
	// a hostile one would otherwise receive the credentials elsewhere.
	origin *url.URL
}

func (t *boundedTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.origin == nil || req.URL.Scheme != t.origin.Scheme || !strings.EqualFold(req.URL.Host, t.origin.Host) {
		return nil, fmt.Errorf("refusing a request to %s://%s: the server may only be reached at %s://%s", req.URL.Scheme, req.URL.Host, t.origin.Scheme, t.origin.Host)
	}
	req = req.Clone(req.Context())
	for k, vs := range t.header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.meter.mu.Lock()
	t.meter.last, t.meter.got = resp.StatusCode, true
	t.meter.mu.Unlock()
	resp.Body = &boundedBody{ReadCloser: resp.Body, meter: t.meter, max: t.meter.limits.MaxResponseBytes}
	return resp, nil
}

// boundedBody fails a read that goes past the per-response or the
// per-probe cap, and records which cap it was.
type boundedBody struct {
	io.ReadCloser
	meter *meter
	read  int64
	max   int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	m := b.meter
	m.mu.Lock()
	m.bytes += int64(n)
	switch {
	case b.max > 0 && b.read > b.max:
		if m.over == nil {
			m.over = fmt.Errorf("a response of more than %d bytes", b.max)
		}
	case m.limits.MaxTotalBytes > 0 && m.bytes > m.limits.MaxTotalBytes:
		if m.over == nil {
			m.over = fmt.Errorf("more than %d bytes in all", m.limits.MaxTotalBytes)
		}
	}
	over := m.over
	m.mu.Unlock()
	if over != nil {
		return n, over
	}
	return n, err
}
