// Command controlplane runs a local Kubernetes control plane (kube-apiserver
// and etcd, as the tests use) with nothing installed: hack/demo.sh installs
// toolgate into it with the Helm chart. It issues a serving certificate for
// the operator's webhook server on 127.0.0.1, writes kubeconfigs for an
// administrator and two approvers (whom the chart binds to its approver
// role), picks free ports for the operator and the gate, writes all of it
// as shell assignments into DIR/controlplane.env, and runs until it is
// interrupted.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/toolgate/toolgate/internal/testenv"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "controlplane: %v\n", err)
		os.Exit(1)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func run() (err error) {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: controlplane DIR (kubeconfigs are written there)")
	}
	dir := os.Args[1]
	// No CRDs: the chart installs them, and Helm refuses to adopt objects
	// it did not create.
	env, err := testenv.Start(testenv.Options{NoCRDs: true})
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the control plane: %w", stopErr))
		}
	}()

	_, port, certDir := env.WebhookServer()
	caFile := filepath.Join(dir, "operator-ca.crt")
	if err := os.WriteFile(caFile, env.WebhookCA(), 0o600); err != nil {
		return err
	}
	admin, err := env.AdminKubeconfig()
	if err != nil {
		return err
	}
	vars := fmt.Sprintf("WEBHOOK_PORT=%d\nWEBHOOK_CERT_DIR=%q\nOPERATOR_CA_FILE=%q\nADMIN_KUBECONFIG=%q\n", port, certDir, caFile, admin)
	for _, who := range []string{"alice", "bob"} {
		path, err := env.KubeconfigFor(dir, who, "", "reviewers")
		if err != nil {
			return err
		}
		vars += fmt.Sprintf("%s_KUBECONFIG=%q\n", map[string]string{"alice": "ALICE", "bob": "BOB"}[who], path)
	}
	for _, name := range []string{"GATE_SERVER_PORT", "GATE_PORT", "GATE_METRICS_PORT", "EVERYTHING_PORT"} {
		p, err := freePort()
		if err != nil {
			return err
		}
		vars += fmt.Sprintf("%s=%d\n", name, p)
	}
	if err := os.WriteFile(filepath.Join(dir, "controlplane.env"), []byte(vars), 0o600); err != nil {
		return err
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}
