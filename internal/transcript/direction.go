package transcript

import (
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
)

// agentOnly are the methods only a client sends (MCP 2025-06-18 and later):
// the agent's own requests and notifications, which the gate forwards
// without scanning.
var agentOnly = map[string]bool{
	rpcmsg.MethodInitialize:            true,
	"notifications/initialized":        true,
	rpcmsg.MethodToolsList:             true,
	rpcmsg.MethodToolsCall:             true,
	"resources/list":                   true,
	"resources/templates/list":         true,
	"resources/read":                   true,
	"resources/subscribe":              true,
	"resources/unsubscribe":            true,
	"prompts/list":                     true,
	"prompts/get":                      true,
	"completion/complete":              true,
	"logging/setLevel":                 true,
	"notifications/roots/list_changed": true,
	rpcmsg.MethodServerDiscover:        true,
	rpcmsg.MethodSubscriptionsListen:   true,
}

// serverOnly are the requests only a server sends: their answers are the
// client's (what the model wrote for sampling, what the user typed for
// elicitation), which the gate does not scan.
var serverOnly = map[string]bool{
	"sampling/createMessage": true,
	"elicitation/create":     true,
	"roots/list":             true,
}

// judgedOtherwise reports whether the answer to method is judged by the
// gate without the scan: a tools/list by its tools' fingerprints, an
// initialize by its reviewed instructions.
func judgedOtherwise(method string) bool {
	return method == rpcmsg.MethodToolsList || rpcmsg.CarriesInstructions(method)
}

// directions remembers the requests of a session by id, to tell whose a
// response is. The two sides number their requests independently, so an
// id may be pending on both at once.
type directions struct {
	// answeredByServer holds requests the server answers: the agent's, and
	// those either side may send.
	answeredByServer map[string]string
	// answeredByClient holds requests only a server sends.
	answeredByClient map[string]string
}

// classify says whether a message is the server's to say (and so scanned),
// or why not.
func (d *directions) classify(v value, m rpcmsg.Message) (Said, *Skipped) {
	if d.answeredByServer == nil {
		d.answeredByServer = map[string]string{}
		d.answeredByClient = map[string]string{}
	}
	said := Said{Line: v.line, Method: m.Method, Message: v.raw}
	if m.Method != "" {
		if m.ID != nil {
			if serverOnly[m.Method] {
				d.answeredByClient[string(m.ID)] = m.Method
			} else {
				d.answeredByServer[string(m.ID)] = m.Method
			}
		}
		if agentOnly[m.Method] {
			kind := "request"
			if m.ID == nil {
				kind = "notification"
			}
			return Said{}, &Skipped{Line: v.line, Method: m.Method, Why: "a " + m.Method + " " + kind + ", which the agent sends"}
		}
		return said, nil
	}
	// A response: whose it is follows from who was asked.
	id := string(m.ID)
	byServer, askedClient := d.answeredByServer[id]
	byClient, askedServer := d.answeredByClient[id]
	delete(d.answeredByServer, id)
	delete(d.answeredByClient, id)
	switch {
	case askedClient:
		// When both sides have a request of this id pending, the answer
		// may be the server's: scanned.
		said.Method = byServer
		if judgedOtherwise(byServer) && !askedServer {
			return Said{}, &Skipped{Line: v.line, Method: byServer, Why: "the answer to " + byServer + ", which the gate judges by fingerprints and reviewed instructions (toolgate score), not by this scan"}
		}
		return said, nil
	case askedServer:
		return Said{}, &Skipped{Line: v.line, Method: byClient, Why: "the client's answer to the server's " + byClient}
	}
	// The request is not in the recording: the answer may be the server's.
	return said, nil
}
