package scale

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/toolgate/toolgate/internal/testenv"
)

// profileEnv names a directory: when set, make scale saves a CPU profile
// of the API server and one of the operator, taken side by side in the
// middle of the run, to say where a pin's CPU goes.
const profileEnv = "TOOLGATE_SCALE_PROFILE"

// profileFor is how long each profile samples.
const profileFor = 30 * time.Second

// profiler takes the run's CPU profiles once, when the fleet is well
// under way.
type profiler struct {
	dir          string
	operatorAddr string
	env          *testenv.Env
	once         sync.Once
	wg           sync.WaitGroup
	errs         []error
	mu           sync.Mutex
}

// newProfiler returns nil when no profile was asked for. It picks the
// address the operator serves its profiles on.
func newProfiler(env *testenv.Env) (*profiler, error) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return &profiler{dir: dir, operatorAddr: addr, env: env}, nil
}

// operatorArgs are the operator's flags that serve its profiles.
func (p *profiler) operatorArgs() []string {
	if p == nil {
		return nil
	}
	return []string{"--pprof-bind-address", p.operatorAddr}
}

// start takes both profiles at once, in the background, the first time it
// is called.
func (p *profiler) start(ctx context.Context) {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.wg.Add(3)
		go func() {
			defer p.wg.Done()
			p.record(p.apiServer(ctx))
		}()
		go func() {
			defer p.wg.Done()
			p.record(p.operator(ctx))
		}()
		go func() {
			defer p.wg.Done()
			p.record(p.self(ctx))
		}()
	})
}

func (p *profiler) record(err error) {
	if err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.errs = append(p.errs, err)
	}
}

// wait waits for the profiles and says where they are, or why not.
func (p *profiler) wait() string {
	if p == nil {
		return ""
	}
	p.wg.Wait()
	if len(p.errs) > 0 {
		return fmt.Sprintf("scale: profiles: %v", p.errs)
	}
	return "scale: CPU profiles of the API server, the operator and the test's own process in " + p.dir
}

// where is the directory the profiles go to; empty when none is taken.
func (p *profiler) where() string {
	if p == nil {
		return ""
	}
	return p.dir
}

// apiServer fetches the API server's CPU profile as an administrator.
func (p *profiler) apiServer(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(p.env.Config)
	if err != nil {
		return err
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", strconv.Itoa(int(profileFor.Seconds()))).DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("the API server's profile: %w", err)
	}
	return os.WriteFile(filepath.Join(p.dir, "kube-apiserver.pprof"), raw, 0o644)
}

// self profiles the test's own process: its MCP servers and its watch.
func (p *profiler) self(ctx context.Context) error {
	f, err := os.Create(filepath.Join(p.dir, "test.pprof"))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	t := time.NewTimer(profileFor)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return nil
}

// operator fetches the operator's CPU profile from its pprof address.
func (p *profiler) operator(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, profileFor+30*time.Second)
	defer cancel()
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.operatorAddr, int(profileFor.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the operator's profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the operator's profile: %s", resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.dir, "operator.pprof"), raw, 0o644)
}
