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
	d := decoder{dec: dec, maxString: maxString}
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

type decoder struct {
	dec       *jsontext.Decoder
	maxString int
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
		a := []any{}
		for dec.PeekKind() != ']' {
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
		return str, nil
	case '0':
		return json.Number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
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
