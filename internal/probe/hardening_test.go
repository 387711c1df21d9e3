package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// serveFramed serves s over streamable HTTP, answering in plain JSON or in
// server-sent events, and applies f to every tools/list answer.
func serveFramed(t *testing.T, s *mcp.Server, jsonResponse bool, f func([]byte) []byte) string {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
	if f != nil {
		h = rewriteToolsList(f)(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

var framings = []struct {
	name string
	json bool
}{{"json", true}, {"event-stream", false}}

// TestDuplicateMembers: a duplicate member anywhere in what the
// probe reads — the JSON-RPC response, the tools/list result, a tool, a
// nested schema — is refused with InvalidResponse, whether the page comes
// as plain JSON or as server-sent events (both decoded by the probe as
// they arrive). Before, a second "tools" member replaced the first.
func TestDuplicateMembers(t *testing.T) {
	tool := func() *mcp.Tool {
		return &mcp.Tool{Name: "ping", Description: "Checks that the server answers.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"host":{"type":"string"}}}`)}
	}
	cases := []struct {
		name     string
		rewrite  func([]byte) []byte
		contains string
	}{
		{"tools in the result", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"tools":[`), []byte(`"tools":[],"tools":[`), 1)
		}, `page 1: the member "tools" appears twice in the result`},
		{"description in a tool", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"description":"Checks`), []byte(`"description":"Harmless.","description":"Checks`), 1)
		}, `the member "description" appears twice in tools[0]`},
		{"a property in a nested schema", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"host":{"type":"string"}`), []byte(`"host":{"type":"string"},"host":{"type":"integer"}`), 1)
		}, `appears twice in tools[0].inputSchema.properties`},
		{"a keyword in a nested schema", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`{"type":"string"}`), []byte(`{"type":"string","type":"integer"}`), 1)
		}, `the member "type" appears twice in tools[0].inputSchema.properties.…`},
		{"result in the response", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"result":{`), []byte(`"result":{"tools":[]},"result":{`), 1)
		}, `the member "result" appears twice in the JSON-RPC response`},
		{"nextCursor", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"tools":[`), []byte(`"nextCursor":"a","nextCursor":"b","tools":[`), 1)
		}, `the member "nextCursor" appears twice`},
	}
	for _, fr := range framings {
		for _, tc := range cases {
			t.Run(fr.name+"/"+tc.name, func(t *testing.T) {
				url := serveFramed(t, newServer(nil, tool()), fr.json, func(b []byte) []byte {
					out := tc.rewrite(b)
					if bytes.Equal(out, b) {
						t.Errorf("the rewrite did not apply to %s", b)
					}
					return out
				})
				_, err := probe(t, Config{URL: url})
				wantReason(t, err, InvalidResponse, tc.contains)
				if !strings.Contains(err.Error(), "duplicate members are refused") {
					t.Errorf("the message does not say why: %v", err)
				}
				t.Log(err)
			})
		}
	}
}

const secret = "AKIA-SECRET-9f3c1d"

// TestNoSSRFReadBack: whatever a server answers, no text of its
// answer reaches the probe's error, which becomes the MCPServer's
// condition: not a line of a non-MCP body, not an SSE data payload, not a
// JSON-RPC error message, not a member name of a malformed page. Both
// transports.
func TestNoSSRFReadBack(t *testing.T) {
	raw := func(h http.HandlerFunc) func(*testing.T) string {
		return func(t *testing.T) string {
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			return ts.URL
		}
	}
	sse := func(first string) func(*testing.T) string {
		return raw(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, first)
			w.(http.Flusher).Flush()
		})
	}
	plain := func(status int, contentType, body string) func(*testing.T) string {
		return raw(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
	rpcError := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"` + secret + `","data":"` + secret + `"}}`
	afterInit := func(f func([]byte) []byte) func(*testing.T) string {
		return func(t *testing.T) string {
			return serveFramed(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks."}), true, f)
		}
	}
	cases := []struct {
		name      string
		transport toolgatev1alpha1.Transport
		url       func(*testing.T) string
	}{
		{"metadata text", "", plain(200, "text/plain", secret+"\nline two\n")},
		{"metadata JSON", "", plain(200, "application/json", `{"Code":"Success","AccessKeyId":"`+secret+`"}`)},
		{"a JSON-RPC error", "", plain(200, "application/json", rpcError)},
		{"a JSON-RPC error with HTTP 400", "", plain(400, "application/json", rpcError)},
		{"401 with a body", "", plain(401, "text/plain", secret)},
		{"500 with a body", "", plain(500, "text/plain", secret)},
		{"event stream of text", "", plain(200, "text/event-stream", secret+"\n\n")},
		{"event stream with data", "", plain(200, "text/event-stream", "event: message\ndata: "+secret+"\n\n")},
		{"tools/list error", "", afterInit(func([]byte) []byte { return []byte(strings.Replace(rpcError, `"id":1`, `"id":2`, 1)) })},
		{"tools/list not JSON", "", afterInit(func([]byte) []byte { return []byte(secret) })},
		{"tools/list with a secret member twice", "", afterInit(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"tools":[`), []byte(`"`+secret+`":1,"`+secret+`":2,"tools":[`), 1)
		})},
		{"tools/list with a secret tool member twice", "", afterInit(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"ping"`), []byte(`"name":"ping","`+secret+`":1,"`+secret+`":2`), 1)
		})},
		{"tools/list with a secret in a bad number", "", afterInit(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"ping"`), []byte(`"name":"ping","`+secret+`":1e999999`), 1)
		})},
		{"SSE: text", toolgatev1alpha1.TransportSSE, plain(200, "text/plain", secret+"\n")},
		{"SSE: a line without a field", toolgatev1alpha1.TransportSSE, sse(secret + "\n\n")},
		{"SSE: the first event is another", toolgatev1alpha1.TransportSSE, sse("event: " + secret + "\ndata: x\n\n")},
		{"SSE: an endpoint that is not a URL", toolgatev1alpha1.TransportSSE, sse("event: endpoint\ndata: http://[" + secret + "\n\n")},
		{"SSE: an endpoint elsewhere", toolgatev1alpha1.TransportSSE, sse("event: endpoint\ndata: http://" + secret + ".example/x\n\n")},
		{"SSE: 403 with a body", toolgatev1alpha1.TransportSSE, plain(403, "text/plain", secret)},
		{"SSE: a JSON-RPC error event", toolgatev1alpha1.TransportSSE, raw(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "event: endpoint\ndata: /post\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
			_, _ = io.WriteString(w, "event: message\ndata: "+rpcError+"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})},
		{"SSE: a message that is not JSON", toolgatev1alpha1.TransportSSE, raw(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "event: endpoint\ndata: /post\n\nevent: message\ndata: "+secret+"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := probe(t, Config{URL: tc.url(t), Transport: tc.transport, Timeout: 3 * time.Second})
			if err == nil {
				t.Fatal("the probe succeeded")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "SECRET") {
				t.Fatalf("the probe's message reads the answer back: %v", err)
			}
			t.Log(err)
		})
	}
}

// fakeNet is a resolver and a dialer for tests: names resolve as the map
// says, and only loopback addresses are dialed for real. A dial of any
// other address is recorded and fails, so a test never sends traffic to a
// link-local or metadata address even when the guard is broken.
type fakeNet struct {
	names  map[string][]string
	mu     sync.Mutex
	dialed []string
}

func (f *fakeNet) lookup(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range f.names[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if out == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func (f *fakeNet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, address)
	f.mu.Unlock()
	host, _, _ := net.SplitHostPort(address)
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return nil, errors.New("the test network dials only loopback")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

func (f *fakeNet) dials() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

// TestMetadataAddressesRefused: link-local and cloud metadata
// addresses, as literals or behind names, are refused before any
// connection is made, on both transports; loopback stays allowed; a
// switch allows them.
func TestMetadataAddressesRefused(t *testing.T) {
	s := newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."})
	streamable := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true}))
	t.Cleanup(streamable.Close)
	sse := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, &mcp.SSEOptions{DisableLocalhostProtection: true}))
	t.Cleanup(sse.Close)
	_, streamablePort, _ := net.SplitHostPort(strings.TrimPrefix(streamable.URL, "http://"))
	_, ssePort, _ := net.SplitHostPort(strings.TrimPrefix(sse.URL, "http://"))

	fake := &fakeNet{names: map[string][]string{
		"metadata.test":   {"169.254.169.254"},
		"ipv6.test":       {"fd00:ec2::254"},
		"alibaba.test":    {"100.100.100.200"},
		"mapped.test":     {"::ffff:169.254.169.254"},
		"linklocal6.test": {"fe80::1"},
		"mixed.test":      {"127.0.0.1", "169.254.169.254"},
		"loopback.test":   {"127.0.0.1"},
	}}
	for _, transport := range []toolgatev1alpha1.Transport{toolgatev1alpha1.TransportStreamableHTTP, toolgatev1alpha1.TransportSSE} {
		port := streamablePort
		if transport == toolgatev1alpha1.TransportSSE {
			port = ssePort
		}
		for _, host := range []string{"169.254.169.254", "[fe80::1]", "[fd00:ec2::254]", "100.100.100.200", "168.63.129.16", "[::ffff:169.254.169.254]",
			"metadata.test", "ipv6.test", "alibaba.test", "mapped.test", "linklocal6.test", "mixed.test"} {
			t.Run(string(transport)+"/"+host, func(t *testing.T) {
				before := len(fake.dials())
				_, err := probe(t, Config{URL: "http://" + host + ":" + port + "/", Transport: transport, lookup: fake.lookup, dial: fake.dial})
				wantReason(t, err, RefusedEndpoint, "link-local or cloud metadata address")
				if d := fake.dials()[before:]; len(d) != 0 {
					t.Errorf("the probe dialed %v", d)
				}
				t.Log(err)
			})
		}
		t.Run(string(transport)+"/loopback by name", func(t *testing.T) {
			res, err := probe(t, Config{URL: "http://loopback.test:" + port + "/", Transport: transport, lookup: fake.lookup, dial: fake.dial})
			if err != nil {
				t.Fatalf("loopback must stay allowed: %v", err)
			}
			// The addresses checked are the result's: the gate dials
			// these, never the name.
			if got := fmt.Sprint(res.Addresses); got != "[127.0.0.1]" {
				t.Errorf("addresses %s, want [127.0.0.1]", got)
			}
		})
		t.Run(string(transport)+"/allowed by the switch", func(t *testing.T) {
			before := len(fake.dials())
			_, err := probe(t, Config{URL: "http://metadata.test:" + port + "/", Transport: transport, AllowLinkLocal: true, lookup: fake.lookup, dial: fake.dial})
			wantReason(t, err, Unreachable, "could not be reached")
			if d := fake.dials()[before:]; len(d) == 0 || d[0] != "169.254.169.254:"+port {
				t.Errorf("with the switch the probe should have dialed the metadata address (simulated), dialed %v", d)
			}
		})
	}
	// Rebinding: a name that answers loopback to one lookup and a metadata
	// address to the next is checked on the address actually dialed.
	var n int
	var mu sync.Mutex
	rebind := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	before := len(fake.dials())
	_, err := probe(t, Config{URL: "http://rebind.test:" + ssePort + "/", Transport: toolgatev1alpha1.TransportSSE, lookup: rebind, dial: fake.dial})
	wantReason(t, err, RefusedEndpoint, "rebind.test resolves to 169.254.169.254")
	for _, d := range fake.dials()[before:] {
		if strings.HasPrefix(d, "169.254.") {
			t.Errorf("dialed %s", d)
		}
	}
}

// TestProbeRefusedAddressTable: the refused ranges.
func TestProbeRefusedAddressTable(t *testing.T) {
	for addr, want := range map[string]bool{
		"169.254.169.254": true, "169.254.0.1": true, "fe80::1": true, "febf::1": true, "100.100.100.200": true,
		"fd00:ec2::254": true, "::ffff:169.254.169.254": true, "168.63.129.16": true, "168.63.129.17": false,
		"127.0.0.1": false, "::1": false, "10.0.0.1": false, "100.100.100.201": false, "fd00:ec2::253": false, "fec0::1": false, "8.8.8.8": false,
	} {
		if got := refusedAddress(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: refused %v, want %v", addr, got, want)
		}
	}
}
