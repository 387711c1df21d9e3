package tooldef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// decode reads exactly one JSON value into the tree the rest of the
// package works on: *Object, []any, string, json.Number (the number as
// written), bool and nil.
//
// It uses the streaming tokenizer of the JSON v2 prototype rather than
// encoding/json for two reasons. It rejects what a fingerprint must not
// accept: invalid UTF-8, which encoding/json silently replaces, and
// duplicate member names, which different parsers resolve differently — a
// definition with two "description" members could show the model one text
// and the reviewer the other. And it is about twice as fast, which matters
// on a path that runs on every tools/list of every server.
//
// A string longer than maxString bytes (when maxString > 0) is refused with
// an error wrapping ErrTooLarge. A valid input is read directly rather than
// token by token (see fastDecode); the tokenizer reads any other and says
// what is wrong with it.
func decode(data []byte, maxString int) (any, error) {
	// A bytes.Buffer lets the tokenizer read data in place instead of
	// copying it into buffers of its own, and every string is copied into
	// a few large chunks rather than an allocation of its own (see
	// stringArena): decoding a catalogue costs a handful of allocations for
	// its strings instead of one or two per string. The chunks hold the
	// strings' bytes only, not the input's indentation and punctuation
	// (about half of a captured catalogue), and live as long as any string
	// decoded into them, which is the catalogue. Objects and their members
	// are made in slabs likewise (see objectSlabs).
	d := decoder{maxString: maxString, inputLen: len(data)}
	if v, ok := d.fastDecode(data); ok {
		return v, nil
	}
	// The tokenizer decides, and says what is wrong: the direct reader's
	// partial work is dropped.
	clear(d.members)
	clear(d.elems)
	d.members, d.elems, d.strs, d.slabs = d.members[:0], d.elems[:0], stringArena{}, objectSlabs{}
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	d.dec = dec
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, &offsetError{offset: dec.InputOffset(), msg: "unexpected data after the JSON value"}
		}
		return nil, err
	}
	return v, nil
}

// DecodeOptions bound DecodeValue.
type DecodeOptions struct {
	// MaxStringBytes refuses any longer string or member name with an
	// error wrapping ErrTooLarge; zero means no limit.
	MaxStringBytes int
	// Charge, when set, is told the estimated heap size of every value as
	// it is decoded, before the value is kept. An error from it stops the
	// decode and is returned unwrapped, so a caller can refuse a value it
	// has no memory for without allocating it first.
	Charge func(bytes int64) error
}

// The heap a decoded value costs, as Charge is told it, on a 64-bit
// platform: an interface slot per value; a string (or number) header boxed
// in it plus the bytes; an Object's header, and per member its name's
// header and value's slot with a slab's slack, and the name's bytes; a
// slice's header and its elements with append's slack. An estimate on the
// safe side, not an exact count.
const (
	costValue  = 16
	costString = 16
	costObject = 48
	costMember = 64
	costArray  = 24
	costElem   = 32
)

// DecodeValue reads the next JSON value from dec into the package's tree
// (*Object, []any, string, json.Number, bool and nil), refusing
// duplicate member names at every level (dec must not allow them, which
// is jsontext's default), values nested deeper than 128 levels and, with
// opts, long strings and values the caller has no budget for. It reads the
// value token by token, so a caller that streams dec from the network
// never holds the encoded value in memory.
func DecodeValue(dec *jsontext.Decoder, opts DecodeOptions) (any, error) {
	d := decoder{dec: dec, maxString: opts.MaxStringBytes, charge: opts.Charge}
	return d.value(0)
}

type decoder struct {
	dec       *jsontext.Decoder
	maxString int
	charge    func(int64) error
	// inputLen, when set, is the length of a whole input held in memory:
	// its strings are then copied into strs, sized from what is left of
	// the input, rather than allocated one by one. A stream, whose length
	// is unknown, allocates each.
	inputLen int
	strs     stringArena
	// members and elems are stacks shared by every object and array of the
	// value: an object's members are gathered and sorted here first (the
	// direct reader keeps a small object's on the goroutine's stack) and
	// copied once into the object's run; likewise an array's elements.
	// They live as long as one decode, so the direct reader leaves what it
	// pops in place rather than clearing it.
	members []Member
	elems   []any
	// slabs is where the value's objects and their members are made.
	slabs objectSlabs
	// unquoted is scratch for unescaping strings.
	unquoted []byte
	// data and pos are the input and the place in it of the direct
	// reader (see fastDecode).
	data []byte
	pos  int
}

