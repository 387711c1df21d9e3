package mcpshape

import "github.com/toolgate/toolgate/pkg/namefold"

// The levels below are built once and never changed: namefold only reads
// them, so they are safe to share between goroutines.

// response is the members JSON-RPC 2.0 defines on a message, with the
// level of a result given by the caller (a response's params is never
// read).
func response(result *namefold.Level) *namefold.Level {
	return namefold.NewLevel(map[string]*namefold.Level{
		"jsonrpc": nil,
		"id":      nil,
		"result":  result,
		"error":   rpcError,
		"method":  nil,
		"params":  nil,
	})
}

// rpcError is a JSON-RPC error object.
var rpcError = namefold.Names("code", "message", "data")

// Annotations is a tool's annotations: the four hints and the title.
var Annotations = namefold.Names("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

// Tool is one tool of a tools/list result.
var Tool = namefold.NewLevel(map[string]*namefold.Level{
	"name":         nil,
	"title":        nil,
	"description":  nil,
	"inputSchema":  nil,
	"outputSchema": nil,
	"annotations":  Annotations,
	"_meta":        nil,
	"icons":        nil,
	"execution":    nil,
})

// ListResult is the result of tools/list; its tools are Tool.
var ListResult = namefold.NewLevel(map[string]*namefold.Level{
	"tools":      Tool,
	"nextCursor": nil,
	"_meta":      nil,
	"cacheScope": nil,
	"ttlMs":      nil,
})

// ServerInfo is the server's Implementation in an initialize result
// (description is the 2025-11-25 revision's, which the Go SDK reads).
var ServerInfo = namefold.Names("name", "title", "version", "websiteUrl", "icons", "description")

// Capabilities is the server's capabilities in an initialize result
// (extensions: as the Go SDK reads them).
var Capabilities = namefold.Names("tools", "resources", "prompts", "logging", "completions", "experimental", "extensions")

// InitializeResult is the result of initialize.
var InitializeResult = namefold.NewLevel(map[string]*namefold.Level{
	"protocolVersion": nil,
	"capabilities":    Capabilities,
	"serverInfo":      ServerInfo,
	"instructions":    nil,
	"_meta":           nil,
})

// DiscoverResult is the result of server/discover (SEP-2575), which the Go
// SDK asks before initialize and, when the server answers it, reads in
// place of initialize's result: the instructions among them.
var DiscoverResult = namefold.NewLevel(map[string]*namefold.Level{
	"resultType":        nil,
	"_meta":             nil,
	"supportedVersions": nil,
	"capabilities":      Capabilities,
	"instructions":      nil,
	"cacheScope":        nil,
	"ttlMs":             nil,
})

// Message is any JSON-RPC message: its own members only (a notification's
// or a request's params, a response's result, are walked for colliding
// names alone).
var Message = response(nil)

// ListResponse is a message answering tools/list.
var ListResponse = response(ListResult)

// InitializeResponse is a message answering initialize.
var InitializeResponse = response(InitializeResult)

// DiscoverResponse is a message answering server/discover.
var DiscoverResponse = response(DiscoverResult)

// RequestParams are the params of the requests an agent sends through the
// gate: tools/call's name, arguments and _meta, a list's cursor, a
// resource's uri, a task, and the inputResponses and requestState of a
// call retried with answers (the Go SDK reads both).
var RequestParams = namefold.Names("name", "arguments", "_meta", "cursor", "uri", "task", "inputResponses", "requestState")

// Request is a request or notification an agent sends.
var Request = namefold.NewLevel(map[string]*namefold.Level{
	"jsonrpc": nil,
	"id":      nil,
	"method":  nil,
	"params":  RequestParams,
})

// ResponseTo is the level of a message answering a request of method:
// ListResponse for tools/list, InitializeResponse for initialize,
// DiscoverResponse for server/discover, Message for any other.
func ResponseTo(method string) *namefold.Level {
	switch method {
	case "tools/list":
		return ListResponse
	case "initialize":
		return InitializeResponse
	case "server/discover":
		return DiscoverResponse
	}
	return Message
}
