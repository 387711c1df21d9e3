// Package gateclient is the gate's side of the configuration stream: it
// connects to the operator with the pod's projected service-account token,
// reads the frames the operator pushes, validates each configuration and
// hands the good ones to the gate. Over the same connection it opens
// pending calls and held results (Approve) and reports findings of the
// gate's scan (ReportFindings).
//
// It keeps the last good configuration through disconnects and retries with
// backoff; it never invents one. It holds no Kubernetes API rights and
// imports no Kubernetes packages.
package gateclient
