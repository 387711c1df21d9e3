// Command manager runs the toolgate operator: the MCPServer, ToolPin and
// ToolPolicy controllers and the approval webhooks under one
// controller-runtime manager, with health and readiness probes, Prometheus
// metrics and leader election.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// version is set at build time.
var version = "dev"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "manager: %v\n", err)
		os.Exit(1)
	}
}

// newFlagSet declares every flag of the manager: its own, the logger's,
// and controller-runtime's --kubeconfig, which controller-runtime registers
// on the process's default flag set.
func newFlagSet() (*flag.FlagSet, *options, *zap.Options) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	opts := bindFlags(fs)
	zapOpts := &zap.Options{}
	zapOpts.BindFlags(fs)
	if f := flag.CommandLine.Lookup("kubeconfig"); f != nil {
		fs.Var(f.Value, f.Name, f.Usage)
	}
	return fs, opts, zapOpts
}

// run parses the flags, builds the manager and runs it until a signal.
func run(args []string) error {
	fs, opts, zapOpts := newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := opts.complete(os.Getenv); err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(zapOpts)))
	ctrl.Log.WithName("setup").Info("starting", "version", version)

	certs := newCertificates(opts)
	mgr, err := newManager(opts, certs)
	if err != nil {
		return err
	}
	if err := wire(mgr, opts, certs); err != nil {
		return err
	}
	ctrl.Log.WithName("setup").Info("starting manager", "leaderElection", opts.leaderElection, "certRotation", opts.certRotation, "metrics", opts.metricsAddr)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
