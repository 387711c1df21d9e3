package gateserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// The server reviews gates' tokens and reads their pods, and nothing else.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get
// (and ToolPins, for pending calls: see calls.go)

// Builder makes the configuration of the gate in one pod. The pod is the
// one the gate's token is bound to, read from the API server after the
// token was verified.
type Builder interface {
	Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error)
}

// EncodingBuilder is a Builder that also returns each configuration's
// encoding. The server trusts what it returns as its own: the
// configuration has passed gateproto's Validate and its revision is the
// encoding's, so the server neither validates nor encodes it again and
// writes the encoding into the frame as it is. Nothing a gate sends
// reaches it but the pod's identity, from its token.
type EncodingBuilder interface {
	Builder
	BuildEncoded(ctx context.Context, pod *corev1.Pod) (*gateproto.Encoded, error)
}

// Defaults of Options.
const (
	DefaultPort              = 9444
	DefaultHeartbeatInterval = 15 * time.Second
	DefaultDebounce          = 100 * time.Millisecond
	DefaultResync            = 2 * time.Minute
	DefaultMaxStreams        = 4096
	DefaultMaxStreamsPerPod  = 2
	DefaultMaxConnecting     = 32
	DefaultMaxStreamLifetime = 30 * time.Minute
	DefaultReviewCacheTTL    = 30 * time.Second
	DefaultWriteTimeout      = 10 * time.Second
	DefaultBuildTimeout      = 10 * time.Second
)

// Limits of the HTTP server. A gate holds one connection with one config
// stream and a few pending calls on it; nothing a gate
// sends is larger than a header block with its token.
const (
	maxConcurrentStreamsPerConn = 32
	maxHeaderBytes              = 32 << 10
	readHeaderTimeout           = 5 * time.Second
	idleTimeout                 = 2 * time.Minute
	pingAfter                   = 30 * time.Second
	pingTimeout                 = 15 * time.Second
	maxReviewCacheEntries       = 16384
	shutdownGrace               = 5 * time.Second
)

