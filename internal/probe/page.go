package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// toolOverhead is the heap a parsed tool costs besides its tree and its
// canonical form: the Tool, its part digests and its maps.
const toolOverhead = 1 << 10

// catalogue decodes the tools/list pages of one probe as they arrive and
// keeps the tools; the SDK is handed each page with its tools taken out,
// so it never decodes them into its own structs (which would cost the
// page's size several times over, in trees of map[string]any).
//
// A page is decoded before the SDK sees it: a plain JSON answer to a
// streamable HTTP POST in the HTTP transport; a stream of server-sent
// events (the SSE transport, or a streamable server that streams its
// answer) event by event, by the eventRewriter the SDK reads through.
// Either way the message's bytes are held once, charged to the budget,
// while its member names are checked and it is decoded; every other
// answer is checked the same way before the SDK reads it. Should a page reach the connection undecoded all the same,
// captureConn decodes it from the delivered message; the bytes the SDK
// buffered for it are charged to the budget while they are held.
type catalogue struct {
	limits Limits
	meter  *meter

	mu sync.Mutex
	// current is the ID of the tools/list call in flight (one at a time),
	// nil when none is; decoded says that its page was decoded off the
	// wire already.
	current any
	decoded bool
	// awaiting is the method of the last call sent: the answer read next
	// is checked as an answer to it (the probe has one call in flight at
	// a time).
	awaiting string
	// pages counts the pages decoded; delivered the pages whose (empty)
	// result reached the SDK.
	pages, delivered int
	tools            []*tooldef.Tool
	names            map[string]int
	cursor           string
	// failed is the first decoding failure, in the probe's own words.
	failed atomic.Pointer[Error]
}

func newCatalogue(limits Limits, m *meter) *catalogue {
	return &catalogue{limits: limits, meter: m, names: map[string]int{}}
}

// failure is the first decoding failure; it is read without c.mu, which a
// decode blocked on the network may hold.
func (c *catalogue) failure() *Error { return c.failed.Load() }

// fail records the first decoding failure and returns it.
func (c *catalogue) fail(e *Error) *Error {
	c.failed.CompareAndSwap(nil, e)
	return c.failed.Load()
}

// decodeResult reads one tools/list result object from dec (where is the
// JSON Pointer of dec's start in the response: "/result" when dec reads
// the result alone, "" when it reads the whole response): its tools are
// decoded, charged, parsed and kept; its nextCursor is returned. Every
// object on the way refuses duplicate members (jsontext's default); any
// member MCP does not define is skipped without being kept. Called with
// c.mu held.
func (c *catalogue) decodeResult(dec *jsontext.Decoder, where string) (string, *Error) {
	c.pages++
	page := c.pages
	what := fmt.Sprintf("tools/list page %d", page)
	wrap := func(err error) *Error { return c.fail(c.decodeError(what, where, err)) }
	tok, err := dec.ReadToken()
	if err != nil {
		return "", wrap(err)
	}
	if tok.Kind() != '{' {
		return "", c.fail(invalid("tools/list page %d: the result is not an object", page))
	}
	opts := tooldef.DecodeOptions{MaxStringBytes: c.limits.MaxStringBytes, Charge: c.meter.chargeDecoded}
	sawTools, cursor := false, ""
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return "", wrap(err)
		}
		switch name.String() {
		case "tools":
			sawTools = true
			if tok, err := dec.ReadToken(); err != nil {
				return "", wrap(err)
			} else if tok.Kind() != '[' {
				return "", c.fail(invalid("tools/list page %d: tools is not an array", page))
			}
			for dec.PeekKind() != ']' {
				index := len(c.tools)
				if c.limits.MaxTools > 0 && index >= c.limits.MaxTools {
					return "", c.fail(&Error{Reason: TooLarge, Msg: fmt.Sprintf("tools/list page %d: more than %d tools", page, c.limits.MaxTools)})
				}
				v, err := tooldef.DecodeValue(dec, opts)
				if err != nil {
					return "", wrap(err)
				}
				t, err := tooldef.ParseToolValue(v)
				if err != nil {
					// tooldef's messages name only MCP's fields and kinds.
					return "", c.fail(invalid("tools/list page %d: tools[%d]: %v", page, index, err))
				}
				if err := c.meter.chargeDecoded(int64(t.CanonicalLen()) + toolOverhead); err != nil {
					return "", wrap(err)
				}
				if first, dup := c.names[t.Name]; dup {
					return "", c.fail(invalid("tools/list: tools[%d] and tools[%d] have the same name; a catalogue cannot offer two tools of one name", first, index))
				}
				c.names[t.Name] = index
				c.tools = append(c.tools, t)
			}
			if _, err := dec.ReadToken(); err != nil {
				return "", wrap(err)
			}
		case "nextCursor":
			v, err := tooldef.DecodeValue(dec, opts)
			if err != nil {
				return "", wrap(err)
			}
			s, ok := v.(string)
			if !ok {
				return "", c.fail(invalid("tools/list page %d: nextCursor is not a string", page))
			}
			cursor = s
		default:
			if err := dec.SkipValue(); err != nil {
				return "", wrap(err)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return "", wrap(err)
	}
	if !sawTools {
		return "", c.fail(invalid("tools/list page %d: the result has no tools array", page))
	}
	c.cursor = cursor
	return cursor, nil
}

