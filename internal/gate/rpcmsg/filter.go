package rpcmsg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/internal/mcpshape"
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
	// ttlMs becomes a non-negative integer no greater than MaxTTLMs (a
	// negative MaxTTLMs counts as zero): a fraction is rounded down, and
	// a value that is not a finite non-negative number becomes 0, so that
	// a client whose parser reads 1e400, -1 or "60000" its own way never
	// caches the list for longer than the gate allows.
	Cache    bool
	MaxTTLMs int64
	// Charge, when set, is told the estimated heap every tool costs as it
	// is decoded (tooldef.DecodeOptions.Charge), its canonical form and
	// its entry in ListResult.Tools. An error from it stops FilterList,
	// which returns an error wrapping it: the caller's memory budget.
	Charge func(bytes int64) error
	// Known, when set, remembers the name and fingerprint of every tool
	// read whole, by its exact bytes, and gives them back when the same
	// bytes come again instead of parsing and fingerprinting the tool
	// anew: a server sends the same catalogue to every session.
	Known *Known
}

// Known is a bounded memory of the tool definitions a server sent, by
// their exact bytes: the name and the fingerprint (pkg/tooldef) the same
// bytes always give. Every entry is still decoded and charged as before
// (a list that does not parse or is over its budget is refused whatever
// is remembered); what a hit saves is building the tool from its tree,
// its canonical form and its hash, about half of what a list costs. Only
// byte-for-byte equal definitions hit, so a definition that changed in
// any byte is fingerprinted afresh. It is safe for concurrent use.
type Known struct {
	mu    sync.Mutex
	tools map[string]knownTool
	size  int
	max   int
}

type knownTool struct {
	name, fingerprint string
	canonicalLen      int
}

// NewKnown returns a Known that holds definitions of at most maxBytes in
// all; once full it remembers nothing more (what it holds is what was
// sent first, which a server sends again).
func NewKnown(maxBytes int) *Known {
	return &Known{tools: map[string]knownTool{}, max: maxBytes}
}

func (k *Known) get(raw []byte) (knownTool, bool) {
	if k == nil {
		return knownTool{}, false
	}
	k.mu.Lock()
	t, ok := k.tools[string(raw)]
	k.mu.Unlock()
	return t, ok
}

func (k *Known) add(raw []byte, t knownTool) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.size+len(raw) > k.max {
		return
	}
	if _, ok := k.tools[string(raw)]; !ok {
		k.tools[string(raw)] = t
		k.size += len(raw)
	}
}

// listedOverhead is the heap an entry of ListResult.Tools costs besides its
// name and the canonical form its fingerprint is computed from: the entry
// and its share of the slice, the parsed tool, its fingerprint and hash
// (about 1.5 KiB measured for the smallest tool; the probe charges the
// same 1 KiB beside the tree it has charged already).
const listedOverhead = 1 << 10

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
//
// A response a peer could read otherwise — two members of one object whose
// names fold equal, or a member of the message, its result or a tool that
// is a defined one but for case ("Tools", "toolſ", "Description") — is
// refused with an error wrapping ErrAmbiguous: the gate filters the tools
// member, and an agent folding names would read the other.
func FilterList(dst, msg []byte, opts ListOptions) ([]byte, ListResult, error) {
	var res ListResult
	if err := checkShape(msg, mcpshape.ListResponse); err != nil {
		return nil, res, fmt.Errorf("tools/list response: %w", err)
	}
	dec := getDecoder(msg)
	defer putDecoder(dec)

	var (
		toolsStart, toolsEnd = -1, -1
		scopeStart, scopeEnd = -1, -1
		ttlStart, ttlEnd     = -1, -1
		resultOpen           = -1 // offset just after the result's '{'
		ttl                  int64
		ttlExact             bool // ttlMs is written as the integer ttl
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
				if err := readTools(dec, msg, &res, opts.Charge, opts.Known); err != nil {
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
				if dec.PeekKind() != '0' {
					// Not a number: replaced by 0 below.
					if err := dec.SkipValue(); err != nil {
						return nil, res, fmt.Errorf("tools/list result ttlMs: %w", err)
					}
					ttlStart, ttlEnd = start, int(dec.InputOffset())
					ttl, ttlExact = 0, false
					break
				}
				t, err := dec.ReadToken()
				if err != nil {
					return nil, res, fmt.Errorf("tools/list result ttlMs: %w", err)
				}
				ttlStart, ttlEnd = start, int(dec.InputOffset())
				ttl, ttlExact = readTTL(t)
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
		{ttlStart, ttlEnd, []byte(strconv.FormatInt(min(ttl, max(opts.MaxTTLMs, 0)), 10)), opts.Cache && ttlStart >= 0 && (!ttlExact || ttl > max(opts.MaxTTLMs, 0))},
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

// readTTL reads a ttlMs token: the whole milliseconds it allows, never
// negative (0 for anything that is not a finite non-negative number), and
// whether the token is exactly that integer written plainly — the only
// form passed on unchanged.
func readTTL(t jsontext.Token) (int64, bool) {
	text := t.String()
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && n >= 0 && text[0] != '-' {
		return n, true // jsontext has refused leading zeros and a plus sign
	}
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil || math.IsNaN(v) || v < 0:
		// Out of range (1e400) or negative: no caching at all.
		return 0, false
	case v >= math.MaxInt64:
		return math.MaxInt64, false
	}
	return int64(v), false
}

// readTools reads the tools array, fingerprinting every entry and charging
// what it decodes to charge, when set.
func readTools(dec *jsontext.Decoder, msg []byte, res *ListResult, charge func(int64) error, known *Known) error {
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("tools/list result tools: %w", err)
	}
	opts := tooldef.DecodeOptions{Charge: charge}
	for dec.PeekKind() != ']' {
		start := skipSeparators(msg, int(dec.InputOffset()))
		v, err := tooldef.DecodeValue(dec, opts)
		if err != nil {
			return fmt.Errorf("tools/list result tools[%d]: %w", len(res.Tools), err)
		}
		end := int(dec.InputOffset())
		l := Listed{Raw: msg[start:end:end]}
		cost := int64(listedOverhead)
		if kt, ok := known.get(l.Raw); ok {
			cost += int64(kt.canonicalLen)
			l.Name, l.Fingerprint = kt.name, kt.fingerprint
		} else if t, err := tooldef.ParseToolValue(v); err != nil {
			l.Err = err
			if obj, ok := v.(*tooldef.Object); ok {
				l.Name = obj.GetString("name")
			}
		} else {
			cost += int64(t.CanonicalLen())
			l.Name, l.Fingerprint = t.Name, t.Fingerprint()
			known.add(l.Raw, knownTool{name: l.Name, fingerprint: l.Fingerprint, canonicalLen: t.CanonicalLen()})
		}
		if charge != nil {
			if err := charge(cost + int64(len(l.Name))); err != nil {
				return fmt.Errorf("tools/list result tools[%d]: %w", len(res.Tools), err)
			}
		}
		res.Tools = append(res.Tools, l)
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("tools/list result tools: %w", err)
	}
	return nil
}
