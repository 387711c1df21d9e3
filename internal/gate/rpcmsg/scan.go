package rpcmsg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Methods and notifications the gate treats specially.
const (
	MethodInitialize          = "initialize"
	MethodToolsList           = "tools/list"
	MethodToolsCall           = "tools/call"
	MethodSubscriptionsListen = "subscriptions/listen"
	NotificationToolsChanged  = "notifications/tools/list_changed"
)

// ErrBatch is returned for a JSON-RPC batch (an array of messages). MCP
// dropped batches in 2025-06-18; a gate that judged only the first element
// of one would let the others through unjudged, so it refuses them whole.
var ErrBatch = errors.New("JSON-RPC batches are not supported")

// ErrFoldedName is returned for a message with a member whose name differs
// from jsonrpc, id, method, params, result or error only in case, which a
// decoder matching names loosely takes for that member. The Message is
// filled all the same.
var ErrFoldedName = errors.New("message has a member whose name differs from a JSON-RPC member's only in case")

// Message is what a scan learnt of one JSON-RPC message. Byte slices alias
// nothing: they are copies, safe to keep after the input is reused.
type Message struct {
	// ID is the raw JSON of the id member (nil when absent: a notification).
	ID []byte
	// Method is the method of a request or notification; empty for a
	// response.
	Method string
	// HasResult and HasError say which member a response carries.
	HasResult, HasError bool
	// Name is params.name when params is an object holding a string name.
	Name string
	// URI is params.uri when params is an object holding a string uri
	// (resources/read names its resource so).
	URI string
	// Arguments is the raw JSON of params.arguments, nil when absent.
	Arguments []byte
	// Meta is the raw JSON of params._meta, nil when absent.
	Meta []byte
	// InputResponses and RequestState are the raw JSON of the members of
	// that name in params, nil when absent: what a tools/call retried
	// with the answers to a server's questions carries (MCP 2026-07-28).
	InputResponses, RequestState []byte
	// Task is the raw JSON of params.task, nil when absent: a call the
	// agent asks to run as a task (MCP 2025-11-25).
	Task []byte
}

// IsRequest reports whether the message is a request that expects a
// response (it has a method and an id).
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsResponse reports whether the message is a response.
func (m *Message) IsResponse() bool { return m.Method == "" && m.ID != nil }

var (
	decoders = sync.Pool{New: func() any { return jsontext.NewDecoder(emptyReader{}) }}
	emptyBuf emptyReader
)

// emptyReader is what a pooled decoder reads while it waits: jsontext
// refuses a nil reader.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

func getDecoder(b []byte) *jsontext.Decoder {
	dec := decoders.Get().(*jsontext.Decoder)
	dec.Reset(bytes.NewBuffer(b))
	return dec
}

func putDecoder(dec *jsontext.Decoder) {
	dec.Reset(emptyBuf)
	decoders.Put(dec)
}