// Options configure a Server. Builder, Client and PodReader are required.
type Options struct {
	// BindAddress is host:port to listen on; ":9444" when empty.
	BindAddress string
	// CertDir, CertName and KeyName locate the serving certificate, the
	// webhook server's: gates trust the same CA the API server does for
	// the webhooks. The files are watched, so a rotated certificate is
	// served without a restart. CertName and KeyName default to tls.crt
	// and tls.key.
	CertDir, CertName, KeyName string
	// TLSOpts adjust the TLS configuration after the server's own; they
	// must leave HTTP/2 on.
	TLSOpts []func(*tls.Config)

	// Builder makes each gate's configuration.
	Builder Builder
	// Client creates TokenReviews.
	Client client.Client
	// PodReader reads the pod a token is bound to. It should read the API
	// server, not a cache: a pod recreated under the same name must be
	// seen at once, and the operator holds get on pods, not list/watch.
	PodReader client.Reader
	// NamespaceReader reads the namespace of a pod served only when
	// injected, for its injection label; PodReader when nil. The
	// manager's cache serves: the label is what the injection webhook
	// itself read from the cache, and a fleet reconnecting at once then
	// costs the API server one read per gate, not two.
	NamespaceReader client.Reader
	// ServeUninjectedPods serves gates of pods the injection webhook never
	// injected, in namespaces not labelled for injection: gates run by
	// hand, for development and tests. Off, such a pod is refused (403),
	// since nothing then keeps its agent from the token and the upstream
	// credentials.
	ServeUninjectedPods bool
	// CheckServed, when set, says why a pod's gate is not one the operator
	// injects (inject.CheckServed with its template); without it a pod
	// must carry an injected gate, by its own record, in a namespace
	// labelled for injection.
	CheckServed func(pod *corev1.Pod, namespaceLabels map[string]string) error

	// Pins reads ToolPins while calls wait: the manager's cache, which
	// every replica runs, so that a call held on a replica that is not the
	// leader sees decisions as fast. PinChanged must be called on every
	// change of a ToolPin in it. Without it pending calls are refused (501)
	// and gates refuse gated calls. Pending calls are written through
	// Client, against fresh reads through PodReader.
	Pins client.Reader
	// Recorder, when set, marks pending and resolved calls with Events on
	// their ToolPin.
	Recorder events.EventRecorder
	// RequiredApprovers is how many distinct people approve one call of a
	// tool whose approvalRecommendation is multi (at least 2).
	RequiredApprovers int
	// CallsPerSecond and CallBurst bound how fast one pod opens pending
	// calls (a namespace's pods together: CallRateScale times as much);
	// DefaultCallsPerSecond and DefaultCallBurst when zero.
	CallsPerSecond float64
	CallBurst      int
	// FindingsPerSecond and FindingBurst bound how fast one pod reports
	// findings (a namespace's pods together: CallRateScale times as
	// much); DefaultFindingsPerSecond and DefaultFindingBurst when zero.
	// Reports are answered only with Pins and Recorder set.
	FindingsPerSecond float64
	FindingBurst      int

	// HeartbeatInterval is how often an idle stream gets a heartbeat.
	HeartbeatInterval time.Duration
	// Debounce is how long a stream waits after an Invalidate before it
	// rebuilds, so that a burst of changes costs one build.
	Debounce time.Duration
	// Resync is how often, give or take a fifth, a stream rebuilds with no
	// Invalidate: the pod is read again, so a change of its own labels
	// (which picks its policies, and which no informer reports) reaches
	// its gate within this time.
	Resync time.Duration
	// MaxStreams bounds the streams this replica holds; MaxStreamsPerPod
	// the streams of one pod, the oldest closed when a newer one comes (a
	// gate reconnecting must not be locked out by its own dead stream).
	MaxStreams, MaxStreamsPerPod int
	// MaxConnecting bounds the gates this replica authenticates and sends
	// a first configuration to at once; more are answered 503 with a
	// Retry-After of a few seconds, which the gate honours.
	MaxConnecting int
	// MaxStreamLifetime caps how long one stream lasts even when the token
	// expires later, so that every gate's identity is checked again now
	// and then.
	MaxStreamLifetime time.Duration
	// ReviewCacheTTL is how long a successful TokenReview is reused when
	// the token does not say when it expires. One that does is reused
	// until it expires, for at most half MaxStreamLifetime, so that a
	// stream that ends at its lifetime is reviewed again when it comes
	// back.
	ReviewCacheTTL time.Duration
	// WriteTimeout bounds writing one frame to a gate.
	WriteTimeout time.Duration
	// BuildTimeout bounds one Build.
	BuildTimeout time.Duration

	// Registerer receives the metrics; controller-runtime's registry when
	// nil.
	Registerer prometheus.Registerer
	// Logger is the server's logger; controller-runtime's, named
	// "gateserver", when zero.
	Logger logr.Logger
}

func (o *Options) setDefaults() {
	if o.BindAddress == "" {
		o.BindAddress = fmt.Sprintf(":%d", DefaultPort)
	}
	if o.CertName == "" {
		o.CertName = "tls.crt"
	}
	if o.KeyName == "" {
		o.KeyName = "tls.key"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HeartbeatInterval, DefaultHeartbeatInterval)
	def(&o.Debounce, DefaultDebounce)
	def(&o.Resync, DefaultResync)
	def(&o.MaxStreamLifetime, DefaultMaxStreamLifetime)
	def(&o.ReviewCacheTTL, DefaultReviewCacheTTL)
	def(&o.WriteTimeout, DefaultWriteTimeout)
	if o.CallsPerSecond <= 0 {
		o.CallsPerSecond = DefaultCallsPerSecond
	}
	if o.CallBurst <= 0 {
		o.CallBurst = DefaultCallBurst
	}
	if o.FindingsPerSecond <= 0 {
		o.FindingsPerSecond = DefaultFindingsPerSecond
	}
	if o.FindingBurst <= 0 {
		o.FindingBurst = DefaultFindingBurst
	}
	def(&o.BuildTimeout, DefaultBuildTimeout)
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxStreamsPerPod <= 0 {
		o.MaxStreamsPerPod = DefaultMaxStreamsPerPod
	}
	if o.MaxConnecting <= 0 {
		o.MaxConnecting = DefaultMaxConnecting
	}
	if o.NamespaceReader == nil {
		o.NamespaceReader = o.PodReader
	}
	if o.Registerer == nil {
		o.Registerer = metrics.Registry
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logf.Log.WithName("gateserver")
	}
}

