package gate

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// sideServer is a hand-written streamable HTTP server with a side stream —
// the GET stream, or the stateless revision's subscriptions/listen — that
// it writes responses on. answerList decides how the agent's tools/list is
// answered, given its id, the POST's writer, the request and the side
// stream (nil if none opened in time).
type sideServer struct {
	// sessionID is the Mcp-Session-Id the server issues; "" issues none.
	sessionID  string
	answerList func(id json.RawMessage, w http.ResponseWriter, r *http.Request, side *sideStream)
	// resumed answers a GET carrying Last-Event-ID: a stream the agent
	// resumes.
	resumed func(w http.ResponseWriter, r *http.Request)
	// internalList, when set, is told of each of the gate's own lists.
	internalList func()

	mu     sync.Mutex
	side   *sideStream
	opened chan struct{}
}

// sideStream is an open side stream the server may write events on.
type sideStream struct {
	mu sync.Mutex
	w  http.ResponseWriter
}

func (s *sideStream) event(data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = io.WriteString(s.w, "event: message\ndata: "+data+"\n\n")
	s.w.(http.Flusher).Flush()
}

func startSideServer(t *testing.T, s *sideServer) *upstream {
	t.Helper()
	s.opened = make(chan struct{})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &upstream{srv: srv, gen: genSession}
}

// waitSide is the side stream once the agent has opened it.
func (s *sideServer) waitSide() *sideStream {
	select {
	case <-s.opened:
	case <-time.After(5 * time.Second):
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.side
}

// holdSide keeps a side stream open until the agent goes.
func (s *sideServer) holdSide(w http.ResponseWriter, r *http.Request, first string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	st := &sideStream{w: w}
	if first != "" {
		st.event(first)
	} else {
		w.(http.Flusher).Flush()
	}
	s.mu.Lock()
	if s.side == nil {
		s.side = st
		close(s.opened)
	}
	s.mu.Unlock()
	<-r.Context().Done()
}

func (s *sideServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.sessionID != "" {
		w.Header().Set("Mcp-Session-Id", s.sessionID)
	}
	if r.Method == http.MethodGet {
		if r.Header.Get("Last-Event-ID") != "" && s.resumed != nil {
			s.resumed(w, r)
			return
		}
		s.holdSide(w, r, "")
		return
	}
	m, ok := readHostileRequest(w, r)
	if !ok {
		return
	}
	writeJSON := func(s string) { writeHostileJSON(w, s) }
	switch {
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "initialize":
		writeJSON(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"` + m.Params.ProtocolVersion +
			`","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"hostile","version":"v1"}}}`)
	case m.Method == "server/discover":
		writeJSON(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"supportedVersions":["2026-07-28"],` +
			`"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"hostile","version":"v1"}}}`)
	case m.Method == "subscriptions/listen":
		s.holdSide(w, r, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`)
	case m.Method == "tools/list" && strings.HasPrefix(string(m.ID), `"`+internalIDPrefix):
		if s.internalList != nil {
			s.internalList()
		}
		writeJSON(listAnswer(m.ID, cleanEcho, rmTool))
	case m.Method == "tools/list":
		s.answerList(m.ID, w, r, s.waitSide())
	default:
		writeJSON(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	}
}

// answerOnSide writes the unfiltered list on the side stream, after an
// answer to a request nobody made, and holds the POST open: the agent's
// client, which routes a response from any stream by its id, would take it
// for its list.
func answerOnSide(id json.RawMessage, w http.ResponseWriter, r *http.Request, side *sideStream) {
	if side != nil {
		side.event(listAnswer(json.RawMessage(`"nobody-asked"`), poisonedEcho, rmTool))
		side.event(listAnswer(id, poisonedEcho, rmTool))
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select {
	case <-r.Context().Done():
	case <-time.After(3 * time.Second):
	}
}

// A server that answers the agent's tools/list on a side stream — the
// stateless revision's subscriptions/listen stream, or the GET stream of a
// session-based server with or without a session id — never gets its
// unfiltered list to the agent: the answer to an outstanding list is
// filtered wherever it comes, and an answer to no outstanding request is
// dropped and counted.
func TestListAnsweredOnASideStreamIsFiltered(t *testing.T) {
	for _, tc := range []struct {
		name      string
		gen       generation
		sessionID string
	}{
		{"stateless, on the listen stream", genStateless, ""},
		{"session-based without a session id, on the GET stream", genSession, ""},
		{"session-based with a session, on the GET stream", genSession, "sess-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sideServer{sessionID: tc.sessionID, answerList: answerOnSide}
			u := startSideServer(t, s)
			g := startGate(t, Options{})
			if err := g.Apply(hostileConfig(t, u)); err != nil {
				t.Fatal(err)
			}
			a := connect(t, tc.gen, g.url())
			if s.waitSide() == nil {
				t.Fatal("the agent opened no side stream")
			}
			l := <-listInBackground(a)
			mustNotShowHidden(t, l)
			if n := testutil.ToFloat64(g.Metrics().Errors.WithLabelValues("bad-event")); n < 1 {
				t.Fatalf("the answer to no outstanding request was not counted: bad-event %v", n)
			}
			mustContainRefusal(t, callErr(a, t, "rm"), "withheld tool")
		})
	}
}

// Lists answered on their own POST, as JSON or as events, leave nothing in
// the outstanding record: long after more lists than the record holds, a
// list answered on the GET stream is still judged as the agent's.
func TestOutstandingRecordForgetsAnsweredRequests(t *testing.T) {
	var n int
	var mu sync.Mutex
	s := &sideServer{sessionID: "sess-1"}
	s.answerList = func(id json.RawMessage, w http.ResponseWriter, r *http.Request, side *sideStream) {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		switch {
		case i == 4200:
			answerOnSide(id, w, r, side)
		case i%2 == 0:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, listAnswer(id, cleanEcho))
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+listAnswer(id, cleanEcho)+"\n\n")
		}
	}
	u := startSideServer(t, s)
	g := startGate(t, Options{})
	if err := g.Apply(hostileConfig(t, u)); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genSession, g.url())
	if s.waitSide() == nil {
		t.Fatal("the agent opened no GET stream")
	}
	for range 4199 {
		a.listNames(t)
	}
	w := g.watch(testServerID)
	// The last exchange may still be ending as the agent reads its answer.
	left := 1
	for deadline := time.Now().Add(2 * time.Second); left != 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		w.requests.mu.Lock()
		left = len(w.requests.bySession)
		w.requests.mu.Unlock()
	}
	if left != 0 {
		t.Fatalf("requests answered on their own POST are still outstanding in %d sessions", left)
	}
	mustNotShowHidden(t, <-listInBackground(a))
}

