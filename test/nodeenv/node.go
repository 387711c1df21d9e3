package nodeenv

import (
	"archive/tar"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/internal/testenv"
)

// The node's addresses, inside its network namespace: the bridge the pods
// attach to carries the node's own address, which the API server, the
// kubelet and CoreDNS listen on.
const (
	// NodeName is the node's name.
	NodeName = "toolgate-node"
	// NodeIP is the node's address, on its bridge.
	NodeIP     = "10.88.0.1"
	bridge     = "tgcni0"
	podSubnet  = "10.88.0.0/16"
	serviceIPs = "10.0.0.0/24"
	// apiServiceIP is the first address of the service range: the
	// kubernetes Service, which the API server's certificate names.
	apiServiceIP = "10.0.0.1"
)

// kernelTunables are the sysctls the kubelet writes at start that no
// namespace isolates; each is bind-mounted over with a file holding the
// machine's value, so the kubelet's writes land in the file.
var kernelTunables = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
}

// Node is a running single-node cluster, seen from inside its namespaces.
type Node struct {
	// Dir holds the node's configuration, state and logs.
	Dir string
	// Kubeconfig is the path of a kubeconfig for an administrator
	// (system:masters).
	Kubeconfig string
	// Config is the administrator's REST configuration.
	Config *rest.Config
	// Client is the administrator's client, with toolgate's types.
	Client client.Client

	procs []*process
	logf  func(string, ...any)
	ca    *authority
}

type config struct {
	dir, bin, envtest, cgroup string
	images                    []string
	log                       func(string, ...any)
}

