package scale

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testenv"
)

// pinWatch counts the fleet's pins from a watch: how many exist and how
// many are trusted with a risk.
type pinWatch struct {
	mu     sync.Mutex
	scored map[string]bool
}

func (w *pinWatch) counts() (created, scored int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ok := range w.scored {
		if ok {
			scored++
		}
	}
	return len(w.scored), scored
}

func (w *pinWatch) set(obj any) {
	p, ok := obj.(*toolgatev1alpha1.ToolPin)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scored[p.Name] = isScored(p)
}

func (w *pinWatch) forget(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if p, ok := obj.(*toolgatev1alpha1.ToolPin); ok {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.scored, p.Name)
	}
}

// watchPins starts an informer on the fleet's namespace and returns what
// it counts; it stops with ctx.
func watchPins(ctx context.Context, env *testenv.Env) (*pinWatch, error) {
	c, err := cache.New(env.Config, cache.Options{
		Scheme:            env.Scheme,
		DefaultNamespaces: map[string]cache.Config{"fleet": {}},
	})
	if err != nil {
		return nil, err
	}
	inf, err := c.GetInformer(ctx, &toolgatev1alpha1.ToolPin{})
	if err != nil {
		return nil, err
	}
	w := &pinWatch{scored: map[string]bool{}}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    w.set,
		UpdateFunc: func(_, obj any) { w.set(obj) },
		DeleteFunc: w.forget,
	}); err != nil {
		return nil, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the pin watch did not sync")
	}
	return w, nil
}

func isScored(p *toolgatev1alpha1.ToolPin) bool {
	return p.Status.State == toolgatev1alpha1.PinTrusted && p.Status.Risk != nil
}

func scoredPins(pins []toolgatev1alpha1.ToolPin) int {
	n := 0
	for i := range pins {
		if isScored(&pins[i]) {
			n++
		}
	}
	return n
}

// toolPinWebhookCalls sums the API server's calls of toolgate's webhooks
// from its metrics: the operator's own writes should cost none.
func toolPinWebhookCalls(ctx context.Context, t *testing.T, env *testenv.Env) int {
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Logf("reading the API server's metrics: %v", err)
		return -1
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Logf("reading the API server's metrics: %v", err)
		return -1
	}
	n := 0
	for line := range strings.SplitSeq(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_admission_webhook_request_total{") || !strings.Contains(line, `.toolgate.dev"`) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			n += int(v)
		}
	}
	return n
}
