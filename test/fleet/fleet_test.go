package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateclient"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/testenv"
)

// The fleet's shape, and the targets it is measured against.
const (
	defaultNamespaces = 20
	defaultPods       = 100 // per namespace
	servers           = 3
	toolsPerServer    = 20
	changeTarget      = 2 * time.Second
	restartTarget     = 60 * time.Second
	// The flags the operator runs with besides PrepareOperator's: a fleet
	// of gates reconnecting costs the API server a review and a pod read
	// each, above the default client rate (50/s).
	apiQPS, apiBurst = "200", "400"
	gateImage        = "ghcr.io/toolgate/gate:fleet"
	operatorURL      = "https://toolgate-operator.toolgate-system.svc:9444"
)

// Environment variables that size or redirect the run.
const (
	envRun        = "TOOLGATE_FLEET"
	envNamespaces = "TOOLGATE_FLEET_NAMESPACES"
	envPods       = "TOOLGATE_FLEET_PODS"
	// envOperator names a manager binary to measure instead of this
	// tree's: an earlier build, measured side by side.
	envOperator = "TOOLGATE_FLEET_OPERATOR"
	// envProfiles names a directory that receives the operator's heap and
	// goroutine profiles, taken with every stream up.
	envProfiles = "TOOLGATE_FLEET_PROFILES"
)

func intFromEnv(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q is not a positive number", name, v)
	}
	return n
}

func say(format string, args ...any) { fmt.Printf("fleet: "+format+"\n", args...) }