type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// start brings the node up: file systems and tunables of its own, the
// bridge, certificates, etcd and the API server, containerd with the
// images imported, then the controller-manager, scheduler, CoreDNS,
// kube-proxy and kubelet, until the node is Ready. On an error the node
// returned holds what started, for the caller to stop.
func start(ctx context.Context, c config) (*Node, error) {
	began := time.Now()
	n := &Node{Dir: c.dir, logf: c.log}
	for _, d := range []string{"logs", "pki", "fakesys", "etcd", "containerd", "cni/net.d", "cni/ipam", "kubelet/root", "kubelet/volume-plugins", "kubelet/pod-logs", "opt"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := n.isolate(c); err != nil {
		return n, err
	}
	pki := filepath.Join(c.dir, "pki")
	ca, err := newAuthority(pki)
	if err != nil {
		return n, err
	}
	n.ca = ca
	ip := net.ParseIP(NodeIP)
	if err := errors.Join(
		ca.issue("apiserver", "kube-apiserver", nil, []net.IP{ip, net.ParseIP("127.0.0.1"), net.ParseIP(apiServiceIP)},
			[]string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}, x509.ExtKeyUsageServerAuth),
		ca.issue("admin", "admin", []string{"system:masters"}, nil, nil, x509.ExtKeyUsageClientAuth),
		ca.issue("kubelet", "system:node:"+NodeName, []string{"system:nodes"}, []net.IP{ip}, []string{NodeName}, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth),
		serviceAccountKeys(pki),
	); err != nil {
		return n, err
	}
	server := "https://" + net.JoinHostPort(NodeIP, "6443")
	n.Kubeconfig = filepath.Join(c.dir, "admin.kubeconfig")
	kubeletKubeconfig := filepath.Join(c.dir, "kubelet.kubeconfig")
	if err := errors.Join(ca.kubeconfig(n.Kubeconfig, "admin", server), ca.kubeconfig(kubeletKubeconfig, "kubelet", server)); err != nil {
		return n, err
	}

	n.run("etcd", filepath.Join(c.envtest, "etcd"), "--name", "node", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
		"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
		"--initial-cluster", "node=http://127.0.0.1:2380", "--unsafe-no-fsync")
	n.run("kube-apiserver", filepath.Join(c.envtest, "kube-apiserver"), "--etcd-servers", "http://127.0.0.1:2379",
		"--bind-address", NodeIP, "--advertise-address", NodeIP, "--secure-port", "6443", "--cert-dir", filepath.Join(c.dir, "apiserver"),
		"--tls-cert-file", ca.path("apiserver.crt"), "--tls-private-key-file", ca.path("apiserver.key"), "--client-ca-file", ca.path("ca.crt"),
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", filepath.Join(pki, "sa.pub"), "--service-account-signing-key-file", filepath.Join(pki, "sa.key"),
		"--service-cluster-ip-range", serviceIPs, "--authorization-mode", "Node,RBAC", "--enable-admission-plugins", "NodeRestriction",
		"--kubelet-client-certificate", ca.path("admin.crt"), "--kubelet-client-key", ca.path("admin.key"),
		// The node's name resolves nowhere: the API server reaches the
		// kubelet (logs, exec) at the node's address.
		"--kubelet-preferred-address-types", "InternalIP", "--allow-privileged=true")
	if err := n.waitAPIServer(ctx, ca); err != nil {
		return n, err
	}
	n.Config, err = clientcmd.BuildConfigFromFlags("", n.Kubeconfig)
	if err != nil {
		return n, err
	}
	if n.Client, err = client.New(n.Config, client.Options{Scheme: testenv.Scheme()}); err != nil {
		return n, err
	}

	sock := filepath.Join(c.dir, "containerd", "containerd.sock")
	pause, err := imageRef(firstOr(c.images, ""))
	if err != nil {
		return n, err
	}
	if err := n.writeRuntimeConfig(sock, pause); err != nil {
		return n, err
	}
	n.run("containerd", "containerd", "--config", filepath.Join(c.dir, "containerd", "config.toml"))
	if err := n.waitFor(ctx, "containerd", 60*time.Second, func() error {
		return exec.CommandContext(ctx, "ctr", "--address", sock, "version").Run()
	}); err != nil {
		return n, err
	}
	for _, img := range c.images {
		if out, err := exec.CommandContext(ctx, "ctr", "--address", sock, "-n", "k8s.io", "images", "import", img).CombinedOutput(); err != nil {
			return n, fmt.Errorf("importing image %s: %w: %s", img, err, out)
		}
	}

	n.run("kube-controller-manager", filepath.Join(c.bin, "kube-controller-manager"), "--kubeconfig", n.Kubeconfig,
		"--authentication-kubeconfig", n.Kubeconfig, "--authorization-kubeconfig", n.Kubeconfig,
		"--bind-address", "127.0.0.1", "--secure-port", "10257", "--service-account-private-key-file", filepath.Join(pki, "sa.key"),
		"--root-ca-file", ca.path("ca.crt"), "--use-service-account-credentials=true", "--leader-elect=false", "--cluster-name", "toolgate-node",
		// Its default is under /usr/libexec, on the machine's file system.
		"--flex-volume-plugin-dir", filepath.Join(c.dir, "kubelet", "volume-plugins"))
	n.run("kube-scheduler", filepath.Join(c.bin, "kube-scheduler"), "--kubeconfig", n.Kubeconfig,
		"--authentication-kubeconfig", n.Kubeconfig, "--authorization-kubeconfig", n.Kubeconfig,
		"--bind-address", "127.0.0.1", "--secure-port", "10259", "--leader-elect=false")
	if err := n.writeFile("coredns/Corefile", corefile(n.Kubeconfig)); err != nil {
		return n, err
	}
	n.run("coredns", filepath.Join(c.bin, "coredns"), "-conf", filepath.Join(c.dir, "coredns", "Corefile"))
	if err := n.writeFile("kube-proxy/config.yaml", kubeProxyConfig(n.Kubeconfig)); err != nil {
		return n, err
	}
	n.run("kube-proxy", filepath.Join(c.bin, "kube-proxy"), "--config", filepath.Join(c.dir, "kube-proxy", "config.yaml"))
	if err := n.writeFile("kubelet/config.yaml", kubeletConfig(c, sock, ca)); err != nil {
		return n, err
	}
	if err := n.writeFile("kubelet/resolv.conf", "nameserver "+NodeIP+"\n"); err != nil {
		return n, err
	}
	n.run("kubelet", filepath.Join(c.bin, "kubelet"), "--config", filepath.Join(c.dir, "kubelet", "config.yaml"),
		"--kubeconfig", kubeletKubeconfig, "--hostname-override", NodeName, "--node-ip", NodeIP,
		"--root-dir", filepath.Join(c.dir, "kubelet", "root"), "--cert-dir", filepath.Join(c.dir, "kubelet", "pki"), "-v", "2")
	if err := n.waitFor(ctx, "node "+NodeName+" Ready", 2*time.Minute, func() error {
		var node corev1.Node
		if err := n.Client.Get(ctx, client.ObjectKey{Name: NodeName}, &node); err != nil {
			return err
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return errors.New("not Ready")
	}); err != nil {
		return n, err
	}
	// The controller-manager makes every namespace's default service
	// account: pods are refused until default's exists.
	if err := n.waitFor(ctx, "the default service account", time.Minute, func() error {
		return n.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "default"}, &corev1.ServiceAccount{})
	}); err != nil {
		return n, err
	}
	n.logf("node %s Ready %s after start", NodeName, time.Since(began).Round(100*time.Millisecond))
	return n, nil
}

