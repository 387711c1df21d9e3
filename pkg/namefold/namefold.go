package namefold

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// The smallest rune of an ASCII letter's orbit is its upper case
		// ('K' before the Kelvin sign, 'S' before the long s).
		return strings.ToUpper(name)
	}
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		b.WriteRune(orbitMin(r))
	}
	return b.String()
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
	dec := jsontext.NewDecoder(bytes.NewReader(msg))
	c := checker{dec: dec}
	if err := c.value(top); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

type checker struct {
	dec *jsontext.Decoder
	// at is the path to the value being read, one segment a level, for
	// an error's Path; an index is its decimal text.
	at []segment
}

type segment struct {
	name  string
	index int // -1 for a member
}

func (c *checker) path() string {
	var b strings.Builder
	for _, s := range c.at {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escapePointer(s.name))
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

// seen is one member name of the object being read and its Key.
type seen struct{ name, key string }

func (c *checker) object(l *Level) error {
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	var small [8]seen
	names := small[:0]
	for c.dec.PeekKind() != '}' {
		tok, err := c.dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		key := Key(name)
		for _, s := range names {
			if s.key == key {
				return &Error{Path: c.path(), Name: name, Other: s.name}
			}
		}
		names = append(names, seen{name, key})
		var next *Level
		if l != nil {
			if d, ok := l.keys[key]; ok && d != name {
				return &Error{Path: c.path(), Name: name, Other: d, Defined: true}
			}
			next = l.Members[name]
		}
		c.at = append(c.at, segment{name: name, index: -1})
		if err := c.value(next); err != nil {
			return err
		}
		c.at = c.at[:len(c.at)-1]
	}
	_, err := c.dec.ReadToken()
	return err
}

// escapePointer escapes a member name for a JSON Pointer.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
