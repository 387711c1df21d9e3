package namefold

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Key is name folded with Unicode simple case folding: every rune is
// replaced by the smallest rune of its folding orbit (unicode.SimpleFold),
// so two names a case-insensitive decoder matches have the same Key. It
// is a superset of what encoding/json matches (upper case of lower case),
// and of ASCII case-insensitivity.
func Key(name string) string {
	var buf [64]byte
	return string(appendKey(buf[:0], []byte(name)))
}

func orbitMin(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

// Level is what a protocol defines in one object of a message: the names
// of its members, and the levels of their values.
type Level struct {
	// Members maps each defined member name to the Level of its value: an
	// object's, or, for an array, its elements' (nil: the value is walked
	// for colliding names only).
	Members map[string]*Level
	// keys maps Key(name) to name for every defined member; built by
	// NewLevel.
	keys map[string]string
}

// NewLevel is a Level defining members, each with the level of its value
// (nil for none).
func NewLevel(members map[string]*Level) *Level {
	l := &Level{Members: members, keys: make(map[string]string, len(members))}
	for name := range members {
		l.keys[Key(name)] = name
	}
	return l
}

// Names returns a Level defining the given members, none of whose values
// has a level of its own.
func Names(names ...string) *Level {
	m := make(map[string]*Level, len(names))
	for _, n := range names {
		m[n] = nil
	}
	return NewLevel(m)
}

// Error is a message that two decoders would read differently.
type Error struct {
	// Path is where the member is, as a JSON Pointer (RFC 6901) to its
	// object.
	Path string
	// Name is the offending member's name; Other is the member or defined
	// name it folds to.
	Name, Other string
	// Defined says Other is a name the protocol defines at Path, not a
	// sibling member.
	Defined bool
}

func (e *Error) Error() string {
	where := e.Path
	if where == "" {
		where = "/"
	}
	if e.Defined {
		return fmt.Sprintf("member %q at %s is %q but for case: a case-insensitive decoder reads it as that member", e.Name, where, e.Other)
	}
	return fmt.Sprintf("members %q and %q at %s have one name to a case-insensitive decoder", e.Other, e.Name, where)
}

// ErrAmbiguous is what every *Error matches with errors.Is.
var ErrAmbiguous = errors.New("member names a case-insensitive decoder reads another way")

// Is makes errors.Is(err, ErrAmbiguous) true for every *Error.
func (e *Error) Is(target error) bool { return target == ErrAmbiguous }

// Check reads one JSON value and reports the first member name that breaks
// the rule (an *Error), or an error for input that is not one JSON value.
// top is the Level of the value when it is an object (nil: colliding
// names only).
func Check(msg []byte, top *Level) error {
	c := checkers.Get().(*checker)
	defer c.release()
	c.rd.Reset(msg)
	c.dec.Reset(&c.rd)
	if err := c.value(top); err != nil {
		return err
	}
	if _, err := c.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

var checkers = sync.Pool{New: func() any { return &checker{dec: jsontext.NewDecoder(bytes.NewReader(nil))} }}

// checker reads one message. Names and their keys are written into one
// arena, reused from message to message, so that a message of small
// objects costs no allocation.
type checker struct {
	rd  bytes.Reader
	dec *jsontext.Decoder
	// at is the path to the value being read, one segment a level, for
	// an error's Path.
	at []segment
	// arena holds the names (unescaped) and keys of the members of every
	// object open on the path; names indexes them.
	arena []byte
	names []span
}

type segment struct {
	name  span
	index int // -1 for a member
}

// span is a member's name and Key, as offsets into the arena.
type span struct{ name, key [2]int }

func (c *checker) release() {
	c.rd.Reset(nil)
	c.dec.Reset(&c.rd)
	c.at, c.names = c.at[:0], c.names[:0]
	if cap(c.arena) > 64<<10 {
		c.arena = nil
	}
	c.arena = c.arena[:0]
	checkers.Put(c)
}

func (c *checker) str(r [2]int) string { return string(c.arena[r[0]:r[1]]) }

func (c *checker) path() string {
	var b strings.Builder
	for _, s := range c.at {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escapePointer(c.str(s.name.name)))
		}
	}
	return b.String()
}

func (c *checker) value(l *Level) error {
	switch c.dec.PeekKind() {
	case '{':
		return c.object(l)
	case '[':
		if _, err := c.dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; c.dec.PeekKind() != ']'; i++ {
			c.at = append(c.at, segment{index: i})
			if err := c.value(l); err != nil {
				return err
			}
			c.at = c.at[:len(c.at)-1]
		}
		_, err := c.dec.ReadToken()
		return err
	default:
		return c.dec.SkipValue()
	}
}

func (c *checker) object(l *Level) error {
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	first, arenaMark := len(c.names), len(c.arena)
	for c.dec.PeekKind() != '}' {
		raw, err := c.dec.ReadValue()
		if err != nil {
			return err
		}
		var sp span
		sp.name[0] = len(c.arena)
		if c.arena, err = jsontext.AppendUnquote(c.arena, raw); err != nil {
			return err
		}
		sp.name[1] = len(c.arena)
		sp.key[0] = len(c.arena)
		c.arena = appendKey(c.arena, c.arena[sp.name[0]:sp.name[1]])
		sp.key[1] = len(c.arena)
		key := c.arena[sp.key[0]:sp.key[1]]
		for _, s := range c.names[first:] {
			if bytes.Equal(c.arena[s.key[0]:s.key[1]], key) {
				return &Error{Path: c.path(), Name: c.str(sp.name), Other: c.str(s.name)}
			}
		}
		c.names = append(c.names, sp)
		var next *Level
		if l != nil {
			if d, ok := l.keys[string(key)]; ok && d != string(c.arena[sp.name[0]:sp.name[1]]) {
				return &Error{Path: c.path(), Name: c.str(sp.name), Other: d, Defined: true}
			}
			next = l.Members[string(c.arena[sp.name[0]:sp.name[1]])]
		}
		c.at = append(c.at, segment{name: sp, index: -1})
		if err := c.value(next); err != nil {
			return err
		}
		c.at = c.at[:len(c.at)-1]
	}
	c.names, c.arena = c.names[:first], c.arena[:arenaMark]
	_, err := c.dec.ReadToken()
	return err
}

// AppendKey appends Key(name) to dst.
func AppendKey(dst, name []byte) []byte { return appendKey(dst, name) }

func appendKey(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		b := name[i]
		if b < utf8.RuneSelf {
			if 'a' <= b && b <= 'z' {
				b -= 'a' - 'A'
			}
			dst = append(dst, b)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, orbitMin(r))
		i += n
	}
	return dst
}

// escapePointer escapes a member name for a JSON Pointer.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