// isolate gives the node file systems of its own where a kubelet,
// containerd and the CNI plugins write outside their configured
// directories, the machine's values of the kernel tunables the kubelet
// writes, a cgroup of its own in every hierarchy, and its bridge.
func (n *Node) isolate(c config) error {
	for _, d := range []string{"/run", "/var/lib", "/var/log"} {
		if err := syscall.Mount("tmpfs", d, "tmpfs", 0, "mode=0755"); err != nil {
			return fmt.Errorf("mounting a file system of the node's own on %s: %w", d, err)
		}
	}
	for _, t := range kernelTunables {
		path := filepath.Join("/proc/sys", t)
		v, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fake := filepath.Join(c.dir, "fakesys", strings.ReplaceAll(t, "/", "_"))
		if err := os.WriteFile(fake, v, 0o644); err != nil {
			return err
		}
		if err := syscall.Mount(fake, path, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("keeping the machine's %s from the kubelet: %w", t, err)
		}
	}
	hierarchies, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		return err
	}
	for _, h := range hierarchies {
		root := filepath.Join("/sys/fs/cgroup", h.Name())
		if err := os.Mkdir(filepath.Join(root, c.cgroup), 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("the node's cgroup: %w", err)
		}
		// A new cpuset cgroup has no CPUs or memory nodes: its children
		// could hold no process.
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if v, err := os.ReadFile(filepath.Join(root, f)); err == nil {
				if err := os.WriteFile(filepath.Join(root, c.cgroup, f), v, 0o644); err != nil {
					return fmt.Errorf("the node's cgroup %s: %w", f, err)
				}
			}
		}
	}
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", bridge, "type", "bridge"},
		{"addr", "add", NodeIP + "/16", "dev", bridge},
		{"link", "set", bridge, "up"},
		// A node's own connections to Services (the API server calling a
		// webhook) are routed before kube-proxy's rules rewrite them: with
		// no route to the service range there, connect fails with
		// "network is unreachable". A real node has a default route.
		{"route", "add", serviceIPs, "dev", bridge, "src", NodeIP},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	// Pod to Service to pod on one bridge is routed through the node.
	// The setting is the node's network namespace's, not the machine's.
	return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1\n"), 0o644)
}

