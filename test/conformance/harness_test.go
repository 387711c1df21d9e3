package conformance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/testenv"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Generations of the streamable HTTP transport a peer may speak.
const (
	genSession   = "2025-11-25" // session-based: initialize, Mcp-Session-Id
	genStateless = "2026-07-28" // stateless: server/discover, per-request _meta
)

// Timeouts are generous: the suite runs beside the whole test suite on a
// loaded two-core machine.
const (
	requestTimeout = 30 * time.Second
	startTimeout   = 60 * time.Second
)

// The tools every upstream serves, and what the configuration decides of
// each.
const (
	toolExposed  = "get_weather"
	toolWithheld = "delete_repository"
	toolGated    = "deploy"
	instructions = "Reviewed instructions: answer weather questions only."
)

// toolDefs are the three tools' definitions, as every peer lists them.
var toolDefs = []map[string]any{
	{"name": toolExposed, "description": "Returns the current weather for a city.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
	{"name": toolGated, "description": "Deploys a service to production.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"service": map[string]any{"type": "string"}}, "required": []any{"service"}}},
	{"name": toolWithheld, "description": "Deletes a repository and all of its history.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"repo": map[string]any{"type": "string"}}, "required": []any{"repo"}}},
}

// argName is the one argument each tool takes.
var argName = map[string]string{toolExposed: "city", toolGated: "service", toolWithheld: "repo"}

func cacheDir() string {
	if c := os.Getenv("TOOLGATE_CACHE"); c != "" {
		return c
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "toolgate")
}

var (
	gateOnce sync.Once
	gateBin  string
	gateErr  error
)

// gateBinary builds cmd/gate once per test binary; TOOLGATE_CONFORMANCE_GATE
// names a gate binary to test instead (an earlier build, to show what the
// suite catches).
func gateBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TOOLGATE_CONFORMANCE_GATE"); bin != "" {
		return bin
	}
	gateOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toolgate-conformance-")
		if err != nil {
			gateErr = err
			return
		}
		gateBin = filepath.Join(dir, "gate")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", gateBin, "github.com/toolgate/toolgate/cmd/gate").CombinedOutput(); err != nil {
			gateErr = fmt.Errorf("building the gate: %w\n%s", err, out)
		}
	})
	if gateErr != nil {
		t.Fatal(gateErr)
	}
	return gateBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if gateBin != "" {
		os.RemoveAll(filepath.Dir(gateBin))
	}
	os.Exit(code)
}

// gateProcess is the gate binary running as a process with a
// configuration file.
type gateProcess struct {
	listen, metrics string
	// log holds what the gate wrote to standard error, stdout what it
	// wrote to standard output: its audit lines. Both are files the gate
	// writes itself, so that a line is there once the write returned.
	log, stdout string
}

// startGate writes cfg and runs the gate on it until the test ends; it
// returns once the gate is ready with that configuration.
func startGate(t *testing.T, cfg *gateproto.Config) *gateProcess {
	t.Helper()
	return startGateUnder(t, cfg)
}

// startGateUnder is startGate with the gate run by a wrapper command: the
// gate's command line is appended to wrapper.
func startGateUnder(t *testing.T, cfg *gateproto.Config, wrapper ...string) *gateProcess {
	t.Helper()
	cfg.Version = gateproto.Version
	cfg.Revision = cfg.ComputeRevision()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test configuration invalid: %v", err)
	}
	dir := t.TempDir()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	g := &gateProcess{log: filepath.Join(dir, "gate.log"), stdout: filepath.Join(dir, "gate.stdout")}
	log, err := os.Create(g.log)
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := os.Create(g.stdout)
	if err != nil {
		t.Fatal(err)
	}
	// The gate binds port 0 and says where (testenv.GateListening says
	// why the test does not choose the ports).
	argv := append(wrapper, gateBinary(t), "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--config-file", file,
		"--log-level", "debug", "--upstream-timeout", "30s")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		log.Close()
		stdout.Close()
		if t.Failed() {
			if b, err := os.ReadFile(g.log); err == nil {
				t.Logf("gate log (last 8 KiB):\n%s", tail(b, 8<<10))
			}
			if b, err := os.ReadFile(g.stdout); err == nil {
				t.Logf("gate audit lines (last 8 KiB):\n%s", tail(b, 8<<10))
			}
		}
	})
	listenCtx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	g.listen, g.metrics, err = testenv.GateListening(listenCtx, g.log, func() bool {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	})
	if err != nil {
		out, _ := os.ReadFile(g.stdout)
		t.Fatalf("%v\n%s", err, out)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			b, _ := os.ReadFile(g.log)
			out, _ := os.ReadFile(g.stdout)
			t.Fatalf("the gate exited:\n%s%s", out, b)
		default:
		}
		if rev := g.ready(); rev == cfg.Revision {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gate is not ready with revision %s after %v", cfg.Revision, startTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func (g *gateProcess) ready() string {
	resp, err := http.Get("http://" + g.metrics + "/readyz")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), "ok"))
}