// decodeError says why a page could not be decoded, in the probe's own
// words: the position as a path of MCP's own member names and indexes,
// never a name or a value the server chose.
func (c *catalogue) decodeError(what, where string, err error) *Error {
	var perr *Error
	if errors.As(err, &perr) {
		return perr
	}
	if over := c.meter.overLimit(); over != nil {
		return &Error{Reason: TooLarge, Msg: fmt.Sprintf("%s: %v", what, over), Err: err}
	}
	if errors.Is(err, tooldef.ErrTooLarge) {
		return &Error{Reason: TooLarge, Msg: fmt.Sprintf("%s: %v", what, err), Err: err}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Reason: InvalidResponse, Msg: fmt.Sprintf("%s: the JSON ends early", what), Err: err}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		ptr := where + string(syn.JSONPointer)
		if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			parent, name := splitPointer(ptr)
			member := "a member name"
			if knownName(name) {
				member = "the member " + strconv.Quote(name)
			}
			return &Error{Reason: InvalidResponse, Err: err,
				Msg: fmt.Sprintf("%s: %s appears twice in %s; duplicate members are refused, since parsers disagree on which one counts", what, member, describePointer(parent))}
		}
		return &Error{Reason: InvalidResponse, Err: err, Msg: fmt.Sprintf("%s: not valid JSON in %s", what, describePointer(ptr))}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &Error{Reason: Timeout, Msg: fmt.Sprintf("%s: the answer did not arrive in time", what), Err: err}
	}
	// tooldef's own limit on nesting names only the limit.
	if msg := err.Error(); strings.HasPrefix(msg, "nested deeper than") {
		return &Error{Reason: InvalidResponse, Msg: fmt.Sprintf("%s: %s", what, msg), Err: err}
	}
	return &Error{Reason: InvalidResponse, Msg: fmt.Sprintf("%s: the answer could not be read or is not valid JSON", what), Err: err}
}

// knownNames are the member names a path in an error may show: MCP's and
// JSON Schema's. Any other name is the server's choice and is not quoted.
var knownNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`jsonrpc id result error tools nextCursor _meta name title description
		inputSchema outputSchema annotations readOnlyHint destructiveHint idempotentHint openWorldHint icons
		execution cacheScope ttlMs protocolVersion capabilities serverInfo instructions version websiteUrl
		resources prompts logging completions experimental extensions code message data method params
		type properties required items additionalProperties enum const default examples format pattern
		minimum maximum minLength maxLength minItems maxItems anyOf oneOf allOf not $ref $defs definitions
		$schema $id patternProperties prefixItems contains dependentSchemas if then else`) {
		knownNames[n] = true
	}
}

func knownName(s string) bool { return knownNames[s] }

// splitPointer splits a JSON Pointer into its parent and its last name.
func splitPointer(ptr string) (string, string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", ""
	}
	return ptr[:i], unescapeToken(ptr[i+1:])
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// describePointer renders a JSON Pointer into the JSON-RPC response as a
// path such as tools[3].inputSchema.properties.… (within the result),
// keeping indexes and MCP's names.
func describePointer(ptr string) string {
	switch {
	case ptr == "":
		return "the JSON-RPC response"
	case ptr == "/result":
		return "the result"
	case strings.HasPrefix(ptr, "/result/"):
		ptr = strings.TrimPrefix(ptr, "/result")
	}
	var b strings.Builder
	for i, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = unescapeToken(tok)
		if _, err := strconv.Atoi(tok); err == nil {
			fmt.Fprintf(&b, "[%s]", tok)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		if knownName(tok) {
			b.WriteString(tok)
		} else {
			b.WriteString("…")
		}
	}
	return b.String()
}

