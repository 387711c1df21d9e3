package nodeenv

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testenv"
)

// RequireNode is the environment variable that turns a machine unable to
// run the node into a failure instead of a skip.
const RequireNode = "TOOLGATE_REQUIRE_NODE"

// The environment the test binary is started again with, inside the
// node's namespaces.
const (
	envInside  = "TOOLGATE_NODE_INSIDE"
	envDir     = "TOOLGATE_NODE_DIR"
	envBin     = "TOOLGATE_NODE_BIN"
	envCgroup  = "TOOLGATE_NODE_CGROUP"
	envImages  = "TOOLGATE_NODE_IMAGES"
	envPause   = "TOOLGATE_NODE_PAUSE"
	insideFlag = "1"
)

// HoldEnv keeps the node of TestNodeRunsAPod running until interrupted,
// for a person to use it (make node).
const HoldEnv = "TOOLGATE_NODE_HOLD"

// Options say what the node needs from outside its namespaces.
type Options struct {
	// Prepare runs outside the namespaces, where the network of the
	// machine is, before the node starts: it builds what the node needs
	// (images above all) into dir, and returns the image tarballs to
	// import into the node's containerd. The first is the pod sandbox
	// ("pause") image. It does not run again inside.
	Prepare func(t *testing.T, dir string) (images []string)
}

// Run starts a node and runs body next to it, inside the node's
// namespaces. It must be the only thing the test function does: the test
// function runs twice, once outside the namespaces, where Run starts the
// test binary again inside them and waits for it, and once inside, where
// Run starts the node and calls body. Outside, Run then checks that the
// machine is as it was before.
func Run(t *testing.T, opts Options, body func(t *testing.T, n *Node)) {
	t.Helper()
	if os.Getenv(envInside) == insideFlag {
		inside(t, body)
		return
	}
	outside(t, opts)
}

// unavailable skips the test with why, or fails it under RequireNode.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(RequireNode) != "" {
		t.Fatalf("the real node cannot run: %s (and %s is set)", why, RequireNode)
	}
	t.Skipf("the real node cannot run: %s (set %s=1 to make this a failure)", why, RequireNode)
}

