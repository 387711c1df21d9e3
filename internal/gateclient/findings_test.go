package gateclient

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// reportServer is a TLS server, HTTP/2 on, that answers finding reports
// with handler.
func reportServer(t *testing.T, handler http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca, tok := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tok, []byte("gate-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{URL: srv.URL, TokenFile: tok, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func report() gateproto.FindingReport {
	return gateproto.FindingReport{Server: "tools/web", Tool: "fetch", Method: "tools/call", Action: gateproto.FindingRedact,
		Findings: []gateproto.Finding{{Signal: "model-instruction", Field: "content[0].text", Excerpt: "ignore previous instructions"}}}
}

func TestReportFindingsPostsTheReport(t *testing.T) {
	var got gateproto.FindingReport
	var auth, path, method string
	c := reportServer(t, func(w http.ResponseWriter, r *http.Request) {
		auth, path, method = r.Header.Get("Authorization"), r.URL.Path, r.Method
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.WriteHeader(http.StatusAccepted)
	})
	if err := c.ReportFindings(t.Context(), report()); err != nil {
		t.Fatalf("a report the operator accepts: %v", err)
	}
	if auth != "Bearer gate-token" || path != gateproto.FindingsPath || method != http.MethodPost {
		t.Fatalf("the request: %s %s with %q", method, path, auth)
	}
	// The version is the gate's when the caller leaves it out.
	if got.Version != gateproto.Version || got.Tool != "fetch" || len(got.Findings) != 1 {
		t.Fatalf("the operator read %+v", got)
	}
}

func TestReportFindingsRefusals(t *testing.T) {
	var requests atomic.Int32
	c := reportServer(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, `tool "fetch" is not in this pod's configuration`, http.StatusForbidden)
	})
	err := c.ReportFindings(t.Context(), report())
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "not in this pod's configuration") {
		t.Fatalf("a refused report: %v", err)
	}
	// A report the protocol refuses is not sent.
	bad := report()
	bad.Findings[0].Excerpt = "\x1b[2J"
	if err := c.ReportFindings(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "report.findings[0].excerpt") {
		t.Fatalf("an invalid report: %v", err)
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("%d requests, want the refused report's alone", n)
	}
}

// A slow operator never makes reports pile up: beyond the few on their
// way, a report is dropped at once.
func TestReportFindingsDropsBeyondTheFewInFlight(t *testing.T) {
	release := make(chan struct{})
	var arrived atomic.Int32
	c := reportServer(t, func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusAccepted)
	})
	errs := make(chan error, maxReportsInFlight)
	for range maxReportsInFlight {
		go func() { errs <- c.ReportFindings(t.Context(), report()) }()
	}
	deadline := time.Now().Add(30 * time.Second)
	for arrived.Load() < maxReportsInFlight {
		if time.Now().After(deadline) {
			t.Fatalf("%d reports arrived, want %d", arrived.Load(), maxReportsInFlight)
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := c.ReportFindings(t.Context(), report()); !errors.Is(err, ErrReportDropped) {
		t.Fatalf("a report beyond those in flight: %v, want ErrReportDropped", err)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Fatalf("dropping a report took %v", waited)
	}
	close(release)
	for range maxReportsInFlight {
		if err := <-errs; err != nil {
			t.Errorf("a report in flight: %v", err)
		}
	}
	// Room again once they are through.
	if err := c.ReportFindings(t.Context(), report()); err != nil {
		t.Fatalf("a report after the others went through: %v", err)
	}
}