func invalid(format string, args ...any) *Error {
	return &Error{Reason: InvalidResponse, Msg: fmt.Sprintf(format, args...)}
}

// emptyPage is the result the SDK is handed in place of a page: no tools,
// the page's cursor, and nothing else (no cache lifetime: every probe asks
// the server again).
func emptyPage(cursor string) json.RawMessage {
	page := struct {
		Tools      []struct{} `json:"tools"`
		NextCursor string     `json:"nextCursor,omitempty"`
	}{Tools: []struct{}{}, NextCursor: cursor}
	b, _ := json.Marshal(page)
	return b
}

// decodeMessage decodes one JSON-RPC message off dec and returns it
// encoded again for the SDK: the result of a tools/list call without its
// tools (when page says whether a tools/list call is in flight), anything
// else decoded whole, charged, and re-encoded. Members JSON-RPC does not
// define are dropped.
func (c *catalogue) decodeMessage(dec *jsontext.Decoder, page func() bool) ([]byte, error) {
	wrap := func(err error) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.fail(c.decodeError("a message from the server", "", err))
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, wrap(err)
	}
	if tok.Kind() != '{' {
		return nil, c.failWith(invalid("a message that is not a JSON-RPC object"))
	}
	out := map[string]any{}
	opts := tooldef.DecodeOptions{MaxStringBytes: c.limits.MaxStringBytes, Charge: c.meter.chargeDecoded}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, wrap(err)
		}
		switch key := name.String(); key {
		case "result":
			if page() {
				c.mu.Lock()
				cursor, perr := c.decodeResult(dec, "")
				if perr == nil {
					c.decoded = true
				}
				c.mu.Unlock()
				if perr != nil {
					return nil, perr
				}
				out[key] = emptyPage(cursor)
				continue
			}
			fallthrough
		case "jsonrpc", "id", "error", "method", "params":
			v, err := tooldef.DecodeValue(dec, opts)
			if err != nil {
				return nil, wrap(err)
			}
			out[key] = v
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, wrap(err)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, wrap(err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, c.failWith(invalid("data after a JSON-RPC message"))
	}
	return json.Marshal(out)
}

func (c *catalogue) failWith(e *Error) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fail(e)
}

// inFlight reports whether a tools/list call is waiting for its page.
func (c *catalogue) inFlight() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current != nil && !c.decoded
}

// captureTransport hands the SDK each tools/list page without its tools.
type captureTransport struct {
	inner mcp.Transport
	cat   *catalogue
}

func (t *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, cat: t.cat}, nil
}

type captureConn struct {
	mcp.Connection
	cat *catalogue
}

func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.cat.mu.Lock()
		c.cat.awaiting = req.Method
		if req.Method == "tools/list" {
			c.cat.current, c.cat.decoded = req.ID.Raw(), false
		}
		c.cat.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		defer c.cat.meter.releaseBuffered(int64(len(m.Result)))
		c.cat.mu.Lock()
		defer c.cat.mu.Unlock()
		if c.cat.current == nil || m.ID.Raw() != c.cat.current {
			return msg, nil
		}
		c.cat.current = nil
		if m.Error != nil {
			return msg, nil
		}
		if !c.cat.decoded {
			cursor, perr := c.cat.decodeResult(jsontext.NewDecoder(bytes.NewReader(m.Result)), "/result")
			if perr != nil {
				return nil, perr
			}
			m.Result = emptyPage(cursor)
		}
		c.cat.delivered++
	case *jsonrpc.Request:
		c.cat.meter.releaseBuffered(int64(len(m.Params)))
	}
	return msg, nil
}

// isToolsListCall reports whether req posts a tools/list call. The body is
// the SDK's own encoding of the request, read again through GetBody.
func isToolsListCall(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return false
	}
	var call struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	return json.Unmarshal(data, &call) == nil && call.Method == "tools/list" && len(call.ID) > 0
}

// mediaType is a response's media type, lower-case, without parameters.
func mediaType(resp *http.Response) string {
	t, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return t
}
