//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestDemoStopsOnCtrlC runs make demo at a terminal, as the README says,
// waits until it is up and presses Ctrl-C: make must exit 0 with the
// demo's one-line goodbye, not report an interrupted recipe, and no
// process the demo started may outlive it. At a terminal, Ctrl-C signals
// the terminal's whole foreground process group; the test gets exactly
// that by giving make a pseudo-terminal of its own and typing the
// terminal's interrupt character into it.
func TestDemoStopsOnCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	testenv.Kubectl(t, "the demo drives the cluster with it")
	everythingServer(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("make is not on PATH: %v", err)
	}
	terminal, tty := openTerminal(t)

	records := t.TempDir()
	// A shell at a terminal starts make with SIGINT at its default. A test
	// run in the background of a script (CI's, say) has it ignored, which
	// make and the demo would inherit, and a shell script cannot trap a
	// signal ignored when it started: env gives make the terminal's.
	cmd := exec.Command("env", "--default-signal=INT", "make", "--no-print-directory", "demo")
	cmd.Dir = testenv.RepoRoot()
	cmd.Env = append(environWithout("DEMO_EXIT", "TOOLGATE_DEMO_JOB", "TOOLGATE_STAGE"),
		"TMPDIR="+t.TempDir(), "TOOLGATE_DEMO_RECORDS="+records)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// A session of its own whose controlling terminal is tty: make's
	// process group is the terminal's foreground group, as in a shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	session := cmd.Process.Pid
	// Whatever happens below, nothing of the demo outlives the test.
	t.Cleanup(func() {
		for _, p := range sessionProcesses(t, session) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})

	screen := &screen{up: make(chan struct{})}
	// drained closes when the copy has read the terminal to its end: once
	// every process holding the terminal has exited, a read of the other
	// side fails. What make printed last may still be in the terminal's
	// buffer when make has exited.
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(screen, terminal); close(drained) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	select {
	case <-screen.up:
	case err := <-exited:
		t.Fatalf("make demo ended before the demo was up (%v):\n%s", err, screen.text())
	case <-time.After(10 * time.Minute):
		t.Fatalf("the demo was not up within 10 minutes:\n%s", screen.text())
	}
	// Ctrl-C: the terminal's interrupt character, which the terminal turns
	// into SIGINT to its foreground process group.
	if _, err := terminal.Write([]byte{0x03}); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("make demo did not end within 2 minutes of Ctrl-C:\n%s", screen.text())
	}
	select {
	case <-drained:
	case <-time.After(30 * time.Second):
		// A process of the demo still holds the terminal; the check
		// below names it.
	}
	out := screen.text()
	t.Logf("make demo, then Ctrl-C:\n%s", out)
	if err != nil {
		t.Errorf("make demo stopped with Ctrl-C exited with %v; want exit status 0", err)
	}
	if !strings.Contains(out, "toolgate: demo stopped; every process it started has exited") {
		t.Error("the demo did not say goodbye")
	}
	if strings.Contains(out, "make: ***") {
		t.Error("make reported the demo as failed or interrupted")
	}
	for _, p := range sessionProcesses(t, session) {
		t.Errorf("still running after the demo stopped: pid %d %s", p.pid, p.command)
	}
	if left, _ := filepath.Glob(filepath.Join(records, "*.pids")); len(left) > 0 {
		t.Errorf("the demo left its record behind, for make demo-down to act on: %v", left)
	}
}

// openTerminal opens a pseudo-terminal and returns its two ends: the
// terminal side for the program, the other for the test to read the
// screen from and type into.
func openTerminal(t *testing.T) (terminal, tty *os.File) {
	t.Helper()
	terminal, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	t.Cleanup(func() { terminal.Close() })
	fd := int(terminal.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	return terminal, tty
}

// screen keeps what the program wrote to its terminal, and closes up once
// the demo says it is running.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	up   chan struct{}
	seen bool
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if !s.seen && bytes.Contains(s.buf.Bytes(), []byte("press Ctrl-C to stop")) {
		s.seen = true
		close(s.up)
	}
	return len(p), nil
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// environWithout is the test's environment less the named variables.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

type process struct {
	pid     int
	command string
}

// sessionProcesses lists the live processes of session sid, zombies left
// out: a process that has exited and waits to be reaped runs nothing.
func sessionProcesses(t *testing.T, sid int) []process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp session ...: comm may hold spaces
		// and parentheses, so the fields are read after its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 4 || fields[0] == "Z" || fields[3] != strconv.Itoa(sid) {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue
		}
		found = append(found, process{pid: pid, command: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
	}
	return found
}
