package gate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// clientKey is what makes two upstreams need different HTTP clients: the
// TLS trust and the header timeout. Clients are kept across
// configurations, so a new configuration does not drop pooled connections.
type clientKey struct {
	caPEM, serverName string
	timeout           time.Duration
	// addresses are the upstream's Addresses, joined: the only places the
	// client's dialer connects to when set.
	addresses string
	// noResolve: the upstream names a host, carries credentials and comes
	// with no addresses; its client dials nothing (see unresolvedDialer).
	noResolve bool
}

func (g *Gate) client(u *gateproto.Upstream) (*http.Client, error) {
	key := clientKey{caPEM: u.CAPEM, serverName: u.ServerName, timeout: u.Timeout.Duration, addresses: strings.Join(u.Addresses, ","),
		noResolve: len(u.Addresses) == 0 && len(u.Headers) > 0 && namesAHost(u.URL)}
	if key.timeout <= 0 {
		key.timeout = g.limits.ResponseHeaderTimeout
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.clients[key]; c != nil {
		return c, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: u.ServerName}
	if u.CAPEM != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(u.CAPEM)) {
			return nil, errors.New("upstream.caPEM holds no certificate")
		}
		tlsConfig.RootCAs = pool
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	dial := dialer.DialContext
	switch {
	case len(u.Addresses) > 0:
		dial = pinnedDialer(dialer, slices.Clone(u.Addresses))
	case key.noResolve:
		dial = unresolvedDialer
	}
	t := &http.Transport{
		// No proxy from the environment: the gate reaches exactly the
		// address the operator configured.
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       tlsConfig,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: key.timeout,
		IdleConnTimeout:       90 * time.Second,
		// Agents open many concurrent requests to one server; the default
		// of two idle connections per host would make every extra one
		// dial again.
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    128,
		MaxResponseHeaderBytes: 64 << 10,
		// The gate does not ask servers for gzip. Asking costs every
		// request a header map of the transport's own (Accept-Encoding is
		// added beside the request's headers), and every answer would be
		// inflated before it is judged anyway; a server on loopback or the
		// pod's network gains nothing from compressing for the gate, and
		// an answer that inflates a hundredfold is one the gate need not
		// read at all.
		DisableCompression: true,
		// Every connection to a server keeps a read and a write buffer
		// for as long as it lives, and an agent's session holds two at
		// once (its stream's and its requests'): at the default 4 KiB
		// each they were a fifth of the gate's live heap with 64
		// sessions open. What the gate writes is a request's headers
		// and a small body, and what it reads goes on into an event
		// reader or a JSON scan with buffers of their own (reads larger
		// than this buffer bypass it), so 2 KiB costs no more reads.
		ReadBufferSize:  2 << 10,
		WriteBufferSize: 2 << 10,
	}
	c := &http.Client{
		Transport: t,
		// A redirect would take the gate's credentials somewhere the
		// operator did not name.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	g.clients[key] = c
	return c, nil
}

// send sends one request to the server and returns its response, through
// the server's transport itself rather than its http.Client. The client
// would add only what the gate has no use for on every request: a copy of
// the request's headers kept for redirects, which the gate never follows
// (the client's CheckRedirect stops at the first), and the machinery of a
// deadline it does not set. The response is the one the client would
// return, and a failure the same error, unwrapped from *url.Error: a
// timeout still reports itself as a net.Error's.
func (ss *serverState) send(req *http.Request) (*http.Response, error) {
	return ss.client.Transport.RoundTrip(req)
}

// pinnedDialer connects to the operator's addresses, in order, at the
// port asked for, whatever host the request names. The kubelet writes the
// gate's /etc/hosts and resolv.conf from the pod's spec, which the agent's
// author wrote: resolving the upstream's name here would let them choose
// where the credentials go. TLS is unaffected: the transport verifies the
// certificate against the URL's host (or the configured server name), not
// the address dialed.
func pinnedDialer(d *net.Dialer, addresses []string) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		var firstErr error
		for _, ip := range addresses {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip, port))
			if err == nil {
				return conn, nil
			}
			if firstErr == nil {
				firstErr = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, firstErr
	}
}

