// Package node holds the end-to-end tests on a real node (test/nodeenv):
// the chart installed with helm, its operator and the injected gates
// running as pods from images built from this repository, and an agent
// and an MCP server in pods of their own, driven as a user would with
// kubectl, helm and kubectl toolgate.
package node
