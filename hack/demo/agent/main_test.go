package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runMainEnv makes the test binary run the agent's main instead of the
// tests, so that a test can start the agent as a process of its own and
// signal it.
const runMainEnv = "TOOLGATE_AGENT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestWaitEndsWithZeroOnStopSignals runs `agent wait`, as a pod's agent
// container does, and stops it as the kubelet does: it must wait until
// then, and exit 0, so that a pod's deletion is no container failure.
func TestWaitEndsWithZeroOnStopSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "wait")
			cmd.Env = append(os.Environ(), runMainEnv+"=1")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waiting := make(chan string, 1)
			exited := make(chan error, 1)
			go func() {
				line, _ := bufio.NewReader(stderr).ReadString('\n')
				waiting <- line
				_, _ = io.Copy(io.Discard, stderr)
				exited <- cmd.Wait()
			}()
			select {
			case line := <-waiting:
				if !strings.Contains(line, "waiting for SIGTERM or SIGINT") {
					_ = cmd.Process.Kill()
					t.Fatalf("agent wait said %q, not that it waits", line)
				}
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatal("agent wait did not say it waits within a minute")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("agent wait ended with %v after %v, want exit status 0", err, sig)
				}
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("agent wait still runs a minute after %v", sig)
			}
		})
	}
}

func TestWaitTakesNoArguments(t *testing.T) {
	if err := run("", time.Second, []string{"wait", "extra"}); err == nil || !strings.Contains(err.Error(), "usage: agent wait") {
		t.Fatalf("error = %v, want the wait usage", err)
	}
}
