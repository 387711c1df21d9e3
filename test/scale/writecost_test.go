package scale

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/testenv"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// writeForm is one way of writing a pin's first status: what the API
// server is asked to store.
type writeForm struct {
	name   string
	status func(compact toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus
	// update writes the status with a PUT of the whole pin rather than a
	// merge patch: the API server then has no patch to apply to the
	// stored object, but decodes the whole pin it is sent.
	update bool
}

// writeForms are the forms TestPinWriteCost compares.
var writeForms = []writeForm{
	{name: "whole (observed definition and computed risk repeated)", status: func(st toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus { return st.Expanded() }},
	{name: "compact (as the operator writes it)", status: func(st toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus { return st }},
	{name: "compact, by update rather than patch", status: func(st toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus { return st }, update: true},
	// The floor: what two writes of a pin cost with next to nothing in
	// its status.
	{name: "its state alone", status: func(st toolgatev1alpha1.ToolPinStatus) toolgatev1alpha1.ToolPinStatus {
		return toolgatev1alpha1.ToolPinStatus{State: st.State, Decisions: []toolgatev1alpha1.Decision{}}
	}},
}

// TestPinWriteCost measures what the API server and etcd spend on a
// pin's two writes — the create, with its labels, and the first status,
// a merge patch under an optimistic lock as the operator makes them (or,
// for the form that prices it, a PUT under the resourceVersion the create
// returned) — for each form of the status, in batches that take turns on
// one control plane, so that a loaded machine weighs on every form alike.
// It is the scale test's cost per pin without the probes, the judgement
// and the wall clock.
func TestPinWriteCost(t *testing.T) {
	if os.Getenv("TOOLGATE_SCALE") == "" {
		t.Skip("set TOOLGATE_SCALE=1 to measure the cost of a pin's writes")
	}
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	env.StopAtCleanup(t)
	env.Config.QPS, env.Config.Burst = 1000, 2000
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}}); err != nil {
		t.Fatal(err)
	}
	// One watcher, as the operator's cache is: every write is sent to it.
	if _, err := watchPins(ctx, env); err != nil {
		t.Fatal(err)
	}

	const batch, rounds, workers = 500, 4, 8
	if dir := os.Getenv(profileEnv); dir != "" {
		go func() {
			p := &profiler{dir: dir, env: env}
			if err := p.apiServer(ctx); err != nil {
				t.Log(err)
			}
		}()
	}
	spent := make([]time.Duration, len(writeForms))
	for round := range rounds {
		for f, form := range writeForms {
			before := planeCPU()
			names := make(chan int)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var firstErr error
			for range workers {
				wg.Go(func() {
					for i := range names {
						if err := writePin(ctx, c, fmt.Sprintf("r%d-f%d-%04d", round, f, i), i, form); err != nil {
							mu.Lock()
							firstErr = cmpOr(firstErr, err)
							mu.Unlock()
						}
					}
				})
			}
			for i := range batch {
				names <- i
			}
			close(names)
			wg.Wait()
			if firstErr != nil {
				t.Fatal(firstErr)
			}
			spent[f] += planeCPU() - before
		}
	}
	var lines []string
	for f, form := range writeForms {
		size, err := pinSize(ctx, env, fmt.Sprintf("r0-f%d-0000", f), "")
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%s %.2f ms (%s)", form.name, perPin(spent[f], batch*rounds), strings.TrimPrefix(size, "scale: ")))
	}
	fmt.Printf("scale: the API server's and etcd's CPU a pin, %d pins of each form: %s\n", batch*rounds, strings.Join(lines, "; "))
}

// planeCPU is the CPU the API server and etcd have spent so far.
func planeCPU() time.Duration {
	var sum time.Duration
	for _, p := range controlPlaneCPU(0) {
		sum += p.cpu
	}
	return sum
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// writePin creates one pin of the scale test's kind of tool and writes its
// first status in form: by a merge patch under an optimistic lock, as the
// operator's writer does, unless the form is written by update.
func writePin(ctx context.Context, c client.Client, name string, i int, form writeForm) error {
	verbs := []string{"get", "list", "create", "update", "delete", "send", "search", "describe", "archive", "export"}
	tool := fmt.Sprintf("%s_record_%02d", verbs[i%len(verbs)], i%50)
	cat, err := tooldef.ParseCatalogue(fmt.Appendf(nil, `{"tools":[{"name":%q,"description":"Does %s on one record of store %d, by its id.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}]}`,
		tool, verbs[i%len(verbs)], i/50), tooldef.Limits{})
	if err != nil {
		return err
	}
	report := vet.Vet([]vet.Server{{Name: "fleet/" + name, Catalogue: cat}})
	pin := &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "fleet", Labels: map[string]string{toolgatev1alpha1.LabelServer: "fleet-000"}},
		Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "fleet-000"}, ToolName: tool},
	}
	observed := pinrecord.Observed{Tool: cat.Tools[0], Risk: verdict.ToolRisk(report.Tools[0]), Origin: "http://127.0.0.1:40000", RequiredApprovers: 2}
	now := metav1.NewTime(time.Now())
	pin.Labels = pinrecord.Decide(pin, observed, now).Labels
	if err := c.Create(ctx, pin); err != nil {
		return err
	}
	res := pinrecord.Decide(pin, observed, now)
	orig := pin.DeepCopy()
	pin.Status = form.status(res.Status)
	if form.update {
		return c.Status().Update(ctx, pin)
	}
	return c.Status().Patch(ctx, pin, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}
