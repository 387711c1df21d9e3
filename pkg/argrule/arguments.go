package argrule

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// MaxArgumentBytes is the size of the largest arguments DecodeArguments
// accepts. The gate refuses larger calls before any rule runs, and the cost
// estimate of an expression (CostBudget) assumes no value is larger.
const MaxArgumentBytes = 1 << 20

// MaxArgumentDepth is how deeply arguments may nest, the arguments object
// itself counting as one: the gate's schema check refuses deeper ones too.
const MaxArgumentDepth = 64

// maxExactInteger is 2^53, up to which a float64 holds every integer: a
// number written with a fraction or an exponent is read as an int only up
// to it.
const maxExactInteger = 1 << 53

// Arguments are a call's arguments as rules read them: decoded once per call
// and shared, read-only, by every rule evaluated against it. The zero value
// is no arguments ({}).
type Arguments struct {
	val ref.Val
}

var emptyArguments = types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{})

// value is the arguments as the CEL value of args.
func (a Arguments) value() ref.Val {
	if a.val == nil {
		return emptyArguments
	}
	return a.val
}

var errNotObject = errors.New("arguments are not a JSON object")

// DecodeArguments reads a tools/call's raw "arguments" into the values the
// variable args holds. Absent (empty) or null arguments are {}. Anything
// else must be a JSON object of at most MaxArgumentBytes, nesting at most
// MaxArgumentDepth deep, without repeated member names or invalid UTF-8.
//
// JSON values become CEL values as follows: an object is a
// map(string, dyn), an array a list(dyn), a string a string, true and false
// a bool, null null. A number is an int when it is an integer: written
// without fraction or exponent and within int64, or written with them and
// read as a double that is integral and at most 2^53 in magnitude (5.0,
// 1e3). Any other number is the nearest double.
//
// The values are converted to CEL's representation here, once, so that no
// rule pays for it again.
func DecodeArguments(raw []byte) (Arguments, error) {
	if len(raw) > MaxArgumentBytes {
		return Arguments{}, fmt.Errorf("arguments are larger than %d bytes", MaxArgumentBytes)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Arguments{}, nil
	}
	if raw[0] != '{' {
		return Arguments{}, errNotObject
	}
	// A Buffer is parsed in place, without a copy. Repeated member names
	// are found by decodeValue, which holds the names anyway.
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true))
	v, err := decodeValue(dec)
	if err != nil {
		return Arguments{}, fmt.Errorf("reading arguments: %w", err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return Arguments{}, errors.New("reading arguments: data after the arguments object")
	}
	return Arguments{val: v}, nil
}

func decodeValue(dec *jsontext.Decoder) (ref.Val, error) {
	if dec.PeekKind() == '0' {
		// Read raw, so that an integer is parsed without a string.
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		return decodeNumber(v)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return types.NullValue, nil
	case 't', 'f':
		return types.Bool(tok.Bool()), nil
	case '"':
		return types.String(tok.String()), nil
	case '{':
		if dec.StackDepth() > MaxArgumentDepth {
			return nil, fmt.Errorf("nested more than %d deep", MaxArgumentDepth)
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the decoder moves on and voids tok
			if _, repeated := m[name]; repeated {
				return nil, fmt.Errorf("member name %q is repeated", name)
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return types.NewStringInterfaceMap(types.DefaultTypeAdapter, m), nil
	case '[':
		if dec.StackDepth() > MaxArgumentDepth {
			return nil, fmt.Errorf("nested more than %d deep", MaxArgumentDepth)
		}
		l := make([]ref.Val, 0, 4)
		for dec.PeekKind() != ']' {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return types.NewRefValList(types.DefaultTypeAdapter, l), nil
	}
	return nil, fmt.Errorf("unexpected %v", tok.Kind())
}

// decodeNumber reads a JSON number literal as DecodeArguments describes.
func decodeNumber(lit []byte) (ref.Val, error) {
	if i, ok := parseInt(lit); ok {
		return types.Int(i), nil
	}
	text := string(lit)
	if !strings.ContainsAny(text, ".eE") {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return types.Int(i), nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && math.IsInf(f, 0) {
		return nil, errors.New("a number is beyond the range of a double")
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExactInteger {
		return types.Int(int64(f)), nil
	}
	return types.Double(f), nil
}

// parseInt reads a literal of at most 18 digits, and nothing else, which
// any int64 holds: most numbers in arguments, read without allocating.
func parseInt(lit []byte) (int64, bool) {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if lit[0] == '-' {
		n = -n
	}
	return n, true
}
