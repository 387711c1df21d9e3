package gateserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/internal/gateclient"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/testenv"
)

// The tests here run the server in-process against a real kube-apiserver,
// which mints and reviews the tokens, and the real gate client against the
// server. The server acts as a user holding only the generated ClusterRole,
// so they also prove the RBAC markers grant what it uses.

var (
	env *testenv.Env
	// operator is a client acting as the operator, with its ClusterRole.
	operator client.Client
	// kube is an administrator's clientset, for TokenRequests.
	kube *kubernetes.Clientset
	// operatorEvents is a clientset acting as the operator, for the
	// Events its recorder writes.
	operatorEvents *kubernetes.Clientset
	// certDir holds the serving certificate, caFile its CA.
	certDir, caFile string
)

func TestMain(m *testing.M) {
	// Before the control plane starts, so that envtest's own lines go
	// through it too rather than through controller-runtime's warning
	// that no logger was set.
	logf.SetLogger(testenv.Logger())
	os.Exit(testenv.Main(m, func(e *testenv.Env) (func(), error) {
		env = e
		cfg, err := e.UserBoundToClusterRole(testenv.OperatorUser,
			filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
		if err != nil {
			return nil, err
		}
		if operator, err = client.New(cfg, client.Options{Scheme: e.Scheme}); err != nil {
			return nil, err
		}
		if kube, err = kubernetes.NewForConfig(e.Config); err != nil {
			return nil, err
		}
		if operatorEvents, err = kubernetes.NewForConfig(cfg); err != nil {
			return nil, err
		}
		certDir = filepath.Join(e.Dir, "certs")
		caFile = filepath.Join(certDir, "ca.crt")
		return nil, writeServingCert(certDir)
	}))
}

// writeServingCert writes a CA and a serving certificate for 127.0.0.1
// into dir, named as the webhook server names them.
func writeServingCert(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolgate test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "toolgate-gates"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	for name, block := range map[string]*pem.Block{
		"ca.crt":  {Type: "CERTIFICATE", Bytes: caDER},
		"tls.crt": {Type: "CERTIFICATE", Bytes: leafDER},
		"tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// testBuilder is a Builder whose output the test controls: a valid
// configuration naming the pod it was built for, with Policies set to the
// namespace's marker.
type testBuilder struct {
	mu      sync.Mutex
	marker  map[string]string
	invalid bool
	fail    error
	seen    []string // namespace/name/uid of each pod built for
}

func newBuilder() *testBuilder { return &testBuilder{marker: map[string]string{}} }

func (b *testBuilder) Build(_ context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, pod.Namespace+"/"+pod.Name+"/"+string(pod.UID))
	if b.fail != nil {
		return nil, b.fail
	}
	marker := b.marker[pod.Namespace]
	if marker == "" {
		marker = "initial"
	}
	c := &gateproto.Config{
		Version: gateproto.Version, Namespace: pod.Namespace, Pod: pod.Name,
		Mode: gateproto.ModeEnforce, Policies: []string{marker},
	}
	if b.invalid {
		c.Mode = "Permissive"
	}
	c.Revision = c.ComputeRevision()
	return c, nil
}

func (b *testBuilder) set(f func(b *testBuilder)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b)
}

func (b *testBuilder) builds() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.seen...)
}

// running is a server started for one test.
type running struct {
	*Server
	url  string
	stop func()
}

// startServer runs a server on addr ("127.0.0.1:0" for any port) until
// stop or the test's end.
func startServer(t *testing.T, b Builder, addr string, tweak func(*Options)) *running {
	t.Helper()
	o := Options{
		BindAddress: addr, CertDir: certDir, Builder: b, Client: operator, PodReader: operator,
		// Most tests run a gate by hand for a plain pod; TestOnlyInjectedPods
		// turns this off, as the manager runs.
		ServeUninjectedPods: true,
		// The tests open calls back to back; TestCallsOpenedTooFast
		// keeps the defaults.
		CallsPerSecond: 1000, CallBurst: 1000,
		HeartbeatInterval: 200 * time.Millisecond, Debounce: 50 * time.Millisecond,
		Registerer: prometheus.NewRegistry(),
		// The tests' quiet logger, into the test's own log: a conflict the
		// server retries is no error, and no line carries a stack trace.
		Logger: testenv.LoggerTo(testLogWriter{t}).WithName("gateserver"),
	}
	if tweak != nil {
		tweak(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.Start(ctx); err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	eventually(t, "the server listens", func() bool { return s.Addr() != nil })
	return &running{Server: s, url: "https://" + s.Addr().String(), stop: stop}
}

// testLogWriter sends logs to the test's log, and nowhere once it ended.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// agent is a namespace with a service account and a pod of it, as the
// injector would leave an agent: the pod just exists, no kubelet runs it.
type agent struct {
	ns, sa string
	pod    *corev1.Pod
}

func newAgent(ctx context.Context, t *testing.T) *agent {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gates-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	a := &agent{ns: ns.Name, sa: "agent"}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: a.sa}}
	if err := env.Client.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	a.pod = a.createPod(ctx, t, "agent-0")
	return a
}

