package gateclient

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// These tests run the client against a real TLS server, HTTP/2 on, whose
// frames each test scripts: what the operator would send, and what a
// broken or hostile one might.

// config returns a valid configuration whose content, and so revision,
// depends on marker.
func config(marker string) *gateproto.Config {
	c := &gateproto.Config{
		Version: gateproto.Version, Namespace: "agents", Pod: "agent-0",
		Mode: gateproto.ModeEnforce, Policies: []string{marker},
	}
	c.Revision = c.ComputeRevision()
	return c
}

func line(t *testing.T, f gateproto.Frame) string {
	t.Helper()
	if f.Version == "" {
		f.Version = gateproto.Version
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// scripted is a TLS server, HTTP/2 on, whose handler a test sets.
type scripted struct {
	srv     *httptest.Server
	caFile  string
	tokFile string

	mu      sync.Mutex
	tokens  []string
	protos  []string
	handler func(w http.ResponseWriter, r *http.Request, n int)
}

func newScripted(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *scripted {
	t.Helper()
	s := &scripted{handler: h}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != gateproto.ConfigPath {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.tokens = append(s.tokens, r.Header.Get("Authorization"))
		s.protos = append(s.protos, r.Proto)
		n := len(s.tokens)
		s.mu.Unlock()
		w.Header().Set("Content-Type", gateproto.StreamContentType)
		s.handler(w, r, n)
	}))
	s.srv.EnableHTTP2 = true
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	dir := t.TempDir()
	s.caFile = filepath.Join(dir, "ca.crt")
	s.tokFile = filepath.Join(dir, "token")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if err := os.WriteFile(s.caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	s.setToken(t, "token-1")
	return s
}

func (s *scripted) setToken(t *testing.T, tok string) {
	t.Helper()
	if err := os.WriteFile(s.tokFile, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (s *scripted) requests() (tokens, protos []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...), append([]string(nil), s.protos...)
}

func (s *scripted) client(t *testing.T, o Options) *Client {
	t.Helper()
	o.URL, o.TokenFile, o.CAFile = s.srv.URL, s.tokFile, s.caFile
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.InitialBackoff == 0 {
		o.InitialBackoff, o.MaxBackoff = 20*time.Millisecond, 100*time.Millisecond
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// logLines keeps the client's log lines for a test to read.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(b))
	return len(b), nil
}

func (l *logLines) find(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// applied records what the client applied. A configuration whose policy
// is in refuse is refused, as a gate refuses one it cannot put in force;
// offered records every configuration apply was given.
type applied struct {
	mu      sync.Mutex
	revs    []string
	pols    []string
	offered []string
	refuse  map[string]bool
}

func (a *applied) apply(c *gateproto.Config) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.offered = append(a.offered, c.Policies[0])
	if a.refuse[c.Policies[0]] {
		return fmt.Errorf("cannot put %s in force", c.Policies[0])
	}
	a.revs = append(a.revs, c.Revision)
	a.pols = append(a.pols, c.Policies[0])
	return nil
}

func (a *applied) setRefused(policy string, refused bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refuse == nil {
		a.refuse = map[string]bool{}
	}
	a.refuse[policy] = refused
}

func (a *applied) offers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.offered...)
}

func (a *applied) policies() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.pols...)
}

// run runs the client until the test ends.
func run(t *testing.T, c *Client, a *applied) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Run(ctx, a.apply); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRefusesBadFramesAndKeepsTheLastGood(t *testing.T) {
	bad := config("bad")
	bad.Mode = "Permissive"
	bad.Revision = bad.ComputeRevision() // valid revision, invalid content
	tampered := config("tampered")
	tampered.Policies = []string{"changed-after-stamping"}
	otherVersion := config("other-version")

	release := make(chan struct{})
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		for _, l := range []string{
			line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("first")}),
			line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("first")}), // same revision: not applied again
			"{not json\n",
			line(t, gateproto.Frame{Version: "toolgate.dev/gate/v2", Type: gateproto.FrameConfig, Config: otherVersion}),
			line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: bad}),
			line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: tampered}),
			line(t, gateproto.Frame{Type: gateproto.FrameConfig}), // no config at all
			line(t, gateproto.Frame{Type: gateproto.FrameHeartbeat}),
		} {
			_, _ = io.WriteString(w, l)
			w.(http.Flusher).Flush()
		}
		<-release
		_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("second")}))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := s.client(t, Options{})
	a := &applied{}
	run(t, c, a)

	eventually(t, "five frames are refused", func() bool { return c.Refused() == 5 })
	if got := a.policies(); len(got) != 1 || got[0] != "first" {
		t.Fatalf("applied %v, want only the first configuration", got)
	}
	if rev, _ := c.LastApplied(); rev != config("first").Revision {
		t.Fatalf("LastApplied = %q, want the first configuration's", rev)
	}
	if !c.Connected() {
		t.Fatal("a stream that delivers refused frames is still connected")
	}
	close(release)
	eventually(t, "the second configuration is applied", func() bool { return len(a.policies()) == 2 })
	if got := a.policies(); got[1] != "second" {
		t.Fatalf("applied %v, want first then second", got)
	}
	if st := c.Stats(); st.Connections != 1 {
		t.Fatalf("%d connections, want the one stream throughout", st.Connections)
	}
	// The stream has its own HTTP/1.1 connection, which the operator
	// serves without a goroutine waiting on it.
	if _, protos := s.requests(); protos[0] != "HTTP/1.1" {
		t.Fatalf("the stream ran over %s, want HTTP/1.1", protos[0])
	}
}