// Boxed values of the strings that fill most schemas ("type": "string",
// and the "$schema" that generators write into every schema): a string
// stored in an interface costs an allocation unless it is one of these.
var (
	boxedString  any = "string"
	boxedObject  any = "object"
	boxedInteger any = "integer"
	boxedNumber  any = "number"
	boxedBoolean any = "boolean"
	boxedArray   any = "array"
	boxedNull    any = "null"
	boxedDraft7  any = draft7
	boxedDraft12 any = draft202012
)

const (
	draft7      = "http://json-schema.org/draft-07/schema#"
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
)

func box(s string) any {
	switch s {
	case "string":
		return boxedString
	case "object":
		return boxedObject
	case "integer":
		return boxedInteger
	case "number":
		return boxedNumber
	case "boolean":
		return boxedBoolean
	case "array":
		return boxedArray
	case "null":
		return boxedNull
	case draft7:
		return boxedDraft7
	case draft202012:
		return boxedDraft12
	}
	return s
}

// boxedConstant returns the box of a string boxed once, given its bytes,
// and nil for any other string.
func boxedConstant(b []byte) any {
	switch len(b) {
	case 4:
		if string(b) == "null" {
			return boxedNull
		}
	case 5:
		if string(b) == "array" {
			return boxedArray
		}
	case 6:
		switch {
		case string(b) == "string":
			return boxedString
		case string(b) == "object":
			return boxedObject
		case string(b) == "number":
			return boxedNumber
		}
	case 7:
		switch {
		case string(b) == "integer":
			return boxedInteger
		case string(b) == "boolean":
			return boxedBoolean
		}
	case len(draft7):
		if string(b) == draft7 {
			return boxedDraft7
		}
	case len(draft202012):
		if string(b) == draft202012 {
			return boxedDraft12
		}
	}
	return nil
}

func (d *decoder) take(n int64) error {
	if d.charge == nil {
		return nil
	}
	return d.charge(n)
}

// readString reads the next token, known to be a string (a member name or
// a value), and returns it unescaped.
func (d *decoder) readString() (string, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return "", err
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		// No escapes: the string is its bytes between the quotes (the
		// tokenizer has checked they are valid UTF-8).
		return d.keep(inner, d.inputLen-int(d.dec.InputOffset())), nil
	}
	d.unquoted, err = jsontext.AppendUnquote(d.unquoted[:0], raw)
	if err != nil {
		return "", err
	}
	return d.keep(d.unquoted, d.inputLen-int(d.dec.InputOffset())), nil
}

// keep returns b as a string: copied into the arena when the input is
// held whole, with rest bytes of it still to read; allocated on its own
// otherwise.
func (d *decoder) keep(b []byte, rest int) string {
	if d.inputLen == 0 {
		return string(b)
	}
	return d.strs.add(b, d.inputLen-rest, rest)
}

// stringArena copies decoded strings into a few large chunks. A string is
// a slice of the chunk it was written to, and a chunk's bytes are never
// written again once a string covers them (a strings.Builder only
// appends), so a chunk that lacks room is simply left to the strings
// already sliced from it and a new one begun.
//
// Copying as the reader goes spares a first pass over the input to find
// every string literal, so that one string could be allocated at their
// exact total, and the check of each string against its place there: a
// quarter of decoding the corpus. The first chunk is a quarter of the
// input, or three quarters of an input of a few kilobytes (one tool's
// compact bytes, mostly strings, which then most often fit); the next is
// sized for what is left of the input at the share of strings in what was
// read, and an eighth more. A captured catalogue's strings are about two
// fifths of its bytes: it takes two chunks or three, and the last leaves
// little unused. (Chunks of a fixed share of what is left took more
// allocations for a tool's bytes, or left more of a catalogue's last chunk
// unused.)
type stringArena struct {
	b strings.Builder
	// used is the bytes of strings written so far, in every chunk.
	used int
}

