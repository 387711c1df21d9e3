// Package offline implements the commands that judge saved MCP traffic
// without a cluster: `score` vets saved tools/list results, `diff` explains
// how a server's catalogue changed, `scan-result` scans saved tool
// results, messages and sessions as the gate scans what servers say, and
// `check-call` judges saved tools/call requests under ToolPolicies as the
// gate judges a call's arguments. cmd/toolgate runs them alone, for CI
// pipelines and people at a terminal; package cli runs them as `kubectl
// toolgate score`, `diff`, `scan-result` and `check-call` beside the
// cluster commands.
//
// It owns argument parsing, reading input within limits, and the table,
// text and JSON renderings of the reports; the verdict itself comes from
// package vet, the change from package tooldef, which messages of a
// recording a server said from package transcript, and the findings in
// them from package resultscan, the gate's own detector. For check-call it
// also owns reading ToolPolicies from files and combining them as the
// operator combines the policies that select one pod (package policy,
// Evaluate, which needs the cluster's objects, keeps the same rules): the
// judgement of a call is the gate's own, argcheck, argjudge and decide.
// It links no Kubernetes client
// and never reads a kubeconfig: cmd/toolgate's tests and the
// linter's import rules hold it to that.
package offline
