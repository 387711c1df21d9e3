package certexpiry

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"
)

// maxFileBytes bounds what a scrape reads: a serving chain is a few
// kilobytes.
const maxFileBytes = 1 << 20

// Name is the gauge's name: the operator's serving certificate, which the
// webhook server and the gate server both serve with.
const Name = "toolgate_operator_serving_certificate_expiry_timestamp_seconds"

// Collector exports the expiry of the first certificate in a PEM file.
type Collector struct {
	path string
	desc *prometheus.Desc
}

// New returns a Collector of the certificate at path. A file that is
// missing or does not hold a certificate (before the first issue) exports
// nothing rather than a sentinel: an alert on the time left then sees no
// series, not a certificate that expired in 1970.
func New(path string) *Collector {
	return &Collector{path: path, desc: prometheus.NewDesc(Name,
		"When the serving certificate of the webhooks and the gate server expires (its notAfter), in seconds since the epoch; absent until one is mounted.", nil, nil)}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	cert, err := read(c.path)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(cert.NotAfter.Unix()))
}

// read parses the first certificate of the PEM file at path: the serving
// certificate, which comes before its chain.
func read(path string) (*x509.Certificate, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes))
	if err != nil {
		return nil, err
	}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no certificate in " + path)
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", path, err)
		}
		return cert, nil
	}
}
