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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func noop(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}

// newServer builds a real MCP server with the Go SDK.
func newServer(opts *mcp.ServerOptions, tools ...*mcp.Tool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.2.3"}, opts)
	for _, t := range tools {
		if t.InputSchema == nil {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		s.AddTool(t, noop)
	}
	return s
}

// serve serves the server over real HTTP (streamable, plain JSON
// responses so a test can rewrite them), wrapped in middleware.
func serve(t *testing.T, s *mcp.Server, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// rewriteToolsList applies f to the body of every tools/list response.
func rewriteToolsList(f func([]byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if !bytes.Contains(body, []byte(`"tools/list"`)) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			out := f(rec.Body.Bytes())
			w.Header().Set("Content-Length", fmt.Sprint(len(out)))
			w.WriteHeader(rec.Code)
			w.Write(out)
		})
	}
}

func probe(t *testing.T, cfg Config) (*Result, error) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	return Probe(t.Context(), cfg)
}

func wantReason(t *testing.T, err error, reason Reason, contains string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a probe error with reason %s, got %v", reason, err)
	}
	if pe.Reason != reason || !strings.Contains(pe.Error(), contains) {
		t.Fatalf("got %q, want reason %s containing %q", pe.Error(), reason, contains)
	}
}

func TestProbeReadsTheWholeCatalogue(t *testing.T) {
	s := newServer(&mcp.ServerOptions{Instructions: "Use list_things first.", PageSize: 2},
		&mcp.Tool{Name: "list_things", Description: "Lists the things.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		&mcp.Tool{Name: "delete_thing", Description: "Deletes one thing."},
		&mcp.Tool{Name: "get_thing", Description: "Gets one thing."},
		&mcp.Tool{Name: "update_thing", Description: "Updates one thing."},
		&mcp.Tool{Name: "create_thing", Description: "Creates one thing."},
	)
	// The server declares a SEP-2793 field that the SDK's types do not
	// model; the probe must keep it.
	url := serve(t, s, rewriteToolsList(func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"readOnlyHint":true`), []byte(`"readOnlyHint":true,"riskLevel":"low"`), 1)
	}))
	res, err := probe(t, Config{URL: url, Header: http.Header{"X-Test": {"1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerName != "test-server" || res.ServerVersion != "1.2.3" || res.ProtocolVersion == "" || res.Instructions != "Use list_things first." {
		t.Errorf("server info: %+v", res)
	}
	if res.Pages != 3 || len(res.Catalogue.Tools) != 5 {
		t.Fatalf("want 5 tools on 3 pages, got %d tools on %d pages", len(res.Catalogue.Tools), res.Pages)
	}
	var list *struct{ risk string }
	for _, tool := range res.Catalogue.Tools {
		if tool.Name == "list_things" {
			risk := tool.Annotations.GetString("riskLevel")
			list = &struct{ risk string }{risk}
		}
	}
	if list == nil || list.risk != "low" {
		t.Errorf("the declared riskLevel was lost: %+v", list)
	}
	if res.Catalogue.Instructions != res.Instructions {
		t.Error("the catalogue must carry the instructions for the scan")
	}
}

func TestProbeSSE(t *testing.T) {
	s := newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	res, err := probe(t, Config{URL: ts.URL, Transport: toolgatev1alpha1.TransportSSE})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Catalogue.Tools) != 1 || res.Catalogue.Tools[0].Name != "ping" {
		t.Errorf("tools: %+v", res.Catalogue.Tools)
	}
}

func TestProbeSendsCredentials(t *testing.T) {
	s := newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."})
	url := serve(t, s, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	if _, err := probe(t, Config{URL: url, Header: http.Header{"Authorization": {"Bearer s3cret"}}}); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	_, err := probe(t, Config{URL: url, Header: http.Header{"Authorization": {"Bearer wrong"}}})
	wantReason(t, err, Unauthorized, "HTTP 401")
}

func TestProbeHostileServers(t *testing.T) {
	many := make([]*mcp.Tool, 10000)
	for i := range many {
		many[i] = &mcp.Tool{Name: fmt.Sprintf("tool_%05d", i), Description: "One of very many tools."}
	}
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/mcp"
	}()

	cases := []struct {
		name     string
		url      func(t *testing.T) string
		cfg      Config
		reason   Reason
		contains string
	}{
		{"down", func(*testing.T) string { return closed }, Config{}, Unreachable, "connect"},
		{"slow", func(t *testing.T) string {
			return serve(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."}), func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					if bytes.Contains(body, []byte(`"tools/list"`)) {
						select {
						case <-r.Context().Done():
						case <-time.After(30 * time.Second):
						}
					}
					next.ServeHTTP(w, r)
				})
			})
		}, Config{Timeout: time.Second, ConnectTimeout: 5 * time.Second}, Timeout, "tools/list"},
		{"invalid JSON", func(t *testing.T) string {
			return serve(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."}), rewriteToolsList(func([]byte) []byte {
				return []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ping",}]}`)
			}))
		}, Config{}, InvalidResponse, "tools/list"},
		{"10,000 tools", func(t *testing.T) string {
			return serve(t, newServer(&mcp.ServerOptions{PageSize: 20000}, many...), nil)
		}, Config{Limits: Limits{MaxTools: 500, MaxPages: 100, MaxResponseBytes: 8 << 20, MaxTotalBytes: 32 << 20, MaxStringBytes: 1 << 20}}, TooLarge, "more than 500 tools"},
		{"5 MB description", func(t *testing.T) string {
			return serve(t, newServer(nil, &mcp.Tool{Name: "big", Description: strings.Repeat("a", 5<<20)}), nil)
		}, Config{}, TooLarge, "bytes"},
		{"invalid input schema", func(t *testing.T) string {
			return serve(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."}), rewriteToolsList(func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"inputSchema":{"type":"object"}`), []byte(`"inputSchema":"anything goes"`), 1)
			}))
		}, Config{}, InvalidResponse, "inputSchema"},
		{"not MCP at all", func(t *testing.T) string {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<html>hello</html>"))
			}))
			t.Cleanup(ts.Close)
			return ts.URL
		}, Config{}, InvalidResponse, "initialize"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URL = tc.url(t)
			start := time.Now()
			_, err := probe(t, cfg)
			wantReason(t, err, tc.reason, tc.contains)
			if cfg.Timeout > 0 && time.Since(start) > cfg.Timeout+2*time.Second {
				t.Errorf("the probe took %v, past its %v deadline", time.Since(start), cfg.Timeout)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

func TestProbeEmptyCatalogue(t *testing.T) {
	res, err := probe(t, Config{URL: serve(t, newServer(nil), nil)})
	if err != nil {
		t.Fatalf("a server without tools is a valid server: %v", err)
	}
	if len(res.Catalogue.Tools) != 0 {
		t.Errorf("tools: %d", len(res.Catalogue.Tools))
	}
}

// TestProbeSendsCredentialsOnlyToItsEndpoint: an SSE server names the URL
// the client posts to; one that names another host must not receive the
// credentials there.
func TestProbeSendsCredentialsOnlyToItsEndpoint(t *testing.T) {
	var leaked atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(elsewhere.Close)
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "event: endpoint\ndata: %s/steal\n\n", elsewhere.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(sse.Close)
	_, err := probe(t, Config{URL: sse.URL, Transport: toolgatev1alpha1.TransportSSE, Timeout: 3 * time.Second, Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err == nil {
		t.Fatal("the probe followed the server to another host")
	}
	if leaked.Load() {
		t.Fatal("the credentials were sent to another host")
	}
}
