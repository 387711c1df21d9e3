// Package transcript reads what was recorded of an MCP conversation — a
// saved tool result, one JSON-RPC message, or a session of JSON lines — and
// says which of its messages are what a server said, the messages the
// gate scans (pkg/resultscan), each with the method it belongs to.
//
// A recording rarely says who sent each line. The methods do: a tools/call
// request is the agent's, a sampling/createMessage request the server's,
// and a response belongs to whoever was asked, found by its id. A message
// that either side may send (ping, notifications/progress, tasks/*) or a
// response to a request the recording does not hold is counted as the
// server's, so that a session recorded from its middle is scanned rather
// than passed. The answers to tools/list, initialize and server/discover
// are left out as the gate leaves them out of its scan: the gate judges
// them by the tools' fingerprints and the reviewed instructions, and
// `toolgate score` judges them offline.
//
// It owns the shape of the input and the direction of each message; it
// does not scan text, and it reads each message with the gate's own parser
// (internal/gate/rpcmsg), so that what the gate would refuse — duplicate
// member names, invalid UTF-8, batches — is refused here too. It does no
// I/O.
package transcript
