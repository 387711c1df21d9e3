package argfloor

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/pkg/clip"
)

// Signal names what in a call's arguments raised its level.
type Signal string

const (
	// SignalReach is a widened reach: a wildcard, "all", an empty selector
	// or an always-true condition, an all-namespaces, recursive or cascade
	// flag: one call acting on everything in a scope.
	SignalReach Signal = "widened-reach"
	// SignalForce is a forced change or a skipped safety check: force,
	// overwrite, hard, prune, no-verify, skip-validation, auto-approve.
	SignalForce Signal = "force"
	// SignalStatement is a statement that writes, in a parameter that
	// carries statements (SQL, Cypher): a drop, a delete of every row, a
	// grant, an insert.
	SignalStatement Signal = "statement"
)

var signalOrder = [...]Signal{SignalReach, SignalForce, SignalStatement}

func (s Signal) index() int {
	switch s {
	case SignalForce:
		return 1
	case SignalStatement:
		return 2
	}
	return 0
}

// Signals returns the signals the plan looks for, in a fixed order.
func (p *Plan) Signals() []Signal {
	if p.Empty() {
		return nil
	}
	var out []Signal
	for i, s := range signalOrder {
		if p.signals&(1<<i) != 0 {
			out = append(out, s)
		}
	}
	return out
}

// Floor is one level a call's arguments raise it to: the gate takes the
// highest of its floors and the tool's pinned level.
type Floor struct {
	// Signal is what raised the level.
	Signal Signal `json:"signal"`
	// Path is where in the arguments: "force", "options.recursive",
	// "args[2]".
	Path string `json:"path"`
	// Level is the level the call is raised to: "L3", "L4" or "L5".
	Level string `json:"level"`
	// Detail says what was found, in at most MaxDetail bytes, for the
	// audit line and the person asked to approve; a long value is never
	// echoed whole.
	Detail string `json:"detail"`
}

// MaxDetail bounds Floor.Detail, in bytes.
const MaxDetail = 64

// MaxPath bounds Floor.Path, in bytes: a path is the schema's names, and
// the names a call gives the options of a flag map.
const MaxPath = 128

// maxFloors bounds the floors of one call: past it, a floor is kept only
// in place of a less grave one, so the call's level is still its worst.
const maxFloors = 16

// Levels of the ladder a floor raises to.
const (
	l3 = 3
	l4 = 4
	l5 = 5
)

func levelName(l int) string { return "L" + strconv.Itoa(l) }

// mild reports a category that changes nothing: read, observe, utility.
// An empty or unknown category is taken as a change, the worse case.
func mild(category string) bool {
	switch category {
	case "read", "observe", "utility":
		return true
	}
	return false
}

// Evaluate looks at one call's arguments (the JSON object as sent; empty
// means {}) and returns the floors it meets, in the order of the
// arguments, one per signal and path at the highest level found there.
// category is the tool's pinned category; it sets the level of a reach or
// a force on a tool that changes nothing. Arguments that are not valid
// JSON are read up to the first error: what was found before counts.
// Evaluate of an empty plan reads nothing.
func (p *Plan) Evaluate(arguments []byte, category string) []Floor {
	if p.Empty() || len(arguments) == 0 {
		return nil
	}
	e := evaluators.Get().(*evaluator)
	defer e.release()
	// A bytes.Buffer lets the decoder read the arguments in place.
	e.buf = *bytes.NewBuffer(arguments)
	e.dec.Reset(&e.buf, decodeOptions...)
	_ = e.value(p.root)
	return e.settle(p, mild(category))
}

// settle turns the floors found into the call's floors, now that the
// whole call has been read: a force or a reach weighs less on a call that
// changes nothing — a tool of a mild category, or a call whose operation
// reads (mode: "list") — than on one that changes state.
func (e *evaluator) settle(p *Plan, mild bool) []Floor {
	if len(e.found) == 0 {
		return nil
	}
	if !e.operation && p.readByDefault {
		e.operationRead = true
	}
	mild = mild || e.operationRead
	var out []Floor
	for _, f := range e.found {
		level := f.severe
		if mild {
			level = f.mild
		}
		if level > 0 {
			out = append(out, Floor{Signal: f.signal, Path: f.path, Level: levelName(level), Detail: f.detail})
		}
	}
	return out
}

// evaluator is the scratch space of one Evaluate, pooled: the decoder,
// the path of the value being read and the buffers its strings are
// unquoted into.
type evaluator struct {
	dec   *jsontext.Decoder
	buf   bytes.Buffer
	path  []segment
	key   []byte
	arg   []byte
	unq   []byte
	sql   sqlScratch
	found []found
	// operation says the call named its operation; operationRead, that
	// the operation reads.
	operation, operationRead bool
}

// found is a floor met, with its level on a call that changes nothing and
// on one that changes state (0: none).
type found struct {
	signal       Signal
	path         string
	mild, severe int
	detail       string
}

// segment is one step of a path: a member name or an array index.
type segment struct {
	name  string
	index int
}

var evaluators = sync.Pool{New: func() any {
	e := &evaluator{}
	e.dec = jsontext.NewDecoder(&e.buf)
	return e
}}

// decodeOptions read a call as a lenient server would: a duplicated name
// is read twice (either copy may be the one the server keeps), and
// invalid UTF-8 does not stop the reading.
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// release returns e to the pool without the arguments it read or the
// floors it returned.
func (e *evaluator) release() {
	e.buf = bytes.Buffer{}
	e.dec.Reset(&e.buf)
	e.path = e.path[:0]
	e.found = e.found[:0]
	e.operation, e.operationRead = false, false
	if cap(e.unq) > 1<<16 || cap(e.arg) > 1<<16 {
		e.unq, e.arg = nil, nil
	}
	e.sql.release()
	evaluators.Put(e)
}

// graver reports whether a raises a call higher than b, on a call that
// changes state and then on one that changes nothing.
func graver(a, b found) bool {
	if a.severe != b.severe {
		return a.severe > b.severe
	}
	return a.mild > b.mild
}

// fire records a floor at the current path, at its level on a call that
// changes nothing and on one that changes state; where the same signal
// already fired, the higher levels are kept.
func (e *evaluator) fire(s Signal, mild, severe int, detail string) {
	path := e.renderPath()
	for i := range e.found {
		f := &e.found[i]
		if f.signal == s && f.path == path {
			if severe > f.severe {
				f.severe, f.detail = severe, clip.String(detail, MaxDetail)
			}
			f.mild = max(f.mild, mild)
			return
		}
	}
	f := found{signal: s, path: path, mild: mild, severe: severe, detail: clip.String(detail, MaxDetail)}
	if len(e.found) < maxFloors {
		e.found = append(e.found, f)
		return
	}
	// Full: the floor replaces the least grave one kept, if it is graver,
	// so that many mild findings placed first never hide a grave one.
	least := 0
	for i := range e.found {
		if graver(e.found[least], e.found[i]) {
			least = i
		}
	}
	if graver(f, e.found[least]) {
		e.found[least] = f
	}
}

func (e *evaluator) renderPath() string {
	var b []byte
	for i, s := range e.path {
		if s.name == "" {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, s.name...)
	}
	return clip.String(string(b), MaxPath)
}

// quoteValue is a value as a detail shows it: quoted, and clipped so the
// detail stays within MaxDetail.
func quoteValue(v []byte) string {
	return strconv.Quote(clip.String(string(v), MaxDetail/2))
}