func TestFleet(t *testing.T) {
	if os.Getenv(envRun) == "" {
		t.Skip("set " + envRun + "=1 (make bench-fleet) to run the fleet benchmark")
	}
	namespaces, podsPerNS := intFromEnv(t, envNamespaces, defaultNamespaces), intFromEnv(t, envPods, defaultPods)
	gates := namespaces * podsPerNS
	raiseFileLimit(t, uint64(4*gates+1024))
	logf.SetLogger(testenv.Logger())

	env, err := testenv.Start(testenv.Options{Webhooks: true, Injection: true})
	if err != nil {
		t.Fatal(err)
	}
	env.StopAtCleanup(t)
	env.Config.QPS, env.Config.Burst = 1000, 2000
	admin, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "operator-ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		t.Fatal(err)
	}

	// Three SDK servers of 20 tools, which the operator probes and pins.
	upstream := startServers(t)
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tools"}}); err != nil {
		t.Fatal(err)
	}
	for i := range servers {
		if err := admin.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: serverName(i)},
			Spec: toolgatev1alpha1.MCPServerSpec{
				Endpoint:     toolgatev1alpha1.MCPEndpoint{URL: fmt.Sprintf("%s/s/%d/mcp", upstream, i)},
				CatalogTrust: toolgatev1alpha1.CatalogTrustInternal,
				Consumers:    toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll},
				Probe:        toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Hour}},
			},
		}); err != nil {
			t.Fatal(err)
		}
	}

	// The operator as its own process, injecting and serving gates.
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	if bin := os.Getenv(envOperator); bin != "" {
		op.Bin = bin
	}
	metricsAddr := testenv.MustReserveAddr(t)
	// The operator's log outlives the run, to be read after a failure.
	operator := &operatorProcess{t: t, op: op, log: filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-fleet-manager-%d.log", os.Getpid())), flags: []string{
		"--kube-api-qps", apiQPS, "--kube-api-burst", apiBurst,
		"--gate-image", gateImage, "--operator-ca-file", caFile, "--operator-namespace", "toolgate-system",
		"--gate-operator-url", operatorURL,
		"--metrics-bind-address", metricsAddr, "--metrics-secure=false",
		"--zap-log-level", "error",
	}, metrics: "http://" + metricsAddr + "/metrics"}
	profiles := os.Getenv(envProfiles)
	var pprofAddr string
	if profiles != "" {
		pprofAddr = testenv.MustReserveAddr(t)
		operator.flags = append(operator.flags, "--pprof-bind-address", pprofAddr)
	}
	operator.start()
	t.Cleanup(operator.kill)
	say("operator %s (pid %d, log %s); %d namespaces x %d pods = %d gates; operator flags %v",
		op.Bin, operator.cmd.Process.Pid, operator.log, namespaces, podsPerNS, gates, operator.flags)
	if err := env.WaitForWebhookServer(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Minute, "every tool pinned and scored", func() (bool, string) {
		var pins toolgatev1alpha1.ToolPinList
		if err := admin.List(ctx, &pins, client.InNamespace("tools")); err != nil {
			return false, err.Error()
		}
		scored := 0
		for _, p := range pins.Items {
			if p.Status.State == toolgatev1alpha1.PinTrusted && p.Status.Risk != nil {
				scored++
			}
		}
		return scored == servers*toolsPerServer, fmt.Sprintf("%d of %d pins trusted and scored", scored, servers*toolsPerServer)
	})

	// The agents: namespaces labelled for injection, three policies each
	// (so three groups of pods), pods created through the injection
	// webhook, and a token bound to each pod.
	pods := createAgents(t, admin, kube, namespaces, podsPerNS, dir)
	// The injection webhook's record and the pods' gate are the
	// operator's: the server will serve them.
	if _, ok := pods[0].pod.Annotations[toolgatev1alpha1.AnnotationInjected]; !ok {
		t.Fatalf("pod %s was not injected: %+v", pods[0].pod.Name, pods[0].pod.Annotations)
	}

	pid := operator.cmd.Process.Pid
	time.Sleep(5 * time.Second) // the cache settles after the creates
	rssBefore, heapBefore := vmKiB(pid, "VmRSS"), operator.scrape("go_memstats_heap_inuse_bytes")
	stackBefore, goroutinesBefore := operator.scrape("go_memstats_stack_inuse_bytes"), operator.scrape("go_goroutines")
	liveBefore := operator.liveHeap()
	apiBefore := apiCounts(t, kube)
	memBefore := operator.memory()
	say("operator before the streams: RSS %s, heap in use %s", kib(rssBefore), mib(heapBefore))

	// The gates: the real client, one stream each, all started at once.
	fl := &fleet{pods: pods}
	cpu := operator.cpu()
	start := time.Now()
	fl.run(t, fmt.Sprintf("https://127.0.0.1:%d", op.GatePort), caFile)
	waitFor(t, 5*time.Minute, "every gate served", func() (bool, string) {
		n := fl.served(func(s gateclient.Stats) bool { return s.Configs > 0 })
		return n == gates, fmt.Sprintf("%d of %d gates served", n, gates)
	})
	connectTime, connectCPU := time.Since(start), operator.cpu().minus(cpu)
	time.Sleep(10 * time.Second) // past the first connects' garbage
	rssWith, heapWith := vmKiB(pid, "VmRSS"), operator.scrape("go_memstats_heap_inuse_bytes")
	stackWith, goroutinesWith := operator.scrape("go_memstats_stack_inuse_bytes"), operator.scrape("go_goroutines")
	liveWith := operator.liveHeap()
	streams := operator.scrape("toolgate_operator_gate_streams")
	say("the runtime's memory per stream: %s", operator.memory().perStream(memBefore, gates))
	if profiles != "" {
		saveProfiles(t, pprofAddr, profiles)
	}

	apiConnect := apiCounts(t, kube).minus(apiBefore)
	say("all %d gates served %s after the clients started; operator holds %.0f streams; CPU: %s", gates, connectTime.Round(100*time.Millisecond), streams, connectCPU)
	say("operator with the streams: RSS %s (+%s, %.1f KiB per stream), heap in use %s (+%.1f KiB per stream)",
		kib(rssWith), kib(rssWith-rssBefore), float64(rssWith-rssBefore)/float64(gates),
		mib(heapWith), (heapWith-heapBefore)/1024/float64(gates))
	say("of which goroutine stacks: %s (+%.1f KiB per stream), %.0f goroutines (+%.1f per stream); heap live after the last collection %s (+%.1f KiB per stream)",
		mib(stackWith), (stackWith-stackBefore)/1024/float64(gates), goroutinesWith, (goroutinesWith-goroutinesBefore)/float64(gates),
		mib(liveWith), (liveWith-liveBefore)/1024/float64(gates))
	say("connecting cost the API server %s; streams ended or attempts failed: %s", apiConnect, fl.ended.take())
	fl.frameSizes()

	// A ToolPolicy edit in every namespace: the base policy, which every
	// pod matches, goes from Audit to Enforce.
	before, held := apiCounts(t, kube), fl.snapshot()
	cpu = operator.cpu()
	edited := map[string]time.Time{}
	for ns := range namespaces {
		name := agentNamespace(ns)
		edited[name] = time.Now()
		patch := []byte(`{"spec":{"mode":"Enforce"}}`)
		if err := admin.Patch(ctx, &toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "base"}},
			client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	policyEdit := fl.propagation(t, "ToolPolicy edit", held, func(p *agentPod) time.Time { return edited[p.pod.Namespace] })
	say("ToolPolicy edit (the base policy of all %d namespaces, patched one after another; each gate from its own namespace's patch): %s; API server: %s; CPU: %s",
		namespaces, policyEdit, apiCounts(t, kube).minus(before), operator.cpu().minus(cpu))
	say("meanwhile streams ended or attempts failed: %s", fl.ended.take())

	// A ToolPin change: a person classifies a tool of the server every
	// policy references above every policy's ceiling.
	before, held = apiCounts(t, kube), fl.snapshot()
	cpu = operator.cpu()
	people, _, err := env.User("fleet-admin", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	pinChanged := time.Now()
	pin := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: "tools", Name: lifecycle.PinName(serverName(0), "get_record_00")}}
	override := []byte(`{"spec":{"override":{"level":"L5","reason":"the fleet benchmark withholds it"}}}`)
	if err := people.Patch(ctx, pin, client.RawPatch(types.MergePatchType, override)); err != nil {
		t.Fatalf("overriding a pin's level: %v", err)
	}
	pinChange := fl.propagation(t, "ToolPin change", held, func(*agentPod) time.Time { return pinChanged })
	say("ToolPin change (an override of one tool of the server every pod uses, through the pin's reconciler): %s; API server: %s; CPU: %s",
		pinChange, apiCounts(t, kube).minus(before), operator.cpu().minus(cpu))
	say("meanwhile streams ended or attempts failed: %s", fl.ended.take())

	// The operator is killed and started again: how long until every gate
	// is served again, and what that costs the API server.
	before = apiCounts(t, kube)
	served := fl.snapshot()
	killed := time.Now()
	operator.kill()
	operator.start()
	var restart time.Duration
	waitFor(t, 3*restartTarget, "every gate served again after the restart", func() (bool, string) {
		n := 0
		for i, p := range fl.pods {
			if p.client.Stats().Configs > served[i].Configs {
				n++
			}
		}
		restart = time.Since(killed)
		return n == gates, fmt.Sprintf("%d of %d gates served again", n, gates)
	})
	apiRestart := apiCounts(t, kube).minus(before)
	say("operator killed and restarted: every gate served again %s after the kill; API server: %s (%.2f reviews per gate)",
		restart.Round(100*time.Millisecond), apiRestart, apiRestart.reviews/float64(gates))
	fl.reconnects(served)
	say("streams ended or attempts failed around the restart: %s", fl.ended.take())

	fmt.Printf("fleet: SUMMARY %d gates (%d namespaces x %d pods, 3 policies each), operator %s, --kube-api-qps %s --kube-api-burst %s\n",
		gates, namespaces, podsPerNS, filepath.Base(op.Bin), apiQPS, apiBurst)
	fmt.Printf("fleet: SUMMARY ToolPolicy edit: %s\n", policyEdit)
	fmt.Printf("fleet: SUMMARY ToolPin change: %s\n", pinChange)
	fmt.Printf("fleet: SUMMARY memory: RSS +%.1f KiB per stream, heap in use +%.1f KiB (live +%.1f KiB) per stream, goroutine stacks +%.1f KiB per stream\n",
		float64(rssWith-rssBefore)/float64(gates), (heapWith-heapBefore)/1024/float64(gates), (liveWith-liveBefore)/1024/float64(gates),
		(stackWith-stackBefore)/1024/float64(gates))
	fmt.Printf("fleet: SUMMARY restart: every gate served again in %s; connect: %s; restart: %s\n",
		restart.Round(100*time.Millisecond), apiConnect, apiRestart)
	fmt.Printf("fleet: SUMMARY first connect of all %d gates at once: %s\n", gates, connectTime.Round(100*time.Millisecond))

	if policyEdit.p99 > changeTarget {
		t.Errorf("a ToolPolicy edit reached the gates in %s, over the %s p99 target", policyEdit, changeTarget)
	}
	if pinChange.p99 > changeTarget {
		t.Errorf("a ToolPin change reached the gates in %s, over the %s p99 target", pinChange, changeTarget)
	}
	if restart > restartTarget {
		t.Errorf("the fleet was served again %s after the operator's restart, over the %s target", restart, restartTarget)
	}
}

