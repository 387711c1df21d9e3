package argcheck

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxArgumentDepth is how deeply arguments may nest (objects and arrays,
// the arguments object itself counting as one). Deeper arguments are
// refused: the bound keeps a check's cost proportional to the arguments'
// size for every schema Compile accepts.
const MaxArgumentDepth = 64

// maxNumberLen bounds a number literal that needs exact arithmetic to be
// read; no float64 needs more digits than this.
const maxNumberLen = 400

var (
	errNotObject     = errors.New("not a JSON object")
	errNoInputSchema = errors.New("tool definition has no inputSchema")
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// decodeArguments reads the arguments into the values jsonschema-go
// validates: map[string]any, []any, string, bool, nil, and for numbers
// int64, uint64 or float64 as decodeNumber chooses.
func decodeArguments(raw []byte) (map[string]any, *Error) {
	if raw == nil {
		return map[string]any{}, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if dec.PeekKind() != '{' {
		if _, err := dec.ReadToken(); err != nil {
			return nil, refuse("", "arguments are not valid JSON")
		}
		return nil, refuse("", "arguments must be a JSON object")
	}
	v, e := decodeValue(dec, "")
	if e != nil {
		return nil, e
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, refuse("", "arguments are not valid JSON")
	}
	return v.(map[string]any), nil
}

func decodeValue(dec *jsontext.Decoder, p string) (any, *Error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, refuse("", "arguments are not valid JSON")
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 'f', 't':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		n, ok := decodeNumber(tok.String())
		if !ok {
			return nil, refuse(p, "number cannot be checked exactly")
		}
		return n, nil
	case '{':
		if dec.StackDepth() > MaxArgumentDepth {
			return nil, refuse(p, "nested too deeply")
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, refuse("", "arguments are not valid JSON")
			}
			k := name.String()
			v, e := decodeValue(dec, pointer(p, k))
			if e != nil {
				return nil, e
			}
			m[k] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, refuse("", "arguments are not valid JSON")
		}
		return m, nil
	case '[':
		if dec.StackDepth() > MaxArgumentDepth {
			return nil, refuse(p, "nested too deeply")
		}
		a := []any{}
		for dec.PeekKind() != ']' {
			v, e := decodeValue(dec, index(p, len(a)))
			if e != nil {
				return nil, e
			}
			a = append(a, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, refuse("", "arguments are not valid JSON")
		}
		return a, nil
	}
	return nil, refuse("", "arguments are not valid JSON")
}

// decodeNumber reads a JSON number literal so that the type and value
// jsonschema-go sees keep the literal's meaning:
//
//   - an integer (in whatever notation: 7, 7.0, 7e0) in the int64 or uint64
//     range is an int64 or uint64, exactly;
//   - any other integer must be exactly a float64, or it is refused (rounding
//     it could move it across a bound or onto an enum value);
//   - a number with a fractional part is the nearest float64, unless that
//     float64 is an integer (1.0000000000000001, 1e-400): then it is refused,
//     since rounding would make it pass "type": "integer";
//   - a number beyond the float64 range is refused.
func decodeNumber(lit string) (any, bool) {
	if len(lit) <= 18 && !strings.ContainsAny(lit, ".eE") {
		i, err := strconv.ParseInt(lit, 10, 64)
		return i, err == nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	if f != math.Trunc(f) {
		// Not an integer as a float64, so not an integer as written either:
		// every integer below 2^53 is a float64, and every float64 above is
		// an integer.
		return f, true
	}
	if len(lit) > maxNumberLen {
		return nil, false
	}
	if e := strings.IndexAny(lit, "eE"); e >= 0 && len(strings.TrimLeft(lit[e+1:], "+-")) > 3 {
		return nil, false // |exponent| ≥ 1000: out of float64 range, or underflowed to 0
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil, false
	}
	if !r.IsInt() {
		return nil, false
	}
	n := r.Num()
	if n.IsInt64() {
		return n.Int64(), true
	}
	if n.IsUint64() {
		return n.Uint64(), true
	}
	if _, exact := r.Float64(); !exact {
		return nil, false
	}
	return f, true
}
