package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestDemo runs the README's main-job command as a newcomer would and checks
// that real tools were scored and pinned.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	testenv.Kubectl(t, "the demo drives the cluster with it")
	// The demo installs the npm server into the cache this installs it in:
	// where npm cannot be reached, this says so and skips (or fails under
	// TOOLGATE_REQUIRE_NPM) instead of the demo failing.
	everythingServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(testenv.RepoRoot(), "hack", "demo.sh"))
	cmd.Dir = testenv.RepoRoot()
	cmd.Env = append(os.Environ(), "DEMO_EXIT=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the demo failed: %v", err)
	}
	text := string(out)
	// A new user sees what the demo does and how long each part took: every
	// stage ends on a line with its time, whether it worked or found its
	// result cached.
	for n := 1; n <= 6; n++ {
		stageEnd := regexp.MustCompile(fmt.Sprintf(`(?m)^toolgate: \[%d/6\] .*(done in|cached in|\() ?[0-9.]+(m[0-9]+)?s\b`, n))
		if !stageEnd.MatchString(text) {
			t.Errorf("stage %d/6 printed no line with its time", n)
		}
	}
	if !regexp.MustCompile(`(?m)^toolgate: \[6/6\] done in [0-9.m]+s: the demo is up$`).MatchString(text) {
		t.Error("the demo did not say it was up, with the time it took")
	}
	if !regexp.MustCompile(`mcpserver.toolgate.dev/demo\s+True\s+Probed\s+Internal\s+6\s+L5`).MatchString(text) {
		t.Error("the demo's MCPServer is not Ready with six tools")
	}
	for _, want := range []string{
		`demo-delete-repository-\w+\s+demo\s+delete_repository\s+L5\s+destroy`,
		// L1: the sample server demands the gate's token, so its posture
		// no longer raises its tools to L2 for want of authentication.
		`demo-get-weather-\w+\s+demo\s+get_weather\s+L1\s+read`,
		`demo-run-query-\w+\s+demo\s+run_query\s+L5\s+mutate`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("kubectl get toolgate lacks a row matching %s", want)
		}
	}
	if strings.Count(text, "Trusted") < 6 {
		t.Error("not every tool was trusted on first use")
	}
	if !strings.Contains(text, "kubectl patch toolpin") {
		t.Error("the demo does not show the approval command")
	}
	// The whole product, step by step: the chart, the operator as its
	// ServiceAccount, the injected pod, the gate, a rug pull withheld and
	// re-approved, a held call approved, the audit and a metric.
	for what, want := range map[string]string{
		"the chart installed with helm":       `install toolgate charts/toolgate`,
		"the operator as the chart's account": `system:serviceaccount:toolgate-system:toolgate-operator`,
		"the npm server's gated tool":         `tools/everything\s+echo\s+ApprovalGated`,
		"the injected gate":                   `init toolgate-gate\s+ghcr.io/toolgate/gate:demo\s+restartPolicy=Always`,
		"a call through the gate":             `get-sum: The sum of 2 and 3 is 5`,
		"a withheld tool refused":             `delete_repository: refused: .*not available`,
		"the rug pull in review":              `AwaitingReview`,
		"the re-approved tool called":         `get_weather: ok`,
		"the held call approved by alice":     `recorded: Approve by alice`,
		"the held call's result":              `echo: Echo: hello from the agent`,
		"the audit line of the approved call": `tools/everything\s+echo\s+L1\s+forward\s+Approved\s+alice`,
		"the withheld rug pull in the audit":  `tools/demo\s+get_weather\s+L1\s+withhold\s+FingerprintChanged`,
		"a metric":                            `toolgate_gate_calls_total\{decision="forward"`,
		"the argument rule accepted":          `RulesAccepted: 1 argument rule; it can be evaluated for every tool it names`,
		"a call its argument rule refuses":    `get-sum: refused: .*agents/small-sums: the agents add small numbers only`,
		"the same call judged offline":        `1 call judged: 1 refuse`,
		"the refusal in the audit":            `tools/everything\s+get-sum\s+\S+\s+refuse\s+ArgumentRule`,
		// Whether an agent could call each server around its gate: the
		// sample server demands the gate's token, the npm server nothing.
		"the guarded server's wide line":       `demo\s+True\s+Probed\s+Internal\s+6\s+L5\s+\S+\s+False\s+CredentialsRequired`,
		"the open server's wide line":          `everything\s+True\s+Probed\s+Internal\s+\d+\s+L\d\s+\S+\s+True\s+NoCredentials`,
		"the open server's reason and message": `NoCredentials: spec.auth gives the gate no credentials, so nothing the gate holds keeps agents from calling the server directly`,
		"the guarded server's reason":          `CredentialsRequired: without the credentials only the gate holds, the server refused initialize with HTTP 401`,
		"the guarded server refusing a curl":   `(?m)^401$`,
		"the open server answering a curl":     `(?m)^200$`,
		"the plugin's open server":             `everything\s+True \(Probed\)\s+\d+\s+L\d\s+YES \(NoCredentials\)`,
		"the plugin's guarded server":          `demo\s+True \(Probed\)\s+6\s+L5\s+no \(CredentialsRequired\)`,
		"the plugin's note on the open server": `tools/everything: spec.auth gives the gate no credentials`,
		"the plugin's policy, bypassable":      `agents\s+True \(Evaluated\)\s+\S+\s+L3\s+\d+\s+\d+\s+\d+\s+YES \(ServersBypassable\)`,
		"the plugin's note on the policy":      `agents/agents: the agents can call 1 of the 2 referenced servers without going through their gates: tools/everything \(NoCredentials\)`,
		// Every command printed, so that it can be run again: the ones
		// whose output the demo puts away too.
		"the namespace created":              `(?m)^\$ kubectl create namespace tools$`,
		"the operator's kubeconfig context":  `(?m)^\$ kubectl --kubeconfig \S+ config set-context toolgate-operator --cluster local --user toolgate-operator$`,
		"the operator's kubeconfig selected": `(?m)^\$ kubectl --kubeconfig \S+ config use-context toolgate-operator$`,
		"the API server's CA written":        `(?m)^\$ kubectl config view --raw --minify -o 'jsonpath=\{\.clusters\[0\]\.cluster\.certificate-authority-data\}' \| base64 -d >\S+apiserver-ca\.crt$`,
		"the policy table's whole command":   `(?m)^\$ \{ echo "SERVER\|TOOL\|DECISION\|WHY"; kubectl get toolpolicy agents -n agents -o 'jsonpath=\{range \.status\.tools\[\*\]\}`,
		"the gate's token for a day":         `(?m)^\$ kubectl create token agent -n agents --audience toolgate.dev/gate --duration 24h `,
		"the operator's command line":        `(?m)^\$ bin/manager --kubeconfig \S+ --operator-user system:serviceaccount:toolgate-system:toolgate-operator `,
		"helm on the closing hint's PATH":    `(?m)^  export PATH=\S+/bin:\S+/helm-[^/:]+[:$]`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the demo does not show %s (%s)", what, want)
		}
	}
}
