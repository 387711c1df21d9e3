package scale

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testenv"
)

const (
	servers        = 200
	toolsPerServer = 50
	target         = 30 * time.Second
)

func TestFleetConverges(t *testing.T) {
	if os.Getenv("TOOLGATE_SCALE") == "" {
		t.Skip("set TOOLGATE_SCALE=1 (make scale) to run the scale test")
	}
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	env.StopAtCleanup(t)
	env.Config.QPS, env.Config.Burst = 1000, 2000
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}

	// 200 SDK servers of 50 tools each, behind one HTTP listener.
	verbs := []string{"get", "list", "create", "update", "delete", "send", "search", "describe", "archive", "export"}
	mux := http.NewServeMux()
	for i := range servers {
		s := mcp.NewServer(&mcp.Implementation{Name: fmt.Sprintf("fleet-%03d", i), Version: "1.0.0"}, nil)
		for j := range toolsPerServer {
			v := verbs[j%len(verbs)]
			s.AddTool(&mcp.Tool{
				Name:        fmt.Sprintf("%s_record_%02d", v, j),
				Description: fmt.Sprintf("Does %s on one record of store %d, by its id.", v, i),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		}
		mux.Handle(fmt.Sprintf("/s/%d/mcp", i), mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()

	ctx := t.Context()
	if err := c.Create(ctx, &corev1Namespace); err != nil {
		t.Fatal(err)
	}
	for i := range servers {
		if err := c.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fleet-%03d", i), Namespace: "fleet"},
			Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fmt.Sprintf("%s/s/%d/mcp", ts.URL, i)}, CatalogTrust: toolgatev1alpha1.CatalogTrustInternal},
		}); err != nil {
			t.Fatal(err)
		}
	}

	// The pins are counted from a watch, as the operator's own cache sees
	// them: listing ten thousand pins every second would cost the API
	// server more than the operator's writes do, and slow what it measures.
	pins, err := watchPins(ctx, env)
	if err != nil {
		t.Fatal(err)
	}

	// The operator as its own process.
	dir := t.TempDir()
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	logFile, _ := os.Create(filepath.Join(dir, "manager.log"))
	defer logFile.Close()
	prof, err := newProfiler(env)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--probe-concurrency", "8", "--kube-api-qps", "1000", "--kube-api-burst", "2000", "--zap-log-level", "error"}, prof.operatorArgs()...)
	cmd := op.Command(args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	r := fleetRun{servers: servers, toolsPerServer: toolsPerServer, target: target, limit: 3 * time.Minute}
	want := r.want()
	var reported time.Time
	for time.Since(start) < r.limit {
		r.peakKiB = max(r.peakKiB, vmHWM(cmd.Process.Pid))
		r.elapsed = time.Since(start)
		r.created, r.scored = pins.counts()
		if r.scored == want {
			r.converged = true
			break
		}
		if r.created >= want/10 {
			// Well under way: every kind of write is being made.
			prof.start(ctx)
		}
		if time.Since(reported) >= progressEvery {
			// What make scale shows while it waits, so that a slow run is
			// seen to be slow, not stuck.
			fmt.Println(r.progress())
			reported = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r.converged {
		// The watch said so; one read of the API server confirms it.
		var list toolgatev1alpha1.ToolPinList
		if err := c.List(ctx, &list, client.InNamespace("fleet")); err != nil {
			t.Fatal(err)
		}
		if n := scoredPins(list.Items); n != want {
			t.Fatalf("the watch counted %d pins trusted and scored, the API server holds %d", want, n)
		}
		if line, err := pinSize(ctx, env, list.Items[0].Name, prof.where()); err != nil {
			t.Logf("reading one pin: %v", err)
		} else {
			fmt.Println(line)
		}
	}
	r.peakKiB = max(r.peakKiB, vmHWM(cmd.Process.Pid))
	r.webhookCalls = toolPinWebhookCalls(ctx, t, env)
	fmt.Println(r.summary())
	if metrics, ok := apiMetrics(ctx, t, env); ok {
		fmt.Println(requestsLine(toolPinRequests(metrics), r.created))
	}
	if op, ok := cpuOf(cmd.Process.Pid); ok {
		fmt.Println(cpuLine(op, selfCPU(), controlPlaneCPU(cmd.Process.Pid), r.created))
	}
	if line := prof.wait(); line != "" {
		fmt.Println(line)
	}
	if !r.converged {
		t.Fatalf("the fleet did not converge: %d of %d pins trusted and scored after %s; see %s",
			r.scored, want, r.elapsed.Round(100*time.Millisecond), logFile.Name())
	}
	if r.elapsed > target {
		t.Errorf("converged in %s, over the %s target", r.elapsed, target)
	}
}

// fleetRun is how far the fleet got: what the poll last saw, and whether
// that was every pin trusted and scored.
type fleetRun struct {
	servers, toolsPerServer int
	// target is the convergence time the run is measured against; limit
	// is how long it waits before it gives up.
	target, limit time.Duration
	// elapsed is the time from the operator's start to the last poll.
	elapsed time.Duration
	// created and scored are the pins that last poll found, and of them
	// the ones trusted and scored.
	created, scored int
	converged       bool
	peakKiB         int64
	// webhookCalls is how many times the API server called toolgate's
	// ToolPin webhooks during the run, -1 when its metrics could not be read.
	webhookCalls int
}

func (r fleetRun) want() int { return r.servers * r.toolsPerServer }

// summary is the line make scale prints. It says "all N pins" only of a
// run that converged; one that did not says how far it got.
func (r fleetRun) summary() string {
	fleet := fmt.Sprintf("scale: %d MCPServers x %d tools", r.servers, r.toolsPerServer)
	rss := fmt.Sprintf("operator peak RSS %.0f MiB; ToolPin webhook calls %d", float64(r.peakKiB)/1024, r.webhookCalls)
	elapsed := r.elapsed.Round(100 * time.Millisecond)
	if r.converged {
		return fmt.Sprintf("%s: all %d pins created and scored in %s (target %s); %s",
			fleet, r.want(), elapsed, r.target, rss)
	}
	return fmt.Sprintf("%s: NOT CONVERGED within %s: %d of %d pins created, %d trusted and scored after %s (target %s); %s",
		fleet, r.limit, r.created, r.want(), r.scored, elapsed, r.target, rss)
}

// progressEvery is how often make scale says how far the fleet got.
const progressEvery = 5 * time.Second

// progress is the line make scale prints while it waits.
func (r fleetRun) progress() string {
	return fmt.Sprintf("scale: %s of at most %s: %d of %d pins created, %d trusted and scored; operator peak RSS %.0f MiB so far",
		r.elapsed.Round(time.Second), r.limit, r.created, r.want(), r.scored, float64(r.peakKiB)/1024)
}

// vmHWM reads a process's peak resident set size in KiB.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}
