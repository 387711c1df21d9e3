// Package offline implements the commands that judge saved MCP tool
// catalogues without a cluster: `score` vets saved tools/list results and
// `diff` explains how a server's catalogue changed. cmd/toolgate-offline
// runs them alone, for CI pipelines; package cli runs them as
// `toolgate score` and `toolgate diff` beside the cluster commands.
//
// It owns argument parsing, reading input within limits, and the table and
// JSON renderings of both reports; the verdict itself comes from package
// vet and the change from package tooldef. It links no Kubernetes client
// and never reads a kubeconfig: cmd/toolgate-offline's tests and the
// linter's import rules hold it to that.
package offline
