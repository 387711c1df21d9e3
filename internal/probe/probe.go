package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
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

// RefusedEndpoint is the reason of a probe refused because the endpoint is
// an address probes may not reach (a link-local or cloud metadata address).
const RefusedEndpoint Reason = toolgatev1alpha1.ReasonInvalidEndpoint

// Error is a failed probe.
//
// Its message is in the probe's own words: what failed, at which step,
// the HTTP status, the bound exceeded. It never quotes the server: whoever
// creates an MCPServer chooses the URL and the headers, and a message that
// quoted the answer would read internal URLs back to them through the
// MCPServer's status. What the server or the SDK said is kept in Err, for
// errors.Is and errors.As, and not printed.
type Error struct {
	Reason Reason
	// Msg says what failed, in the probe's own words.
	Msg string
	// Err is the cause. It may carry text the server sent.
	Err error
}

// Error is the Reason and Msg; Err is never printed.
func (e *Error) Error() string {
	if e.Msg == "" {
		return string(e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Reason, e.Msg)
}
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
	// MaxDecodedBytes caps the memory one probe's catalogue takes decoded
	// (its trees and canonical forms, estimated as the heap holds them),
	// which is several times its size on the wire for a catalogue of many
	// small values. Zero means no cap.
	MaxDecodedBytes int64
}

// DefaultLimits are generous for real servers: the largest catalogue of
// the development corpus is well under a megabyte.
var DefaultLimits = Limits{
	MaxTools:         toolgatev1alpha1.DefaultMaxTools,
	MaxPages:         100,
	MaxResponseBytes: 8 << 20,
	MaxTotalBytes:    32 << 20,
	MaxStringBytes:   256 << 10,
	MaxDecodedBytes:  DefaultMaxDecodedBytes,
}

// DefaultMaxDecodedBytes is the default per-probe memory budget, and
// DefaultGlobalBudget the default budget of all probes of a process
// together; docs/performance.md has the measurements they come from.
const (
	DefaultMaxDecodedBytes = 32 << 20
	DefaultGlobalBudget    = 64 << 20
)

// DefaultClientName and DefaultClientVersion are the clientInfo a probe
// gives unless configured: what the MCP Python SDK's ClientSession sends
// for an agent whose author named nothing, so the most agents send it too.
// A name of the probe's own would let a server show the probe one face and
// agents another. Nothing else the probe sends names it: its requests carry
// Go's own User-Agent, as any Go agent's do, or the one the MCPServer's
// headers set.
const (
	DefaultClientName    = "mcp"
	DefaultClientVersion = "0.1.0"
)

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
	// ClientName and ClientVersion are the clientInfo the probe gives in
	// initialize; empty, DefaultClientName and DefaultClientVersion.
	ClientName, ClientVersion string
	// RootCAsPEM is the PEM bundle TLS.RootCAs was built from. The probe
	// does not read it; it identifies the configuration, so that a rotated
	// CA triggers a probe.
	RootCAsPEM []byte
	// Budget is the memory shared by every probe of the process; nil is
	// unlimited (Limits.MaxDecodedBytes still caps each probe).
	Budget *Budget
	// AllowLinkLocal lets the probe connect to link-local and cloud
	// metadata addresses, which it refuses by default, after resolving
	// the name: whoever creates an MCPServer must not read the node's
	// cloud credentials through the operator.
	AllowLinkLocal bool

	// lookup and dial replace the resolver and the dialer in tests.
	lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, address string) (net.Conn, error)
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
	// Addresses are the endpoint host's addresses as the probe resolved
	// and checked them (the host itself when it is an address), sorted;
	// nil when the probe did not resolve the host. The gate is given
	// these to dial, so that nothing in an agent's pod (its /etc/hosts,
	// its resolver) decides where the server's credentials go.
	Addresses []netip.Addr
}

