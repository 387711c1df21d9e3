package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
)

// Shape is what a recording holds.
type Shape string

const (
	// ShapeResult is a bare CallToolResult ({"content": [...],
	// "structuredContent": ...}), scanned as the result of a tools/call
	// response.
	ShapeResult Shape = "result"
	// ShapeMessage is one JSON-RPC message.
	ShapeMessage Shape = "message"
	// ShapeSession is several JSON-RPC messages, one a line.
	ShapeSession Shape = "session"
)

// Said is one message a server sent, ready for resultscan's
// (*Scanner).Message.
type Said struct {
	// Line is the line the message starts on in a session; 0 when the
	// recording is one value.
	Line int
	// Method is the message's own method, or the method of the request a
	// response answers; "" when the recording does not hold that request.
	Method string
	// Message is the JSON-RPC message. A bare result is wrapped as the
	// result of a response, so that its findings' fields read
	// "result.content[0].text" as the gate reports them.
	Message []byte
}

// Skipped is a message of a session that is not scanned, and why.
type Skipped struct {
	Line   int
	Method string
	Why    string
}

// Recording is what Read found.
type Recording struct {
	Shape   Shape
	Said    []Said
	Skipped []Skipped
}

// Error is a recording that cannot be read: it names where.
type Error struct {
	// Line and Column locate the problem; zero when it has no place (an
	// empty recording), Column zero when it is the whole line's.
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return e.Msg
	case e.Column == 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

const want = "want a CallToolResult, a JSON-RPC message, or JSON lines of JSON-RPC messages"

// Read reads one recording. A recording of one JSON value is a bare
// result or a message; of several, a session (JSON lines, or JSON values
// one after another). A single message that only the agent sends is an
// error rather than nothing to scan: it says the wrong file was given.
func Read(data []byte) (*Recording, error) {
	values, err := split(data)
	if err != nil {
		return nil, err
	}
	switch len(values) {
	case 0:
		return nil, &Error{Msg: "the file is empty: " + want}
	case 1:
		return readOne(values[0])
	}
	rec := &Recording{Shape: ShapeSession}
	var d directions
	for _, v := range values {
		m, err := scanMessage(v, "each line of a session is one JSON-RPC message")
		if err != nil {
			return nil, err
		}
		if said, skip := d.classify(v, m); skip != nil {
			rec.Skipped = append(rec.Skipped, *skip)
		} else {
			rec.Said = append(rec.Said, said)
		}
	}
	return rec, nil
}

// value is one top-level JSON value of a recording.
type value struct {
	line, column int
	raw          []byte
}

// split cuts data into its top-level JSON values. Duplicate names and
// invalid UTF-8 pass here, to be refused with the message's line by the
// reader of each value.
func split(data []byte) ([]value, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var values []value
	p := positions{data: data}
	for {
		raw, err := dec.ReadValue()
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		if err != nil {
			return nil, syntaxError(&p, err)
		}
		end := dec.InputOffset()
		start := end - int64(len(raw))
		line, col := p.at(start)
		values = append(values, value{line: line, column: col, raw: data[start:end]})
	}
}

func syntaxError(p *positions, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		line, col := p.at(int64(len(p.data)))
		return &Error{Line: line, Column: col, Msg: "not valid JSON: the JSON ends early"}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && syn.Err != nil {
		line, col := p.at(syn.ByteOffset)
		return &Error{Line: line, Column: col, Msg: "not valid JSON: " + syn.Err.Error()}
	}
	return &Error{Msg: "not valid JSON: " + err.Error()}
}

// positions turns byte offsets, asked in increasing order, into lines and
// columns without counting the data twice.
type positions struct {
	data     []byte
	off      int64
	line     int // of off, from 0
	lineFrom int64
}

func (p *positions) at(off int64) (line, column int) {
	off = min(max(off, p.off), int64(len(p.data)))
	for i := p.off; i < off; i++ {
		if p.data[i] == '\n' {
			p.line++
			p.lineFrom = i + 1
		}
	}
	p.off = off
	return p.line + 1, int(off-p.lineFrom) + 1
}

// The members that make an object a JSON-RPC message rather than a result.
var envelope = []string{"jsonrpc", "method", "id", "result", "error", "params"}

func readOne(v value) (*Recording, error) {
	names, kinds, err := topMembers(v.raw)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	isMessage := false
	for _, n := range envelope {
		if _, ok := kinds[n]; ok {
			isMessage = true
		}
	}
	if !isMessage && names > 0 {
		if _, ok := kinds["content"]; !ok {
			if _, ok := kinds["structuredContent"]; !ok {
				return nil, &Error{Msg: `the object is neither a CallToolResult (it has no "content" or "structuredContent") nor a JSON-RPC message (it has no "jsonrpc", "method", "id", "result" or "error"): ` + want}
			}
		}
		return readResult(v, kinds)
	}
	if names == 0 {
		return nil, &Error{Msg: "the object is empty: " + want}
	}
	m, err := scanMessage(v, "")
	if err != nil {
		return nil, err
	}
	var d directions
	said, skip := d.classify(v, m)
	if skip != nil {
		return nil, &Error{Msg: fmt.Sprintf("the message is %s, not something a server says: give the server's answer to it, or a session that holds both", skip.Why)}
	}
	said.Line = 0
	return &Recording{Shape: ShapeMessage, Said: []Said{said}}, nil
}

// topMembers reads the member names of a JSON object and the kind of each
// member's value. It fails on anything but an object.
func topMembers(raw []byte) (int, map[string]jsontext.Kind, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return 0, nil, fmt.Errorf("not valid JSON: %w", err)
	}
	switch tok.Kind() {
	case '{':
	case '[':
		return 0, nil, errors.New("the file is a JSON array; a JSON-RPC batch is refused by the gate whole: " + want)
	default:
		return 0, nil, fmt.Errorf("the file is a JSON %s: %s", kindName(tok.Kind()), want)
	}
	kinds := map[string]jsontext.Kind{}
	n := 0
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return 0, nil, fmt.Errorf("not valid JSON: %w", err)
		}
		kinds[name.String()] = dec.PeekKind()
		n++
		if err := dec.SkipValue(); err != nil {
			return 0, nil, fmt.Errorf("not valid JSON: %w", err)
		}
	}
	return n, kinds, nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "value"
}