func (g *gateProcess) url(serverID string) string {
	return "http://" + g.listen + gate.ServerPath(serverID)
}

// serverConfig is one server of a configuration: the three tools with
// the fingerprints a first listing gave, get_weather exposed, deploy
// gated, delete_repository withheld.
func serverConfig(id, url string, fps map[string]string) gateproto.Server {
	s := gateproto.Server{ID: id, Ready: true, Upstream: &gateproto.Upstream{URL: url, Transport: "StreamableHTTP"},
		Instructions: &gateproto.Instructions{Fingerprint: tooldef.InstructionsFingerprint(instructions)}}
	s.Tools = []gateproto.Tool{
		{Name: toolGated, Pin: "pin-deploy", Fingerprint: fps[toolGated], Level: "L4", Decision: gateproto.DecisionApprovalGated, ApprovalRule: "minLevel L4"},
		{Name: toolExposed, Pin: "pin-get-weather", Fingerprint: fps[toolExposed], Level: "L1", Decision: gateproto.DecisionExposed},
		{Name: toolWithheld, Pin: "pin-delete-repository", Level: "L5", Decision: gateproto.DecisionWithheld, Reason: gateproto.ReasonAboveCeiling,
			Fingerprint: fps[toolWithheld]},
	}
	return s
}

func newConfig(servers ...gateproto.Server) *gateproto.Config {
	return &gateproto.Config{Namespace: "agents", Pod: "agent-0", Policies: []string{"conformance"},
		Mode: gateproto.ModeEnforce, ApprovalTimeout: gateproto.Duration{Duration: 30 * time.Second}, Servers: servers}
}

// rawClient speaks MCP over streamable HTTP one message at a time, exactly
// as written: the agent side of the suite, and the operator's first
// listing.
type rawClient struct {
	url     string
	gen     string
	session string
	http    *http.Client
}

func newRawClient(url, gen string) *rawClient {
	return &rawClient{url: url, gen: gen, http: &http.Client{Timeout: requestTimeout}}
}