func serverName(i int) string     { return fmt.Sprintf("store-%d", i) }
func agentNamespace(i int) string { return fmt.Sprintf("agents-%02d", i) }
func kib(n int64) string          { return fmt.Sprintf("%.1f MiB", float64(n)/1024) }
func mib(bytes float64) string    { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }

// raiseFileLimit lifts the process's open-file limit to at least n, within
// its hard limit: every gate holds a connection, and the operator, started
// from here, inherits the limit for its end of them.
func raiseFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	lim.Cur = min(n, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur < n {
		t.Fatalf("open files are limited to %d, the fleet needs %d", lim.Cur, n)
	}
}

// waitFor polls cond every half second until it holds, printing what it
// says every five seconds, and fails with what it last said after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	var reported time.Time
	for {
		ok, status := cond()
		if ok {
			return
		}
		if time.Since(start) > limit {
			t.Fatalf("waiting for %s: not within %s: %s", what, limit, status)
		}
		if time.Since(reported) >= 5*time.Second {
			say("waiting for %s (%s): %s", what, time.Since(start).Round(time.Second), status)
			reported = time.Now()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// startServers serves the MCP servers the operator probes: tools whose
// names the risk engine reads as reads and writes of one record.
func startServers(t *testing.T) string {
	t.Helper()
	verbs := []string{"get", "list", "search", "describe", "update", "create"}
	mux := http.NewServeMux()
	for i := range servers {
		s := mcp.NewServer(&mcp.Implementation{Name: serverName(i), Version: "1.0.0"}, nil)
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
		mux.Handle(fmt.Sprintf("/s/%d/mcp", i), mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{JSONResponse: true}))
	}
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL
}

// operatorProcess is the operator binary, started and killed by the test.
type operatorProcess struct {
	t       *testing.T
	op      *testenv.Operator
	log     string
	flags   []string
	metrics string
	cmd     *exec.Cmd
	done    chan struct{}
}

func (o *operatorProcess) start() {
	o.t.Helper()
	log, err := os.OpenFile(o.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		o.t.Fatal(err)
	}
	o.cmd = o.op.Command(o.flags...)
	o.cmd.Stdout, o.cmd.Stderr = log, log
	// The runtime's line at each collection says what the heap held live
	// after marking: the memory a stream keeps, not the garbage between
	// two collections that the heap's size also counts.
	o.cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	if err := o.cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	done := make(chan struct{})
	o.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); log.Close(); close(done) }(o.cmd)
}