func TestSilentStreamReconnectsAndTokenIsReadAgain(t *testing.T) {
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, n int) {
		// The first stream falls silent after its configuration.
		_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("first")}))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := s.client(t, Options{HeartbeatTimeout: 300 * time.Millisecond})
	a := &applied{}
	run(t, c, a)
	eventually(t, "the first configuration is applied", func() bool { return len(a.policies()) == 1 })
	s.setToken(t, "token-2")
	eventually(t, "the client reconnects", func() bool { return c.Stats().Connections >= 2 })

	tokens, _ := s.requests()
	if tokens[0] != "Bearer token-1" || tokens[len(tokens)-1] != "Bearer token-2" {
		t.Fatalf("tokens sent %q: want the file read again at each connection", tokens)
	}
	if !strings.Contains(c.Stats().LastError, "heartbeat") {
		t.Fatalf("LastError = %q, want the heartbeat timeout", c.Stats().LastError)
	}
	// The same revision on the new stream is not applied again.
	if got := a.policies(); len(got) != 1 {
		t.Fatalf("applied %v, want the configuration once", got)
	}
}

func TestOversizedFrameIsRefused(t *testing.T) {
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("first")}))
		// One line longer than a frame may be, and never a newline.
		chunk := strings.Repeat("x", 1<<20)
		_, _ = io.WriteString(w, `{"version":"`+gateproto.Version+`","type":"config","error":"`)
		for range gateproto.MaxFrameBytes/len(chunk) + 1 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		<-r.Context().Done()
	})
	c := s.client(t, Options{})
	a := &applied{}
	run(t, c, a)
	eventually(t, "the oversized frame is refused", func() bool { return c.Refused() == 1 })
	eventually(t, "the client reconnects", func() bool { return c.Stats().Connections == 2 })
	if got := a.policies(); len(got) != 1 || got[0] != "first" {
		t.Fatalf("applied %v, want the first configuration only", got)
	}
}

func TestRefusedConnectionNeverApplies(t *testing.T) {
	s := newScripted(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/plain")
		http.Error(w, "the token is not valid", http.StatusUnauthorized)
	})
	c := s.client(t, Options{})
	a := &applied{}
	run(t, c, a)
	eventually(t, "three attempts", func() bool { tokens, _ := s.requests(); return len(tokens) >= 3 })
	if got := a.policies(); len(got) != 0 {
		t.Fatalf("applied %v from an operator that refused every stream", got)
	}
	st := c.Stats()
	if st.Connected || st.Revision != "" || st.Connections != 0 {
		t.Fatalf("stats %+v: want never connected, nothing applied", st)
	}
	if !strings.Contains(st.LastError, "401") || !strings.Contains(st.LastError, "the token is not valid") {
		t.Fatalf("LastError = %q, want the status and the operator's reason", st.LastError)
	}
}

func TestOperatorErrorFrameEndsTheStream(t *testing.T) {
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("first")}))
			_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameError, Error: "going away"}))
			return
		}
		_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("second")}))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := s.client(t, Options{})
	a := &applied{}
	run(t, c, a)
	eventually(t, "the second stream's configuration is applied", func() bool { return len(a.policies()) == 2 })
	if got := a.policies(); fmt.Sprint(got) != "[first second]" {
		t.Fatalf("applied %v", got)
	}
}

