package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
)

// BenchmarkReconcile100Tools measures one reconcile of a server with 100
// tools whose catalogue has not changed, the steady state of every probe
// interval: judge the catalogue, run each pin through the lifecycle (reading
// pins from the cache, writing none that did not change) and write the
// server's status once. The probe itself, the network, is left out: the
// reconciler is handed the result of a real probe made beforehand.
func BenchmarkReconcile100Tools(b *testing.B) {
	ns := testNamespace(b)
	if env == nil {
		b.Skip("no control plane")
	}
	verbs := []string{"get", "list", "create", "update", "delete", "send", "search", "describe", "run", "archive"}
	tools := make([]*mcp.Tool, 100)
	for i := range tools {
		v := verbs[i%len(verbs)]
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("%s_item_%03d", v, i), Description: fmt.Sprintf("Does %s on one item of the store, by its id.", v)}
	}
	fixture := startMCPServer(b, tools...)
	server := &toolgatev1alpha1.MCPServer{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: ns},
		Spec: toolgatev1alpha1.MCPServerSpec{Endpoint: toolgatev1alpha1.MCPEndpoint{URL: fixture.URL},
			Probe: toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: 10 * time.Second}, Timeout: &metav1.Duration{Duration: 5 * time.Second}}},
	}
	create(b, server)
	eventually(b, "the server's 100 tools are pinned", func() (bool, string) {
		var s toolgatev1alpha1.MCPServer
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(server), &s); err != nil {
			return false, err.Error()
		}
		return s.Status.ToolCount == 100, fmt.Sprint(s.Status.ToolCount)
	})
	result, err := probe.Probe(context.Background(), probe.Config{URL: fixture.URL})
	if err != nil {
		b.Fatal(err)
	}
	// Each reconcile happens one probe interval after the last, so it is
	// due; lastSeenTime moves at most hourly, so unchanged pins are not
	// written.
	clock := time.Now()
	// Back-to-back reconciles of one object outrun the informer cache, so
	// the server is read from the API server (one request); pins still come
	// from the cache, as in the operator.
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme, Cache: &client.CacheOptions{
		Reader: testManager.GetCache(), DisableFor: []client.Object{&toolgatev1alpha1.MCPServer{}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	r := &MCPServerReconciler{
		Client: c, Scheme: testManager.GetScheme(),
		Probe: func(context.Context, probe.Config) (*probe.Result, error) { return result, nil },
		Now:   func() time.Time { clock = clock.Add(11 * time.Second); return clock },
	}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "bench"}}
	for range 3 { // settle the cache and the pins' lastSeenTime
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/reconcile")
}