// Probe connects to the server, initializes, and reads its whole catalogue.
func Probe(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	meter := &meter{limits: cfg.Limits, global: cfg.Budget}
	defer meter.close()
	cat := newCatalogue(cfg.Limits, meter)
	httpClient, guard := newHTTPClient(cfg, meter, cat)
	defer httpClient.CloseIdleConnections()

	transport, err := newTransport(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: cfg.ClientName, Version: cfg.ClientVersion}, nil)
	session, err := client.Connect(ctx, &captureTransport{inner: transport, cat: cat}, nil)
	if err != nil {
		return nil, classify(ctx, cfg, meter, cat, "initialize", err)
	}
	defer session.Close()
	// An answer refused on the way fails the probe even when the SDK got
	// past it: it falls back from server/discover to initialize on any
	// error, and an agent's client may read the answer the probe refused.
	if perr := cat.failure(); perr != nil {
		return nil, classify(ctx, cfg, meter, cat, "initialize", perr)
	}

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
				return nil, &Error{Reason: TooLarge, Msg: fmt.Sprintf("the server's %s are %d bytes, over the limit of %d", what, len(s), limit)}
			}
		}
	}

	// Page through tools/list. The catalogue decodes every page as it
	// arrives and hands the SDK the page without its tools.
	seen := map[string]bool{}
	cursor := ""
	for {
		if res.Pages >= cfg.Limits.MaxPages {
			return nil, &Error{Reason: TooLarge, Msg: fmt.Sprintf("more than %d pages of tools", cfg.Limits.MaxPages)}
		}
		page, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, classify(ctx, cfg, meter, cat, "tools/list", err)
		}
		res.Pages++
		cat.mu.Lock()
		delivered, next := cat.delivered, cat.cursor
		cat.mu.Unlock()
		if delivered != res.Pages || next != page.NextCursor {
			return nil, invalid("tools/list: page %d was not seen on the connection", res.Pages)
		}
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			return nil, invalid("tools/list: a cursor came back a second time, after page %d", res.Pages)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}

	cat.mu.Lock()
	tools := cat.tools
	cat.mu.Unlock()
	if tools == nil {
		tools = []*tooldef.Tool{}
	}
	res.Catalogue = &tooldef.Catalogue{Tools: tools, Instructions: res.Instructions, ServerName: res.ServerName}
	res.Bytes = meter.total()
	res.Duration = time.Since(start)
	res.Addresses = guard.addresses()
	return res, nil
}

// classify turns an SDK or transport error into a Reason and a message in
// the probe's own words. The SDK's errors may quote what the server sent
// (a line of the body, an SSE data payload, a JSON-RPC error message): they
// are kept as the cause, never in the message.
func classify(ctx context.Context, cfg Config, m *meter, cat *catalogue, step string, err error) error {
	if perr := cat.failure(); perr != nil {
		if strings.HasPrefix(perr.Msg, "tools/list") {
			return perr
		}
		return &Error{Reason: perr.Reason, Msg: step + ": " + perr.Msg, Err: perr.Err}
	}
	var perr *Error
	if errors.As(err, &perr) {
		return perr
	}
	var refused *refusedError
	if !errors.As(err, &refused) {
		errors.As(m.refusal(), &refused)
	}
	status := m.status()
	var rpcErr *jsonrpc.Error
	switch {
	case refused != nil:
		return &Error{Reason: RefusedEndpoint, Err: err, Msg: fmt.Sprintf("%s: refusing to connect: %v (an operator flag allows them)", step, refused)}
	case m.overLimit() != nil:
		return &Error{Reason: TooLarge, Err: err, Msg: fmt.Sprintf("%s: %v", step, m.overLimit())}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &Error{Reason: Timeout, Err: err, Msg: fmt.Sprintf("%s: no answer within the probe's deadline of %s", step, cfg.Timeout)}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Reason: Unauthorized, Err: err, Msg: fmt.Sprintf("%s: the server answered HTTP %d", step, status)}
	case status >= 400:
		return &Error{Reason: InvalidResponse, Err: err, Msg: fmt.Sprintf("%s: the server answered HTTP %d", step, status)}
	case !m.answered():
		// Whatever failed before the server sent a response (DNS, a
		// refused connection, a TLS handshake, a reset) means nothing
		// answered. Those errors are the network's and the TLS stack's,
		// not the server's text.
		return &Error{Reason: Unreachable, Err: err, Msg: fmt.Sprintf("%s: %s", step, networkError(err))}
	case m.notMCPType():
		return &Error{Reason: InvalidResponse, Err: err, Msg: fmt.Sprintf("%s: the server answered HTTP 200 with a content type MCP does not use (want application/json or text/event-stream)", step)}
	case errors.As(err, &rpcErr) && rpcErr.Code != 0:
		return &Error{Reason: InvalidResponse, Err: err, Msg: fmt.Sprintf("%s: the call failed with JSON-RPC error %d", step, rpcErr.Code)}
	}
	return &Error{Reason: InvalidResponse, Err: err, Msg: fmt.Sprintf("%s: the server's answer is not a valid MCP response", step)}
}

// networkError describes a failure to reach the server from the errors of
// the network and the TLS stack, which name addresses, system calls and
// certificates, never a response body.
func networkError(err error) string {
	var (
		dnsErr  *net.DNSError
		opErr   *net.OpError
		certErr *tls.CertificateVerificationError
		x509Err x509.UnknownAuthorityError
		hostErr x509.HostnameError
		recErr  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.As(err, &certErr):
		return certErr.Error()
	case errors.As(err, &x509Err):
		return x509Err.Error()
	case errors.As(err, &hostErr):
		return hostErr.Error()
	case errors.As(err, &recErr):
		return "the server does not speak TLS"
	case errors.As(err, &opErr):
		return opErr.Error()
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection without answering"
	}
	return "the server could not be reached"
}