// Scan reads one JSON-RPC message, validating the whole of it as JSON
// (every byte is checked, so a message the gate judged is a message the
// server can parse the same way) but keeping only what Message holds. A
// request's params is walked one level deep; nothing else is decoded.
func Scan(b []byte) (Message, error) {
	var m Message
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == '[' {
		return m, ErrBatch
	}
	dec := getDecoder(b)
	defer putDecoder(dec)
	folded := false
	tok, err := dec.ReadToken()
	if err != nil {
		return m, fmt.Errorf("message is not JSON: %w", err)
	}
	if tok.Kind() != '{' {
		return m, errors.New("message is not a JSON object")
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return m, fmt.Errorf("message: %w", err)
		}
		switch tok.String() {
		case "id":
			v, err := dec.ReadValue()
			if err != nil {
				return m, fmt.Errorf("message id: %w", err)
			}
			if k := v.Kind(); k != '"' && k != '0' && k != 'n' {
				return m, errors.New("message id is neither a string nor a number")
			}
			m.ID = bytes.Clone(v)
		case "method":
			t, err := dec.ReadToken()
			if err != nil {
				return m, fmt.Errorf("message method: %w", err)
			}
			if t.Kind() != '"' {
				return m, errors.New("message method is not a string")
			}
			m.Method = t.String()
			if m.Method == "" {
				return m, errors.New("message method is empty")
			}
		case "result":
			m.HasResult = true
			if err := dec.SkipValue(); err != nil {
				return m, fmt.Errorf("message result: %w", err)
			}
		case "error":
			m.HasError = true
			if err := dec.SkipValue(); err != nil {
				return m, fmt.Errorf("message error: %w", err)
			}
		case "params":
			if err := scanParams(dec, &m); err != nil {
				return m, err
			}
		default:
			// A name that is id, result, error or method but for case
			// ("ID", "reſult") is the member itself to a client whose
			// decoder matches names loosely (encoding/json does): a
			// response of one id to the gate would be of another to it.
			if foldsToMember([]byte(tok.String())) {
				// Read on, so that the caller learns the rest of the
				// message (the tool a refused call named, for the audit).
				folded = true
			}
			if err := dec.SkipValue(); err != nil {
				return m, fmt.Errorf("message: %w", err)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return m, fmt.Errorf("message: %w", err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return m, errors.New("message: unexpected data after the JSON object")
	}
	if m.Method == "" && m.ID == nil {
		return m, errors.New("message has neither a method nor an id")
	}
	if folded {
		return m, ErrFoldedName
	}
	return m, nil
}

func scanParams(dec *jsontext.Decoder, m *Message) error {
	if dec.PeekKind() != '{' {
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("message params: %w", err)
		}
		return nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("message params: %w", err)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("message params: %w", err)
		}
		switch tok.String() {
		case "name":
			if dec.PeekKind() != '"' {
				if err := dec.SkipValue(); err != nil {
					return fmt.Errorf("message params.name: %w", err)
				}
				continue
			}
			t, err := dec.ReadToken()
			if err != nil {
				return fmt.Errorf("message params.name: %w", err)
			}
			m.Name = t.String()
		case "uri":
			if dec.PeekKind() != '"' {
				if err := dec.SkipValue(); err != nil {
					return fmt.Errorf("message params.uri: %w", err)
				}
				continue
			}
			t, err := dec.ReadToken()
			if err != nil {
				return fmt.Errorf("message params.uri: %w", err)
			}
			m.URI = t.String()
		case "arguments", "_meta", "inputResponses", "requestState", "task":
			key := tok.String() // a token is void after the next read
			v, err := dec.ReadValue()
			if err != nil {
				return fmt.Errorf("message params.%s: %w", key, err)
			}
			switch key {
			case "arguments":
				m.Arguments = bytes.Clone(v)
			case "_meta":
				m.Meta = bytes.Clone(v)
			case "inputResponses":
				m.InputResponses = bytes.Clone(v)
			case "task":
				m.Task = bytes.Clone(v)
			default:
				m.RequestState = bytes.Clone(v)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf("message params: %w", err)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("message params: %w", err)
	}
	return nil
}

// IDKey is a comparable form of a raw JSON-RPC id: a server may write back
// 1 as 1.0 or re-escape a string, and still mean the same request.
func IDKey(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		s, err := strconv.Unquote(string(raw))
		if err != nil {
			// JSON escapes Go cannot read (\/ for one): decode them with
			// jsontext, which speaks JSON.
			dec := getDecoder(raw)
			defer putDecoder(dec)
			t, err := dec.ReadToken()
			if err != nil {
				return "s:" + string(raw)
			}
			s = t.String()
		}
		return "s:" + s
	case 'n':
		return "null"
	default:
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
		}
		return "n:" + string(raw)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipSeparators moves past whitespace, commas and colons: from the end of
// one token to the start of the next value.
func skipSeparators(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		default:
			return i
		}
	}
	return i
}
