package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RequireEnv turns a missing corpus into a failure instead of a skip.
const RequireEnv = "TOOLGATE_REQUIRE_CORPUS"

// Folders returns the names of the corpus folders, in the order figures are
// printed: "dev", the corpus the engine was first developed against, and
// "dev-2", a second set of servers in the same format. CI requires both.
func Folders() []string { return []string{"dev", "dev-2"} }

// root is shared/corpus beside the repository.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
}

// Dir returns the first corpus folder (holding servers/ and labels.jsonl),
// or skips — or fails, under RequireEnv — the test when it is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	return FolderDir(tb, "dev")
}

// FolderDir returns the directory of one corpus folder (one of Folders),
// or skips — or fails, under RequireEnv — the test when it is absent.
func FolderDir(tb testing.TB, folder string) string {
	tb.Helper()
	dir := filepath.Join(root(), folder)
	if _, err := os.Stat(filepath.Join(dir, "labels.jsonl")); err != nil {
		if os.Getenv(RequireEnv) != "" {
			tb.Fatalf("corpus folder %s not found at %s, and %s is set", folder, dir, RequireEnv)
		}
		tb.Skipf("corpus folder %s not found at %s (it lives beside the repository, in shared/corpus/%s)", folder, dir, folder)
	}
	return dir
}

// Dirs returns the directories of every corpus folder, in the order of
// Folders; a missing one skips or fails the test as FolderDir does.
func Dirs(tb testing.TB) []string {
	tb.Helper()
	var dirs []string
	for _, f := range Folders() {
		dirs = append(dirs, FolderDir(tb, f))
	}
	return dirs
}

// Servers returns the paths of the first corpus folder's server captures.
func Servers(tb testing.TB) []string {
	tb.Helper()
	return FolderServers(tb, "dev")
}

// FolderServers returns the paths of one corpus folder's server captures.
func FolderServers(tb testing.TB, folder string) []string {
	tb.Helper()
	dir := FolderDir(tb, folder)
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	if len(files) == 0 {
		tb.Fatalf("no server captures in %s", dir)
	}
	return files
}

// AllServers returns the server captures of every corpus folder.
func AllServers(tb testing.TB) []string {
	tb.Helper()
	var files []string
	for _, f := range Folders() {
		files = append(files, FolderServers(tb, f)...)
	}
	return files
}