func (a *agent) createPod(ctx context.Context, t *testing.T, name string, finalizers ...string) *corev1.Pod {
	t.Helper()
	automount := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: name, Finalizers: finalizers},
		Spec: corev1.PodSpec{
			ServiceAccountName: a.sa, AutomountServiceAccountToken: &automount,
			Containers: []corev1.Container{{Name: "agent", Image: "agent:latest"}},
		},
	}
	if err := env.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// token mints a token of the given audience, bound to pod when it is not
// nil.
func (a *agent) token(ctx context.Context, t *testing.T, pod *corev1.Pod, audience string) string {
	t.Helper()
	expiry := int64(600)
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{audience}, ExpirationSeconds: &expiry,
	}}
	if pod != nil {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID,
		}
	}
	tr, err := kube.CoreV1().ServiceAccounts(a.ns).CreateToken(ctx, a.sa, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("minting a token: %v", err)
	}
	return tr.Status.Token
}

// writeToken writes a token file for a gate client.
func writeToken(t *testing.T, token string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(f, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// gate is a real gate client running against a server.
type gate struct {
	*gateclient.Client
	mu      sync.Mutex
	applied []*gateproto.Config
	logs    []string
	stop    func()
}

// Write records the gate's log lines, and passes them to the test's log.
func (g *gate) Write(b []byte) (int, error) {
	g.mu.Lock()
	g.logs = append(g.logs, string(b))
	g.mu.Unlock()
	return len(b), nil
}

// logged reports whether the gate logged a line containing s.
func (g *gate) logged(s string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range g.logs {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func (g *gate) configs() []*gateproto.Config {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*gateproto.Config(nil), g.applied...)
}

func (g *gate) last() *gateproto.Config {
	c := g.configs()
	if len(c) == 0 {
		return nil
	}
	return c[len(c)-1]
}

func startGate(t *testing.T, url, tokenFile string) *gate {
	t.Helper()
	g := &gate{}
	c, err := gateclient.New(gateclient.Options{
		URL: url, TokenFile: tokenFile, CAFile: caFile,
		Logger: slog.New(slog.NewTextHandler(io.MultiWriter(g, testLogWriter{t}), nil)),
		// Ten times the tests' heartbeat interval, and more than a token
		// review takes on a loaded machine: a gate that reconnects for a
		// late heartbeat would break the tests that count its connections.
		HeartbeatTimeout: 10 * time.Second, ConnectTimeout: 10 * time.Second,
		InitialBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	g.Client = c
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx, func(cfg *gateproto.Config) error {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.applied = append(g.applied, cfg)
			return nil
		})
	}()
	var once sync.Once
	g.stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(g.stop)
	return g
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// eventuallyTimeout bounds every wait here: long enough for a token
// review, a pod read and a status write on a loaded two-core machine. A
// wait returns as soon as its condition holds.
const eventuallyTimeout = 60 * time.Second

// conflictBackoff paces a test's retries of a write that conflicted with
// the server's: a dozen attempts over about five seconds.
var conflictBackoff = wait.Backoff{Steps: 12, Duration: 10 * time.Millisecond, Factor: 1.6, Jitter: 0.1}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventuallyTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// deletePod deletes a pod and waits until it is gone, or only marked
// for deletion when finalizers hold it.
func deletePod(ctx context.Context, t *testing.T, pod *corev1.Pod) {
	t.Helper()
	if err := env.Client.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	eventually(t, fmt.Sprintf("pod %s is deleted", pod.Name), func() bool {
		var p corev1.Pod
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(pod), &p)
		return apierrors.IsNotFound(err) || (err == nil && p.DeletionTimestamp != nil)
	})
}
