package gate

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestConfigurationRefusalsListNothing: the gate gathers the one fact that
// costs a request to the server — the tool's live definition — only when
// the decision waits on it. A call the configuration alone refuses (an
// unknown tool, a withheld one Audit may not forward) reaches the server
// in no form, not even as the gate's own list; a call past the
// configuration has the gate list the server first.
func TestConfigurationRefusalsListNothing(t *testing.T) {
	for _, mode := range []gateproto.Mode{gateproto.ModeEnforce, gateproto.ModeAudit} {
		t.Run(string(mode), func(t *testing.T) {
			s := newMCPServer(catalogue)
			var ownLists atomic.Int32
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal(body, &m) == nil && m.Method == "tools/list" && strings.HasPrefix(string(m.ID), `"`+internalIDPrefix) {
					ownLists.Add(1)
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			u := &upstream{srv: srv, gen: genSession, mcp: s}
			g := startGate(t, Options{})
			if err := g.Apply(standardConfig(t, mode, u, fingerprints(t, s))); err != nil {
				t.Fatal(err)
			}
			a := connect(t, genSession, g.url())

			refusedAlone := map[string]decide.Reason{"ghost": decide.ReasonUnknown, "secret": decide.FromConfig(gateproto.ReasonNotListed)}
			if mode == gateproto.ModeEnforce {
				refusedAlone["delete_all"] = decide.FromConfig(gateproto.ReasonAboveCeiling)
			}
			for tool, reason := range refusedAlone {
				mustContainRefusal(t, callErr(a, t, tool), tool+" in "+string(mode))
				if l := g.audit.find(tool, decide.Refuse); l == nil || l["reason"] != string(reason) {
					t.Errorf("audit line of %s: %v, want reason %s", tool, l, reason)
				}
			}
			if n := ownLists.Load(); n != 0 {
				t.Fatalf("calls the configuration alone refuses had the gate list the server %d times", n)
			}

			if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
				t.Fatalf("an exposed tool: %q, %v", out, err)
			}
			if n := ownLists.Load(); n == 0 {
				t.Fatal("the gate forwarded a call without listing the server first")
			}
		})
	}
}