// cpuUse is the CPU time the operator and the gates' clients (this
// process) have used.
type cpuUse struct{ operator, gates time.Duration }

func (o *operatorProcess) cpu() cpuUse {
	return cpuUse{operator: cpuTime(o.cmd.Process.Pid), gates: selfCPU()}
}

func (c cpuUse) minus(d cpuUse) cpuUse { return cpuUse{c.operator - d.operator, c.gates - d.gates} }

func (c cpuUse) String() string {
	return fmt.Sprintf("operator %s, the gates' clients %s",
		c.operator.Round(10*time.Millisecond), c.gates.Round(10*time.Millisecond))
}

// kill ends the operator at once, as a node lost or an OOM kill would: no
// gate is told to reconnect.
func (o *operatorProcess) kill() {
	if o.cmd == nil || o.cmd.Process == nil {
		return
	}
	_ = o.cmd.Process.Kill()
	<-o.done
}

// memory reads the runtime's account of the operator's memory from its
// metrics: what the RSS is made of besides the heap in use and the stacks.
func (o *operatorProcess) memory() runtimeMemory {
	text, err := get(o.metrics)
	if err != nil {
		return runtimeMemory{}
	}
	m := func(name string) float64 { return sumSeries(text, "go_memstats_"+name) }
	return runtimeMemory{
		heapInuse: m("heap_inuse_bytes"),
		// Free pages the heap holds and has not returned to the kernel:
		// the collector's headroom between two collections, mostly.
		heapRetained: m("heap_idle_bytes") - m("heap_released_bytes"),
		stacks:       m("stack_inuse_bytes"),
		spans:        m("mspan_inuse_bytes"),
		gcMeta:       m("gc_sys_bytes"),
		other:        m("other_sys_bytes"),
	}
}

