package rpcmsg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Listed is one tool of a tools/list result as the server sent it.
type Listed struct {
	// Name is the tool's name; empty when the entry could not be read.
	Name string
	// Fingerprint is the fingerprint of the definition (pkg/tooldef), empty
	// when Err is set.
	Fingerprint string
	// Err says why the entry is not a tool definition the gate can check.
	Err error
	// Raw is the entry's bytes exactly as the server sent them; it aliases
	// the message passed to FilterList.
	Raw []byte
	// Kept reports whether the output holds the entry.
	Kept bool
}

// PrivateScope is the cacheScope value (MCP 2026-07-28, SEP-2549) that lets
// only the requesting user's client cache a result. A list the gate has
// filtered for one pod must never be cached as public: an intermediary could
// serve it to another pod, or keep serving tools this pod has lost since.
const PrivateScope = "private"

// ListOptions say how FilterList rewrites a result besides its tools.
type ListOptions struct {
	// Observe, when set, is called once with every entry, before Keep:
	// the caller records what the server sent before deciding on it.
	Observe func(tools []Listed)
	// Keep decides each tool that parsed; tools that did not are dropped.
	// A nil Keep keeps every tool (used to observe a list, not to filter it).
	Keep func(l *Listed) bool
	// Cache rewrites the result's cache fields: cacheScope becomes
	// PrivateScope (added when absent, since absent means public), and
	// ttlMs is lowered to MaxTTLMs when it is above it.
	Cache    bool
	MaxTTLMs int64
}

// ListResult is what FilterList found.
type ListResult struct {
	// Tools are every entry of the tools array, in order.
	Tools []Listed
	// NextCursor is the result's nextCursor, empty on the last page.
	NextCursor string
	// IsError is true for an error response, returned unchanged.
	IsError bool
	// Changed reports whether the output differs from the input.
	Changed bool
}

