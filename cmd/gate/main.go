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
	"os"
	"os/signal"
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

func run() error {
	d := gate.DefaultLimits
	var (
		listen      = flag.String("listen", "127.0.0.1:15001", "address the agent reaches the gate on (keep it on loopback)")
		metricsAddr = flag.String("metrics-addr", ":15090", "address of /metrics, /healthz and /readyz")
		operatorURL = flag.String("operator-url", "", "the operator's gate endpoint, https://host:port")
		tokenFile   = flag.String("token-file", "/var/run/secrets/toolgate/token", "projected service-account token of audience "+gateproto.Audience)
		caFile      = flag.String("operator-ca-file", "/var/run/secrets/toolgate/ca.crt", "PEM CA of the operator's serving certificate")
		configFile  = flag.String("config-file", "", "for tests and local runs: apply this configuration (JSON) instead of connecting to the operator")
		logLevel    = flag.String("log-level", "info", "debug, info, warn or error")
		memoryLimit = flag.Int64("memory-limit-bytes", 20<<20, "soft limit of the Go heap (runtime/debug.SetMemoryLimit); the GOMEMLIMIT environment variable wins; 0 for none")
		limits      gate.Limits
	)
	flag.Int64Var(&limits.MaxRequestBytes, "max-request-bytes", d.MaxRequestBytes, "largest request body from the agent")
	flag.Int64Var(&limits.MaxListBytes, "max-list-bytes", d.MaxListBytes, "largest tools/list response from a server")
	flag.IntVar(&limits.MaxEventBytes, "max-event-bytes", d.MaxEventBytes, "largest server-sent event")
	flag.IntVar(&limits.MaxInFlight, "max-in-flight", d.MaxInFlight, "most requests open at once, streams included")
	flag.IntVar(&limits.MaxSessions, "max-sessions", d.MaxSessions, "most MCP sessions tracked")
	flag.DurationVar(&limits.ResponseHeaderTimeout, "upstream-timeout", d.ResponseHeaderTimeout, "wait for a server's response headers, when its configuration sets none")
	flag.DurationVar(&limits.IdleTimeout, "upstream-idle-timeout", d.IdleTimeout, "longest silence within a server's response to a POST")
	flag.DurationVar(&limits.SessionIdleTimeout, "session-idle-timeout", d.SessionIdleTimeout, "forget a session unused for this long")
	flag.DurationVar(&limits.ListTTL, "list-ttl", d.ListTTL, "most a filtered tools/list may be cached by the agent (MCP 2026-07-28 ttlMs)")
	flag.Parse()
	// A sidecar's memory is paid in every agent pod: with a soft limit the
	// collector runs before the heap doubles, rather than after, which
	// keeps the gate's resident memory flat under load at a small cost in
	// CPU.
	if *memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memoryLimit)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	var client *gateclient.Client
	if *configFile == "" {
		c, err := gateclient.New(gateclient.Options{URL: *operatorURL, TokenFile: *tokenFile, CAFile: *caFile, Logger: logger})
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
	src.ConfigAge = func() (time.Duration, bool) { return g.ConfigAge() }
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
	metricsSrv := &http.Server{Handler: healthMux(g), ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 3)
	go func() { errs <- agentSrv.Serve(agentLn) }()
	go func() { errs <- metricsSrv.Serve(metricsLn) }()
	logger.Info("gate listening", "listen", agentLn.Addr().String(), "metrics", metricsLn.Addr().String())

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
	return nil
}

// healthMux serves the metrics and the probes: live while the process
// serves, ready only once a configuration is in force (before that the gate
// exposes nothing, and an agent should not start against it).
func healthMux(g *gate.Gate) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g.Metrics().Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		rev, ok := g.Applied()
		if !ok {
			http.Error(w, "no configuration yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = fmt.Fprintf(w, "ok %s\n", rev)
	})
	return mux
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