// readResult wraps a bare CallToolResult as the result of a tools/call
// response, after checking it as the gate checks an answer: strict JSON,
// content an array of blocks, structuredContent an object.
func readResult(v value, kinds map[string]jsontext.Kind) (*Recording, error) {
	if k, ok := kinds["content"]; ok && k != '[' {
		return nil, &Error{Msg: fmt.Sprintf(`"content" is a JSON %s: a CallToolResult's content is an array of content blocks`, kindName(k))}
	}
	if k, ok := kinds["structuredContent"]; ok && k != '{' {
		return nil, &Error{Msg: fmt.Sprintf(`"structuredContent" is a JSON %s: a CallToolResult's structured content is an object`, kindName(k))}
	}
	if err := jsontext.NewDecoder(bytes.NewReader(v.raw)).SkipValue(); err != nil {
		return nil, strictError(v, err)
	}
	msg := make([]byte, 0, len(v.raw)+12)
	msg = append(msg, `{"result":`...)
	msg = append(msg, v.raw...)
	msg = append(msg, '}')
	return &Recording{Shape: ShapeResult, Said: []Said{{Method: rpcmsg.MethodToolsCall, Message: msg}}}, nil
}

// strictError places an error of the strict reading (a duplicate name,
// invalid UTF-8) within the value.
func strictError(v value, err error) error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && syn.Err != nil {
		p := positions{data: v.raw}
		line, col := p.at(syn.ByteOffset)
		if line == 1 {
			col += v.column - 1
		}
		msg := syn.Err.Error()
		if syn.JSONPointer != "" {
			msg += " at " + string(syn.JSONPointer)
		}
		return &Error{Line: v.line + line - 1, Column: col, Msg: msg}
	}
	return &Error{Line: v.line, Msg: err.Error()}
}

// scanMessage reads one value as a JSON-RPC message with the gate's own
// parser, after a strict reading that places what it refuses.
func scanMessage(v value, hint string) (rpcmsg.Message, error) {
	if err := jsontext.NewDecoder(bytes.NewReader(v.raw)).SkipValue(); err != nil {
		return rpcmsg.Message{}, strictError(v, err)
	}
	m, err := rpcmsg.Scan(v.raw)
	if err == nil {
		return m, nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, rpcmsg.ErrBatch):
		msg = "a JSON-RPC batch (an array of messages): the gate refuses batches whole, so nothing in one is judged; record one message a line"
	case hint != "" && !hasEnvelope(v.raw):
		msg = `no JSON-RPC message here (no "method" and no "id"): ` + hint
	}
	return m, &Error{Line: v.line, Msg: msg}
}

func hasEnvelope(raw []byte) bool {
	_, kinds, err := topMembers(raw)
	if err != nil {
		return false
	}
	for _, n := range envelope {
		if _, ok := kinds[n]; ok {
			return true
		}
	}
	return false
}