// runtimeMemory is a few of the Go runtime's memory figures, in bytes.
type runtimeMemory struct {
	heapInuse, heapRetained, stacks, spans, gcMeta, other float64
}

func (m runtimeMemory) perStream(before runtimeMemory, streams int) string {
	k := func(a, b float64) float64 { return (a - b) / 1024 / float64(streams) }
	return fmt.Sprintf("heap in use %+.1f KiB, free heap kept %+.1f KiB, stacks %+.1f KiB, spans %+.1f KiB, collector metadata %+.1f KiB, other %+.1f KiB",
		k(m.heapInuse, before.heapInuse), k(m.heapRetained, before.heapRetained), k(m.stacks, before.stacks),
		k(m.spans, before.spans), k(m.gcMeta, before.gcMeta), k(m.other, before.other))
}

// saveProfiles writes the operator's heap and goroutine profiles into dir.
func saveProfiles(t *testing.T, addr, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"heap.pb.gz":      "/debug/pprof/heap?gc=1",
		"goroutine.txt":   "/debug/pprof/goroutine?debug=1",
		"goroutine.pb.gz": "/debug/pprof/goroutine",
	} {
		body, err := get("http://" + addr + path)
		if err != nil {
			t.Errorf("taking the operator's %s profile: %v", name, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	say("the operator's heap and goroutine profiles are in %s", dir)
}

// liveHeap returns the heap live after the operator's last collection,
// from its gctrace lines; -1 when there is none.
func (o *operatorProcess) liveHeap() float64 {
	b, err := os.ReadFile(o.log)
	if err != nil {
		return -1
	}
	return lastLiveHeap(string(b))
}

// scrape reads one metric, summed over its series, from the operator's
// metrics endpoint; -1 when it cannot.
func (o *operatorProcess) scrape(metric string) float64 {
	text, err := get(o.metrics)
	if err != nil {
		return -1
	}
	return sumSeries(text, metric)
}

func get(url string) (string, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return string(b), err
}

// apiCount is what the API server answered of the requests that serving
// gates makes: TokenReviews, reads of pods and of namespaces.
type apiCount struct {
	reviews, podGets, namespaceGets float64
}

func (a apiCount) minus(b apiCount) apiCount {
	return apiCount{a.reviews - b.reviews, a.podGets - b.podGets, a.namespaceGets - b.namespaceGets}
}

func (a apiCount) String() string {
	return fmt.Sprintf("%.0f TokenReviews, %.0f pod reads, %.0f namespace reads", a.reviews, a.podGets, a.namespaceGets)
}

// apiCounts reads the API server's own request counters. Nothing but the
// operator reads single pods or namespaces here: no kubelet or controller
// runs.
func apiCounts(t *testing.T, kube *kubernetes.Clientset) apiCount {
	t.Helper()
	raw, err := kube.RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	text := string(raw)
	const m = "apiserver_request_total"
	return apiCount{
		reviews:       sumSeries(text, m, `resource="tokenreviews"`, `verb="POST"`),
		podGets:       sumSeries(text, m, `resource="pods"`, `subresource=""`, `verb="GET"`),
		namespaceGets: sumSeries(text, m, `resource="namespaces"`, `subresource=""`, `verb="GET"`),
	}
}

// agentPod is one pod of the fleet and its gate's client.
type agentPod struct {
	pod    *corev1.Pod
	token  string
	client *gateclient.Client
	// frame is the size of the last configuration frame's configuration,
	// as JSON.
	frame atomic.Int64
}

// createAgents creates the agent namespaces, their policies and pods,
// with parallel requests, and mints each pod's token.
func createAgents(t *testing.T, admin client.Client, kube *kubernetes.Clientset, namespaces, perNS int, dir string) []*agentPod {
	t.Helper()
	ctx := t.Context()
	ref := func(i int) toolgatev1alpha1.ServerReference {
		return toolgatev1alpha1.ServerReference{Namespace: "tools", Name: serverName(i)}
	}
	for n := range namespaces {
		ns := agentNamespace(n)
		for _, obj := range []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent"}},
			// Every pod: the first server. Audit, so that setting it to
			// Enforce changes every pod's configuration.
			&toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "base"}, Spec: toolgatev1alpha1.ToolPolicySpec{
				Servers: []toolgatev1alpha1.ServerReference{ref(0)}, MaxLevel: toolgatev1alpha1.LevelModerate, Mode: toolgatev1alpha1.PolicyAudit}},
			&toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "writers"}, Spec: toolgatev1alpha1.ToolPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "writer"}},
				Servers:     []toolgatev1alpha1.ServerReference{ref(1)}, MaxLevel: toolgatev1alpha1.LevelHigh, Mode: toolgatev1alpha1.PolicyAudit}},
			&toolgatev1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "admins"}, Spec: toolgatev1alpha1.ToolPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "admin"}},
				Servers:     []toolgatev1alpha1.ServerReference{ref(1), ref(2)}, MaxLevel: toolgatev1alpha1.LevelHigh, Mode: toolgatev1alpha1.PolicyAudit}},
		} {
			if err := admin.Create(ctx, obj); err != nil {
				t.Fatalf("creating %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
			}
		}
	}

	if err := os.MkdirAll(filepath.Join(dir, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	pods := make([]*agentPod, namespaces*perNS)
	roles := []string{"reader", "reader", "reader", "reader", "reader", "writer", "writer", "writer", "admin", "admin"}
	var created atomic.Int64
	errs := make(chan error, len(pods))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				ns, n := agentNamespace(i/perNS), i%perNS
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("agent-%03d", n),
						Labels: map[string]string{"app": "agent", "role": roles[n%len(roles)]}},
					Spec: corev1.PodSpec{ServiceAccountName: "agent", Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
				}
				if err := admin.Create(ctx, pod); err != nil {
					errs <- fmt.Errorf("creating pod %s/%s: %w", ns, pod.Name, err)
					continue
				}
				expiry := int64(3600)
				tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "agent", &authenticationv1.TokenRequest{
					Spec: authenticationv1.TokenRequestSpec{Audiences: []string{gateproto.Audience}, ExpirationSeconds: &expiry,
						BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}},
				}, metav1.CreateOptions{})
				if err != nil {
					errs <- fmt.Errorf("minting the token of %s/%s: %w", ns, pod.Name, err)
					continue
				}
				token := filepath.Join(dir, "tokens", ns+"-"+pod.Name)
				if err := os.WriteFile(token, []byte(tr.Status.Token), 0o600); err != nil {
					errs <- err
					continue
				}
				pods[i] = &agentPod{pod: pod, token: token}
				if c := created.Add(1); c%500 == 0 {
					say("%d of %d pods created through the injection webhook, each with its token", c, len(pods))
				}
			}
		}()
	}
	for i := range pods {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return pods
}