func (n *Node) writeFile(rel, content string) error {
	p := filepath.Join(n.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func (n *Node) writeRuntimeConfig(sock, pause string) error {
	d := n.Dir
	cni := fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "toolgate-node",
  "plugins": [
    {
      "type": "bridge", "bridge": %q, "isGateway": false, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": %q,
        "ranges": [[{"subnet": %q, "rangeStart": "10.88.0.10", "rangeEnd": "10.88.0.250", "gateway": %q}]],
        "routes": [{"dst": "0.0.0.0/0", "gw": %q}]
      }
    },
    {"type": "loopback"}
  ]
}
`, bridge, filepath.Join(d, "cni", "ipam"), podSubnet, NodeIP, NodeIP)
	// restrict_oom_score_adj: a machine without CAP_SYS_RESOURCE cannot
	// lower a score, and every sandbox would fail asking for -998.
	toml := fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = %q
[ttrpc]
  address = %q
[plugins."io.containerd.internal.v1.opt"]
  path = %q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
`, filepath.Join(d, "containerd", "root"), filepath.Join(d, "containerd", "state"), sock, sock+".ttrpc",
		filepath.Join(d, "opt"), pause, filepath.Join(d, "cni", "net.d"))
	return errors.Join(n.writeFile("cni/net.d/10-toolgate-node.conflist", cni), n.writeFile("containerd/config.toml", toml))
}

func corefile(kubeconfig string) string {
	return fmt.Sprintf(`.:53 {
    bind %s
    errors
    ready 127.0.0.1:8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %s node
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
}
`, NodeIP, kubeconfig)
}

// kubeProxyConfig: conntrack zeros leave the machine's conntrack tunables
// alone; node ports only on the node's address need no route_localnet.
func kubeProxyConfig(kubeconfig string) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: %s}
mode: iptables
clusterCIDR: %s
hostnameOverride: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["%s/32"]
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`, kubeconfig, podSubnet, NodeName, NodeIP, NodeIP)
}

// kubeletConfig: cgroup v1 needs failCgroupV1 false; the pods' cgroups go
// under the node's own cgroup, which Run removes after the node.
func kubeletConfig(c config, sock string, ca *authority) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%s
containerRuntimeEndpoint: unix://%s
address: %s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %s
tlsPrivateKeyFile: %s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %s}
authorization: {mode: AlwaysAllow}
clusterDomain: cluster.local
clusterDNS: [%s]
resolvConf: %s
failSwapOn: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
serializeImagePulls: false
volumePluginDir: %s
podLogsDir: %s
`, c.cgroup, sock, NodeIP, ca.path("kubelet.crt"), ca.path("kubelet.key"), ca.path("ca.crt"), NodeIP,
		filepath.Join(c.dir, "kubelet", "resolv.conf"), filepath.Join(c.dir, "kubelet", "volume-plugins"), filepath.Join(c.dir, "kubelet", "pod-logs"))
}

// run starts a process of the node, its output in logs/NAME.log.
func (n *Node) run(name, bin string, args ...string) {
	logFile, err := os.Create(filepath.Join(n.Dir, "logs", name+".log"))
	p := &process{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	if err == nil {
		p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	}
	if err := p.cmd.Start(); err != nil {
		n.logf("starting %s: %v", name, err)
		close(p.done)
		return
	}
	n.procs = append(n.procs, p)
	go func() {
		_ = p.cmd.Wait()
		if logFile != nil {
			_ = logFile.Close()
		}
		close(p.done)
	}()
}

// exited names a process of the node that has ended, with the tail of its
// log, or is "" when all run.
func (n *Node) exited() string {
	for _, p := range n.procs {
		select {
		case <-p.done:
			return fmt.Sprintf("%s exited (%v):\n%s", p.name, p.cmd.ProcessState, tail(filepath.Join(n.Dir, "logs", p.name+".log"), 20))
		default:
		}
	}
	return ""
}

// waitFor polls check until it passes, a process of the node exits, or
// timeout passes.
func (n *Node) waitFor(ctx context.Context, what string, timeout time.Duration, check func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := check()
		if err == nil {
			return nil
		}
		if dead := n.exited(); dead != "" {
			return fmt.Errorf("waiting for %s: %s", what, dead)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %w)", what, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (n *Node) waitAPIServer(ctx context.Context, ca *authority) error {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	cert, err := tls.LoadX509KeyPair(ca.path("admin.crt"), ca.path("admin.key"))
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}}
	return n.waitFor(ctx, "kube-apiserver /readyz", 2*time.Minute, func() error {
		resp, err := hc.Get("https://" + net.JoinHostPort(NodeIP, "6443") + "/readyz")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			return fmt.Errorf("%s: %s", resp.Status, b)
		}
		return nil
	})
}