// minChunk is the least a chunk is allocated at, so that the end of an
// input does not begin a chunk for every few bytes.
const minChunk = 128

// smallInput is the size up to which an input is taken to be one tool's
// compact bytes, mostly strings, whose first chunk is three quarters of it.
const smallInput = 8 << 10

// add returns a string holding b's bytes, read bytes of input having been
// read up to the end of it and rest being left.
func (a *stringArena) add(b []byte, read, rest int) string {
	if len(b) == 0 {
		return ""
	}
	if a.b.Cap()-a.b.Len() < len(b) {
		size := (read + rest) / 4
		if read+rest <= smallInput {
			size = (read + rest) * 3 / 4
		}
		if a.used > 0 && read > 0 {
			size = int(int64(rest)*int64(a.used)/int64(read)) * 9 / 8
		}
		a.b = strings.Builder{}
		a.b.Grow(max(len(b), size, minChunk))
	}
	a.used += len(b)
	n := a.b.Len()
	a.b.Write(b)
	return a.b.String()[n:]
}

func (d *decoder) value(depth int) (any, error) {
	dec := d.dec
	if depth > maxDepth {
		return nil, &offsetError{offset: dec.InputOffset(), msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	if dec.PeekKind() == '"' {
		str, err := d.readString()
		if err != nil {
			return nil, err
		}
		if err := d.checkString(str); err != nil {
			return nil, err
		}
		if err := d.take(costValue + costString + int64(len(str))); err != nil {
			return nil, err
		}
		return box(str), nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		if err := d.take(costValue + costObject); err != nil {
			return nil, err
		}
		base := len(d.members)
		for dec.PeekKind() != '}' {
			key, err := d.readString()
			if err != nil {
				return nil, err
			}
			if err := d.checkString(key); err != nil {
				return nil, err
			}
			if err := d.take(costMember + int64(len(key))); err != nil {
				return nil, err
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			d.members = append(d.members, Member{key, v})
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		// The tokenizer has refused a name given twice.
		ms := d.members[base:]
		sortMembers(ms)
		o := d.slabs.object(ms, anyNonASCII(ms))
		clear(ms)
		d.members = d.members[:base]
		return o, nil
	case '[':
		if err := d.take(costValue + costArray); err != nil {
			return nil, err
		}
		base := len(d.elems)
		for dec.PeekKind() != ']' {
			if err := d.take(costElem); err != nil {
				return nil, err
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			d.elems = append(d.elems, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		a := d.slabs.array(d.elems[base:])
		clear(d.elems[base:])
		d.elems = d.elems[:base]
		return a, nil
	case '0':
		num := tok.String()
		if err := d.take(costValue + costString + int64(len(num))); err != nil {
			return nil, err
		}
		return json.Number(num), nil
	case 't':
		return true, d.take(costValue)
	case 'f':
		return false, d.take(costValue)
	case 'n':
		return nil, d.take(costValue)
	}
	return nil, &offsetError{offset: dec.InputOffset(), msg: "unexpected JSON token"}
}

func (d *decoder) checkString(s string) error {
	if d.maxString > 0 && len(s) > d.maxString {
		return &offsetError{offset: d.dec.InputOffset(), msg: fmt.Sprintf("a string of %d bytes, over the limit of %d", len(s), d.maxString), err: ErrTooLarge}
	}
	return nil
}

// offsetError is a decoding error at a byte offset.
type offsetError struct {
	offset int64
	msg    string
	err    error
}

// Error is the message alone: err only classifies it (ErrTooLarge).
func (e *offsetError) Error() string { return e.msg }

func (e *offsetError) Unwrap() error { return e.err }

func mustOffset(err error) int64 {
	off, _ := errorOffset(err)
	return off
}

// errorOffset returns the byte offset a decoding error names, if any.
func errorOffset(err error) (int64, bool) {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return syn.ByteOffset, true
	}
	var off *offsetError
	if errors.As(err, &off) {
		return off.offset, true
	}
	return 0, false
}
