package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testenv/hostile"
)

// maxOperatorRSS is the peak resident set the operator must stay under
// with eight hostile servers probed at once; the chart's memory limit
// comes from it (docs/performance.md).
const maxOperatorRSS = 300 << 20

// TestOperatorMemoryUnderHostileServers runs the operator binary,
// with its default flags, against eight hostile servers at the
// documented bounds, all probed at once (the default --probe-concurrency
// runs more probes than that at a time, so the global budget is what
// bounds their memory): four
// pages of 7.6 MB and 500 tools each, half made of the JSON that costs the
// most decoded per byte, half of long strings, half answering in plain
// JSON and half in server-sent events. One such server took the operator
// from 83 MB to 465 MB before the budgets. Every server must end up not
// Ready with TooLarge, and the operator's peak RSS (VmHWM) must stay under
// 300 MiB over two rounds of probes.
func TestOperatorMemoryUnderHostileServers(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()
	admin := env.Client

	catalogues := map[hostile.Shape]*hostile.Catalogue{
		hostile.SmallValues: hostile.AtTheBounds(hostile.SmallValues),
		hostile.LongStrings: hostile.AtTheBounds(hostile.LongStrings),
	}
	mux := http.NewServeMux()
	const servers = 8
	for i := range servers {
		shape := hostile.Shape(i % 2)
		events := i%4 >= 2
		mux.Handle(fmt.Sprintf("/s/%d/mcp", i), hostile.Handler(catalogues[shape], events))
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()
	t.Logf("each hostile catalogue: %d bytes on the wire", catalogues[hostile.SmallValues].Bytes())

	dir := t.TempDir()
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := startOperator(t, op, dir, "manager", "--zap-log-level", "error")
	time.Sleep(3 * time.Second) // started, caches synced
	idle := procStatus(cmd.Process.Pid, "VmRSS")

	interval := metav1.Duration{Duration: 10 * time.Second}
	timeout := metav1.Duration{Duration: 5 * time.Second}
	for i := range servers {
		if err := admin.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hostile-%d", i), Namespace: "default"},
			Spec: toolgatev1alpha1.MCPServerSpec{
				Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fmt.Sprintf("%s/s/%d/mcp", ts.URL, i)},
				Probe:    toolgatev1alpha1.ProbeSpec{Interval: &interval, Timeout: &timeout},
			},
		}); err != nil {
			t.Fatal(err)
		}
	}

	// Two rounds: the first probe of every server, and the next one; and
	// on a loaded machine, longer, until every server has been judged (the
	// peak can only grow with it).
	start := time.Now()
	var tooLarge int
	for time.Since(start) < 2*interval.Duration+5*time.Second || tooLarge != servers && time.Since(start) < 2*time.Minute {
		if cmd.ProcessState != nil {
			t.Fatalf("the operator exited; see %s", filepath.Join(dir, "manager.log"))
		}
		var list toolgatev1alpha1.MCPServerList
		if err := admin.List(ctx, &list, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		tooLarge = 0
		for _, s := range list.Items {
			if c := meta.FindStatusCondition(s.Status.Conditions, toolgatev1alpha1.ConditionReady); c != nil &&
				c.Status == metav1.ConditionFalse && c.Reason == toolgatev1alpha1.ReasonTooLarge {
				tooLarge++
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	peak := procStatus(cmd.Process.Pid, "VmHWM")
	fmt.Printf("operator memory under hostile servers: RSS %.0f MiB idle, peak %.0f MiB with %d hostile servers probed at once for %s (limit %d MiB)\n",
		float64(idle)/(1<<20), float64(peak)/(1<<20), servers, time.Since(start).Round(time.Second), maxOperatorRSS>>20)
	if tooLarge != servers {
		t.Errorf("%d of %d hostile servers are not Ready with TooLarge; see %s", tooLarge, servers, filepath.Join(dir, "manager.log"))
	}
	if peak == 0 {
		t.Fatal("could not read the operator's VmHWM")
	}
	if peak >= maxOperatorRSS {
		t.Errorf("the operator's peak RSS is %.0f MiB, over %d MiB", float64(peak)/(1<<20), maxOperatorRSS>>20)
	}
}

// procStatus reads a size field of a process's /proc status in bytes.
func procStatus(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n << 10 // kB
		}
	}
	return 0
}