// stop ends the node's processes, the last started first (the API server
// before etcd), each given a few seconds to end by itself. Whatever is
// left ends with the namespaces.
func (n *Node) stop() {
	for i := len(n.procs) - 1; i >= 0; i-- {
		p := n.procs[i]
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// dumpLogs logs the tail of every process's log, for a failed test.
func (n *Node) dumpLogs(t *testing.T) {
	for _, p := range n.procs {
		t.Logf("--- the last lines of %s:\n%s", p.name, tail(filepath.Join(n.Dir, "logs", p.name+".log"), 40))
	}
}

func tail(file string, lines int) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// imageRef reads the name an image tarball (docker-archive) carries.
func imageRef(tarball string) (string, error) {
	if tarball == "" {
		return "", errors.New("no pod sandbox (pause) image: Options.Prepare must return it first")
	}
	f, err := os.Open(tarball)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err != nil {
			return "", fmt.Errorf("%s: no manifest.json: %w", tarball, err)
		}
		if h.Name != "manifest.json" {
			continue
		}
		var m []struct{ RepoTags []string }
		if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err != nil {
			return "", fmt.Errorf("%s: manifest.json: %w", tarball, err)
		}
		if len(m) == 0 || len(m[0].RepoTags) == 0 {
			return "", fmt.Errorf("%s: the image has no name", tarball)
		}
		return m[0].RepoTags[0], nil
	}
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// Kubectl runs kubectl as the administrator and returns its combined
// output.
func (n *Node) Kubectl(ctx context.Context, t testing.TB, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, testenv.Kubectl(t, "the node's tests drive it as a user does"), append([]string{"--kubeconfig", n.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Command is a command run with the administrator's kubeconfig in
// KUBECONFIG, as helm and kubectl plugins read it.
func (n *Node) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+n.Kubeconfig)
	return cmd
}

// UserKubeconfig writes a kubeconfig for a user of the given groups,
// authenticated by a client certificate the node's CA signs, and returns
// its path: the identity the API server sees is user's, as a reviewer's
// would be.
func (n *Node) UserKubeconfig(user string, groups ...string) (string, error) {
	if err := n.ca.issue("user-"+user, user, groups, nil, nil, x509.ExtKeyUsageClientAuth); err != nil {
		return "", err
	}
	file := filepath.Join(n.Dir, user+".kubeconfig")
	return file, n.ca.kubeconfig(file, "user-"+user, "https://"+net.JoinHostPort(NodeIP, "6443"))
}

// Hold keeps the node running until the test is interrupted, when
// HoldEnv is set, after saying how to reach it from another shell.
func (n *Node) Hold(t *testing.T) {
	if os.Getenv(HoldEnv) == "" {
		return
	}
	holder, _ := os.ReadFile(filepath.Join(n.Dir, "holder.pid"))
	fmt.Fprintf(os.Stderr, `
The node runs. From another shell on this machine:

  nsenter --target %s --net --mount -- env KUBECONFIG=%s kubectl get pods -A -o wide

Its logs are in %s. Interrupt (Ctrl-C) to stop it.
`, strings.TrimSpace(string(holder)), n.Kubeconfig, filepath.Join(n.Dir, "logs"))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-sig:
	case <-t.Context().Done():
	}
}
