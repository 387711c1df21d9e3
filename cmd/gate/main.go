// Command gate is the toolgate sidecar: the MCP proxy between an agent and
// the servers its policy lets it use. It takes its configuration from the
// operator over an authenticated stream and holds no Kubernetes rights.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gateclient"
	"github.com/toolgate/toolgate/internal/gateproto"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gate:", err)
		os.Exit(1)
	}
}

// gcPercentHelp and memoryLimitHelp say what the collector's defaults
// buy, as measured (docs/performance.md, "Fresh sessions").
const (
	gcPercentHelp = "the collector runs when the heap has grown by this percentage of what the last collection kept (runtime/debug.SetGCPercent); the GOGC environment variable wins; negative leaves the memory limit alone to start it. " +
		"At 50 the gate holds under 30 MiB resident with 64 sessions open at once, and its memory grows with its sessions rather than its collector running back to back past a fixed limit"
	memoryLimitHelp = "soft limit of the Go runtime's memory (runtime/debug.SetMemoryLimit); the GOMEMLIMIT environment variable wins; 0 for none. " +
		"A backstop, half the injected gate's default container limit: near it the collector runs back to back rather than the gate being killed. " +
		"The gate's own memory at its peak is about 4 MiB and 140 KiB a session open (about 40 MiB at 256 sessions, the default bound); a limit below what the pod's agents need makes every busy moment a slow one"
)

func run() error {
	d := gate.DefaultLimits
	var (
		listen      = flag.String("listen", "127.0.0.1:15001", "address the agent reaches the gate on (keep it on loopback)")
		healthAddr  = flag.String("health-addr", "", "address of /healthz and /readyz alone, for the kubelet's probes on the pod's address (the injector sets :15021); empty for none")
		metricsAddr = flag.String("metrics-addr", "127.0.0.1:15090", "address of /metrics (and the probes); it names tools, decisions and refusals, so it stays on loopback unless scraped from outside the pod")
		tokenFile   = flag.String("token-file", "/var/run/secrets/toolgate/token", "projected service-account token of audience "+gateproto.Audience+"; the operator's URL and CA are read from operator-url and ca.crt beside it")
		operatorURL = flag.String("operator-url", "", "the operator's gate endpoint; if given, it must be the one in operator-url beside the token")
		caFile      = flag.String("operator-ca-file", "", "PEM CA of the operator's serving certificate; if given, it must hold the ca.crt beside the token")
		configFile  = flag.String("config-file", "", "for tests and local runs: apply this configuration (JSON) instead of connecting to the operator")
		logLevel    = flag.String("log-level", "info", "debug, info, warn or error")
		profiling   = flag.Bool("profiling", false, "serve the Go runtime's profiles (net/http/pprof) under /debug/pprof/ on --metrics-addr, for diagnosing the gate's memory, CPU and latency (with lock contention and blocking recorded, and execution traces); they show the gate's internals, so only on loopback")
		gcPercent   = flag.Int("gc-percent", 50, gcPercentHelp)
		memoryLimit = flag.Int64("memory-limit-bytes", 64<<20, memoryLimitHelp)
		limits      gate.Limits
	)
	flag.Int64Var(&limits.MaxRequestBytes, "max-request-bytes", d.MaxRequestBytes, "largest request body from the agent")
	flag.Int64Var(&limits.MaxListBytes, "max-list-bytes", d.MaxListBytes, "largest tools/list response from a server")
	flag.IntVar(&limits.MaxEventBytes, "max-event-bytes", d.MaxEventBytes, "largest server-sent event, and largest JSON answer the scan of what servers say reads whole")
	flag.Int64Var(&limits.MaxScanBytes, "max-scan-bytes", d.MaxScanBytes, "text of one server answer or message the scan examines; past it the answer is unscanned, withheld under a setting that acts on findings")
	flag.Int64Var(&limits.ScanBufferBudget, "scan-buffer-budget-bytes", d.ScanBufferBudget, "memory every JSON answer read whole for the scan shares past its first 64 KiB; an answer that finds it spent is treated as one past --max-scan-bytes")
	flag.IntVar(&limits.MaxInFlight, "max-in-flight", d.MaxInFlight, "most requests open at once, the agents' standalone streams (--max-streams) aside; two for each of --max-sessions, since under load a session's client sends its next request while the gate finishes the last; each costs the gate about 85 KiB while open")
	flag.IntVar(&limits.MaxStreams, "max-streams", d.MaxStreams, "most standalone streams of the agents open at once (a session's GET stream, which lives as long as the session); one for each of --max-sessions by default, counted apart from --max-in-flight so that open streams leave room for the requests of their sessions")
	flag.IntVar(&limits.MaxSessions, "max-sessions", d.MaxSessions, "most MCP sessions tracked")
	flag.DurationVar(&limits.ResponseHeaderTimeout, "upstream-timeout", d.ResponseHeaderTimeout, "wait for a server's response headers, when its configuration sets none")
	flag.DurationVar(&limits.IdleTimeout, "upstream-idle-timeout", d.IdleTimeout, "longest silence within a server's response to a POST")
	flag.DurationVar(&limits.SessionIdleTimeout, "session-idle-timeout", d.SessionIdleTimeout, "forget a session unused for this long")
	flag.DurationVar(&limits.ListTTL, "list-ttl", d.ListTTL, "most a filtered tools/list may be cached by the agent (MCP 2026-07-28 ttlMs)")
	flag.Parse()
	// A sidecar's memory is paid in every agent pod: the collector runs
	// when the heap has grown by half, not doubled, which keeps the gate's
	// resident memory low at a small cost in CPU, and grows with the
	// sessions it serves. A fixed soft limit did the first at 64 sessions
	// and made the collector run back to back at 256; it stays as a
	// backstop.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(*gcPercent)
	}
	if *memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memoryLimit)
	}
	if *profiling {
		// The contention profiles record nothing unless asked to; they
		// cost a little on every contended lock and blocking wait, which
		// only a gate run to be diagnosed should pay. One contention in
		// ten is sampled, and every wait of 100 µs or more (shorter ones
		// in proportion to their length).
		runtime.SetMutexProfileFraction(10)
		runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	var client *gateclient.Client
	if *configFile == "" {
		url, ca, err := operatorEndpoint(*tokenFile, *operatorURL, *caFile)
		if err != nil {
			return err
		}
		c, err := gateclient.New(gateclient.Options{URL: url, TokenFile: *tokenFile, CAFile: ca, Logger: logger})
		if err != nil {
			return err
		}
		client = c
	}
	src := gatemetrics.Sources{}
	if client != nil {
		src.Connected, src.RefusedFrames = client.Connected, client.Refused
	}
	// Gated calls are asked of the operator over the stream's connection;
	// a gate run from a file has nobody to ask, and refuses them.
	var approver gate.Approver = gate.DenyApprover{}
	if client != nil {
		approver = client
	}
	var g *gate.Gate
	src.ConfigApplied = func() (time.Time, bool) { return g.ConfigApplied() }
	g = gate.New(gate.Options{
		Logger:   logger,
		Audit:    slog.New(slog.NewJSONHandler(os.Stdout, nil)),
		Metrics:  gatemetrics.New(src),
		Limits:   limits,
		Approver: approver,
	})

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	agentLn, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	metricsLn, err := net.Listen("tcp", *metricsAddr)
	if err != nil {
		return fmt.Errorf("--metrics-addr: %w", err)
	}
	agentSrv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	metricsSrv := &http.Server{Handler: metricsMux(g, *profiling), ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 4)
	go func() { errs <- agentSrv.Serve(agentLn) }()
	go func() { errs <- metricsSrv.Serve(metricsLn) }()
	healthSrv := &http.Server{Handler: healthMux(g), ReadHeaderTimeout: 10 * time.Second}
	health := ""
	if *healthAddr != "" {
		healthLn, err := net.Listen("tcp", *healthAddr)
		if err != nil {
			return fmt.Errorf("--health-addr: %w", err)
		}
		health = healthLn.Addr().String()
		go func() { errs <- healthSrv.Serve(healthLn) }()
	}
	logger.Info("gate listening", "listen", agentLn.Addr().String(), "metrics", metricsLn.Addr().String(), "health", health)

	if *configFile != "" {
		if err := applyFile(g, *configFile); err != nil {
			return err
		}
	} else {
		go func() {
			// gateclient validated the configuration; Apply validates it
			// again and keeps the last good one on error, which the client
			// then does not record as applied.
			errs <- client.Run(ctx, g.Apply)
		}()
	}

	select {
	case <-ctx.Done():
	case err := <-errs:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("stopping", "error", err)
		}
	}
	// Let calls in flight finish; streams are cut after the grace period.
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = agentSrv.Shutdown(shutdown)
	_ = metricsSrv.Shutdown(shutdown)
	_ = healthSrv.Shutdown(shutdown)
	return nil
}

