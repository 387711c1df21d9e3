package gateconfig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/internal/testenv"
)

// The Builder's tests read through a real informer cache of a real
// kube-apiserver, with the field indexes the manager registers: what the
// Builder reads is what the operator's cache serves. The package's pure
// tests run without a control plane.
var (
	env *testenv.Env
	// informers is the cache the Builder reads, with RegisterIndexes'
	// indexes.
	informers cache.Cache
)

func TestMain(m *testing.M) {
	logf.SetLogger(testenv.Logger())
	e, err := testenv.Start()
	switch {
	case errors.Is(err, testenv.ErrNoBinaries) && os.Getenv(testenv.RequireEnv) == "":
		fmt.Fprintf(os.Stderr, "the Builder's tests skip: %v (set %s=1 to make this a failure)\n", err, testenv.RequireEnv)
		os.Exit(m.Run())
	case err != nil:
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := context.WithCancel(context.Background())
	code, err := func() (int, error) {
		c, err := cache.New(e.Config, cache.Options{Scheme: e.Scheme})
		if err != nil {
			return 0, err
		}
		if err := RegisterIndexes(ctx, c); err != nil {
			return 0, err
		}
		go func() { _ = c.Start(ctx) }()
		if !c.WaitForCacheSync(ctx) {
			return 0, errors.New("the cache did not sync")
		}
		env, informers = e, c
		return m.Run(), nil
	}()
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: setting up the cache: %v\n", err)
		code = 1
	}
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n", err)
	}
	os.Exit(code)
}

// needEnv skips a test that reads the API server when none runs.
func needEnv(t *testing.T) {
	t.Helper()
	if env == nil {
		t.Skip("no control plane: set KUBEBUILDER_ASSETS (make envtest)")
	}
}
