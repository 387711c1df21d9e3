package gate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/gate/argcheck"
	"github.com/toolgate/toolgate/internal/gate/argjudge"
	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/membudget"
	"github.com/toolgate/toolgate/pkg/argrule"
	"github.com/toolgate/toolgate/pkg/resultscan"
)

// Limits bound what an agent or a server can make the gate hold or wait
// for. Each bound, when hit, is answered with a JSON-RPC error or an HTTP
// status that names it, logged and counted in toolgate_gate_limits_hit_total.
type Limits struct {
	// MaxRequestBytes bounds one request body from the agent.
	MaxRequestBytes int64
	// MaxListBytes bounds one tools/list response from a server, the only
	// response the gate reads whole.
	MaxListBytes int64
	// MaxListDecodedBytes bounds the memory decoding one tools/list response
	// may take, as pkg/tooldef estimates it node by node before allocating:
	// a list of many tiny values (nested empty arrays, say) takes dozens of
	// times its size once decoded, and a real catalogue about ten times.
	// Zero means MaxListBytes.
	MaxListDecodedBytes int64
	// ListDecodeBudget bounds the same for every list the gate decodes at
	// once; a list that finds it taken is refused. Zero means twice
	// MaxListBytes.
	ListDecodeBudget int64
	// MaxEventBytes bounds one server-sent event of any stream.
	MaxEventBytes int
	// MaxListPages bounds the pages the gate reads when it lists a server
	// itself.
	MaxListPages int
	// MaxInFlight bounds the requests open at once, the standalone streams
	// MaxStreams bounds aside. Its default is two for each session the
	// table holds: an agent's client sends its next request as soon as it
	// has read the answer to the last, while the gate still finishes that
	// exchange (its audit line, its record of outstanding requests), so
	// under load a session briefly holds two; 256 clients of a session
	// each, one request at a time, reached 251 of 256.
	MaxInFlight int
	// MaxStreams bounds the agents' standalone streams open at once: the
	// GET of a streamable HTTP session, the stream of an SSE session. A
	// session-based agent holds one for as long as its session lives,
	// quiet almost always, beside the requests it sends; counted with the
	// requests, as many agents as half the bound would leave the gate no
	// room for a request.
	MaxStreams int
	// MaxSessions bounds the MCP sessions the gate tracks.
	MaxSessions int
	// MaxOutstanding bounds the requests of one agent session (or of the
	// agents without one) a server has not answered yet, which the gate
	// records to judge the responses a server writes on other streams.
	MaxOutstanding int
	// ResponseHeaderTimeout bounds the wait for a server's response headers
	// when its Upstream.Timeout is not set.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout bounds the silence within a response to a POST; streams
	// opened by GET and subscriptions/listen may stay silent.
	IdleTimeout time.Duration
	// SessionIdleTimeout forgets a session not used for this long.
	SessionIdleTimeout time.Duration
	// ListTTL is the most a filtered list may be cached by the agent
	// (ttlMs, MCP 2026-07-28); zero makes it stale at once, so the agent
	// asks again and sees the configuration in force.
	ListTTL time.Duration
	// ApprovalKeepAlive is how often an agent waiting for a human hears
	// from the gate: a progress notification, or an SSE comment.
	ApprovalKeepAlive time.Duration
	// MaxScanBytes bounds the text of one answer or message the scan of
	// what servers say examines (pkg/resultscan); what lies past it is
	// not known to be clean, and a setting that acts on findings treats
	// it as one.
	MaxScanBytes int64
	// ScanBufferBudget bounds the memory every JSON answer read whole for
	// the scan holds at once, past each one's first 64 KiB; an answer that
	// finds it spent is treated as one past MaxScanBytes. Zero means
	// 8 MiB.
	ScanBufferBudget int64
}

// DefaultLimits are the bounds when Options leaves them zero.
var DefaultLimits = Limits{
	MaxRequestBytes:       4 << 20,
	MaxListBytes:          16 << 20,
	MaxEventBytes:         16 << 20,
	MaxListPages:          64,
	MaxInFlight:           512,
	MaxStreams:            256,
	MaxSessions:           256,
	MaxOutstanding:        1024,
	ResponseHeaderTimeout: 60 * time.Second,
	IdleTimeout:           5 * time.Minute,
	SessionIdleTimeout:    30 * time.Minute,
	ApprovalKeepAlive:     10 * time.Second,
	MaxScanBytes:          resultscan.DefaultMaxBytes,
	ScanBufferBudget:      8 << 20,
}

