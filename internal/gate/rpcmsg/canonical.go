package rpcmsg

import (
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/mcpshape"
	"github.com/toolgate/toolgate/pkg/namefold"
)

// ErrAmbiguous is what CheckRequest, FilterList and CheckInitialize return
// (wrapped, with a *namefold.Error saying where) for a message whose member
// names a case-insensitive decoder reads another way than the gate does.
var ErrAmbiguous = namefold.ErrAmbiguous

// CheckRequest refuses a message from the agent that a peer could read
// otherwise than the gate: two members of one object whose names fold
// equal, anywhere in it (arguments included), or a member of the message
// or of its params whose name is a defined one but for case.
func CheckRequest(msg []byte) error { return checkShape(msg, mcpshape.Request) }

// CheckInitialize is CheckRequest for a server's answer to initialize or,
// in the stateless revision, server/discover (method): the result's
// instructions, capabilities and serverInfo included.
func CheckInitialize(msg []byte, method string) error {
	return checkShape(msg, mcpshape.ResponseTo(method))
}

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
// it judged — id, the tool's name, and the members of params a server reads
// (arguments, _meta, a task request, and a retried call's inputResponses
// and requestState, MCP 2026-07-28) exactly as the agent wrote them — and
// nothing else, so that no member the gate did not read reaches the server.
func CallRequest(id []byte, m *Message) []byte {
	b := make([]byte, 0, 64+len(id)+len(m.Name)+len(m.Arguments)+len(m.Meta)+len(m.Task)+len(m.InputResponses)+len(m.RequestState))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = appendString(b, m.Name)
	for _, member := range [...]struct {
		name string
		raw  []byte
	}{{"arguments", m.Arguments}, {"_meta", m.Meta}, {"task", m.Task}, {"inputResponses", m.InputResponses}, {"requestState", m.RequestState}} {
		if member.raw != nil {
			b = append(b, `,"`...)
			b = append(b, member.name...)
			b = append(b, `":`...)
			b = append(b, member.raw...)
		}
	}
	return append(b, `}}`...)
}
