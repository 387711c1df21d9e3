// Package certexpiry exports when a serving certificate on disk expires, as
// a Prometheus gauge read from the file at every scrape: the file is the
// one the server serves with, whoever renews it (the operator's own
// rotation or cert-manager), so the gauge follows a renewal without being
// told of it.
//
// It reads and parses the certificate; it does not renew it, and it does
// not judge how near expiry is too near: that is the alert's threshold.
package certexpiry
