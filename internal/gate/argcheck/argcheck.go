package argcheck

import (
	"container/list"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultEntries is the number of compiled schemas a Checker keeps when
// NewChecker is given no positive bound: a gate serves up to a few thousand
// tools, and one more compilation after an eviction costs far less than a
// call's round trip.
const DefaultEntries = 4096

// maxArgumentLen bounds Error.Argument: an argument name comes from the
// agent, and a refusal must stay a short message.
const maxArgumentLen = 256

// Error is why a call's arguments are refused. It never carries an
// argument's value, only where it is and what rule it breaks.
type Error struct {
	// Argument is the JSON Pointer (RFC 6901) of the offending value within
	// the arguments: "/path" for the top-level argument "path",
	// "/paths/0" for the first item of an array argument. It is "" when the
	// arguments as a whole are at fault. At most 256 bytes; a longer pointer
	// is cut at a character boundary and ends in "…".
	Argument string
	// Reason says in a few words which rule the value breaks: "unknown
	// argument", "wrong type: want string, got number", "missing required
	// argument", "not one of the allowed values", …
	Reason string

	cause error // why a pinned schema cannot be checked, for logs; never an argument value
}

// Error formats e for a JSON-RPC invalid-params message.
func (e *Error) Error() string {
	if e.Argument == "" {
		return "invalid arguments: " + e.Reason
	}
	return "invalid argument " + strconv.Quote(e.Argument) + ": " + e.Reason
}

// Unwrap returns the library's account of why a pinned schema could not be
// compiled, if that is what e reports; nil otherwise. It is meant for the
// gate's logs, never for the agent.
func (e *Error) Unwrap() error { return e.cause }

// Checker checks tools/call arguments against pinned input schemas. It
// compiles each schema once, keyed by the tool's fingerprint, and keeps the
// most recently used compiled schemas, at most its bound. It is safe for
// concurrent use; the zero value is not usable, call NewChecker.
type Checker struct {
	max int

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry
	lru     *list.List               // front is most recently used

	compiles int // compilations started; read by tests
}

type entry struct {
	fingerprint string
	once        sync.Once
	schema      *compiled
	err         *Error
}

// NewChecker returns a Checker that keeps at most maxEntries compiled
// schemas (DefaultEntries if maxEntries <= 0).
func NewChecker(maxEntries int) *Checker {
	if maxEntries <= 0 {
		maxEntries = DefaultEntries
	}
	return &Checker{max: maxEntries, entries: map[string]*list.Element{}, lru: list.New()}
}

// Compile compiles the input schema pinned under fingerprint, unless it is
// already compiled, and reports whether calls can be checked against it: a
// non-nil *Error means every call to that tool will be refused. The gate may
// call it when it observes the pinned definition in a tools/list, so that a
// schema it cannot check is logged before the first call.
func (c *Checker) Compile(fingerprint string, inputSchema []byte) error {
	if e := c.compiled(fingerprint, func() []byte { return inputSchema }); e.err != nil {
		return e.err
	}
	return nil
}

// Check returns nil if arguments (the raw JSON of a tools/call's
// params.arguments; nil when absent) are allowed by the input schema pinned
// under fingerprint, and an *Error otherwise. inputSchema is called only
// when no compiled schema is cached for fingerprint, and must return the
// raw inputSchema of the tool definition that has that fingerprint (see
// InputSchema). Check never calls the network.
func (c *Checker) Check(fingerprint string, inputSchema func() []byte, arguments []byte) error {
	e := c.compiled(fingerprint, inputSchema)
	if e.err != nil {
		return e.err
	}
	if err := e.schema.check(arguments); err != nil {
		return err
	}
	return nil
}

// compiled returns the cache entry for fingerprint, compiling it on first
// use. Concurrent callers for one fingerprint wait for a single compilation.
func (c *Checker) compiled(fingerprint string, inputSchema func() []byte) *entry {
	c.mu.Lock()
	el, ok := c.entries[fingerprint]
	if ok {
		c.lru.MoveToFront(el)
	} else {
		el = c.lru.PushFront(&entry{fingerprint: fingerprint})
		c.entries[fingerprint] = el
		for c.lru.Len() > c.max {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.entries, old.Value.(*entry).fingerprint)
		}
	}
	e := el.Value.(*entry)
	c.mu.Unlock()

	e.once.Do(func() {
		c.mu.Lock()
		c.compiles++
		c.mu.Unlock()
		e.schema, e.err = compile(inputSchema())
	})
	return e
}

// InputSchema returns the raw bytes of the inputSchema member of a tool
// definition as a tools/list result carries it, or an error if rawTool is
// not a JSON object or has no inputSchema. Duplicate member names and
// invalid UTF-8 are errors, as they are for the gate's readers.
func InputSchema(rawTool []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytesReader(rawTool))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errNotObject
	}
	var found jsontext.Value
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		isSchema := name.String() == "inputSchema" // name is void after the next read
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if isSchema {
			found = v.Clone()
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if found == nil {
		return nil, errNoInputSchema
	}
	return found, nil
}

// pointer appends the JSON Pointer token for name to p.
func pointer(p, name string) string {
	b := make([]byte, 0, len(p)+1+len(name))
	b = append(b, p...)
	b = append(b, '/')
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, name[i])
		}
	}
	return string(b)
}

func index(p string, i int) string { return p + "/" + strconv.Itoa(i) }

// refuse builds the Error for the value at p, bounding p.
func refuse(p, reason string) *Error {
	if len(p) > maxArgumentLen {
		cut := maxArgumentLen - len("…")
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p = p[:cut] + "…"
	}
	return &Error{Argument: p, Reason: reason}
}