// newHTTPClient builds the probe's HTTP client: its own transport with
// connect deadlines, TLS settings and a dialer that refuses metadata
// addresses, headers on every request, capped response bodies, and
// tools/list pages decoded off the wire.
func newHTTPClient(cfg Config, m *meter, cat *catalogue) (*http.Client, *guardedDialer) {
	netDialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	origin, _ := url.Parse(cfg.URL)
	guard := &guardedDialer{allowLinkLocal: cfg.AllowLinkLocal, lookup: cfg.lookup, dial: cfg.dial, refused: m.refuse}
	if origin != nil {
		guard.origin = origin.Hostname()
	}
	if guard.lookup == nil {
		guard.lookup = net.DefaultResolver.LookupNetIP
	}
	if guard.dial == nil {
		guard.dial = netDialer.DialContext
	}
	base := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            guard.DialContext,
		TLSClientConfig:        cfg.TLS,
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.ConnectTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{
		Transport: &boundedTransport{base: base, header: cfg.Header, meter: m, cat: cat, guard: guard, origin: origin},
		// Redirects could carry credentials to another host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, guard
}

type boundedTransport struct {
	base   *http.Transport
	header http.Header
	meter  *meter
	cat    *catalogue
	guard  *guardedDialer
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
	if proxy, err := t.base.Proxy(req); err == nil && proxy != nil {
		if err := t.guard.checkHost(req.Context(), req.URL.Hostname()); err != nil {
			return nil, err
		}
	}
	list := isToolsListCall(req)
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
	body := &boundedBody{ReadCloser: resp.Body, meter: t.meter, max: t.meter.limits.MaxResponseBytes}
	resp.Body = body
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	switch mediaType(resp) {
	case "text/event-stream":
		// Every event is decoded as it arrives, and the SDK reads the
		// events again encoded, pages without their tools.
		resp.Body = newEventRewriter(body, t.cat, t.meter.limits)
	case "application/json":
		// The answer is read whole (within the response cap) and its
		// member names checked before anything decodes it.
		if !list {
			// The SDK decodes it from these bytes; they are charged
			// as it buffers them, until the connection delivers the
			// message.
			body.buffered = true
		}
		data, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			return nil, err
		}
		if !list {
			if perr := t.cat.checkNames(data); perr != nil {
				return nil, perr
			}
			resp.Body = io.NopCloser(bytes.NewReader(data))
			break
		}
		// A page: decoded here; the SDK reads the page without its
		// tools.
		out, err := t.cat.decodeWhole(data, func() bool { return true })
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(out))
		resp.ContentLength = int64(len(out))
		resp.Header.Del("Content-Length")
	default:
		// Not MCP: the body is not read at all, so none of it can reach
		// a message.
		body.Close()
		resp.Body = http.NoBody
		t.meter.mu.Lock()
		t.meter.notMCP = true
		t.meter.mu.Unlock()
	}
	return resp, nil
}

// boundedBody fails a read that goes past the per-response or the
// per-probe cap, and records which cap it was. The bytes of a body the
// SDK buffers are charged to the global budget as they are read.
type boundedBody struct {
	io.ReadCloser
	meter    *meter
	read     int64
	max      int64
	buffered bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	m := b.meter
	m.mu.Lock()
	m.bytes += int64(n)
	switch {
	case b.max > 0 && b.read > b.max:
		_ = m.fail(fmt.Errorf("a response of more than %d bytes", b.max))
	case m.limits.MaxTotalBytes > 0 && m.bytes > m.limits.MaxTotalBytes:
		_ = m.fail(fmt.Errorf("more than %d bytes in all", m.limits.MaxTotalBytes))
	case b.buffered && n > 0:
		_ = m.chargeBuffered(int64(n))
	}
	over := m.over
	m.mu.Unlock()
	if over != nil {
		return n, over
	}
	return n, err
}

// withDefaults fills in what cfg leaves unset: the timeouts and limits
// every probe, with or without credentials, runs under.
func (cfg Config) withDefaults() Config {
	if cfg.Timeout <= 0 {
		cfg.Timeout = toolgatev1alpha1.DefaultProbeTimeout
	}
	if cfg.ConnectTimeout <= 0 || cfg.ConnectTimeout > cfg.Timeout {
		cfg.ConnectTimeout = min(10*time.Second, cfg.Timeout)
	}
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
	}
	if cfg.ClientName == "" {
		cfg.ClientName, cfg.ClientVersion = DefaultClientName, DefaultClientVersion
	}
	return cfg
}

// newTransport is the MCP client transport for cfg's transport over
// httpClient: no retries (a probe reports failure; it does not hammer), no
// standalone event stream, events bounded by the response limit.
func newTransport(cfg Config, httpClient *http.Client) (mcp.Transport, error) {
	switch cfg.Transport {
	case "", toolgatev1alpha1.TransportStreamableHTTP:
		return &mcp.StreamableClientTransport{
			Endpoint: cfg.URL, HTTPClient: httpClient,
			MaxRetries:           -1,
			DisableStandaloneSSE: true,
			MaxEventSize:         int(cfg.Limits.MaxResponseBytes),
		}, nil
	case toolgatev1alpha1.TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient, MaxEventSize: int(cfg.Limits.MaxResponseBytes)}, nil
	}
	return nil, invalid("unknown transport %q", cfg.Transport)
}
