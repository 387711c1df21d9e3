package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// apiMetrics reads the API server's metrics, or says why not.
func apiMetrics(ctx context.Context, t *testing.T, env *testenv.Env) (string, bool) {
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Logf("reading the API server's metrics: %v", err)
		return "", false
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Logf("reading the API server's metrics: %v", err)
		return "", false
	}
	return string(raw), true
}

// toolPinWebhookCalls sums the API server's calls of toolgate's webhooks
// from its metrics: the operator's own writes should cost none.
func toolPinWebhookCalls(ctx context.Context, t *testing.T, env *testenv.Env) int {
	raw, ok := apiMetrics(ctx, t, env)
	if !ok {
		return -1
	}
	n := 0
	for line := range strings.SplitSeq(raw, "\n") {
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

// pinSize reads one pin as the API server serves it and says how large
// it is, and how much of it is managedFields: what every write of a pin
// decodes, patches, validates, encodes and sends to each watcher. When a
// directory is given, the pin is saved there.
func pinSize(ctx context.Context, env *testenv.Env, name, dir string) (string, error) {
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		return "", err
	}
	raw, err := cs.Discovery().RESTClient().Get().
		AbsPath("/apis", toolgatev1alpha1.GroupVersion.Group, toolgatev1alpha1.GroupVersion.Version, "namespaces", "fleet", "toolpins", name).DoRaw(ctx)
	if err != nil {
		return "", err
	}
	var pin struct {
		Metadata struct {
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(raw, &pin); err != nil {
		return "", err
	}
	if dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "pin.json"), raw, 0o644); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("scale: one pin is %d bytes of JSON: status %d, managedFields %d", len(raw), len(pin.Status), len(pin.Metadata.ManagedFields)), nil
}

// toolPinRequests counts the API server's requests on ToolPins by verb
// and subresource, from its metrics: how many writes a pin cost.
func toolPinRequests(metrics string) map[string]int {
	out := map[string]int{}
	for line := range strings.SplitSeq(metrics, "\n") {
		total := strings.HasPrefix(line, "apiserver_request_total{")
		// Watches open now are not counted in the total until they end.
		open := strings.HasPrefix(line, "apiserver_longrunning_requests{") && strings.Contains(line, `verb="WATCH"`)
		if !total && !open || !strings.Contains(line, `resource="toolpins"`) {
			continue
		}
		label := func(name string) string {
			_, rest, ok := strings.Cut(line, name+`="`)
			if !ok {
				return ""
			}
			v, _, _ := strings.Cut(rest, `"`)
			return v
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		key := label("verb")
		if open {
			key = "WATCH open"
		}
		if sub := label("subresource"); sub != "" {
			key += " " + sub
		}
		out[key] += int(v)
	}
	return out
}

// requestsLine says how many requests of each kind the API server served
// on ToolPins, per pin.
func requestsLine(counts map[string]int, pins int) string {
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d (%.2f a pin)", k, counts[k], float64(counts[k])/float64(max(pins, 1))))
	}
	return "scale: ToolPin requests: " + strings.Join(parts, ", ")
}
