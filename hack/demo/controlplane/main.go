// Command controlplane runs a local Kubernetes control plane (kube-apiserver
// and etcd, as the tests use) with toolgate's CRDs and webhook
// configurations installed, writes kubeconfigs for the operator, an
// administrator and two approvers, prints where everything is as JSON on
// one line, and runs until it is interrupted. hack/demo.sh drives it.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
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

func run() (err error) {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: controlplane DIR (kubeconfigs are written there)")
	}
	dir := os.Args[1]
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the control plane: %w", stopErr))
		}
	}()

	root := testenv.RepoRoot()
	out := map[string]any{}
	host, port, certDir := env.WebhookServer()
	out["webhookHost"], out["webhookPort"], out["webhookCertDir"] = host, port, certDir
	for _, u := range []struct {
		key, name, role string
		groups          []string
	}{
		{"operator", testenv.OperatorUser, "config/rbac/role.yaml", nil},
		{"admin", "demo-admin", "", []string{"system:masters"}},
		{"alice", "alice", "config/rbac/approver_role.yaml", []string{"reviewers"}},
		{"bob", "bob", "config/rbac/approver_role.yaml", []string{"reviewers"}},
	} {
		role := ""
		if u.role != "" {
			role = filepath.Join(root, u.role)
		}
		path, err := env.KubeconfigFor(dir, u.name, role, u.groups...)
		if err != nil {
			return err
		}
		out[u.key] = path
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	// The same facts as shell assignments, for hack/demo.sh.
	vars := fmt.Sprintf("WEBHOOK_PORT=%d\nWEBHOOK_CERT_DIR=%q\nOPERATOR_KUBECONFIG=%q\nADMIN_KUBECONFIG=%q\nALICE_KUBECONFIG=%q\nBOB_KUBECONFIG=%q\n",
		port, certDir, out["operator"], out["admin"], out["alice"], out["bob"])
	if err := os.WriteFile(filepath.Join(dir, "controlplane.env"), []byte(vars), 0o600); err != nil {
		return err
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}
