package rpcmsg

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// ErrAmbiguous is what CheckRequest, FilterList and CheckInitialize return
// (wrapped, with a *namefold.Error saying where) for a message whose member
// names a case-insensitive decoder reads another way than the gate does.
var ErrAmbiguous = namefold.ErrAmbiguous

// The members MCP and JSON-RPC define at the levels the gate judges. A
// member whose name folds to one of them without being it is refused
// (namefold), so that every peer reads the member the gate read.
var (
	requestParams = namefold.Names("name", "arguments", "_meta", "cursor", "uri", "task",
		"protocolVersion", "capabilities", "clientInfo")
	requestShape = namefold.NewLevel(map[string]*namefold.Level{
		"jsonrpc": nil, "id": nil, "method": nil, "params": requestParams, "result": nil, "error": nil,
	})
	toolShape = namefold.NewLevel(map[string]*namefold.Level{
		"name": nil, "title": nil, "description": nil, "inputSchema": nil, "outputSchema": nil,
		"annotations": namefold.Names("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"),
		"_meta":       nil, "icons": nil, "execution": nil,
	})
	listShape = namefold.NewLevel(map[string]*namefold.Level{
		"jsonrpc": nil, "id": nil, "method": nil, "params": nil, "error": nil,
		"result": namefold.NewLevel(map[string]*namefold.Level{
			"tools": toolShape, "nextCursor": nil, "_meta": nil, "cacheScope": nil, "ttlMs": nil,
		}),
	})
	initializeShape = namefold.NewLevel(map[string]*namefold.Level{
		"jsonrpc": nil, "id": nil, "method": nil, "params": nil, "error": nil,
		"result": namefold.NewLevel(map[string]*namefold.Level{
			"protocolVersion": nil, "instructions": nil, "_meta": nil,
			"capabilities": namefold.Names("tools", "resources", "prompts", "logging", "completions", "experimental", "tasks"),
			"serverInfo":   namefold.Names("name", "title", "version", "websiteUrl", "icons", "description"),
		}),
	})
)

// CheckRequest refuses a message from the agent that a peer could read
// otherwise than the gate: two members of one object whose names fold
// equal, anywhere in it (arguments included), or a member of the message
// or of its params whose name is a defined one but for case.
func CheckRequest(msg []byte) error { return checkShape(msg, requestShape) }

// CheckInitialize is CheckRequest for a server's answer to initialize: the
// result's instructions, capabilities and serverInfo included.
func CheckInitialize(msg []byte) error { return checkShape(msg, initializeShape) }

func checkShape(msg []byte, l *namefold.Level) error {
	err := namefold.Check(msg, l)
	if err == nil {
		return nil
	}
	if errors.Is(err, namefold.ErrAmbiguous) {
		return err
	}
	return fmt.Errorf("message is not JSON: %w", err)
}

// CallRequest is the tools/call the gate forwards: written anew from what
// it judged — id, the tool's name, the arguments and _meta exactly as the
// agent wrote them (raw JSON, nil when absent) — and nothing else, so that
// no member the gate did not read reaches the server.
func CallRequest(id []byte, name string, arguments, meta []byte) []byte {
	b := make([]byte, 0, 64+len(id)+len(name)+len(arguments)+len(meta))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = appendString(b, name)
	if arguments != nil {
		b = append(b, `,"arguments":`...)
		b = append(b, arguments...)
	}
	if meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, `}}`...)
}

// InputSchema is the raw JSON of a tool definition's inputSchema member (a
// copy), nil when the definition has none or is not an object.
func InputSchema(tool []byte) []byte {
	dec := getDecoder(tool)
	defer putDecoder(dec)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		if name.String() != "inputSchema" {
			if dec.SkipValue() != nil {
				return nil
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		return bytes.Clone(v)
	}
	return nil
}
