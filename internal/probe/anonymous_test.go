package probe

import (
	"context"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// requireBearer is the Go SDK's own bearer-token middleware, accepting one
// token: what a server that only the gate may call puts in front of MCP.
func requireBearer(token string) func(http.Handler) http.Handler {
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	return auth.RequireBearerToken(verify, nil)
}

func anonymous(t *testing.T, cfg Config) (*AnonymousResult, error) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	return Anonymous(t.Context(), cfg)
}

func TestAnonymous(t *testing.T) {
	tools := func() *mcp.Server {
		return newServer(nil, &mcp.Tool{Name: "get_thing", Description: "Gets one thing."}, &mcp.Tool{Name: "delete_thing", Description: "Deletes one thing."})
	}
	bearer := http.Header{"Authorization": {"Bearer s3cret"}}

	// A server whose MCP layer refuses a step with a JSON-RPC error, as a
	// server that checks credentials per method does.
	refusing := func(method string) *mcp.Server {
		s := tools()
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
				if m == method {
					return nil, &jsonrpc.Error{Code: -32001, Message: "credentials required"}
				}
				return next(ctx, m, req)
			}
		})
		return s
	}

	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
		cfg  Config
		want AnonymousResult
	}{
		{
			name: "bearer token required: refused at initialize with 401",
			url:  func(t *testing.T) string { return serve(t, tools(), requireBearer("s3cret")) },
			cfg:  Config{Header: bearer},
			want: AnonymousResult{Refusal: &Refusal{Step: "initialize", HTTPStatus: http.StatusUnauthorized}},
		},
		{
			name: "forbidden without credentials",
			url: func(t *testing.T) string {
				return serve(t, tools(), func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Header.Get("X-Api-Key") != "k" {
							http.Error(w, "forbidden", http.StatusForbidden)
							return
						}
						next.ServeHTTP(w, r)
					})
				})
			},
			cfg:  Config{Header: http.Header{"X-Api-Key": {"k"}}},
			want: AnonymousResult{Refusal: &Refusal{Step: "initialize", HTTPStatus: http.StatusForbidden}},
		},
		{
			name: "open server: initialize and tools/list answered",
			url:  func(t *testing.T) string { return serve(t, tools(), nil) },
			cfg:  Config{Header: bearer},
			want: AnonymousResult{Initialized: true, Listed: true, Tools: 2},
		},
		{
			name: "JSON-RPC error on initialize",
			url:  func(t *testing.T) string { return serve(t, refusing("initialize"), nil) },
			want: AnonymousResult{Refusal: &Refusal{Step: "initialize", RPCCode: -32001}},
		},
		{
			name: "initialize answered, tools/list refused with a JSON-RPC error",
			url:  func(t *testing.T) string { return serve(t, refusing("tools/list"), nil) },
			want: AnonymousResult{Initialized: true, Refusal: &Refusal{Step: "tools/list", RPCCode: -32001}},
		},
		{
			name: "SSE transport, bearer token required",
			url: func(t *testing.T) string {
				s := tools()
				ts := httptest.NewServer(requireBearer("s3cret")(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)))
				t.Cleanup(ts.Close)
				return ts.URL
			},
			cfg:  Config{Transport: toolgatev1alpha1.TransportSSE, Header: bearer},
			want: AnonymousResult{Refusal: &Refusal{Step: "initialize", HTTPStatus: http.StatusUnauthorized}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URL = tc.url(t)
			got, err := anonymous(t, cfg)
			if err != nil {
				t.Fatalf("the check could not tell: %v", err)
			}
			if got.Initialized != tc.want.Initialized || got.Listed != tc.want.Listed || got.Tools != tc.want.Tools {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			switch {
			case tc.want.Refusal == nil && got.Refusal != nil:
				t.Errorf("refusal %+v, want none", got.Refusal)
			case tc.want.Refusal != nil && (got.Refusal == nil || *got.Refusal != *tc.want.Refusal):
				t.Errorf("refusal %+v, want %+v", got.Refusal, tc.want.Refusal)
			}
		})
	}
}

// TestAnonymousSendsNoConfiguredHeader: none of the headers the MCPServer's
// Secrets hold reaches the server, on any request of the check.
func TestAnonymousSendsNoConfiguredHeader(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	url := serve(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."}), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	res, err := anonymous(t, Config{URL: url, Header: http.Header{"Authorization": {"Bearer s3cret"}, "X-Api-Key": {"k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Listed || res.Tools != 1 {
		t.Errorf("got %+v, want the one tool listed", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("the server saw %d requests, want initialize and tools/list at least", len(seen))
	}
	for i, h := range seen {
		if h != "" {
			t.Errorf("request %d carried a configured header: %q", i, h)
		}
	}
}

// TestAnonymousInconclusive: what is no answer, or an answer that is
// neither MCP nor a refusal, is an error with the probe's reason.
func TestAnonymousInconclusive(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	_, err = anonymous(t, Config{URL: closed})
	wantReason(t, err, Unreachable, "initialize")

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	_, err = anonymous(t, Config{URL: broken.URL})
	wantReason(t, err, InvalidResponse, "HTTP 500")

	// The body read, the server notices the client hanging up.
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(hanging.Close)
	_, err = anonymous(t, Config{URL: hanging.URL, Timeout: time.Second})
	wantReason(t, err, Timeout, "initialize")

	_, err = anonymous(t, Config{URL: "http://169.254.169.254/mcp"})
	wantReason(t, err, RefusedEndpoint, "metadata")
}
