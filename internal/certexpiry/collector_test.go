package certexpiry

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCollector: the gauge is the certificate's NotAfter, follows the file
// when it is replaced (a renewal), and is absent while the file is missing
// or holds no certificate.
func TestCollector(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tls.crt")
	c := New(path)
	r := prometheus.NewPedanticRegistry()
	r.MustRegister(c)

	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("a missing file exports %d series, want none", n)
	}
	write(t, path, []byte("not a certificate"))
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("a file without a certificate exports %d series, want none", n)
	}

	first := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	// A key before the certificate, as some tools write a combined file.
	write(t, path, append(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1}}), certPEM(t, first)...))
	if got := testutil.ToFloat64(c); got != float64(first.Unix()) {
		t.Errorf("expiry %v, want %v", got, first.Unix())
	}
	renewed := first.Add(90 * 24 * time.Hour)
	write(t, path, certPEM(t, renewed))
	if got := testutil.ToFloat64(c); got != float64(renewed.Unix()) {
		t.Errorf("after a renewal: expiry %v, want %v", got, renewed.Unix())
	}
	if _, err := r.Gather(); err != nil {
		t.Errorf("the pedantic registry refuses the collector: %v", err)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// certPEM is a self-signed certificate expiring at notAfter.
func certPEM(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