// When a session has as many requests outstanding as the bound allows, the
// next is refused with an error naming the bound, never forwarded
// untracked.
func TestOutstandingBoundRefusesTheNextRequest(t *testing.T) {
	release := make(chan struct{})
	s := &sideServer{sessionID: "sess-1", answerList: func(id json.RawMessage, w http.ResponseWriter, _ *http.Request, _ *sideStream) {
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, listAnswer(id, cleanEcho))
	}}
	u := startSideServer(t, s)
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server closes, which waits for its handlers
	g := startGate(t, Options{Limits: Limits{MaxOutstanding: 2}})
	if err := g.Apply(hostileConfig(t, u)); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genSession, g.url())
	first, second := listInBackground(a), listInBackground(a)
	deadline := time.Now().Add(5 * time.Second)
	for testutil.ToFloat64(g.Metrics().InFlight) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("in flight %v", testutil.ToFloat64(g.Metrics().InFlight))
	start := time.Now()
	l := <-listInBackground(a)
	t.Logf("refused after %v", time.Since(start))
	if l.err == nil || !strings.Contains(l.err.Error(), "Service Unavailable") {
		t.Fatalf("a request over the bound: %v", l.err)
	}
	if n := testutil.ToFloat64(g.Metrics().LimitsHit.WithLabelValues("outstanding-requests")); n != 1 {
		t.Fatalf("outstanding-requests counted %v times", n)
	}
	unblock()
	for _, ch := range []<-chan listOutcome{first, second} {
		if l := <-ch; l.err != nil {
			t.Fatalf("a list within the bound: %v", l.err)
		}
	}
	if got := a.listNames(t); len(got) != 1 || got[0] != "echo" {
		t.Fatalf("after the bound: %v", got)
	}
}

