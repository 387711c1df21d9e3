package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RequireEnv turns a missing corpus into a failure instead of a skip.
const RequireEnv = "TOOLGATE_REQUIRE_CORPUS"

// Dir returns the corpus directory (holding servers/ and labels.jsonl), or
// skips — or fails, under RequireEnv — the test when it is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus", "dev")
	if _, err := os.Stat(filepath.Join(dir, "labels.jsonl")); err != nil {
		if os.Getenv(RequireEnv) != "" {
			tb.Fatalf("development corpus not found at %s, and %s is set", dir, RequireEnv)
		}
		tb.Skipf("development corpus not found at %s (it lives beside the repository, in shared/corpus/dev)", dir)
	}
	return dir
}

// Servers returns the paths of the corpus's server captures.
func Servers(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(Dir(tb), "servers", "*.json"))
	if len(files) == 0 {
		tb.Fatalf("no server captures in %s", Dir(tb))
	}
	return files
}
