// Package verdict turns the risk engine's verdicts (pkg/vet) into the API's
// records — a ToolPin's risk, an MCPServer's risk — and lays a human
// override over a computed record.
//
// It owns the translation and nothing else: every value keeps the engine's
// meaning, every list and string is bounded by the API's limits
// (api/v1alpha1/limits.go), and a test walks what the engine emits over the
// development corpus against the CRD schemas, so a new value in the engine
// cannot make pin writes fail at admission. It does not judge: the judgement
// is the engine's, so the operator and `toolgate score` reach one verdict.
package verdict