// fleet is the gates' clients.
type fleet struct {
	pods []*agentPod
	// ended counts why streams ended and attempts failed.
	ended endings
}

// run starts every gate's client, at once.
func (f *fleet) run(t *testing.T, url, caFile string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	quiet := slog.New(&f.ended)
	for _, p := range f.pods {
		c, err := gateclient.New(gateclient.Options{URL: url, TokenFile: p.token, CAFile: caFile, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		p.client = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Run(ctx, func(cfg *gateproto.Config) error {
				if b, err := json.Marshal(cfg); err == nil {
					p.frame.Store(int64(len(b)))
				}
				return nil
			})
		}()
	}
}

// served counts the gates whose state holds.
func (f *fleet) served(ok func(gateclient.Stats) bool) int {
	n := 0
	for _, p := range f.pods {
		if ok(p.client.Stats()) {
			n++
		}
	}
	return n
}

func (f *fleet) snapshot() []gateclient.Stats {
	out := make([]gateclient.Stats, len(f.pods))
	for i, p := range f.pods {
		out[i] = p.client.Stats()
	}
	return out
}

// propagation waits until every gate applied a configuration other than
// the one it held, and returns how long each took from when its change
// was made.
func (f *fleet) propagation(t *testing.T, what string, held []gateclient.Stats, changedAt func(*agentPod) time.Time) spread {
	t.Helper()
	waitFor(t, 2*time.Minute, what+" applied by every gate", func() (bool, string) {
		n := 0
		for i, p := range f.pods {
			if p.client.Stats().Revision != held[i].Revision {
				n++
			}
		}
		return n == len(f.pods), fmt.Sprintf("%d of %d gates applied a new revision", n, len(f.pods))
	})
	ds := make([]time.Duration, len(f.pods))
	for i, p := range f.pods {
		_, at := p.client.LastApplied()
		ds[i] = at.Sub(changedAt(p))
	}
	return spreadOf(ds)
}

// frameSizes prints the size of the configurations served, by role: the
// full frame every change sends each gate.
func (f *fleet) frameSizes() {
	sizes := map[string]int64{}
	for _, p := range f.pods {
		sizes[p.pod.Labels["role"]] = max(sizes[p.pod.Labels["role"]], p.frame.Load())
	}
	say("configuration sizes (JSON, the frame's bulk): reader %d B, writer %d B, admin %d B", sizes["reader"], sizes["writer"], sizes["admin"])
}

// reconnects prints how many connection attempts the restart took.
func (f *fleet) reconnects(before []gateclient.Stats) {
	var conns uint64
	for i, p := range f.pods {
		conns += p.client.Stats().Connections - before[i].Connections
	}
	say("streams opened again after the restart: %d for %d gates", conns, len(f.pods))
}
