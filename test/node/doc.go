// Package node holds the end-to-end tests on a real node (test/nodeenv):
// the chart installed with helm, its operator and the injected gates
// running as pods from images built from this repository, and an agent
// and two MCP servers in pods of their own, driven as a user would with
// kubectl, helm and kubectl toolgate. One server is written with the Go
// SDK; the other is the npm @modelcontextprotocol/server-everything, in
// an image that holds this machine's Node.js runtime, the libraries its
// ELF headers name, and the npm install (TOOLGATE_REQUIRE_NPM turns a
// machine without Node.js or npm into a failure instead of a skip).
package node
