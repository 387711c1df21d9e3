package gate

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
)

// protocolStateless is the first MCP revision with per-request protocol
// versions, subscriptions/listen, cacheable list results and the Mcp-Method
// and Mcp-Name headers.
const protocolStateless = "2026-07-28"

// statelessProtocol reports whether an agent speaking protocol version v
// gets what the stateless revision brings. MCP versions are dates
// (YYYY-MM-DD), which compare as strings; a version of any other shape is
// one the gate does not know, and is taken for the newest it knows, so that
// a filtered list is marked private rather than left public. No version at
// all is the oldest revision (the default of streamable HTTP).
func statelessProtocol(v string) bool {
	if v == "" {
		return false
	}
	if !dateShaped(v) {
		return true
	}
	return v >= protocolStateless
}

// dateShaped reports whether v is written YYYY-MM-DD, in ASCII digits.
func dateShaped(v string) bool {
	if len(v) != len("2006-01-02") {
		return false
	}
	for i := range len(v) {
		switch i {
		case 4, 7:
			if v[i] != '-' {
				return false
			}
		default:
			if v[i] < '0' || v[i] > '9' {
				return false
			}
		}
	}
	return true
}

// judgedMethods are the methods the gate reads and acts on. A server is
// free to match method names its own way, so a name that equals one of
// them but for case or surrounding space is refused, never forwarded
// unjudged.
var judgedMethods = []string{
	rpcmsg.MethodInitialize,
	rpcmsg.MethodServerDiscover,
	rpcmsg.MethodToolsList,
	rpcmsg.MethodToolsCall,
	rpcmsg.MethodSubscriptionsListen,
	rpcmsg.NotificationToolsChanged,
	notificationCancelled,
}

// disguisedMethod reports whether m is a judged method written some other
// way: another case, or spaces and control characters around it.
func disguisedMethod(m string) bool {
	trimmed := strings.TrimFunc(m, func(r rune) bool { return r <= ' ' || r == 0x7f })
	for _, j := range judgedMethods {
		if m != j && strings.EqualFold(trimmed, j) {
			return true
		}
	}
	return false
}

// Standard headers of the stateless revision (SEP-2243) that repeat what
// the body says. A server may route on them, so the gate never passes the
// agent's: it writes them from the message it judged.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// setStandardHeaders replaces the agent's Mcp-Method and Mcp-Name in h
// with the values of the message the gate read, for an agent of the
// stateless revision; for an older one, or a request that carries no
// message (msg nil), they are removed.
func setStandardHeaders(h http.Header, msg *rpcmsg.Message, protocol string) {
	h.Del(headerMethod)
	h.Del(headerName)
	if msg == nil || msg.Method == "" || !statelessProtocol(protocol) {
		return
	}
	h.Set(headerMethod, headerValue(msg.Method))
	switch msg.Method {
	case rpcmsg.MethodToolsCall, "prompts/get":
		h.Set(headerName, headerValue(msg.Name))
	case "resources/read":
		h.Set(headerName, headerValue(msg.URI))
	}
}

// headerValue is s as a header can carry it: as is, as the Go SDK's client
// writes these headers (and its server compares them), unless a header
// cannot hold it — a control character, or space around it that would be
// trimmed — and then Base64 in SEP-2243's =?base64?…?= wrapper.
func headerValue(s string) string {
	plain := s == strings.Trim(s, " \t")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != 0x7f
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
