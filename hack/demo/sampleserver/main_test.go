package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMainEnv makes the test binary run the server's main instead of the
// tests, so that a test can start it as a process of its own.
const runMainEnv = "TOOLGATE_SAMPLESERVER_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMCPURLNamesAHostToConnectTo(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv4(10, 88, 0, 12), Port: 8080}, "http://10.88.0.12:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://[::1]:8080/mcp"},
	} {
		if got := mcpURL(tc.addr); got != tc.want {
			t.Errorf("mcpURL(%v) = %s, want %s", tc.addr, got, tc.want)
		}
	}
}

// TestServesOnEveryAddress starts the server as a pod does, on every
// address, and lists its tools at the URL it reports.
func TestServesOnEveryAddress(t *testing.T) {
	urlFile := filepath.Join(t.TempDir(), "url")
	cmd := exec.Command(os.Args[0], "-addr", "0.0.0.0:0", "-url-file", urlFile)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var url string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if data, err := os.ReadFile(urlFile); err == nil && strings.HasSuffix(string(data), "/mcp") {
			url = string(data)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server wrote no URL within a minute")
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("reported URL %s, want one on loopback for a server on every address", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 6 {
		t.Errorf("listed %d tools, want the demo's 6", len(res.Tools))
	}
}
