package conformance

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requireNamespaces turns the skip of a test that needs root and Linux
// namespaces into a failure.
const requireNamespaces = "TOOLGATE_REQUIRE_NAMESPACES"

// TestCredentialsGoOnlyToTheOperatorsAddresses: an agent's pod shares the
// gate's /etc/hosts and resolver, which the pod's author writes
// (spec.hostAliases, dnsConfig). The gate binary runs in a mount namespace
// of its own whose /etc/hosts names the upstream's host with an impostor's
// address, as a pod's host alias would; given the addresses the operator
// resolved, it sends the server's credentials to the real server only, and
// the impostor hears nothing; given none, it resolves no name it holds
// credentials for, and reaches nobody. A configuration written by hand
// without credentials, which the gate does resolve, shows the redirection
// is real: the impostor hears it.
func TestCredentialsGoOnlyToTheOperatorsAddresses(t *testing.T) {
	skip := t.Skip
	if os.Getenv(requireNamespaces) == "1" {
		skip = t.Fatal
	}
	if os.Geteuid() != 0 {
		skip("needs root: the gate runs in a mount namespace of its own, with its own /etc/hosts (" + requireNamespaces + "=1 makes this a failure)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skip("needs unshare(1) from util-linux (" + requireNamespaces + "=1 makes this a failure)")
	}
	const credential = "Bearer only-the-gate-holds-this"
	const host = "upstream.toolgate.test"

	s := mcp.NewServer(&mcp.Implementation{Name: "credentialed", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: instructions})
	for _, def := range toolDefs {
		name := def["name"].(string)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: def["description"].(string), InputSchema: rawSchema(def)},
			func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
			})
	}
	// The host named differs from the loopback address dialed, which the
	// SDK otherwise takes for DNS rebinding.
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	mux := http.NewServeMux()
	// /review stands for the operator's probe, which holds the
	// credentials too; /mcp is what gates reach, credentials required.
	mux.Handle("/review", mcpHandler)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != credential {
			http.Error(w, "credentials required", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	upstream := serveOn(t, "127.0.0.1:0", mux)
	_, port, _ := net.SplitHostPort(upstream)

	// The impostor listens on another loopback address, same port.
	var mu sync.Mutex
	var heard []string
	serveOn(t, net.JoinHostPort("127.0.0.2", port), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "impostor", http.StatusServiceUnavailable)
	}))
	impostorHeard := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), heard...)
	}

	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n127.0.0.2 "+host+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The kubelet's part: this /etc/hosts is the gate's, as a pod's host
	// alias would make it.
	wrapper := []string{unshare, "--mount", "--propagation", "private", "--", "sh", "-c",
		`mount --bind "$0" /etc/hosts && exec "$@"`, hosts}

	fps := firstListing(t, "http://"+upstream+"/review", genSession)
	for _, tc := range []struct {
		name        string
		addresses   []string
		credentials bool
	}{
		{"the operator's addresses", []string{"127.0.0.1"}, true},
		// No addresses, as before the operator's next probe: the gate
		// resolves no name it holds credentials for.
		{"credentials and no addresses", nil, true},
		// The control: a configuration written by hand, without
		// credentials, resolves the name, and the redirection this test
		// sets up is real.
		{"no credentials and no addresses", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(impostorHeard())
			srv := serverConfig("tools/credentialed", "http://"+host+":"+port+"/mcp", fps)
			if tc.credentials {
				srv.Upstream.Headers = map[string]string{"Authorization": credential}
			}
			srv.Upstream.Addresses = tc.addresses
			g := startGateUnder(t, newConfig(srv), wrapper...)

			c := newRawClient(g.url("tools/credentialed"), genSession)
			ctx, cancel := context.WithTimeout(t.Context(), requestTimeout)
			defer cancel()
			err := c.open(ctx)
			var called string
			if err == nil {
				var msgs []json.RawMessage
				_, msgs, err = c.post(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}`), nil)
				called = joinMsgs(msgs)
			}
			got := impostorHeard()[before:]
			switch {
			case !tc.credentials:
				if len(got) == 0 || got[0] != "" {
					t.Fatalf("the impostor heard %q; the test's /etc/hosts did not redirect the gate, so the cases above prove nothing", got)
				}
			case len(got) > 0:
				t.Fatalf("the impostor named by the pod's /etc/hosts received %q", got)
			case tc.addresses == nil:
				if err == nil && strings.Contains(called, "get_weather done") {
					t.Fatalf("a call reached a server the gate has no address for: %s", called)
				}
			case err != nil || !strings.Contains(called, "get_weather done"):
				t.Fatalf("calling through the gate at the operator's address: %v %s", err, called)
			}
		})
	}
}

// serveOn serves h on addr until the test ends and returns the address.
func serveOn(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}
