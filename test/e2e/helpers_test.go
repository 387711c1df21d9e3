package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/testenv"
)

// startControlPlane starts a control plane with toolgate's webhooks for
// one test and stops it at the test's end. Without the binaries the test
// skips, or fails under testenv.RequireEnv; under -short it skips, since
// every test here runs the operator binary.
func startControlPlane(t *testing.T) *testenv.Env {
	t.Helper()
	return startControlPlaneWith(t, testenv.Options{Webhooks: true})
}

// startControlPlaneWith is startControlPlane with other options, the
// injection webhook and its opt-out guard for one.
func startControlPlaneWith(t *testing.T, opts testenv.Options) *testenv.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the operator binary")
	}
	env, err := testenv.Start(opts)
	if err != nil {
		if os.Getenv(testenv.RequireEnv) == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	env.StopAtCleanup(t)
	return env
}

// startOperator starts the operator binary prepared in dir with the extra
// flags, logging to dir/name.log, and kills it at the test's end (before
// the control plane stops: cleanups run last first).
func startOperator(t *testing.T, op *testenv.Operator, dir, name string, flags ...string) *exec.Cmd {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd := op.Command(flags...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// gateVolume lays out what the kubelet projects into an injected gate:
// the token, the operator's URL and its CA, side by side in a directory of
// their own, from which the gate takes its operator. It returns the gate's
// flags.
func gateVolume(t *testing.T, tokenFile, operatorURL, caFile string) []string {
	t.Helper()
	dir := t.TempDir()
	for name, from := range map[string]string{inject.TokenFile: tokenFile, inject.CAFile: caFile} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, inject.OperatorURLFile), []byte(operatorURL), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--token-file", filepath.Join(dir, inject.TokenFile)}
}
