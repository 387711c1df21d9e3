package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/ociimage"
	"github.com/toolgate/toolgate/internal/testenv"
	"github.com/toolgate/toolgate/test/nodeenv"
)

// version is the tag of the images built for the node.
const version = "node"

const (
	operatorNamespace = "toolgate-system"
	agentImage        = "docker.io/toolgate-test/agent:" + version
	serverImage       = "docker.io/toolgate-test/sampleserver:" + version
)

// prepare builds, outside the node's namespaces, the images the node runs
// (the pod sandbox's first) and the kubectl plugin.
func prepare(t *testing.T, dir string) []string {
	t.Helper()
	// First, so that a machine without Node.js or npm skips (or fails)
	// before minutes of compiling; npm reaches its registry from here.
	everything := buildEverythingImage(t, filepath.Join(dir, "everything.tar"))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	root := testenv.RepoRoot()
	images := []ociimage.GoImage{
		{Package: "./hack/images/pause", Name: "pause", Ref: "docker.io/toolgate-test/pause:" + version},
		ociimage.ManagerImage(version),
		ociimage.GateImage(version),
		{Package: "./hack/demo/agent", Name: "agent", Ref: agentImage},
		{Package: "./hack/demo/sampleserver", Name: "sampleserver", Ref: serverImage},
	}
	var files []string
	for _, img := range images {
		img.ModuleDir = root
		res, err := ociimage.BuildGoImage(ctx, img, filepath.Join(dir, img.Name+".tar"))
		if err != nil {
			t.Fatalf("building the image %s: %v", img.Ref, err)
		}
		files = append(files, res.File)
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "bin", "kubectl-toolgate"), "./cmd/kubectl-toolgate")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the kubectl plugin: %v\n%s", err, out)
	}
	return append(files, everything.File)
}

// helmCLI is the helm that hack/helm.sh builds.
func helmCLI(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(testenv.RepoRoot(), "hack", "helm.sh")).Output()
	if err != nil {
		t.Fatalf("hack/helm.sh: %v", err)
	}
	ls := strings.Fields(string(out))
	return ls[len(ls)-1]
}