// meta is the per-request _meta member of the stateless revision.
const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// open initializes as a client of the generation does: initialize and
// notifications/initialized (session), or server/discover (stateless).
func (c *rawClient) open(ctx context.Context) error {
	c.session = ""
	if c.gen == genStateless {
		_, msgs, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":`+meta+`}}`), map[string]string{"Mcp-Method": "server/discover"})
		if err != nil {
			return err
		}
		return expectResult(msgs)
	}
	resp, msgs, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"conformance","version":"1"}}}`), nil)
	if err != nil {
		return err
	}
	if err := expectResult(msgs); err != nil {
		return err
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil); err != nil {
		return err
	}
	return nil
}

func expectResult(msgs []json.RawMessage) error {
	for _, m := range msgs {
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(m, &r) == nil && r.Result != nil {
			return nil
		}
	}
	return fmt.Errorf("no result in %s", joinMsgs(msgs))
}

func joinMsgs(msgs []json.RawMessage) string {
	var parts []string
	for _, m := range msgs {
		parts = append(parts, string(m))
	}
	return strings.Join(parts, " ")
}

// post sends one message with the generation's headers (and extra, which
// win) and returns the messages of the answer, JSON or an event stream.
func (c *rawClient) post(ctx context.Context, body []byte, extra map[string]string) (*http.Response, []json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if !strings.Contains(string(body), `"method":"initialize"`) {
		req.Header.Set("Mcp-Protocol-Version", c.gen)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	msgs, err := readMessages(resp)
	if err != nil {
		return resp, msgs, err
	}
	if resp.StatusCode == http.StatusNotFound && c.session != "" {
		return resp, msgs, errSessionGone
	}
	return resp, msgs, nil
}

var errSessionGone = errors.New("the session is gone")

// readMessages reads a JSON body or every event of an event stream.
func readMessages(resp *http.Response) ([]json.RawMessage, error) {
	body := io.LimitReader(resp.Body, 8<<20)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, nil
		}
		return []json.RawMessage{b}, nil
	}
	var out []json.RawMessage
	var data []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	flush := func() {
		if len(data) > 0 {
			out = append(out, json.RawMessage(strings.Join(data, "\n")))
		}
		data = nil
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " "))
		}
	}
	flush()
	return out, sc.Err()
}

// firstListing lists a server directly, as the operator's probe does, and
// returns each tool's fingerprint by pkg/tooldef over the definition
// exactly as the server sent it.
func firstListing(t *testing.T, url, gen string) map[string]string {
	t.Helper()
	c := newRawClient(url, gen)
	var fps map[string]string
	eventually(t, startTimeout, "the first listing of "+url, func() error {
		if err := c.open(t.Context()); err != nil {
			return err
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		hdr := map[string]string(nil)
		if gen == genStateless {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + meta + `}}`
			hdr = map[string]string{"Mcp-Method": "tools/list"}
		}
		_, msgs, err := c.post(t.Context(), []byte(body), hdr)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			var r struct {
				Result struct {
					Tools []json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			if json.Unmarshal(m, &r) != nil || len(r.Result.Tools) == 0 {
				continue
			}
			fps = map[string]string{}
			for _, raw := range r.Result.Tools {
				tl, err := tooldef.ParseTool(raw)
				if err != nil {
					return err
				}
				fps[tl.Name] = tl.Fingerprint()
			}
			for _, d := range toolDefs {
				if fps[d["name"].(string)] == "" {
					return fmt.Errorf("the listing lacks %s: %s", d["name"], joinMsgs(msgs))
				}
			}
			return nil
		}
		return fmt.Errorf("no tools in %s", joinMsgs(msgs))
	})
	return fps
}

// eventually retries f until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// requireNPM names the variable that turns a missing node or npm into a
// failure instead of a skip; CI sets it.
const requireNPM = "TOOLGATE_REQUIRE_NPM"

// nodePeers installs the TypeScript peers' dependencies (testdata/node's
// package.json, exactly as its package-lock.json pins them, with npm ci)
// into the cache, once per lock, and copies the peers' scripts beside
// them. It returns that directory. Where node or npm is missing the test
// skips, or fails under TOOLGATE_REQUIRE_NPM.
func nodePeers(t *testing.T) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv(requireNPM) != "" {
			t.Fatalf("%s, and %s is set", msg, requireNPM)
		}
		t.Skipf("%s: the TypeScript peers cannot run (set %s=1 to make this a failure)", msg, requireNPM)
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable("node is not on PATH")
	}
	src := filepath.Join("testdata", "node")
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(append([]byte{}, pkg...), lock...))
	dir := filepath.Join(cacheDir(), "npm-conformance-"+hex.EncodeToString(sum[:6]))
	marker := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(marker); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			unavailable("npm is not on PATH")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			unavailable("npm ci of testdata/node: %v\n%s", err, out)
		}
	}
	for _, name := range []string{"server.mjs", "client.mjs", "said.mjs"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		// Written under the test's own name, then renamed: tests running at
		// once never see half a script.
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d", name, os.Getpid()))
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
