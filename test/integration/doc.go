// Package integration tests toolgate's API against a real kube-apiserver and
// etcd: the CRDs install, the schema and CEL rules reject bad objects with
// messages a user can act on, the status subresource behaves as approvers
// and controllers rely on, and kubectl shows what users expect.
package integration