// TestChartOnARealNode installs the chart with helm on a real node, as a
// platform team would, and drives it as its users do: the operator runs
// as two pods from the image built here, its webhooks reached through its
// Service; two MCP servers run as pods, one written with the Go SDK and
// the third-party npm @modelcontextprotocol/server-everything on Node.js;
// an agent's Deployment gets the gate as a native sidecar, which fetches
// its configuration from the operator's Service with the token the
// kubelet projects; the agent lists and calls both servers through it; a
// redefined tool is withheld; a held call is approved with kubectl
// toolgate; pods that would redirect the gate's names are refused; helm
// upgrade and uninstall do what the docs say.
func TestChartOnARealNode(t *testing.T) {
	nodeenv.Run(t, nodeenv.Options{Prepare: prepare}, func(t *testing.T, n *nodeenv.Node) {
		ctx := t.Context()
		prepared := filepath.Join(os.Getenv("TOOLGATE_NODE_DIR"), "prepared")
		kubectl := func(stdin string, args ...string) string {
			t.Helper()
			cmd := n.Command(ctx, testenv.Kubectl(t, "the node test drives the cluster as a user does"), args...)
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		helm := helmCLI(t)
		step := func(what string) func() {
			began := time.Now()
			t.Log(what)
			return func() { t.Logf("  … %s", time.Since(began).Round(100*time.Millisecond)) }
		}

		done := step("helm install: two operator replicas from the image built here, certificates issued by the operator")
		chart := filepath.Join(testenv.RepoRoot(), "charts", "toolgate")
		values := []string{
			"--set", "image.repository=ghcr.io/toolgate/manager", "--set", "image.tag=" + version, "--set", "image.pullPolicy=Never",
			"--set", "gate.image.repository=ghcr.io/toolgate/gate", "--set", "gate.image.tag=" + version, "--set", "gate.image.pullPolicy=Never",
			"--set", "approval.approvers.users={alice,bob}",
		}
		if out, err := n.Command(ctx, helm, append([]string{"install", "toolgate", chart, "--namespace", operatorNamespace, "--create-namespace",
			"--wait", "--timeout", "5m"}, values...)...).CombinedOutput(); err != nil {
			t.Fatalf("helm install: %v\n%s\n%s", err, out, kubectl("", "get", "pods", "-A", "-o", "wide"))
		}
		done()
		pods := kubectl("", "get", "pods", "-n", operatorNamespace, "-o", "jsonpath={range .items[*]}{.metadata.name} {.status.phase}{\"\\n\"}{end}")
		if strings.Count(pods, "Running") != 2 {
			t.Fatalf("want two operator pods Running:\n%s", pods)
		}
		// One of the two leads: the Lease names one of them.
		eventually(t, time.Minute, "one operator replica holds the leader Lease", func() error {
			out, err := n.Command(ctx, testenv.Kubectl(t, ""), "get", "lease", "toolgate-manager.toolgate.dev", "-n", operatorNamespace,
				"-o", "jsonpath={.spec.holderIdentity}").CombinedOutput()
			if err != nil {
				return outcome(err, string(out))
			}
			holder := string(out)
			for _, line := range strings.Split(strings.TrimSpace(pods), "\n") {
				if name, _, _ := strings.Cut(line, " "); name != "" && strings.HasPrefix(holder, name) {
					return nil
				}
			}
			return fmt.Errorf("the Lease is held by %q, not by one of\n%s", holder, pods)
		})

		done = step("an MCP server in a pod, reviewed by the operator through its Service")
		kubectl("", "create", "namespace", "tools")
		kubectl(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: sample, namespace: tools}
spec:
  selector: {matchLabels: {app: sample}}
  template:
    metadata: {labels: {app: sample}}
    spec:
      containers:
      - name: server
        image: %s
        imagePullPolicy: Never
        args: ["-addr", "0.0.0.0:8080"]
        ports: [{containerPort: 8080}]
        readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: sample, namespace: tools}
spec:
  selector: {app: sample}
  ports: [{port: 8080, targetPort: 8080}]
`, serverImage), "apply", "-f", "-")
		kubectl("", "-n", "tools", "rollout", "status", "deployment/sample", "--timeout=2m")
		kubectl(`apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: sample, namespace: tools}
spec:
  endpoint: {url: "http://sample.tools.svc.cluster.local:8080/mcp"}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 1h, timeout: 10s}
`, "apply", "-f", "-")
		serverReady := func(name string) {
			t.Helper()
			eventually(t, 2*time.Minute, "the tools of tools/"+name+" pinned", func() error {
				var s toolgatev1alpha1.MCPServer
				if err := n.Client.Get(ctx, client.ObjectKey{Namespace: "tools", Name: name}, &s); err != nil {
					return err
				}
				for _, c := range s.Status.Conditions {
					if c.Type == "Ready" && c.Status == "True" {
						return nil
					}
				}
				return fmt.Errorf("conditions %+v", s.Status.Conditions)
			})
		}
		serverReady("sample")
		done()

		done = step("the npm MCP server in a pod on Node.js, as nonroot, reviewed the same way")
		kubectl(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: everything, namespace: tools}
spec:
  selector: {matchLabels: {app: everything}}
  template:
    metadata: {labels: {app: everything}}
    spec:
      containers:
      - name: server
        image: %[1]s
        imagePullPolicy: Never
        securityContext: {runAsNonRoot: true, allowPrivilegeEscalation: false}
        ports: [{containerPort: %[2]d}]
        readinessProbe: {tcpSocket: {port: %[2]d}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: everything, namespace: tools}
spec:
  selector: {app: everything}
  ports: [{port: %[2]d, targetPort: %[2]d}]
---
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: everything, namespace: tools}
spec:
  endpoint: {url: "http://everything.tools.svc.cluster.local:%[2]d/mcp"}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 1h, timeout: 10s}
`, everythingImage, everythingPort), "apply", "-f", "-")
		if out, err := n.Command(ctx, testenv.Kubectl(t, ""), "-n", "tools", "rollout", "status", "deployment/everything", "--timeout=3m").CombinedOutput(); err != nil {
			t.Fatalf("the npm server's rollout: %v\n%s\n%s", err, out, kubectl("", "-n", "tools", "describe", "pods", "-l", "app=everything"))
		}
		serverReady("everything")
		done()

		done = step("an agent Deployment in a namespace labelled for injection")
		kubectl("", "create", "namespace", "agents")
		kubectl("", "label", "namespace", "agents", toolgatev1alpha1.LabelInjection+"="+toolgatev1alpha1.InjectionEnabled)
		kubectl(fmt.Sprintf(`apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: agents, namespace: agents}
spec:
  servers: [{namespace: tools, name: sample}, {namespace: tools, name: everything}]
  maxLevel: L3
  agentTrustLevel: 3
  approval:
    tools: [{server: tools/sample, name: create_issue}]
    timeout: 2m
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent, namespace: agents}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: agent, namespace: agents}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      serviceAccountName: agent
      terminationGracePeriodSeconds: 2
      containers:
      - name: agent
        image: %s
        imagePullPolicy: Never
        args: ["wait"]
`, agentImage), "apply", "-f", "-")
		if out, err := n.Command(ctx, testenv.Kubectl(t, ""), "-n", "agents", "rollout", "status", "deployment/agent", "--timeout=3m").CombinedOutput(); err != nil {
			t.Fatalf("the agent's rollout: %v\n%s\n%s", err, out, kubectl("", "-n", "agents", "describe", "pods"))
		}
		done()
		var list corev1.PodList
		if err := n.Client.List(ctx, &list, client.InNamespace("agents"), client.MatchingLabels{"app": "agent"}); err != nil || len(list.Items) != 1 {
			t.Fatalf("the agent's pods: %v, %d", err, len(list.Items))
		}
		pod := list.Items[0]
		checkGateStartedFirst(t, &pod)
		gateURL := agentServerURL(t, &pod, "TOOLGATE_MCP_SAMPLE_URL", "tools/sample")
		everythingURL := agentServerURL(t, &pod, "TOOLGATE_MCP_EVERYTHING_URL", "tools/everything")

		agentAt := func(url string, args ...string) (string, error) {
			cmd := n.Command(ctx, testenv.Kubectl(t, ""), append([]string{"exec", "-n", "agents", pod.Name, "-c", "agent", "--", "/agent", "-url", url, "-timeout", "90s"}, args...)...)
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		agent := func(args ...string) (string, error) { return agentAt(gateURL, args...) }
		done = step("the agent lists and calls through its gate")
		var listed string
		eventually(t, time.Minute, "the agent lists the exposed tools", func() error {
			out, err := agent("list")
			listed = out
			if err != nil || !strings.Contains(out, "get_weather") {
				return outcome(err, out)
			}
			return nil
		})
		t.Logf("kubectl exec %s -c agent -- /agent -url %s list:\n%s", pod.Name, gateURL, listed)
		if strings.Contains(listed, "delete_repository") {
			t.Errorf("the agent sees a tool above the ceiling:\n%s", listed)
		}
		if out, err := agent("call", "get_weather", "city=Lyon"); err != nil {
			t.Fatalf("calling get_weather through the gate: %v\n%s", err, out)
		}
		// The agent prints what the gate answered, a refusal included.
		if out, err := agent("call", "delete_repository", "repo=acme/prod"); err != nil || !strings.Contains(out, "refused") {
			t.Errorf("a withheld tool was not refused (%v):\n%s", err, out)
		}
		done()

		done = step("the agent lists and calls the npm server through its gate")
		eventually(t, time.Minute, "the agent lists the npm server's tools", func() error {
			out, err := agentAt(everythingURL, "list")
			listed = out
			if err != nil || !strings.Contains(out, "get-sum") {
				return outcome(err, out)
			}
			return nil
		})
		t.Logf("kubectl exec %s -c agent -- /agent -url %s list:\n%s", pod.Name, everythingURL, listed)
		// The agent sends a=2 b=3 as JSON numbers, which get-sum's schema
		// requires; the server answers "The sum of 2 and 3 is 5."
		if out, err := agentAt(everythingURL, "call", "get-sum", "a=2", "b=3"); err != nil || !strings.Contains(out, "is 5.") || strings.Contains(out, "refused") {
			t.Errorf("calling get-sum a=2 b=3 through the gate (%v):\n%s", err, out)
		}
		done()

		done = step("a call held for a person, approved with kubectl toolgate")
		type result struct {
			out string
			err error
		}
		held := make(chan result, 1)
		go func() {
			out, err := agent("call", "create_issue", "title=from the node", "body=hello")
			held <- result{out, err}
		}()
		pinName := lifecycle.PinName("sample", "create_issue")
		var callID string
		eventually(t, time.Minute, "the call pending on the pin", func() error {
			var p toolgatev1alpha1.ToolPin
			if err := n.Client.Get(ctx, client.ObjectKey{Namespace: "tools", Name: pinName}, &p); err != nil {
				return err
			}
			if len(p.Status.PendingCalls) == 0 {
				select {
				case r := <-held:
					t.Fatalf("the call was not held: %v\n%s\npolicy:\n%s", r.err, r.out, kubectl("", "get", "toolpolicy", "agents", "-n", "agents", "-o", "yaml"))
				default:
				}
				return fmt.Errorf("state %s, nothing pending", p.Status.State)
			}
			callID = p.Status.PendingCalls[0].ID
			return nil
		})
		alice, err := n.UserKubeconfig("alice")
		if err != nil {
			t.Fatal(err)
		}
		// kubectl runs a plugin only with no flags before its name: the
		// reviewer's identity comes from KUBECONFIG.
		plugin := exec.CommandContext(ctx, testenv.Kubectl(t, ""), "toolgate", "approve", pinName, "-n", "tools", "--call", callID, "--comment", "an issue is fine")
		plugin.Env = append(os.Environ(), "KUBECONFIG="+alice, "PATH="+filepath.Join(prepared, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := plugin.CombinedOutput(); err != nil {
			t.Fatalf("kubectl toolgate approve: %v\n%s", err, out)
		}
		select {
		case r := <-held:
			// The agent prints what the gate answered and exits 0 on a
			// refusal or a tool error too: the answer must be the tool's.
			if r.err != nil || strings.Contains(r.out, "refused") || strings.Contains(r.out, ": error:") {
				t.Fatalf("the approved call: %v\n%s", r.err, r.out)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("the approved call never returned")
		}
		done()

		done = step("a redefined tool is withheld at once")
		var svc corev1.Service
		if err := n.Client.Get(ctx, client.ObjectKey{Namespace: "tools", Name: "sample"}, &svc); err != nil {
			t.Fatal(err)
		}
		if err := post(ctx, "http://"+svc.Spec.ClusterIP+":8080/rugpull"); err != nil {
			t.Fatal(err)
		}
		eventually(t, time.Minute, "get_weather withheld after the rug pull", func() error {
			out, err := agent("list")
			if err != nil || strings.Contains(out, "get_weather") {
				return outcome(err, out)
			}
			return nil
		})
		if out, err := agent("call", "get_weather", "city=Lyon"); err != nil || !strings.Contains(out, "refused") {
			t.Errorf("a redefined tool was not refused (%v):\n%s", err, out)
		}
		done()

		done = step("pods that would redirect the gate's names are refused at admission")
		for name, spec := range map[string]string{
			"aliased":   `hostAliases: [{ip: "10.88.0.99", hostnames: ["toolgate-operator.toolgate-system.svc"]}]`,
			"resolving": `dnsPolicy: "None"` + "\n  dnsConfig: {nameservers: [\"10.88.0.99\"]}",
		} {
			cmd := n.Command(ctx, testenv.Kubectl(t, ""), "apply", "-f", "-")
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: agents, labels: {app: agent}}
spec:
  %s
  containers: [{name: agent, image: %s, imagePullPolicy: Never, args: ["wait"]}]
`, name, spec, agentImage))
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "denied") {
				t.Errorf("a pod %s: %v\n%s", name, err, out)
			}
		}
		done()

		done = step("helm upgrade to a changed value rolls the operator")
		if out, err := n.Command(ctx, helm, append([]string{"upgrade", "toolgate", chart, "--namespace", operatorNamespace, "--wait", "--timeout", "5m",
			"--set", "logLevel=debug"}, values...)...).CombinedOutput(); err != nil {
			t.Fatalf("helm upgrade: %v\n%s", err, out)
		}
		if args := kubectl("", "get", "deployment", "-n", operatorNamespace, "-o", "jsonpath={.items[0].spec.template.spec.containers[0].args}"); !strings.Contains(args, "debug") {
			t.Errorf("the upgraded operator's arguments: %s", args)
		}
		eventually(t, time.Minute, "the agent lists through its gate after the upgrade", func() error {
			out, err := agent("list")
			if err != nil || !strings.Contains(out, "list_files") {
				return outcome(err, out)
			}
			return nil
		})
		done()

		t.Logf("what a user sees now:\n%s\n%s", kubectl("", "get", "pods", "-A", "-o", "wide"), kubectl("", "get", "toolpins", "-n", "tools"))
		n.Hold(t)

		done = step("helm uninstall leaves the CRDs and the review records")
		if out, err := n.Command(ctx, helm, "uninstall", "toolgate", "--namespace", operatorNamespace, "--wait", "--timeout", "3m").CombinedOutput(); err != nil {
			t.Fatalf("helm uninstall: %v\n%s", err, out)
		}
		if out := kubectl("", "get", "deployments,services,secrets", "-n", operatorNamespace, "-o", "name"); strings.Contains(out, "toolgate") {
			t.Errorf("after helm uninstall:\n%s", out)
		}
		// A webhook configuration left behind would call an operator that
		// is gone, and fail every pod and pin write it selects.
		if out := kubectl("", "get", "mutatingwebhookconfigurations,validatingwebhookconfigurations,clusterroles,clusterrolebindings", "-o", "name"); strings.Contains(out, "toolgate") {
			t.Errorf("after helm uninstall, cluster-wide objects of the release remain:\n%s", out)
		}
		if out := kubectl("", "get", "crd", "-o", "name"); !strings.Contains(out, "toolpins.toolgate.dev") {
			t.Errorf("the CRDs went with the release:\n%s", out)
		}
		if out := kubectl("", "get", "toolpins", "-n", "tools", "-o", "name"); !strings.Contains(out, pinName) {
			t.Errorf("the review records went with the release:\n%s", out)
		}
		done()
	})
}

// checkGateStartedFirst checks that the gate is the pod's native sidecar
// and was started (and ready) before the agent.
func checkGateStartedFirst(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	var gateStarted, agentStarted time.Time
	for _, s := range pod.Status.InitContainerStatuses {
		if s.Name == "toolgate-gate" && s.State.Running != nil {
			gateStarted = s.State.Running.StartedAt.Time
		}
	}
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name == "agent" && s.State.Running != nil {
			agentStarted = s.State.Running.StartedAt.Time
		}
	}
	i := slices.IndexFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == "toolgate-gate" })
	if i < 0 || pod.Spec.InitContainers[i].RestartPolicy == nil || *pod.Spec.InitContainers[i].RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Fatalf("the gate is not the pod's native sidecar: %+v", pod.Spec.InitContainers)
	}
	if gateStarted.IsZero() || agentStarted.IsZero() || agentStarted.Before(gateStarted) {
		t.Errorf("the gate started at %v, the agent at %v: the agent must start after its gate", gateStarted, agentStarted)
	}
}

// agentServerURL returns the URL the injector gave the agent, in the
// variable an agent's author reads (TOOLGATE_MCP_<NAME>_URL, one per
// server of its policies), for the server whose ID is serverID: the
// gate's endpoint for that server on the pod's loopback.
func agentServerURL(t *testing.T, pod *corev1.Pod, env, serverID string) string {
	t.Helper()
	for _, e := range pod.Spec.Containers[0].Env {
		if e.Name != env {
			continue
		}
		if !strings.HasPrefix(e.Value, "http://127.0.0.1:") || !strings.HasSuffix(e.Value, "/"+serverID) {
			t.Fatalf("%s=%s is not the gate's endpoint for %s on the pod's loopback", env, e.Value, serverID)
		}
		return e.Value
	}
	t.Fatalf("the agent was given no %s for %s: %+v", env, serverID, pod.Spec.Containers[0].Env)
	return ""
}

func post(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// eventually polls check until it passes or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(time.Second)
	}
}

// outcome is an error naming what a command said, with its error when it
// failed.
func outcome(err error, out string) error {
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return errors.New(out)
}
