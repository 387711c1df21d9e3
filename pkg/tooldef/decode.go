package tooldef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// decode reads exactly one JSON value into the tree the rest of the
// package works on: map[string]any, []any, string, json.Number (the number
// as written), bool and nil.
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
// an error wrapping ErrTooLarge.
func decode(data []byte, maxString int) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := DecodeValue(dec, DecodeOptions{MaxStringBytes: maxString})
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
// in it plus the bytes; a map's header, and per member its slot in a Swiss
// table at the load factor, growth slack and the name's bytes; a slice's
// header and its elements with append's slack. An estimate on the safe
// side, not an exact count.
const (
	costValue  = 16
	costString = 16
	costObject = 48
	costMember = 64
	costArray  = 24
	costElem   = 32
)

// DecodeValue reads the next JSON value from dec into the package's tree
// (map[string]any, []any, string, json.Number, bool and nil), refusing
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
}

func (d *decoder) take(n int64) error {
	if d.charge == nil {
		return nil
	}
	return d.charge(n)
}

func (d *decoder) value(depth int) (any, error) {
	dec := d.dec
	if depth > maxDepth {
		return nil, &offsetError{offset: dec.InputOffset(), msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
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
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			// The token is only valid until the next read.
			key := k.String()
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
			m[key] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		if err := d.take(costValue + costArray); err != nil {
			return nil, err
		}
		a := []any{}
		for dec.PeekKind() != ']' {
			if err := d.take(costElem); err != nil {
				return nil, err
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return a, nil
	case '"':
		str := tok.String()
		if err := d.checkString(str); err != nil {
			return nil, err
		}
		if err := d.take(costValue + costString + int64(len(str))); err != nil {
			return nil, err
		}
		return str, nil
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
