package probe

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProbeDoesNotAnnounceItself: nothing the probe sends names toolgate
// (no header, no body), initialize's clientInfo is the neutral default or
// the configured identity, and the User-Agent is Go's own.
func TestProbeDoesNotAnnounceItself(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cfg                 Config
		wantName, wantVersn string
	}{
		{"default", Config{}, DefaultClientName, DefaultClientVersion},
		{"configured", Config{ClientName: "claude-code", ClientVersion: "2.0.14"}, "claude-code", "2.0.14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var requests []string
			var clientInfo *mcp.Implementation
			url := serve(t, newServer(nil, &mcp.Tool{Name: "ping", Description: "Checks that the server answers."}), func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					var msg struct {
						Method string `json:"method"`
						Params struct {
							ClientInfo *mcp.Implementation `json:"clientInfo"`
						} `json:"params"`
					}
					_ = json.Unmarshal(body, &msg)
					var head bytes.Buffer
					_ = r.Header.Write(&head)
					mu.Lock()
					requests = append(requests, head.String()+"\n"+string(body))
					if msg.Method == "initialize" {
						clientInfo = msg.Params.ClientInfo
					}
					if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "Go-http-client/") {
						t.Errorf("User-Agent %q", ua)
					}
					mu.Unlock()
					next.ServeHTTP(w, r)
				})
			})
			cfg := tc.cfg
			cfg.URL = url
			if _, err := probe(t, cfg); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if clientInfo == nil || clientInfo.Name != tc.wantName || clientInfo.Version != tc.wantVersn {
				t.Errorf("initialize's clientInfo is %+v, want %s %s", clientInfo, tc.wantName, tc.wantVersn)
			}
			if len(requests) == 0 {
				t.Fatal("no request reached the server")
			}
			for _, r := range requests {
				if strings.Contains(strings.ToLower(r), "toolgate") {
					t.Errorf("a request names toolgate:\n%s", r)
				}
			}
		})
	}
}
