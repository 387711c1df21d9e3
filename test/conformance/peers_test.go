package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// run is one tool a server actually ran, with the arguments its handler
// received, as the handler's own binding decoded them.
type run struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// peer is a real MCP server upstream of the gate.
type peer struct {
	name string // library and generation, e.g. "go-sdk/2025-11-25"
	gen  string
	url  string
	runs func(t *testing.T) []run
	// bound is true when the server's handlers bind arguments to a struct
	// (its record holds the struct's fields); false when they take the
	// arguments as parsed (its record holds them whole).
	bound bool
}

// sameArgs reports whether a run's arguments are the ones judged, as the
// server's handler reads them: through its binding, a struct field named
// exactly, when it binds.
func (p peer) sameArgs(got, judged map[string]any) bool {
	if !p.bound {
		return reflect.DeepEqual(got, judged)
	}
	for k, v := range got {
		w, _ := judged[k].(string)
		if v != w {
			return false
		}
	}
	return true
}

// recorder keeps what an in-process server ran.
type recorder struct {
	mu   sync.Mutex
	list []run
}

func (r *recorder) add(tool string, args map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, run{tool, args})
}

func (r *recorder) runs(*testing.T) []run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]run(nil), r.list...)
}

func rawSchema(def map[string]any) json.RawMessage {
	b, _ := json.Marshal(def["inputSchema"])
	return b
}

// startGoSDKPeers serves the three tools with the official Go SDK, one
// server per generation: the session-based handler and the stateless one.
// Each tool's handler binds its arguments to a struct, as a typed tool of
// the SDK does, and records what it got.
func startGoSDKPeers(t *testing.T) []peer {
	t.Helper()
	rec := &recorder{}
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-peer", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: instructions})
	for _, def := range toolDefs {
		name := def["name"].(string)
		tool := &mcp.Tool{Name: name, Description: def["description"].(string), InputSchema: rawSchema(def)}
		switch name {
		case toolExposed:
			mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				City string `json:"city"`
			}) (*mcp.CallToolResult, any, error) {
				rec.add(name, map[string]any{"city": in.City})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
			})
		case toolGated:
			mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				Service string `json:"service"`
			}) (*mcp.CallToolResult, any, error) {
				rec.add(name, map[string]any{"service": in.Service})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
			})
		case toolWithheld:
			mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				Repo string `json:"repo"`
			}) (*mcp.CallToolResult, any, error) {
				rec.add(name, map[string]any{"repo": in.Repo})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
			})
		}
	}
	var out []peer
	for _, gen := range []string{genSession, genStateless} {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: gen == genStateless})
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		out = append(out, peer{name: "go-sdk/" + gen, gen: gen, url: srv.URL, runs: rec.runs, bound: true})
	}
	return out
}

// startMCPGoPeers serves the three tools with mark3labs/mcp-go, session
// and stateless. Its handlers bind arguments with BindArguments
// (encoding/json), as its typed tools do.
func startMCPGoPeers(t *testing.T) []peer {
	t.Helper()
	rec := &recorder{}
	s := mcpgoserver.NewMCPServer("mcp-go-peer", "1.0.0", mcpgoserver.WithToolCapabilities(false), mcpgoserver.WithInstructions(instructions))
	for _, def := range toolDefs {
		name := def["name"].(string)
		arg := argName[name]
		s.AddTool(mcpgo.NewToolWithRawSchema(name, def["description"].(string), rawSchema(def)),
			func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				// A struct of the tools' fields, bound as a typed tool binds.
				var in struct {
					City    string `json:"city"`
					Service string `json:"service"`
					Repo    string `json:"repo"`
				}
				if err := req.BindArguments(&in); err != nil {
					return mcpgo.NewToolResultError(err.Error()), nil
				}
				v := map[string]string{"city": in.City, "service": in.Service, "repo": in.Repo}[arg]
				rec.add(name, map[string]any{arg: v})
				return mcpgo.NewToolResultText(name + " done"), nil
			})
	}
	var out []peer
	for _, gen := range []string{genSession, genStateless} {
		h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateLess(gen == genStateless))
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		out = append(out, peer{name: "mcp-go/" + gen, gen: gen, url: srv.URL, runs: rec.runs, bound: true})
	}
	return out
}

// startTSPeer runs testdata/node/server.mjs: the TypeScript SDK's server,
// session-based (the newest generation the SDK speaks), recording every
// run in a file.
func startTSPeer(t *testing.T, dir string) peer {
	t.Helper()
	defs, err := json.Marshal(toolDefs)
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(record, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "server.mjs"))
	cmd.Env = append(os.Environ(), "PORT=0", "TOOLS_JSON="+string(defs), "RECORD_FILE="+record)
	cmd.Stderr = &logWriter{t: t, prefix: "ts server: "}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				port <- p
			}
		}
	}()
	var url string
	select {
	case p := <-port:
		url = "http://127.0.0.1:" + p + "/mcp"
	case <-time.After(startTimeout):
		t.Fatal("the TypeScript server did not start listening")
	}
	return peer{name: "typescript-sdk/" + genSession, gen: genSession, url: url, runs: func(t *testing.T) []run {
		b, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		var out []run
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			var r run
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("the TypeScript server's record %q: %v", line, err)
			}
			out = append(out, r)
		}
		return out
	}}
}

// logWriter passes a child's output to the test log.
type logWriter struct {
	t      *testing.T
	prefix string
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.t.Log(w.prefix + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (r run) String() string {
	b, _ := json.Marshal(r.Args)
	return fmt.Sprintf("%s %s", r.Tool, b)
}