func outside(t *testing.T, opts Options) {
	t.Helper()
	if os.Geteuid() != 0 {
		unavailable(t, "it needs root, for namespaces, mounts and cgroups")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		unavailable(t, "unshare(1) from util-linux is not on PATH")
	}
	root := testenv.RepoRoot()
	if out, err := exec.Command(filepath.Join(root, "hack", "node-packages.sh"), "--check").CombinedOutput(); err != nil {
		unavailable(t, "its packages are missing (make node-binaries installs them): "+strings.TrimSpace(string(out)))
	}
	out, err := exec.Command(filepath.Join(root, "hack", "node-binaries.sh"), "--check").Output()
	if err != nil {
		unavailable(t, "its binaries are not built (make node-binaries builds them)")
	}
	bin := lastLine(string(out))
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		unavailable(t, "KUBEBUILDER_ASSETS does not name etcd and kube-apiserver (make envtest)")
	}

	// One node at a time on a machine: each compares the machine before
	// and after, and would take another node's cgroups and processes for
	// its own leftovers.
	unlock, err := lockMachine(t)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	// A node killed outright (go test's timeout ends this process with
	// SIGKILL) had no chance to remove its cgroups; holding the lock, any
	// node cgroup found now is such a leftover.
	if err := removeStaleCgroups(); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	cgroup := cgroupPrefix + hex.EncodeToString(id)
	before, err := snapshotHost(dir)
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	if opts.Prepare != nil {
		prepared := filepath.Join(dir, "prepared")
		if err := os.MkdirAll(prepared, 0o755); err != nil {
			t.Fatal(err)
		}
		images = opts.Prepare(t, prepared)
	}

	ctx := t.Context()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-30*time.Second))
		defer cancel()
	}
	// The node's first process is the test binary itself; when it ends,
	// the kernel ends every other process of the PID namespace, and with
	// them the network and mount namespaces. --kill-child ends it should
	// this process be killed.
	args := []string{"--net", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child", "--propagation", "private", "--",
		os.Args[0], "-test.run", runPattern(t.Name()), "-test.count", "1", "-test.v"}
	if deadline, ok := ctx.Deadline(); ok {
		args = append(args, "-test.timeout", time.Until(deadline).Round(time.Second).String())
	}
	cmd := exec.CommandContext(ctx, unshare, args...)
	// kubectl's and helm's caches and configuration go to the node's
	// directory, not the user's home.
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(dir, "kube-cache"), "HELM_CACHE_HOME="+filepath.Join(dir, "helm", "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "helm", "config"), "HELM_DATA_HOME="+filepath.Join(dir, "helm", "data"),
		envInside+"="+insideFlag, envDir+"="+dir, envBin+"="+bin, envCgroup+"="+cgroup,
		envImages+"="+strings.Join(images, string(os.PathListSeparator)))
	cmd.WaitDelay = 30 * time.Second
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if os.Getenv(HoldEnv) != "" {
		// An interrupt is for the node inside, which stops; this process
		// goes on to clean up and check the machine.
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// unshare(1) is in the node's network and mount namespaces, its child
	// also in the PID namespace: nsenter --target this PID --net --mount
	// reaches the node from another shell.
	if err := os.WriteFile(filepath.Join(dir, "holder.pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	passed := false
	wg.Go(func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			// The body ran to the end: not skipped, not "no tests to run".
			passed = passed || strings.HasPrefix(strings.TrimSpace(line), "--- PASS: "+t.Name()+" ")
			t.Log("node: " + line)
		}
	})
	wg.Wait()
	runErr := cmd.Wait()

	// The namespaces are gone; what they could not hold is removed here,
	// then the machine is compared with what it was.
	var diff []string
	var cgroupErr error
	for deadline := time.Now().Add(20 * time.Second); ; {
		// A cgroup whose last process is still being reaped cannot be
		// removed yet: tried again with the check.
		cgroupErr = removeCgroups(cgroup)
		after, err := snapshotHost(dir)
		if err != nil {
			t.Fatal(err)
		}
		if diff = before.diff(after); len(diff) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond) // processes killed with the namespace are still being reaped
	}
	if cgroupErr != nil {
		t.Error(cgroupErr)
	}
	for _, d := range diff {
		t.Errorf("the node left the machine changed: %s", d)
	}
	if runErr != nil {
		t.Fatalf("the test inside the node's namespaces failed: %v", runErr)
	}
	if !passed {
		t.Fatal("the test inside the node's namespaces did not pass (skipped, or never ran): see its output above")
	}
}

// runPattern is the -test.run pattern that selects exactly the test (or
// subtest) named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func lastLine(s string) string {
	ls := lines(s)
	if len(ls) == 0 {
		return ""
	}
	return ls[len(ls)-1]
}

func inside(t *testing.T, body func(t *testing.T, n *Node)) {
	t.Helper()
	var images []string
	if v := os.Getenv(envImages); v != "" {
		images = filepath.SplitList(v)
	}
	n, err := start(t.Context(), config{
		dir: os.Getenv(envDir), bin: os.Getenv(envBin), envtest: os.Getenv("KUBEBUILDER_ASSETS"),
		cgroup: os.Getenv(envCgroup), images: images, log: t.Logf,
	})
	if n != nil {
		t.Cleanup(func() {
			if t.Failed() {
				n.dumpLogs(t)
			}
			n.stop()
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	body(t, n)
}

// lockMachine waits for the machine-wide lock that lets one node run at a
// time (go test runs packages in parallel), and returns its release.
func lockMachine(t *testing.T) (func(), error) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "toolgate-node.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("waiting for the other node on this machine: %w", err)
	}
	if waited := time.Since(began); waited > time.Second {
		t.Logf("waited %s for another node on this machine to finish", waited.Round(time.Second))
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
