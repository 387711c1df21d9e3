package controllers

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
)

// probeRunner runs probes in the background, apart from the reconcile
// workers, so that a server that hangs until its timeout holds one probe
// slot rather than a worker every other server waits for. Servers whose
// last probe timed out share a smaller lane (a quarter of the slots): a
// crowd of hanging servers cannot take every slot twice.
//
// A probe's outcome is kept until the server's next reconcile takes it;
// the runner then enqueues that server through its channel.
type probeRunner struct {
	probe func(context.Context, probe.Config) (*probe.Result, error)
	// anonymous checks a server without its credentials, alongside the
	// probe of a job that asks for it.
	anonymous func(context.Context, probe.Config) (*probe.AnonymousResult, error)
	slots     chan struct{}
	slow      chan struct{}
	// done enqueues a server whose probe finished.
	done chan event.GenericEvent

	mu   sync.Mutex
	ctx  context.Context // the manager's, once started
	jobs map[types.NamespacedName]*probeJob
}

// probeJob is one probe in flight or finished.
type probeJob struct {
	digest   string
	cancel   context.CancelFunc
	finished bool
	outcome  probeOutcome
}

// probeOutcome is what one probe job found: the probe's result, and the
// check without credentials when the job made one.
type probeOutcome struct {
	result *probe.Result
	err    error
	// anonymous is nil when the job made no check.
	anonymous *anonymousOutcome
}

// anonymousOutcome is probe.Anonymous's.
type anonymousOutcome struct {
	result *probe.AnonymousResult
	err    error
}

// probeAndCheck probes the server and, when check is set, checks it
// without its credentials at the same time: the check holds the probe's
// slot no longer than the probe does, and a server that hangs costs its
// timeout once.
func probeAndCheck(ctx context.Context, cfg probe.Config, check bool,
	run func(context.Context, probe.Config) (*probe.Result, error),
	anonymous func(context.Context, probe.Config) (*probe.AnonymousResult, error),
) probeOutcome {
	var out probeOutcome
	var wg sync.WaitGroup
	if check {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := anonymous(ctx, cfg)
			out.anonymous = &anonymousOutcome{result: res, err: err}
		}()
	}
	out.result, out.err = run(ctx, cfg)
	wg.Wait()
	return out
}

// probeState says where a server's probe stands.
type probeState int

const (
	// probeDone: the outcome is ready and taken.
	probeDone probeState = iota
	// probeRunning: a probe is in flight (perhaps started now).
	probeRunning
	// probeNoSlot: every slot of the server's lane is taken; try later.
	probeNoSlot
)

func newProbeRunner(slots int, run func(context.Context, probe.Config) (*probe.Result, error),
	anonymous func(context.Context, probe.Config) (*probe.AnonymousResult, error)) *probeRunner {
	slots = max(1, slots)
	return &probeRunner{
		probe:     run,
		anonymous: anonymous,
		slots:     make(chan struct{}, slots),
		slow:      make(chan struct{}, max(1, slots/4)),
		done:      make(chan event.GenericEvent, 1024),
		jobs:      map[types.NamespacedName]*probeJob{},
	}
}

// Start keeps the manager's context for the probes; it implements
// manager.Runnable, and like the reconcilers runs only on the leader.
func (p *probeRunner) Start(ctx context.Context) error {
	p.mu.Lock()
	p.ctx = ctx
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, j := range p.jobs {
		j.cancel()
	}
	return nil
}

// poll takes the finished probe of a server made with the configuration
// digest, or starts one, checking the server without its credentials too
// when check is set. A probe made with another configuration is cancelled
// and replaced: its outcome would describe another server.
func (p *probeRunner) poll(key types.NamespacedName, digest string, cfg probe.Config, slow, check bool, measure func(error, time.Duration)) (probeState, probeOutcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if j, ok := p.jobs[key]; ok {
		switch {
		case j.digest != digest:
			j.cancel()
			delete(p.jobs, key)
		case j.finished:
			delete(p.jobs, key)
			return probeDone, j.outcome
		default:
			return probeRunning, probeOutcome{}
		}
	}
	if p.ctx == nil {
		return probeNoSlot, probeOutcome{} // not started yet
	}
	release, ok := p.acquire(slow)
	if !ok {
		return probeNoSlot, probeOutcome{}
	}
	ctx, cancel := context.WithCancel(p.ctx)
	j := &probeJob{digest: digest, cancel: cancel}
	p.jobs[key] = j
	go func() {
		defer cancel()
		started := time.Now()
		out := probeAndCheck(ctx, cfg, check, p.probe, p.anonymous)
		release() // before the send below, which may wait
		measure(out.err, time.Since(started))
		p.mu.Lock()
		j.finished, j.outcome = true, out
		current := p.jobs[key] == j
		p.mu.Unlock()
		if !current {
			return // replaced or forgotten meanwhile
		}
		select {
		case p.done <- event.GenericEvent{Object: &toolgatev1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}}:
		case <-ctx.Done():
		}
	}()
	return probeRunning, probeOutcome{}
}

// acquire takes a slot, and for a slow server a slot of the slow lane too,
// without waiting.
func (p *probeRunner) acquire(slow bool) (func(), bool) {
	if slow {
		select {
		case p.slow <- struct{}{}:
		default:
			return nil, false
		}
	}
	select {
	case p.slots <- struct{}{}:
	default:
		if slow {
			<-p.slow
		}
		return nil, false
	}
	return func() {
		<-p.slots
		if slow {
			<-p.slow
		}
	}, true
}

// forget cancels a deleted server's probe.
func (p *probeRunner) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if j, ok := p.jobs[key]; ok {
		j.cancel()
		delete(p.jobs, key)
	}
}
