package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/internal/testenv"
)

// TestChartCertificateRotation installs the chart with its default values,
// where the operator issues and rotates its own serving certificate, and
// runs the manager with the arguments of the chart's own Deployment and
// the chart's ServiceAccount: the certificate lands in the chart's Secret
// for the chart's Service name, its CA in every webhook configuration the
// chart made, and the operator becomes ready once the Secret is mounted
// (the test mounts it, as a kubelet would). What is tested is the default
// install path: the chart's arguments, RBAC and object names together.
func TestChartCertificateRotation(t *testing.T) {
	helmBin := helmCLI(t)
	env := startControlPlaneWith(t, testenv.Options{NoCRDs: true})
	ctx := t.Context()
	dir := t.TempDir()
	admin := env.Client
	adminConfig, err := env.AdminKubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(hctx, helmBin, "--kubeconfig", adminConfig, "install", "toolgate",
		filepath.Join(testenv.RepoRoot(), "charts", "toolgate"), "--namespace", chartNamespace, "--create-namespace").CombinedOutput(); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}

	// The manager's arguments are the chart's Deployment's, ports and the
	// mount point aside.
	var deployments appsv1.DeploymentList
	if err := admin.List(ctx, &deployments, client.InNamespace(chartNamespace)); err != nil || len(deployments.Items) != 1 {
		t.Fatalf("the chart's Deployment: %v (%d found)", err, len(deployments.Items))
	}
	var args []string
	var certDir string
	for _, c := range deployments.Items[0].Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			args = c.Args
		}
	}
	if len(args) == 0 {
		t.Fatal("the chart's Deployment has no manager container")
	}
	mounted := filepath.Join(dir, "certs")
	if err := os.MkdirAll(mounted, 0o700); err != nil {
		t.Fatal(err)
	}
	health := testenv.MustReserveAddr(t)
	rewrite := map[string]string{
		"--webhook-port":              fmt.Sprint(testenv.MustReservePort(t)),
		"--gate-port":                 fmt.Sprint(testenv.MustReservePort(t)),
		"--health-probe-bind-address": health,
		"--metrics-bind-address":      "0",
		"--metrics-secure":            "false",
	}
	var cmdArgs []string
	for _, a := range args {
		name, value, _ := strings.Cut(a, "=")
		switch {
		case name == "--webhook-cert-dir":
			certDir = value
			value = mounted
		case rewrite[name] != "":
			value = rewrite[name]
		}
		cmdArgs = append(cmdArgs, name+"="+value)
	}
	if certDir == "" {
		t.Fatal("the chart passes no --webhook-cert-dir")
	}
	for i, a := range cmdArgs {
		// --operator-ca-file points into the mount too.
		cmdArgs[i] = strings.Replace(a, certDir, mounted, 1)
	}

	managerBin := filepath.Join(dir, "manager")
	if out, err := exec.Command("go", "build", "-o", managerBin, "github.com/toolgate/toolgate/cmd/manager").CombinedOutput(); err != nil {
		t.Fatalf("building the manager: %v\n%s", err, out)
	}
	operatorConfig := serviceAccountKubeconfig(t, env, chartNamespace, chartSA, filepath.Join(dir, "operator.kubeconfig"))
	log, err := os.Create(filepath.Join(dir, "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	operator := exec.Command(managerBin, append([]string{"--kubeconfig", operatorConfig}, cmdArgs...)...)
	operator.Env = append(os.Environ(), "POD_NAMESPACE="+chartNamespace, "SERVICE_ACCOUNT_NAME="+chartSA)
	operator.Stdout, operator.Stderr = log, log
	if err := operator.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = operator.Process.Kill(); _ = operator.Wait() })
	logText := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }

	// What the kubelet does for the Deployment: the Secret's keys appear
	// as files in the mount.
	var secret corev1.Secret
	secretKey := types.NamespacedName{Namespace: chartNamespace, Name: "toolgate-webhook-cert"}
	eventually(t, 90*time.Second, "the operator issues its certificate into the chart's Secret", func() error {
		if err := admin.Get(ctx, secretKey, &secret); err != nil {
			return err
		}
		for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
			if len(secret.Data[k]) == 0 {
				return fmt.Errorf("the Secret has no %s yet; operator log:\n%s", k, logText())
			}
		}
		return nil
	})
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
		if err := os.WriteFile(filepath.Join(mounted, k), secret.Data[k], 0o600); err != nil {
			t.Fatal(err)
		}
	}

	block, _ := pem.Decode(secret.Data["tls.crt"])
	if block == nil {
		t.Fatal("tls.crt holds no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	wantName := "toolgate-operator." + chartNamespace + ".svc"
	found := false
	for _, n := range cert.DNSNames {
		found = found || n == wantName
	}
	if !found {
		t.Fatalf("the serving certificate names %v, not the chart's Service %s", cert.DNSNames, wantName)
	}

	eventually(t, time.Minute, "the CA is in every webhook configuration the chart made", func() error {
		var vs admissionregistrationv1.ValidatingWebhookConfigurationList
		var ms admissionregistrationv1.MutatingWebhookConfigurationList
		if err := admin.List(ctx, &vs, client.MatchingLabels{"app.kubernetes.io/instance": "toolgate"}); err != nil {
			return err
		}
		if err := admin.List(ctx, &ms, client.MatchingLabels{"app.kubernetes.io/instance": "toolgate"}); err != nil {
			return err
		}
		if len(vs.Items) == 0 || len(ms.Items) < 2 {
			return fmt.Errorf("%d validating and %d mutating configurations", len(vs.Items), len(ms.Items))
		}
		check := func(kind, name string, bundle []byte) error {
			if !bytes.Equal(bytes.TrimSpace(bundle), bytes.TrimSpace(secret.Data["ca.crt"])) {
				return fmt.Errorf("%s %s does not carry the Secret's CA", kind, name)
			}
			return nil
		}
		for _, c := range vs.Items {
			for _, w := range c.Webhooks {
				if err := check("validating", c.Name+"/"+w.Name, w.ClientConfig.CABundle); err != nil {
					return err
				}
			}
		}
		for _, c := range ms.Items {
			for _, w := range c.Webhooks {
				if err := check("mutating", c.Name+"/"+w.Name, w.ClientConfig.CABundle); err != nil {
					return err
				}
			}
		}
		return nil
	})

	eventually(t, time.Minute, "the operator is ready once its certificate is mounted", func() error {
		resp, err := http.Get("http://" + health + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz %d; operator log:\n%s", resp.StatusCode, logText())
		}
		return nil
	})

	// The gate server serves that certificate: a gate trusting the CA the
	// injector hands it connects under the Service's name.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(secret.Data["ca.crt"])
	eventually(t, 30*time.Second, "the gate server presents the rotated certificate", func() error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", "127.0.0.1:"+rewrite["--gate-port"],
			&tls.Config{RootCAs: pool, ServerName: wantName, MinVersion: tls.VersionTLS12})
		if err != nil {
			return err
		}
		return conn.Close()
	})
}