// Options configure a Gate.
type Options struct {
	// Logger receives diagnostics; nil logs nothing.
	Logger *slog.Logger
	// Audit receives one JSON line per decision; nil writes them to
	// standard output with slog's JSON handler.
	Audit *slog.Logger
	// Approver decides gated calls; nil refuses them all (DenyApprover).
	Approver Approver
	// Metrics are where the gate counts; nil makes a set on a registry of
	// its own (see Gate.Metrics).
	Metrics *gatemetrics.Metrics
	// Limits; a zero field takes its DefaultLimits value.
	Limits Limits
}

// Gate is the proxy. It is an http.Handler; it serves nothing until Apply
// has been given a valid configuration.
type Gate struct {
	log      *slog.Logger
	audit    *slog.Logger
	approver Approver
	metrics  *gatemetrics.Metrics
	limits   Limits
	inflight chan struct{}
	streams  chan struct{}
	// decode is the memory every tools/list decoded at once shares.
	decode *membudget.Budget
	// scanBuffers is the memory every JSON answer read whole for the scan
	// shares.
	scanBuffers *membudget.Budget
	// known remembers the fingerprints of the tool definitions servers
	// sent, by their bytes: every session lists the same catalogue.
	known *rpcmsg.Known
	// args holds each approved definition's inputSchema compiled once,
	// by fingerprint, that every call's arguments are checked against.
	args *argcheck.Checker
	// rules compiles argument rules once per expression, across
	// configurations; floors keeps each approved definition's floor plan.
	rules  *argrule.Cache
	floors floorPlans

	state atomic.Pointer[state]
	// applyMu serialises Apply, so generations and blocks move in order.
	applyMu sync.Mutex
	gen     uint64

	// mu guards the maps the gate keeps across configurations.
	mu      sync.Mutex
	watches map[string]*watch // by server ID; they outlive configurations
	clients map[clientKey]*http.Client

	// sessions are the MCP sessions the gate tracks; held the calls
	// waiting for a human. Each has a lock of its own.
	sessions *sessionTable
	held     heldCalls

	ids atomic.Uint64
	// reports bounds the finding reports on their way to the operator.
	reports chan struct{}
}

// maxReportsInFlight bounds the finding reports sent at once; a finding
// past it is still audited and counted, and its report dropped.
const maxReportsInFlight = 16

// state is one applied configuration, immutable once published.
type state struct {
	cfg       *gateproto.Config
	gen       uint64
	appliedAt time.Time
	servers   map[string]*serverState
	// scan judges what servers say, knowing the names of every tool the
	// agent can call.
	scan *resultscan.Scanner
	// rules are the configuration's argument rules, compiled, by name.
	rules argjudge.Rules
}

// scanner is the state's Scanner.
func (st *state) scanner() *resultscan.Scanner { return st.scan }

type serverState struct {
	cfg    *gateproto.Server
	tools  map[string]*gateproto.Tool
	url    *url.URL
	client *http.Client
	// headerTimeout is the server's Timeout or the default.
	headerTimeout time.Duration
	sse           bool
	watch         *watch
}

