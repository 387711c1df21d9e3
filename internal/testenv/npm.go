package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// EverythingVersion pins the third-party npm MCP server
// @modelcontextprotocol/server-everything, so that the tools the tests
// expect are the tools they get, wherever it runs (a process, a pod).
const EverythingVersion = "2026.8.31"

// RequireNPM is the environment variable that turns a machine without
// Node.js, npm or the npm registry into a failure instead of a skip.
const RequireNPM = "TOOLGATE_REQUIRE_NPM"

// CacheDir is where the project keeps what it builds and downloads for
// tests, as the hack/ scripts do: TOOLGATE_CACHE, or toolgate under the
// user's cache directory.
func CacheDir() string {
	if c := os.Getenv("TOOLGATE_CACHE"); c != "" {
		return c
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "toolgate")
}

// EverythingEntry is the npm server's entry point (dist/index.js) under
// an install directory.
func EverythingEntry(installDir string) string {
	return filepath.Join(installDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// NPMUnavailable skips the test saying why, or fails it under RequireNPM.
func NPMUnavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequireNPM) != "" {
		t.Fatalf("%s, and %s is set", msg, RequireNPM)
	}
	t.Skipf("%s: the npm MCP server cannot be had (set %s=1 to make this a failure)", msg, RequireNPM)
}

// EverythingInstall installs the npm server into the cache from the npm
// registry, once, and returns the install directory (the one holding
// node_modules); it skips or fails (RequireNPM) where Node.js or npm is
// missing or the registry cannot be reached.
func EverythingInstall(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		NPMUnavailable(t, "node is not on PATH")
	}
	dir := filepath.Join(CacheDir(), "npm-server-everything-"+EverythingVersion)
	if _, err := os.Stat(EverythingEntry(dir)); err == nil {
		return dir
	}
	if _, err := exec.LookPath("npm"); err != nil {
		NPMUnavailable(t, "npm is not on PATH")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir,
		"@modelcontextprotocol/server-everything@"+EverythingVersion).CombinedOutput()
	if err != nil {
		NPMUnavailable(t, "npm install @modelcontextprotocol/server-everything@%s: %v\n%s", EverythingVersion, err, out)
	}
	if _, err := os.Stat(EverythingEntry(dir)); err != nil {
		t.Fatalf("npm installed @modelcontextprotocol/server-everything@%s without its entry point: %v", EverythingVersion, err)
	}
	return dir
}
