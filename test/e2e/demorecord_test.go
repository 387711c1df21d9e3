package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestDemoDownStopsTheDemoOfItsOwnClone runs make demo-down in one of two
// clones on one machine, each with a demo running, and checks that it
// stops that clone's demo and leaves the other's running. The clones are
// copies of the Makefile and hack/demo-record.sh, and each demo is one
// process recorded the way hack/demo.sh records its own: running two
// real demos would take minutes of both cores.
func TestDemoDownStopsTheDemoOfItsOwnClone(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make demo-down needs make")
	}
	cache := t.TempDir() // shared by both clones, as on one machine
	// The same directory name in two places: the record is told apart by
	// the whole path.
	a := fakeClone(t, filepath.Join(t.TempDir(), "toolgate"))
	b := fakeClone(t, filepath.Join(t.TempDir(), "toolgate"))

	recordA, recordB := demoRecord(t, cache, a, "path"), demoRecord(t, cache, b, "path")
	if recordA == recordB {
		t.Fatalf("two clones share the record %s", recordA)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if got := demoRecord(t, cache, link, "path"); got != recordA {
		t.Errorf("the clone reached through a symbolic link has the record %s, not its own %s", got, recordA)
	}

	demoA, demoB := startFakeDemo(t, cache, a), startFakeDemo(t, cache, b)

	out := makeDemoDown(t, cache, a)
	if !strings.Contains(out, "demo stopped") {
		t.Errorf("make demo-down in the first clone says %q, not that it stopped the demo", out)
	}
	if !demoA.stops(30 * time.Second) {
		t.Fatal("make demo-down left its own clone's demo running")
	}
	// Signals are delivered at once: a demo still running a moment after
	// its neighbour stopped was not signalled.
	if demoB.stops(2 * time.Second) {
		t.Fatal("make demo-down in one clone stopped the other clone's demo")
	}
	if _, err := os.Stat(recordA); !os.IsNotExist(err) {
		t.Errorf("the stopped demo's record is still there: %v", err)
	}
	if got, err := os.ReadFile(recordB); err != nil || strings.TrimSpace(string(got)) != demoB.pidsFile {
		t.Errorf("the other clone's record reads %q (%v), want %s", got, err, demoB.pidsFile)
	}

	if out := makeDemoDown(t, cache, a); !strings.Contains(out, "no demo running") {
		t.Errorf("a second make demo-down in the first clone says %q", out)
	}
	if demoB.stopped() {
		t.Fatal("a second make demo-down stopped the other clone's demo")
	}

	out = makeDemoDown(t, cache, b)
	if !strings.Contains(out, "demo stopped") || !demoB.stops(30*time.Second) {
		t.Fatalf("make demo-down in the second clone did not stop its demo: %q", out)
	}
}

// TestDemoRecordIsForgottenOnlyByItsDemo: a demo that ends removes the
// record only while it still names that demo's processes, so that the end
// of an earlier demo does not hide a later one of the same clone.
func TestDemoRecordIsForgottenOnlyByItsDemo(t *testing.T) {
	cache := t.TempDir()
	clone := fakeClone(t, filepath.Join(t.TempDir(), "toolgate"))
	record := demoRecord(t, cache, clone, "path")

	demoRecord(t, cache, clone, "start", "/run/later-demo/pids")
	demoRecord(t, cache, clone, "forget", "/run/earlier-demo/pids")
	if got, err := os.ReadFile(record); err != nil || strings.TrimSpace(string(got)) != "/run/later-demo/pids" {
		t.Fatalf("after an earlier demo ended the record reads %q (%v), want the later demo's", got, err)
	}
	demoRecord(t, cache, clone, "forget", "/run/later-demo/pids")
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the record outlived its demo: %v", err)
	}
}

// fakeClone makes dir a clone as far as make demo-down is concerned.
func fakeClone(t *testing.T, dir string) string {
	t.Helper()
	for _, f := range []string{"Makefile", filepath.Join("hack", "demo-record.sh")} {
		data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// demoRecord runs hack/demo-record.sh of a clone and returns what it printed.
func demoRecord(t *testing.T, cache, clone string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(clone, "hack", "demo-record.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "TOOLGATE_CACHE="+cache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo-record.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func makeDemoDown(t *testing.T, cache, clone string) string {
	t.Helper()
	cmd := exec.Command("make", "-s", "-C", clone, "demo-down")
	cmd.Env = append(os.Environ(), "TOOLGATE_CACHE="+cache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo-down in %s: %v\n%s", clone, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fakeDemo is a process standing for a running demo, listed and recorded
// as hack/demo.sh lists and records its processes.
type fakeDemo struct {
	pidsFile string
	done     chan struct{}
}

func startFakeDemo(t *testing.T, cache, clone string) *fakeDemo {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &fakeDemo{pidsFile: filepath.Join(t.TempDir(), "pids"), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(d.done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-d.done })
	if err := os.WriteFile(d.pidsFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	demoRecord(t, cache, clone, "start", d.pidsFile)
	return d
}

// stops reports whether the demo's process ends within d.
func (d *fakeDemo) stops(within time.Duration) bool {
	select {
	case <-d.done:
		return true
	case <-time.After(within):
		return false
	}
}

// stopped reports whether the demo's process has ended.
func (d *fakeDemo) stopped() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}
