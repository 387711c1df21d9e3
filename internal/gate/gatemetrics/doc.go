// Package gatemetrics holds the gate's Prometheus metrics on a registry of
// its own: the gate is not the operator and does not share
// controller-runtime's registry (it must not import controller-runtime at
// all), and a registry of its own keeps what it exports to what it owns,
// plus the Go and process collectors.
//
// The package names and registers the metrics; it does not decide when
// they move.
package gatemetrics
