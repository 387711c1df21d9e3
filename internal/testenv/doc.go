// Package testenv starts a real kube-apiserver and etcd for integration
// tests, with toolgate's CRDs installed, and hands out clients and
// kubeconfig files for it.
//
// It owns finding the control-plane binaries and the rule for when they are
// missing: a test is skipped with a message naming the make target that
// builds them, unless TOOLGATE_REQUIRE_ENVTEST is set (as CI does), in which
// case a missing binary fails the run. It also owns how a test package's
// manager logs (Logger): readable around a failing test's line, with no
// stack traces and no errors that a test run meets in its normal course.
// It does not own any test.
package testenv