// errNoAddresses refuses to resolve, in the agent's pod, the name of an
// upstream the gate holds credentials for.
var errNoAddresses = errors.New("the operator gave no addresses for this server, and the gate does not resolve the name of a server it holds credentials for: " +
	"the pod's /etc/hosts and resolver are the agent's to write (the MCPServer's status.addresses fills at its next successful probe)")

// unresolvedDialer dials nothing. Were the gate to resolve the name, the
// credentials would go wherever the pod's /etc/hosts or resolver say —
// files a root agent container can rewrite at run time, whatever the
// pod's spec was admitted with. A configuration written by hand without
// credentials still resolves.
func unresolvedDialer(context.Context, string, string) (net.Conn, error) { return nil, errNoAddresses }

// namesAHost reports whether rawURL's host is a name rather than an IP
// address.
func namesAHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return true
	}
	_, err = netip.ParseAddr(u.Hostname())
	return err != nil
}

// forwardedRequestHeaders are the only agent headers the gate passes on:
// what MCP's HTTP transports define. Authorization, cookies, proxy and
// forwarding headers stay behind — the gate sets the server's credentials
// itself, and an agent must not be able to replace or add to them. The
// agent's Mcp-Method and Mcp-Name are replaced by values written from the
// judged message (setStandardHeaders), and its Mcp-Param-* never pass: the
// gate writes them from the judged arguments (paramHeaders), so that no
// header says anything the body the gate judged does not.
var forwardedRequestHeaders = []string{
	"Accept", "Last-Event-Id", "User-Agent",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name",
}

// forwardedResponseHeaders are the server headers the agent sees. Cookies
// and authentication challenges are the gate's business with the server,
// not the agent's. Content-Type is the gate's own, the bare media type it
// judged the body as: a charset would have a client decode the bytes as
// something other than the UTF-8 the gate read.
var forwardedResponseHeaders = []string{
	"Cache-Control", "Mcp-Session-Id", "Mcp-Protocol-Version", "Allow", "Retry-After",
}

func copyRequestHeaders(dst, src http.Header) {
	for _, k := range forwardedRequestHeaders {
		if v := src.Values(k); len(v) > 0 {
			dst[k] = v
		}
	}
	// The gate reads the first value of these; a server reading another
	// would speak another session or revision than the one judged.
	for _, k := range singleValued {
		if v := src.Values(k); len(v) > 1 {
			dst.Set(k, v[0])
		}
	}
}

// singleValued are the forwarded headers the gate acts on by their first
// value, and so forwards with that value alone.
var singleValued = []string{"Mcp-Session-Id", "Mcp-Protocol-Version"}

func copyResponseHeaders(dst, src http.Header) {
	for _, k := range forwardedResponseHeaders {
		if v := src.Values(k); len(v) > 0 {
			dst[k] = v
		}
	}
}

// newUpstreamRequest builds a request to a server with the agent's allowed
// headers and the server's credentials, which win over anything else.
func newUpstreamRequest(ctx context.Context, ss *serverState, method, target string, body io.Reader, agent http.Header) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if agent != nil {
		copyRequestHeaders(req.Header, agent)
	}
	if body != nil {
		// The gate read the body as UTF-8 JSON, and says so: a charset
		// of the agent's (utf-7, utf-16) would have the server decode
		// other members from the same bytes.
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("User-Agent") == "" {
		// The gate does not announce itself: a server that could tell it
		// from the agent, or from the operator's probe, could show each
		// something else. The agent's own User-Agent passes; without one,
		// the one Go's HTTP client sends by default.
		req.Header.Set("User-Agent", "Go-http-client/1.1")
	}
	for k, v := range ss.cfg.Upstream.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// idleBody cancels a response when no byte arrives for too long: a server
// may stream a result for as long as it keeps sending, but not hang.
type idleBody struct {
	io.ReadCloser
	timer *time.Timer
	d     time.Duration
}

func newIdleBody(body io.ReadCloser, d time.Duration, cancel context.CancelFunc) *idleBody {
	return &idleBody{ReadCloser: body, timer: time.AfterFunc(d, cancel), d: d}
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.timer.Reset(b.d)
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}
