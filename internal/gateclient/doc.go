// Package gateclient is the gate's side of the configuration stream: it
// connects to the operator with the pod's projected service-account token,
// reads the frames the operator pushes, validates each configuration and
// hands the good ones to the gate. The stream has an HTTP/1.1 connection
// of its own, which costs the operator less to hold than an HTTP/2 one;
// over one HTTP/2 connection it opens pending calls and held results
// (Approve) and reports findings of the gate's scan (ReportFindings).
//
// It keeps the last good configuration through disconnects and retries with
// backoff; it never invents one. It holds no Kubernetes API rights and
// imports no Kubernetes packages.
package gateclient
