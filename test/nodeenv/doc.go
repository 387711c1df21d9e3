// Package nodeenv runs a real single-node Kubernetes cluster for tests:
// etcd and kube-apiserver (the envtest binaries), kube-controller-manager,
// kube-scheduler, kubelet, kube-proxy and CoreDNS (built by
// hack/node-binaries.sh), and the distribution's containerd, runc and CNI
// plugins (installed by hack/node-packages.sh).
//
// The whole node lives in network, mount and PID namespaces of its own:
// Run starts the test binary again inside them, and the test body runs
// there, next to the node. Every address, route, iptables rule, mount and
// per-network sysctl the node makes dies with those namespaces, and every
// process it starts dies with the namespaces' first process. The few
// kernel tunables the kubelet writes that no namespace isolates are
// bind-mounted over with plain files inside the mount namespace, so the
// machine keeps its values. What namespaces cannot hold — cgroups, which
// the kubelet and runc create in the machine's hierarchies — is removed
// by Run once the namespaces are gone, and Run then compares the machine
// with what it was before the node started and fails the test on any
// difference: interfaces, addresses, routes, iptables rules, mounts,
// processes, sysctls, cgroups and the directories a node writes.
//
// A machine that cannot run the node (not root, no unshare(1), the node's
// binaries or packages missing) skips the test with the reason, or fails
// it when RequireNode is set, as CI does.
package nodeenv
