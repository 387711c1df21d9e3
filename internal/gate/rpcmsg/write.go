package rpcmsg

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// appendString appends s as a JSON string. jsontext replaces invalid UTF-8
// and reports it; the replaced form is kept, since an error message must
// always be writable.
func appendString(b []byte, s string) []byte {
	out, _ := jsontext.AppendQuote(b, s)
	return out
}

// JSON-RPC error codes the gate answers with.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeGate is the code of errors that come from the gate rather than the
	// server: no configuration, an unreachable server, a bound hit.
	CodeGate = -32001
)

// ErrorResponse is a JSON-RPC error response to the request whose raw id is
// id (null when the request could not be read).
func ErrorResponse(id []byte, code int, message string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	b := make([]byte, 0, 64+len(id)+len(message))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	b = append(b, `}}`...)
	return b
}

// ToolsChanged is the notifications/tools/list_changed message. With a
// subscription id (the raw id of a subscriptions/listen request, MCP
// 2026-07-28), it carries it in _meta as the protocol asks, so the client can
// tell which of its streams the notification belongs to.
func ToolsChanged(subscriptionID []byte) []byte {
	if len(subscriptionID) == 0 {
		return []byte(`{"jsonrpc":"2.0","method":"` + NotificationToolsChanged + `"}`)
	}
	b := []byte(`{"jsonrpc":"2.0","method":"` + NotificationToolsChanged + `","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":`)
	b = append(b, subscriptionID...)
	return append(b, `}}}`...)
}

// ListRequest is a tools/list request with the given raw id, cursor and raw
// _meta (either may be empty).
func ListRequest(id []byte, cursor string, meta []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"method":"tools/list"`...)
	if cursor == "" && len(meta) == 0 {
		return append(b, '}')
	}
	b = append(b, `,"params":{`...)
	if cursor != "" {
		b = append(b, `"cursor":`...)
		b = appendString(b, cursor)
		if len(meta) > 0 {
			b = append(b, ',')
		}
	}
	if len(meta) > 0 {
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, `}}`...)
}

// The _meta members of MCP 2026-07-28 that describe the client rather than
// one request.
var clientMetaKeys = []string{
	"io.modelcontextprotocol/protocolVersion",
	"io.modelcontextprotocol/clientInfo",
	"io.modelcontextprotocol/clientCapabilities",
}

// ClientMeta is the _meta the gate sends on a request of its own in the
// agent's name (MCP 2026-07-28 asks every request to carry the client's
// protocol version, info and capabilities): the client members of the
// agent's own _meta, and nothing request-specific such as a progress
// token. Members the agent did not send are filled with the protocol
// version given and empty capabilities.
func ClientMeta(agentMeta []byte, protocol string) []byte {
	found := map[string][]byte{}
	if len(agentMeta) > 0 {
		dec := getDecoder(agentMeta)
		defer putDecoder(dec)
		if tok, err := dec.ReadToken(); err == nil && tok.Kind() == '{' {
			for dec.PeekKind() != '}' {
				name, err := dec.ReadToken()
				if err != nil {
					break
				}
				key := name.String()
				v, err := dec.ReadValue()
				if err != nil {
					break
				}
				for _, k := range clientMetaKeys {
					if k == key {
						found[k] = append([]byte(nil), v...)
					}
				}
			}
		}
	}
	if found[clientMetaKeys[0]] == nil {
		found[clientMetaKeys[0]] = appendString(nil, protocol)
	}
	if found[clientMetaKeys[2]] == nil {
		found[clientMetaKeys[2]] = []byte("{}")
	}
	b := []byte{'{'}
	for _, k := range clientMetaKeys {
		v := found[k]
		if v == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}