// Server serves gates their configuration. It is a manager.Runnable that
// runs on every replica, leader or not: each serves the gates connected to
// it from its own informer cache, so gates need not find the leader.
type Server struct {
	o       Options
	auth    *authenticator
	metrics *serverMetrics
	log     logr.Logger

	mu    sync.Mutex
	total int
	byNS  map[string]map[*stream]struct{}
	byPod map[string][]*stream
	// waiters are the calls waiting on each ToolPin ("namespace/name").
	waiters map[string]map[chan struct{}]struct{}
	// callRates bound how fast each pod and namespace opens calls;
	// findingRates how fast they report findings.
	callRates    *callRates
	findingRates *callRates
	// connecting holds a token for each gate being connected.
	connecting chan struct{}
	addr       net.Addr
	closed     bool
	// base is the context of the HTTP server's requests, and of the
	// streams taken over from it: it ends when the server stops.
	base context.Context
}

var (
	_ manager.Runnable               = (*Server)(nil)
	_ manager.LeaderElectionRunnable = (*Server)(nil)
)

// New checks the options and returns a server that is not listening yet.
func New(o Options) (*Server, error) {
	if o.Builder == nil || o.Client == nil || o.PodReader == nil {
		return nil, errors.New("gateserver: Builder, Client and PodReader are required")
	}
	if o.CertDir == "" {
		return nil, errors.New("gateserver: CertDir is required")
	}
	o.setDefaults()
	return &Server{
		o:            o,
		auth:         newAuthenticator(o.Client, o.ReviewCacheTTL, o.MaxStreamLifetime/2, maxReviewCacheEntries),
		metrics:      newMetrics(o.Registerer),
		log:          o.Logger,
		byNS:         map[string]map[*stream]struct{}{},
		byPod:        map[string][]*stream{},
		waiters:      map[string]map[chan struct{}]struct{}{},
		callRates:    newCallRates(o.CallsPerSecond, o.CallBurst),
		findingRates: newCallRates(o.FindingsPerSecond, o.FindingBurst),
		connecting:   make(chan struct{}, o.MaxConnecting),
	}, nil
}

// connectingNow is how many gates are being connected.
func (s *Server) connectingNow() int { return len(s.connecting) }

// NeedLeaderElection is false: every replica serves gates.
func (s *Server) NeedLeaderElection() bool { return false }

// Addr returns the address the server listens on, nil before Start has
// bound it.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(gateproto.ConfigPath, s.serveConfig)
	mux.HandleFunc(gateproto.CallsPath, s.serveCall)
	mux.HandleFunc(gateproto.FindingsPath, s.serveFindings)
	return mux
}

