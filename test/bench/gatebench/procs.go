package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// child is a process this program started: the gate or a plain proxy.
type child struct {
	cmd *exec.Cmd
	// release frees what the process was given once it has exited.
	release []func()
}

func (p *child) pid() int { return p.cmd.Process.Pid }

// stop kills the process, waits for it and frees what it was given.
func (p *child) stop() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	for _, f := range p.release {
		f()
	}
}

// serveProxy runs this program as the plain reverse proxy: the standard
// library's, flushing as it copies, and nothing else.
func serveProxy(listen, target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 128}
	// Sessions closing cut their streams; that is not news.
	rp.ErrorLog = log.New(io.Discard, "", 0)
	fullDuplex := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server's answer may start while the proxy's transport
		// still reads the end of the request body (it reads past the
		// Content-Length to check it); net/http closes an HTTP/1
		// request body once the response begins, unless the handler
		// is full duplex, and the transport then drops the upstream
		// connection mid-answer. The gate reads each request whole
		// before forwarding it, so it never meets this.
		_ = http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	})
	return http.ListenAndServe(listen, fullDuplex)
}

// startProxy runs the plain proxy in front of target as a process of its
// own (this program, run again), as the gate runs, so that neither shares
// the clients' scheduler. It returns the process and the proxy's base URL.
func startProxy(target string) (*child, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	addr := freeAddr()
	cmd := exec.Command(self, "--proxy-listen", addr, "--proxy-target", target)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	p := &child{cmd: cmd}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p, "http://" + addr, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.stop()
	return nil, "", fmt.Errorf("the proxy did not start on %s", addr)
}

// benchServer is one server of the gate's configuration and the
// fingerprints of its tools as the gate will compute them.
type benchServer struct {
	id, url string
	fps     map[string]string
}

// gateProc is the gate binary, running and ready.
type gateProc struct {
	*child
	// base is where agents reach the gate; metrics is its /metrics; debug
	// its profiles, served only when it runs with --profiling.
	base, metrics, debug string
}

// startGate runs the gate binary with a configuration of servers, every
// tool exposed at L1 and action set on findings, and waits until it is
// ready. extra are flags of the gate's besides those the benchmark sets,
// env environment besides this program's.
func startGate(bin string, action gateproto.FindingAction, extra, env []string, servers []benchServer) (*gateProc, error) {
	cfg := &gateproto.Config{Version: gateproto.Version, Namespace: "bench", Pod: "bench-0", Policies: []string{"p"}, Mode: gateproto.ModeEnforce}
	for _, s := range servers {
		srv := gateproto.Server{ID: s.id, Ready: true, Upstream: &gateproto.Upstream{URL: s.url, Transport: "StreamableHTTP"}, MessageAction: action}
		names := make([]string, 0, len(s.fps))
		for n := range s.fps {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			srv.Tools = append(srv.Tools, gateproto.Tool{Name: n, Decision: gateproto.DecisionExposed, Fingerprint: s.fps[n], Level: "L1", Pin: strings.ReplaceAll(n, "_", "-"), ResultAction: action})
		}
		cfg.Servers = append(cfg.Servers, srv)
	}
	cfg.Revision = cfg.ComputeRevision()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("the gate's configuration: %w", err)
	}
	dir, err := os.MkdirTemp("", "gatebench")
	if err != nil {
		return nil, err
	}
	cfgPath := dir + "/config.json"
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	listen, metrics := freeAddr(), freeAddr()
	args := append([]string{"--config-file", cfgPath, "--listen", listen, "--metrics-addr", metrics, "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// The audit lines: written, as in production, to a file that keeps
	// nothing (a pipe would charge this process for copying them).
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stdout = devNull
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		devNull.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the gate: %w", err)
	}
	g := &gateProc{
		child: &child{cmd: cmd, release: []func(){func() { devNull.Close() }, func() { os.RemoveAll(dir) }}},
		base:  "http://" + listen, metrics: "http://" + metrics + "/metrics", debug: "http://" + metrics + "/debug/pprof/",
	}
	if err := waitReady("http://" + metrics + "/readyz"); err != nil {
		g.stop()
		return nil, err
	}
	return g, nil
}

// answerLine says what the called tool answers and what the configuration
// does with findings.
func answerLine(o options) string {
	answer := "echo of the argument"
	if o.result != "" {
		answer = fmt.Sprintf("%d bytes of clean text", len(o.result))
	}
	framing := "event streams"
	if o.jsonAnswers {
		framing = "JSON bodies"
	}
	action := "none set"
	if o.action != "" {
		action = string(o.action)
	}
	return fmt.Sprintf("tools/call answer: %s, as %s; resultAction/messageAction: %s", answer, framing, action)
}

// methodCounts counts the HTTP requests a server receives, by method.
type methodCounts struct {
	post, get, del, other atomic.Int64
	// conns counts the connections the server accepted.
	conns atomic.Int64
}

func (m *methodCounts) add(method string) {
	switch method {
	case http.MethodPost:
		m.post.Add(1)
	case http.MethodGet:
		m.get.Add(1)
	case http.MethodDelete:
		m.del.Add(1)
	default:
		m.other.Add(1)
	}
}

// snapshot is the counts so far: POST, GET, DELETE and any other method.
func (m *methodCounts) snapshot() [4]int64 {
	return [4]int64{m.post.Load(), m.get.Load(), m.del.Load(), m.other.Load()}
}