func TestNewRefusesPlainHTTP(t *testing.T) {
	if _, err := New(Options{URL: "http://operator:9444", TokenFile: "t", CAFile: "c"}); err == nil {
		t.Fatal("New accepted an http URL: the token would travel in clear")
	}
}

// A configuration the gate refuses is not the one in force: the client
// must not record it as applied, or it would skip the same revision when
// the operator sends it again and report a revision the gate never
// enforced.
func TestConfigurationTheGateRefusesIsNotRecorded(t *testing.T) {
	steps := make(chan string)
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		for {
			select {
			case marker := <-steps:
				_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config(marker)}))
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	logs := &logLines{}
	c := s.client(t, Options{Logger: slog.New(slog.NewJSONHandler(io.MultiWriter(logs, testWriter{t}), nil))})
	a := &applied{}
	a.setRefused("refused", true)
	run(t, c, a)
	send := func(marker string) {
		t.Helper()
		select {
		case steps <- marker:
		case <-time.After(10 * time.Second):
			t.Fatal("the stream is not open")
		}
	}

	send("first")
	eventually(t, "the first configuration is applied", func() bool { return len(a.policies()) == 1 })
	send("refused")
	eventually(t, "the gate is offered the second configuration", func() bool { return len(a.offers()) == 2 })
	eventually(t, "the refusal is counted", func() bool { return c.Refused() == 1 })

	if rev, _ := c.LastApplied(); rev != config("first").Revision {
		t.Fatalf("LastApplied = %q after the gate refused a configuration, want the first one's %q", rev, config("first").Revision)
	}
	st := c.Stats()
	if !strings.Contains(st.LastRefusal, config("refused").Revision) || !strings.Contains(st.LastRefusal, "cannot put refused in force") {
		t.Fatalf("LastRefusal = %q, want the refused revision and the gate's reason", st.LastRefusal)
	}
	if !st.Connected {
		t.Fatal("a refused configuration closed the stream; the operator's next one would not arrive")
	}
	logged := logs.find("the gate refused a configuration")
	if !strings.Contains(logged, config("refused").Revision) || !strings.Contains(logged, "cannot put refused in force") || !strings.Contains(logged, `"level":"WARN"`) {
		t.Fatalf("the refusal was not logged with its revision and reason: %q", logged)
	}

	// The same revision sent again is offered again, not taken as already
	// in force, and applied once the gate can take it.
	a.setRefused("refused", false)
	send("refused")
	eventually(t, "the configuration refused before is applied", func() bool { return len(a.policies()) == 2 })
	if rev, _ := c.LastApplied(); rev != config("refused").Revision {
		t.Fatalf("LastApplied = %q, want the configuration applied last", rev)
	}
	if got := a.offers(); fmt.Sprint(got) != "[first refused refused]" {
		t.Fatalf("offered %v", got)
	}
	if c.Refused() != 1 {
		t.Fatalf("Refused = %d, want the one refusal", c.Refused())
	}
}

// TestBusyOperatorIsRetriedWhenItSays: an operator connecting a fleet turns
// some gates away with a Retry-After; coming back sooner would only be
// turned away again.
func TestBusyOperatorIsRetriedWhenItSays(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	s := newScripted(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, line(t, gateproto.Frame{Type: gateproto.FrameConfig, Config: config("served")}))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := s.client(t, Options{InitialBackoff: 10 * time.Millisecond, MaxBackoff: 5 * time.Second})
	a := &applied{}
	run(t, c, a)
	eventually(t, "the configuration is applied", func() bool { return len(a.policies()) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if wait := at[1].Sub(at[0]); wait < time.Second {
		t.Fatalf("retried %s after a refusal that said to wait a second", wait)
	}
}

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header string
		want   time.Duration
	}{
		{"503 in seconds", http.StatusServiceUnavailable, "7", 7 * time.Second},
		{"429 in seconds", http.StatusTooManyRequests, " 2 ", 2 * time.Second},
		{"none", http.StatusServiceUnavailable, "", 0},
		{"an HTTP date is not what the operator sends", http.StatusServiceUnavailable, "Wed, 21 Oct 2026 07:28:00 GMT", 0},
		{"negative", http.StatusServiceUnavailable, "-3", 0},
		{"bounded", http.StatusServiceUnavailable, "999999", time.Hour},
		{"not on a refusal that is final", http.StatusUnauthorized, "5", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tc.status, Header: http.Header{}}
			if tc.header != "" {
				resp.Header.Set("Retry-After", tc.header)
			}
			if got := retryAfter(resp); got != tc.want {
				t.Errorf("retryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}
