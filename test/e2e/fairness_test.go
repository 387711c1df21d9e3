package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// TestHangingServersCannotStarveOthers: sixteen servers that hang
// until their probe times out held every probe worker, so a server with a
// 15 s interval was probed every 240 s and a new one waited minutes. With
// the operator at its default settings, the healthy server must be probed
// at least every two intervals, from its first probe on, while the others
// hang.
func TestHangingServersCannotStarveOthers(t *testing.T) {
	env := startControlPlane(t)
	ctx := t.Context()

	// The hanging servers accept the connection and never answer, until the
	// operator gives up.
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); hang.Close() })
	s := mcp.NewServer(&mcp.Implementation{Name: "healthy", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "get_status", Description: "Returns the status of the service.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	healthy := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(healthy.Close)

	for i := range 16 {
		if err := env.Client.Create(ctx, &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hanging-%02d", i), Namespace: "default"},
			Spec:       toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: hang.URL + "/mcp"}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	const interval = 15 * time.Second
	if err := env.Client.Create(ctx, &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "healthy", Namespace: "default"},
		Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: healthy.URL},
			Probe: toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: interval}, Timeout: &metav1.Duration{Duration: 10 * time.Second}}},
	}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	op, err := env.PrepareOperator(dir)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	startOperator(t, op, dir, "operator") // default settings

	// Watch the healthy server's probes for longer than the hanging ones
	// take to time out (30 s by default), so that both the first round and
	// the slow lane are seen.
	var probes []time.Time
	for time.Since(started) < 50*time.Second {
		var got toolgatev1alpha1.MCPServer
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: "healthy"}, &got); err == nil && got.Status.LastProbeTime != nil {
			if at := got.Status.LastProbeTime.Time; len(probes) == 0 || at.After(probes[len(probes)-1]) {
				probes = append(probes, at)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(probes) == 0 {
		t.Fatal("the healthy server was never probed")
	}
	if first := probes[0].Sub(started); first > 2*interval {
		t.Errorf("the healthy server's first probe came %s after the operator started", first.Round(time.Second))
	}
	for i := 1; i < len(probes); i++ {
		// lastProbeTime has a resolution of a second.
		if gap := probes[i].Sub(probes[i-1]); gap > 2*interval+time.Second {
			t.Errorf("the healthy server went %s without a probe", gap.Round(time.Second))
		}
	}
	if len(probes) < 3 {
		t.Errorf("the healthy server was probed %d times in 50 s at a 15 s interval", len(probes))
	}
	t.Logf("healthy server probed %d times; probe times %v", len(probes), probes)
}
