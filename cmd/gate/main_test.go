package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// TestBinaryRefusesABrokenConfiguration runs the gate binary on
// configurations that fail validation: it refuses each and names the
// field, rather than serving with part of it.
func TestBinaryRefusesABrokenConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gate binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the gate: %v\n%s", err, out)
	}
	good := gateproto.Config{Version: gateproto.Version, Namespace: "agents", Pod: "agent-0", Mode: gateproto.ModeEnforce,
		Servers: []gateproto.Server{{ID: "tools/toolbox", Ready: true,
			Upstream: &gateproto.Upstream{URL: "http://127.0.0.1:1/mcp", Transport: "StreamableHTTP"},
			Tools:    []gateproto.Tool{{Name: "get_weather", Decision: gateproto.DecisionExposed, Level: "L2", Fingerprint: "sha256:" + strings.Repeat("ab", 32)}}}}}
	for _, c := range []struct {
		name, want string
		edit       func(*gateproto.Config)
	}{
		{"a revision that is not the content's", "config.revision", func(c *gateproto.Config) {
			c.Revision = "0000000000000000"
		}},
		{"an exposed tool without a fingerprint", "needs a fingerprint", func(c *gateproto.Config) {
			c.Servers[0].Tools[0].Fingerprint = ""
			c.Revision = c.ComputeRevision()
		}},
		{"another protocol version", "config.version", func(c *gateproto.Config) {
			c.Version = "toolgate.dev/gate/v0"
			c.Revision = c.ComputeRevision()
		}},
		{"an upstream that is not HTTP", "upstream.url", func(c *gateproto.Config) {
			c.Servers[0].Upstream.URL = "file:///etc/passwd"
			c.Revision = c.ComputeRevision()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := good
			cfg.Servers = []gateproto.Server{good.Servers[0]}
			up := *good.Servers[0].Upstream
			cfg.Servers[0].Upstream = &up
			cfg.Servers[0].Tools = append([]gateproto.Tool(nil), good.Servers[0].Tools...)
			c.edit(&cfg)
			b, err := json.Marshal(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "config.json")
			if err := os.WriteFile(file, b, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, "--config-file", file, "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0").CombinedOutput()
			if err == nil || ctx.Err() != nil {
				t.Fatalf("the gate did not refuse the configuration (err %v):\n%s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("the refusal does not name %q:\n%s", c.want, out)
			}
		})
	}
	// The same configuration, valid, is served: the refusals above are
	// the edits', not the harness's.
	cfg := good
	cfg.Revision = cfg.ComputeRevision()
	b, _ := json.Marshal(&cfg)
	file := filepath.Join(dir, "good.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "--config-file", file, "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0").CombinedOutput()
	if ctx.Err() == nil {
		t.Fatalf("the gate stopped on a valid configuration:\n%s", out)
	}
}

// TestProfilesOnlyWhenAsked: the runtime's profiles are served beside the
// metrics with --profiling, and not without it.
func TestProfilesOnlyWhenAsked(t *testing.T) {
	g := gate.New(gate.Options{})
	for _, on := range []bool{false, true} {
		srv := httptest.NewServer(metricsMux(g, on))
		resp, err := http.Get(srv.URL + "/debug/pprof/heap?debug=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if served := resp.StatusCode == http.StatusOK && strings.Contains(string(body), "heap profile"); served != on {
			t.Errorf("--profiling=%v: /debug/pprof/heap answered %d %.80q", on, resp.StatusCode, body)
		}
	}
}