// Start listens with TLS and serves until ctx ends; then it tells every
// connected gate the operator is going away, so each reconnects (to
// another replica, behind the Service) at once.
func (s *Server) Start(ctx context.Context) error {
	cw, err := certwatcher.New(filepath.Join(s.o.CertDir, s.o.CertName), filepath.Join(s.o.CertDir, s.o.KeyName))
	if err != nil {
		return fmt.Errorf("gateserver: loading the serving certificate: %w", err)
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() {
		if err := cw.Start(watchCtx); err != nil {
			s.log.Error(err, "watching the serving certificate")
		}
	}()

	tlsConfig := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: cw.GetCertificate,
		NextProtos:     []string{"h2", "http/1.1"},
	}
	for _, f := range s.o.TLSOpts {
		f(tlsConfig)
	}

	ln, err := net.Listen("tcp", s.o.BindAddress)
	if err != nil {
		return fmt.Errorf("gateserver: listening on %s: %w", s.o.BindAddress, err)
	}
	s.mu.Lock()
	s.addr = ln.Addr()
	s.closed = false
	s.mu.Unlock()

	// Streams end when base ends, not when Shutdown gives up on them:
	// Shutdown waits for handlers, and a stream's handler runs until its
	// context ends.
	base, stopStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer stopStreams()
	s.mu.Lock()
	s.base = base
	s.mu.Unlock()
	srv := &http.Server{
		Handler:           s.Handler(),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// No ReadTimeout or WriteTimeout: either would cut every
		// long-lived stream. Each frame's write has its own deadline, and
		// HTTP/2 pings find dead connections.
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams:          maxConcurrentStreamsPerConn,
			MaxDecoderHeaderTableSize:     4 << 10,
			MaxReceiveBufferPerConnection: 256 << 10,
			MaxReceiveBufferPerStream:     64 << 10,
			SendPingTimeout:               pingAfter,
			PingTimeout:                   pingTimeout,
			WriteByteTimeout:              s.o.WriteTimeout,
		},
		BaseContext: func(net.Listener) context.Context { return base },
	}
	s.log.Info("serving gates", "address", ln.Addr().String())

	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-errc:
		return fmt.Errorf("gateserver: serving: %w", err)
	case <-ctx.Done():
	}

	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	stopStreams()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	return nil
}

// Invalidate marks the configuration of every gate in namespace as stale,
// or of every gate when namespace is empty. Each stream concerned rebuilds
// after Options.Debounce and pushes only when the revision changed. It
// never blocks: the informer handlers that call it must not wait on gates.
func (s *Server) Invalidate(namespace string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ns, streams := range s.byNS {
		if namespace != "" && ns != namespace {
			continue
		}
		for st := range streams {
			st.invalidate()
		}
	}
}

// errSuperseded ends a stream when a newer one of the same pod takes its
// place.
var errSuperseded = errors.New("a newer stream from this pod replaced this one")

// errShutdown ends the streams of an operator that stops.
var errShutdown = errors.New("the operator is shutting down; reconnect")

// admit registers a stream, or refuses it when the replica holds its
// maximum. A pod at its own maximum loses its oldest stream instead.
func (s *Server) admit(st *stream) *refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return refuse(http.StatusServiceUnavailable, failShutdown, errShutdown.Error())
	}
	if s.total >= s.o.MaxStreams {
		return refuse(http.StatusServiceUnavailable, failTooManyStream, "this operator replica serves as many gates as it may")
	}
	key := st.id.podKey()
	if old := s.byPod[key]; len(old) >= s.o.MaxStreamsPerPod {
		// Forgotten here, released by its handler when it has said why.
		old[0].cancel(errSuperseded)
		s.byPod[key] = old[1:]
	}
	s.byPod[key] = append(s.byPod[key], st)
	if s.byNS[st.id.Namespace] == nil {
		s.byNS[st.id.Namespace] = map[*stream]struct{}{}
	}
	s.byNS[st.id.Namespace][st] = struct{}{}
	s.total++
	s.metrics.connected.Inc()
	return nil
}

// release forgets a stream that ended.
func (s *Server) release(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := st.id.podKey()
	list := s.byPod[key]
	for i, x := range list {
		if x == st {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.byPod, key)
	} else {
		s.byPod[key] = list
	}
	delete(s.byNS[st.id.Namespace], st)
	if len(s.byNS[st.id.Namespace]) == 0 {
		delete(s.byNS, st.id.Namespace)
	}
	s.total--
	s.metrics.connected.Dec()
}