// A server whose answer's stream breaks off before the answer, the agent
// resuming it on a GET with Last-Event-ID as MCP 2025-11-25 allows, still
// answers the agent: the list is filtered on the GET stream.
func TestListAnsweredOnAResumedStream(t *testing.T) {
	listID := make(chan json.RawMessage, 1)
	s := &sideServer{sessionID: "sess-1"}
	s.answerList = func(id json.RawMessage, w http.ResponseWriter, _ *http.Request, _ *sideStream) {
		listID <- id
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "id: ev-1\nretry: 10\ndata: \n\n")
	}
	s.resumed = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		var id json.RawMessage
		select {
		case id = <-listID:
		default:
			w.WriteHeader(http.StatusOK)
			return
		}
		_, _ = io.WriteString(w, "id: ev-2\nevent: message\ndata: "+listAnswer(id, cleanEcho, rmTool)+"\n\n")
	}
	u := startSideServer(t, s)
	g := startGate(t, Options{})
	if err := g.Apply(hostileConfig(t, u)); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genSession, g.url())
	if got := a.listNames(t); len(got) != 1 || got[0] != "echo" {
		t.Fatalf("the resumed list: %v", got)
	}
}

// A server flooding list_changed notifications makes the gate hold neither
// a goroutine nor memory per notification: its re-listings and the notices
// it relays coalesce. Once the flood is over the gate has listed the server
// again and still serves the agent.
func TestListChangedFloodIsCoalesced(t *testing.T) {
	const flood = 100_000
	var internalLists atomic.Int64
	s := &sideServer{sessionID: "sess-1", answerList: func(id json.RawMessage, w http.ResponseWriter, _ *http.Request, _ *sideStream) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, listAnswer(id, cleanEcho, rmTool))
	}}
	s.internalList = func() { internalLists.Add(1) }
	u := startSideServer(t, s)
	g := startGate(t, Options{})
	if err := g.Apply(hostileConfig(t, u)); err != nil {
		t.Fatal(err)
	}
	a := connect(t, genSession, g.url())
	side := s.waitSide()
	if side == nil {
		t.Fatal("the agent opened no GET stream")
	}
	a.listNames(t)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	baseline := runtime.NumGoroutine()
	listsBefore := internalLists.Load()

	peak := make(chan int)
	stop := make(chan struct{})
	go func() {
		most := 0
		for {
			select {
			case <-stop:
				peak <- most
				return
			default:
			}
			most = max(most, runtime.NumGoroutine())
			time.Sleep(time.Millisecond)
		}
	}()
	var peakHeap uint64
	batch := strings.Repeat("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n", 1000)
	for i := range flood / 1000 {
		side.mu.Lock()
		_, _ = io.WriteString(side.w, batch)
		side.w.(http.Flusher).Flush()
		side.mu.Unlock()
		if i%10 == 0 {
			// The live heap, not what the collector has yet to reclaim:
			// on a loaded machine the garbage of parsing a flood runs
			// ahead of a starved collector, and that is not memory the
			// gate holds. Anything kept per notification is live here.
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peakHeap = max(peakHeap, m.HeapAlloc)
		}
	}
	// Events are judged in order: once an answer to nobody written after
	// the flood is refused, the flood has been read, and once no
	// re-listing runs, it has been acted on.
	side.event(`{"jsonrpc":"2.0","id":"after-the-flood","result":{}}`)
	w := g.watch(testServerID)
	relisting := func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.relisting }
	deadline := time.Now().Add(20 * time.Second)
	for (testutil.ToFloat64(g.Metrics().Errors.WithLabelValues("bad-event")) < 1 || relisting()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	most := <-peak
	t.Logf("goroutines: %d before, %d at most during %d notifications; live heap %d MiB before, %d MiB at most; %d re-listings",
		baseline, most, flood, before.HeapAlloc>>20, peakHeap>>20, internalLists.Load()-listsBefore)
	if most > baseline+50 {
		t.Fatalf("%d goroutines during the flood, %d before", most, baseline)
	}
	if peakHeap > before.HeapAlloc+64<<20 {
		t.Fatalf("the live heap grew from %d MiB to %d MiB during the flood", before.HeapAlloc>>20, peakHeap>>20)
	}
	if internalLists.Load() == listsBefore {
		t.Fatal("the gate did not list the server again after its list changed")
	}
	if got := a.listNames(t); len(got) != 1 || got[0] != "echo" {
		t.Fatalf("after the flood the agent listed %v", got)
	}
}