// metricsMux serves the metrics, and the probes as well, for whoever
// scrapes the gate from inside its pod; with profiling, the runtime's
// profiles too.
func metricsMux(g *gate.Gate, profiling bool) http.Handler {
	mux := http.NewServeMux()
	// Uncompressed: the scraper is on the pod's loopback or network, where
	// a gzip writer per scrape (over half a megabyte of heap each) costs the
	// gate far more than the bytes it saves.
	mux.Handle("/metrics", promhttp.HandlerFor(g.Metrics().Registry, promhttp.HandlerOpts{DisableCompression: true}))
	addProbes(mux, g)
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// healthMux serves the probes alone, on the address the kubelet reaches:
// they say whether the gate lives and has a configuration, nothing of the
// tools it judges.
func healthMux(g *gate.Gate) http.Handler {
	mux := http.NewServeMux()
	addProbes(mux, g)
	return mux
}

// addProbes adds the probes: live while the process serves, ready only
// once a configuration is in force (before that the gate exposes nothing,
// and an agent should not start against it).
func addProbes(mux *http.ServeMux, g *gate.Gate) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		rev, ok := g.Applied()
		if !ok {
			http.Error(w, "no configuration yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = fmt.Fprintf(w, "ok %s\n", rev)
	})
}

func applyFile(g *gate.Gate, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config-file: %w", err)
	}
	var c gateproto.Config
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("--config-file: %w", err)
	}
	return g.Apply(&c)
}
