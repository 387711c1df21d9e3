// Package vet judges the catalogues of every MCP server offered to one
// agent, together: it fingerprints, scans and scores each tool, scores each
// server's posture, and reports tools that two servers offer under one name.
//
// It is the one place where the parts meet — package tooldef (definitions
// and fingerprints), package scan (poisoning) and package risk (judgement) —
// so that the toolgate CLI and the operator reach the same verdict on the
// same input. It owns the report's shape (Report), whose JSON field names are
// stable and documented in docs/cli.md. It does not fetch anything: callers
// hand it catalogues they read from files or probed from servers.
package vet
