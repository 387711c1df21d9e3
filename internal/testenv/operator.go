package testenv

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
)

// OperatorUser is the identity the operator runs as in tests and the demo,
// as it would as a service account in a cluster.
const OperatorUser = "system:serviceaccount:toolgate-system:toolgate-manager"

// Operator runs the operator binary as its own process against a control
// plane, with nothing but the generated ClusterRole.
type Operator struct {
	// Bin is the built manager binary.
	Bin string
	// Kubeconfig acts as OperatorUser.
	Kubeconfig string
	// GatePort is where the operator serves gates, on 127.0.0.1, with the
	// webhook server's certificate.
	GatePort int
	args     []string
}

// PrepareOperator builds the manager into dir and provisions its identity.
// The control plane must have been started with Options.Webhooks, whose
// serving port and certificate the operator takes over.
func (e *Env) PrepareOperator(dir string) (*Operator, error) {
	bin := filepath.Join(dir, "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate/cmd/manager").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the manager: %w\n%s", err, out)
	}
	kubeconfig, err := e.KubeconfigFor(dir, OperatorUser, filepath.Join(RepoRoot(), "config", "rbac", "role.yaml"))
	if err != nil {
		return nil, err
	}
	_, port, certDir := e.WebhookServer()
	gatePort, err := ReservePort()
	if err != nil {
		return nil, err
	}
	return &Operator{Bin: bin, Kubeconfig: kubeconfig, GatePort: gatePort, args: []string{
		"--kubeconfig", kubeconfig, "--operator-user", OperatorUser,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--webhook-port", strconv.Itoa(port), "--webhook-cert-dir", certDir,
		// Each control plane's operator gets its own gate port, so that
		// tests running side by side do not contend for the default.
		"--gate-bind-address", "127.0.0.1", "--gate-port", strconv.Itoa(gatePort),
	}}, nil
}

// Command returns the operator's command line with extra flags appended.
func (o *Operator) Command(extra ...string) *exec.Cmd {
	return exec.Command(o.Bin, append(append([]string{}, o.args...), extra...)...)
}