// FilterList reads a JSON-RPC response to tools/list and returns it with
// only the kept tools, each kept tool's bytes spliced in exactly as the
// server sent them and every byte outside the tools array (and the cache
// fields, when asked) left as it was. The output aliases msg when nothing
// changed; otherwise it is appended to dst.
func FilterList(dst, msg []byte, opts ListOptions) ([]byte, ListResult, error) {
	var res ListResult
	dec := getDecoder(msg)
	defer putDecoder(dec)

	var (
		toolsStart, toolsEnd = -1, -1
		scopeStart, scopeEnd = -1, -1
		ttlStart, ttlEnd     = -1, -1
		resultOpen           = -1 // offset just after the result's '{'
		ttl                  int64
	)

	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, res, errors.New("tools/list response is not a JSON object")
	}
	sawResult := false
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, res, fmt.Errorf("tools/list response: %w", err)
		}
		if name.String() == "error" {
			res.IsError = true
		}
		if name.String() != "result" {
			if err := dec.SkipValue(); err != nil {
				return nil, res, fmt.Errorf("tools/list response: %w", err)
			}
			continue
		}
		sawResult = true
		if dec.PeekKind() != '{' {
			return nil, res, errors.New("tools/list result is not an object")
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, res, fmt.Errorf("tools/list result: %w", err)
		}
		resultOpen = int(dec.InputOffset())
		for dec.PeekKind() != '}' {
			field, err := dec.ReadToken()
			if err != nil {
				return nil, res, fmt.Errorf("tools/list result: %w", err)
			}
			start := skipSeparators(msg, int(dec.InputOffset()))
			switch field.String() {
			case "tools":
				if dec.PeekKind() != '[' {
					return nil, res, errors.New("tools/list result: tools is not an array")
				}
				toolsStart = start
				if err := readTools(dec, msg, &res); err != nil {
					return nil, res, err
				}
				toolsEnd = int(dec.InputOffset())
			case "nextCursor":
				t, err := dec.ReadToken()
				if err != nil {
					return nil, res, fmt.Errorf("tools/list result nextCursor: %w", err)
				}
				if t.Kind() == '"' {
					res.NextCursor = t.String()
				}
			case "cacheScope":
				if err := dec.SkipValue(); err != nil {
					return nil, res, fmt.Errorf("tools/list result cacheScope: %w", err)
				}
				scopeStart, scopeEnd = start, int(dec.InputOffset())
			case "ttlMs":
				t, err := dec.ReadToken()
				if err != nil {
					return nil, res, fmt.Errorf("tools/list result ttlMs: %w", err)
				}
				ttlStart, ttlEnd = start, int(dec.InputOffset())
				if t.Kind() == '0' {
					if v, err := strconv.ParseFloat(t.String(), 64); err == nil {
						ttl = int64(v)
					}
				} else {
					ttl = -1 // not a number: replaced below
				}
			default:
				if err := dec.SkipValue(); err != nil {
					return nil, res, fmt.Errorf("tools/list result: %w", err)
				}
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, res, fmt.Errorf("tools/list result: %w", err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, res, fmt.Errorf("tools/list response: %w", err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, res, errors.New("tools/list response: unexpected data after the JSON object")
	}
	if res.IsError && !sawResult {
		return msg, res, nil
	}
	if !sawResult {
		return nil, res, errors.New("tools/list response has neither a result nor an error")
	}
	if toolsStart < 0 {
		return nil, res, errors.New("tools/list result has no tools array")
	}

	// The edits, in the order of their offsets in msg.
	type edit struct {
		start, end int
		text       []byte
	}
	var edits []edit
	if opts.Cache && scopeStart < 0 {
		edits = append(edits, edit{resultOpen, resultOpen, []byte(`"cacheScope":"` + PrivateScope + `",`)})
	}
	if opts.Observe != nil {
		opts.Observe(res.Tools)
	}
	keepAll := true
	for i := range res.Tools {
		t := &res.Tools[i]
		t.Kept = opts.Keep == nil || (t.Err == nil && opts.Keep(t))
		keepAll = keepAll && t.Kept
	}
	var arr []byte
	if !keepAll {
		n := 2
		for _, t := range res.Tools {
			n += len(t.Raw) + 1
		}
		arr = make([]byte, 0, n)
		arr = append(arr, '[')
		first := true
		for _, t := range res.Tools {
			if !t.Kept {
				continue
			}
			if !first {
				arr = append(arr, ',')
			}
			first = false
			arr = append(arr, t.Raw...)
		}
		arr = append(arr, ']')
	}
	type span struct {
		start, end int
		text       []byte
		ok         bool
	}
	spans := []span{
		{toolsStart, toolsEnd, arr, !keepAll},
		{scopeStart, scopeEnd, []byte(`"` + PrivateScope + `"`), opts.Cache && scopeStart >= 0 && !bytes.Equal(msg[scopeStart:scopeEnd], []byte(`"`+PrivateScope+`"`))},
		{ttlStart, ttlEnd, []byte(strconv.FormatInt(max(opts.MaxTTLMs, 0), 10)), opts.Cache && ttlStart >= 0 && (ttl < 0 || ttl > opts.MaxTTLMs)},
	}
	for _, s := range spans {
		if s.ok {
			edits = append(edits, edit{s.start, s.end, s.text})
		}
	}
	if len(edits) == 0 {
		return msg, res, nil
	}
	// Sort by start (at most four edits, and they never overlap).
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	out := dst[:0]
	prev := 0
	for _, e := range edits {
		out = append(out, msg[prev:e.start]...)
		out = append(out, e.text...)
		prev = e.end
	}
	out = append(out, msg[prev:]...)
	res.Changed = true
	return out, res, nil
}

// readTools reads the tools array, fingerprinting every entry.
func readTools(dec *jsontext.Decoder, msg []byte, res *ListResult) error {
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("tools/list result tools: %w", err)
	}
	for dec.PeekKind() != ']' {
		start := skipSeparators(msg, int(dec.InputOffset()))
		v, err := tooldef.DecodeValue(dec, tooldef.DecodeOptions{})
		if err != nil {
			return fmt.Errorf("tools/list result tools[%d]: %w", len(res.Tools), err)
		}
		end := int(dec.InputOffset())
		l := Listed{Raw: msg[start:end:end]}
		if t, err := tooldef.ParseToolValue(v); err != nil {
			l.Err = err
			if obj, ok := v.(map[string]any); ok {
				l.Name, _ = obj["name"].(string)
			}
		} else {
			l.Name, l.Fingerprint = t.Name, t.Fingerprint()
		}
		res.Tools = append(res.Tools, l)
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("tools/list result tools: %w", err)
	}
	return nil
}