// New returns a gate with no configuration.
func New(o Options) *Gate {
	l := o.Limits
	d := DefaultLimits
	l.MaxRequestBytes = orDefault(l.MaxRequestBytes, d.MaxRequestBytes)
	l.MaxListBytes = orDefault(l.MaxListBytes, d.MaxListBytes)
	l.MaxListDecodedBytes = orDefault(l.MaxListDecodedBytes, l.MaxListBytes)
	l.ListDecodeBudget = max(orDefault(l.ListDecodeBudget, 2*l.MaxListBytes), l.MaxListDecodedBytes)
	l.MaxEventBytes = orDefault(l.MaxEventBytes, d.MaxEventBytes)
	l.MaxListPages = orDefault(l.MaxListPages, d.MaxListPages)
	l.MaxInFlight = orDefault(l.MaxInFlight, d.MaxInFlight)
	l.MaxStreams = orDefault(l.MaxStreams, d.MaxStreams)
	l.MaxSessions = orDefault(l.MaxSessions, d.MaxSessions)
	l.MaxOutstanding = orDefault(l.MaxOutstanding, d.MaxOutstanding)
	l.ResponseHeaderTimeout = orDefault(l.ResponseHeaderTimeout, d.ResponseHeaderTimeout)
	l.IdleTimeout = orDefault(l.IdleTimeout, d.IdleTimeout)
	l.SessionIdleTimeout = orDefault(l.SessionIdleTimeout, d.SessionIdleTimeout)
	l.ApprovalKeepAlive = orDefault(l.ApprovalKeepAlive, d.ApprovalKeepAlive)
	l.MaxScanBytes = orDefault(l.MaxScanBytes, d.MaxScanBytes)
	l.ScanBufferBudget = orDefault(l.ScanBufferBudget, d.ScanBufferBudget)
	g := &Gate{
		log:         o.Logger,
		audit:       o.Audit,
		approver:    o.Approver,
		metrics:     o.Metrics,
		limits:      l,
		inflight:    make(chan struct{}, l.MaxInFlight),
		streams:     make(chan struct{}, l.MaxStreams),
		decode:      membudget.New(l.ListDecodeBudget),
		scanBuffers: membudget.New(l.ScanBufferBudget),
		known:       rpcmsg.NewKnown(knownToolBytes),
		args:        argcheck.NewChecker(0),
		rules:       argrule.NewCache(2 * gateproto.MaxArgumentRules),
		watches:     map[string]*watch{},
		clients:     map[clientKey]*http.Client{},
		held:        heldCalls{byKey: map[string]context.CancelFunc{}},
		reports:     make(chan struct{}, maxReportsInFlight),
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.audit == nil {
		g.audit = slog.New(slog.NewJSONHandler(os.Stdout, nil))
	}
	if g.approver == nil {
		g.approver = DenyApprover{}
	}
	if g.metrics == nil {
		g.metrics = gatemetrics.New(gatemetrics.Sources{ConfigApplied: g.ConfigApplied})
	}
	g.sessions = newSessionTable(l.MaxSessions, l.SessionIdleTimeout, g.metrics.Sessions)
	return g
}

func orDefault[T int | int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// Metrics returns the gate's collectors.
func (g *Gate) Metrics() *gatemetrics.Metrics { return g.metrics }

// Applied returns the revision in force, false before the first Apply.
func (g *Gate) Applied() (string, bool) {
	st := g.state.Load()
	if st == nil {
		return "", false
	}
	return st.cfg.Revision, true
}

// ConfigApplied is when the configuration in force was applied, false
// before the first.
func (g *Gate) ConfigApplied() (time.Time, bool) {
	st := g.state.Load()
	if st == nil {
		return time.Time{}, false
	}
	return st.appliedAt, true
}

// Apply puts cfg in force. It validates it whole first and, on error, keeps
// the configuration in force (a gate never invents or half-applies one).
// Sessions and streams are kept: the new configuration is judged from the
// next message on. Apply keeps no reference to cfg's caller-owned maps
// beyond cfg itself, which must not change afterwards.
func (g *Gate) Apply(cfg *gateproto.Config) error {
	if err := cfg.Validate(); err != nil {
		g.metrics.ConfigApplied.WithLabelValues("refused").Inc()
		g.log.Error("configuration refused", "error", err)
		return fmt.Errorf("gate: %w", err)
	}
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	g.gen++
	st := &state{cfg: cfg, gen: g.gen, appliedAt: time.Now(), servers: make(map[string]*serverState, len(cfg.Servers))}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		ss := &serverState{cfg: s, tools: make(map[string]*gateproto.Tool, len(s.Tools)), watch: g.watch(s.ID)}
		for j := range s.Tools {
			ss.tools[s.Tools[j].Name] = &s.Tools[j]
		}
		if s.Ready {
			u, err := url.Parse(s.Upstream.URL)
			if err != nil { // Validate parsed it already
				return fmt.Errorf("gate: server %s: %w", s.ID, err)
			}
			client, err := g.client(s.Upstream)
			if err != nil {
				g.metrics.ConfigApplied.WithLabelValues("refused").Inc()
				return fmt.Errorf("gate: server %s: %w", s.ID, err)
			}
			ss.url, ss.client = u, client
			ss.headerTimeout = s.Upstream.Timeout.Duration
			if ss.headerTimeout <= 0 {
				ss.headerTimeout = g.limits.ResponseHeaderTimeout
			}
			ss.sse = s.Upstream.Transport == "SSE"
		}
		st.servers[s.ID] = ss
	}
	st.rules = argjudge.Compile(cfg.ArgumentRules, g.rules)
	for name, r := range st.rules {
		if r.Err != nil {
			g.log.Warn("an argument rule does not compile; the calls of the tools it names are refused", "rule", name, "error", r.Err)
		}
	}
	st.scan = resultscan.New(resultscan.Options{AgentTools: reachableTools(cfg), MaxBytes: g.limits.MaxScanBytes})
	old := g.state.Swap(st)
	g.metrics.ConfigApplied.WithLabelValues("applied").Inc()
	g.log.Info("configuration applied", "revision", cfg.Revision, "mode", cfg.Mode, "servers", len(cfg.Servers))

	// Lift the blocks the new configuration resolves, and tell agents
	// whose list may have changed.
	for id, ss := range st.servers {
		lifted := ss.watch.lift(ss)
		changed := lifted || old == nil || exposedChanged(old.servers[id], ss)
		g.setToolGauges(ss)
		if changed {
			g.notifyToolsChanged(ss.watch)
		}
	}
	// A server no longer configured is not exposing or withholding
	// anything: its gauges would otherwise report the last configuration
	// it was in for as long as the gate runs.
	if old != nil {
		for id := range old.servers {
			if st.servers[id] == nil {
				g.metrics.Tools.DeleteLabelValues(id, "exposed")
				g.metrics.Tools.DeleteLabelValues(id, "withheld")
			}
		}
	}
	return nil
}

// reachableTools are the names of every tool the agent can call through
// the gate: exposed or approval-gated, on any server.
func reachableTools(cfg *gateproto.Config) []string {
	var names []string
	for _, s := range cfg.Servers {
		for _, t := range s.Tools {
			if t.Decision != gateproto.DecisionWithheld {
				names = append(names, t.Name)
			}
		}
	}
	return names
}

// exposedChanged reports whether a configuration change may change what a
// server's list shows.
func exposedChanged(a, b *serverState) bool {
	if a == nil || a.cfg.Ready != b.cfg.Ready || len(a.tools) != len(b.tools) {
		return true
	}
	for name, t := range b.tools {
		o := a.tools[name]
		if o == nil || o.Decision != t.Decision || o.Fingerprint != t.Fingerprint || o.AuditForwardable != t.AuditForwardable {
			return true
		}
	}
	return false
}

func (g *Gate) watch(id string) *watch {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.watches[id]
	if w == nil {
		w = newWatch(id)
		g.watches[id] = w
	}
	return w
}

func (g *Gate) setToolGauges(ss *serverState) {
	if cur := g.state.Load(); cur == nil || cur.servers[ss.cfg.ID] == nil {
		return // a list that ends after its server was dropped sets nothing
	}
	exposed, withheld := 0, 0
	blocked := ss.watch.blockedSet()
	for name, t := range ss.tools {
		if t.Decision != gateproto.DecisionWithheld && ss.cfg.Ready && !blocked[name] {
			exposed++
		} else {
			withheld++
		}
	}
	g.metrics.Tools.WithLabelValues(ss.cfg.ID, "exposed").Set(float64(exposed))
	g.metrics.Tools.WithLabelValues(ss.cfg.ID, "withheld").Set(float64(withheld))
}

// errNoConfig and friends are what the agent reads when the gate cannot
// serve a server at all. They say what is wrong, not how to get around it.
var (
	errNoConfig       = errors.New("toolgate: no configuration yet; nothing is exposed")
	errUnknownServer  = errors.New("toolgate: no such server")
	errServerNotReady = errors.New("toolgate: server not available")
)
