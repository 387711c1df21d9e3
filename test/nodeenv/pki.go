package nodeenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// authority is the node's certificate authority: it signs the API
// server's serving certificate, the kubelet's, and the clients'.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
}

// newAuthority makes a CA and writes it as ca.crt in dir.
func newAuthority(dir string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolgate-node-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	a := &authority{cert: cert, key: key, dir: dir}
	return a, writePEM(a.path("ca.crt"), "CERTIFICATE", der)
}

func (a *authority) path(name string) string { return filepath.Join(a.dir, name) }

// issue signs a certificate for cn in the organisations orgs, valid for
// the given IPs and DNS names, and writes name.crt and name.key.
func (a *authority) issue(name, cn string, orgs []string, ips []net.IP, dns []string, usages ...x509.ExtKeyUsage) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: usages,
		IPAddresses: ips, DNSNames: dns,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return fmt.Errorf("signing %s: %w", name, err)
	}
	if err := writePEM(a.path(name+".crt"), "CERTIFICATE", der); err != nil {
		return err
	}
	return writeKey(a.path(name+".key"), key)
}

// kubeconfig writes a kubeconfig for the client certificate name, to the
// API server at server.
func (a *authority) kubeconfig(file, name, server string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: a.path("ca.crt")}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificate: a.path(name + ".crt"), ClientKey: a.path(name + ".key")}
	cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: name}
	cfg.CurrentContext = "node"
	return clientcmd.WriteToFile(*cfg, file)
}

// serviceAccountKeys writes the key pair the API server signs and checks
// service account tokens with.
func serviceAccountKeys(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub); err != nil {
		return err
	}
	return writeKey(filepath.Join(dir, "sa.key"), key)
}

func writeKey(file string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(file, "EC PRIVATE KEY", der)
}

func writePEM(file, kind string, der []byte) error {
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}
