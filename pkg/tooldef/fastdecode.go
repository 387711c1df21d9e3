package tooldef

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/pkg/keysort"
)

// The direct reader: a whole input held in memory (a saved catalogue, a
// tool's bytes) is read by one loop over its bytes, without the token
// stream. The streaming tokenizer checks and reports what a stream needs
// (the state of every nesting level, a token's kind before it is read, the
// names of every object for duplicates); reading bytes already in memory
// needs none of that: decoding the corpus's captures takes about a fifth
// less CPU this way.
//
// The reader only accepts: on anything it does not take as plainly valid —
// a syntax error, invalid UTF-8, a duplicate member name, a string over the
// limit, nesting past maxDepth, data after the value — it gives up, and
// the input is decoded again by the tokenizer, which reports the error
// exactly as before. So the errors are the tokenizer's, and a value the
// reader returns is one the tokenizer would have returned: a differential
// fuzz test holds the two equal.

// fastDecode reads data, which must hold exactly one JSON value and
// blank space around it. ok is false when the tokenizer must decide.
func (d *decoder) fastDecode(data []byte) (v any, ok bool) {
	d.data, d.pos = data, 0
	v, ok = d.fastValue(0)
	if ok {
		d.skipBlank()
		ok = d.pos == len(data)
	}
	d.data = nil
	return v, ok
}

// blank is JSON's blank space: space, tab, line feed, carriage return.
var blank = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (d *decoder) skipBlank() {
	data, i := d.data, d.pos
	for i < len(data) && blank[data[i]] {
		i++
		// A saved catalogue is indented: its runs of spaces are passed
		// eight bytes to a comparison. Written so that skipBlank stays cheap
		// enough for next, which calls it after every member and element,
		// to be inlined too (go build -gcflags=-m shows both).
		for len(data)-i >= 8 && binary.LittleEndian.Uint64(data[i:]) == 0x2020202020202020 {
			i += 8
		}
	}
	d.pos = i
}

// fastValue reads one value.
func (d *decoder) fastValue(depth int) (v any, ok bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.skipBlank()
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch d.data[d.pos] {
	case '"':
		_, v, ok := d.fastString(true)
		return v, ok
	case '{':
		d.pos++
		d.skipBlank()
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return d.slabs.object(nil, false), true
		}
		// The members of a small object, most of a schema's, are gathered
		// and sorted in an array on the goroutine's stack, where a store
		// needs no write barrier while the collector marks; a larger
		// object's go on the shared stack.
		var small [smallObject]Member
		base, n, ascii := len(d.members), 0, true
		for {
			d.skipBlank()
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return nil, false
			}
			key, _, ok := d.fastString(false)
			if !ok {
				return nil, false
			}
			d.skipBlank()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return nil, false
			}
			d.pos++
			v, ok := d.fastValue(depth + 1)
			if !ok {
				return nil, false
			}
			switch {
			case n < smallObject:
				small[n] = Member{key, v}
				ascii = ascii && isASCII(key)
			case n == smallObject:
				d.members = append(d.members, small[:]...)
				fallthrough
			default:
				d.members = append(d.members, Member{key, v})
			}
			n++
			if !d.next('}') {
				return nil, false
			}
			if d.data[d.pos-1] == '}' {
				break
			}
		}
		ms := d.members[base:]
		if n <= smallObject {
			ms = small[:n]
			// By insertion, as sortMembers sorts a small object, on the
			// array itself so that every move stays on the stack.
			for i := 1; i < n; i++ {
				m := small[i]
				j := i
				for ; j > 0 && keysort.Less(m.Key, small[j-1].Key); j-- {
					small[j] = small[j-1]
				}
				small[j] = m
			}
		} else {
			ascii = ascii && !anyNonASCII(ms[smallObject:])
			sortMembers(ms)
		}
		// A name given twice sorts next to itself; the tokenizer refuses
		// such an object, and says where.
		for i := 1; i < len(ms); i++ {
			if ms[i].Key == ms[i-1].Key {
				return nil, false
			}
		}
		o := d.slabs.object(ms, !ascii)
		// Not cleared: the stacks live only as long as one decode, whose
		// values are all in the tree it returns, and clearing memory that
		// holds pointers costs a write barrier per word while the
		// collector marks.
		d.members = d.members[:base]
		return o, true
	case '[':
		d.pos++
		base := len(d.elems)
		d.skipBlank()
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return make([]any, 0), true
		}
		for {
			v, ok := d.fastValue(depth + 1)
			if !ok {
				return nil, false
			}
			d.elems = append(d.elems, v)
			if !d.next(']') {
				return nil, false
			}
			if d.data[d.pos-1] == ']' {
				break
			}
		}
		a := d.slabs.array(d.elems[base:])
		d.elems = d.elems[:base]
		return a, true
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	}
	v, ok = d.fastNumber()
	return v, ok
}

// next consumes the comma or the closing byte after a member or an
// element, and reports whether it found one.
func (d *decoder) next(closing byte) bool {
	d.skipBlank()
	if d.pos < len(d.data) && (d.data[d.pos] == ',' || d.data[d.pos] == closing) {
		d.pos++
		return true
	}
	return false
}

func (d *decoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

// fastNumber reads a number as RFC 8259 spells it, kept as written.
func (d *decoder) fastNumber() (any, bool) {
	data, i := d.data, d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return nil, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return nil, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return nil, false
		}
		i = j
	}
	num := data[d.pos:i]
	d.pos = i
	if b := boxedSmallNumber(num); b != nil {
		return b, true
	}
	return json.Number(num), true
}

// smallNumbers holds the numbers 0 to 99 as the decoder returns them,
// each boxed once: the minimums, defaults and limits of schemas are most
// often among them (0 and 1 above all), and a number in an interface
// costs two allocations, its string and its box, unless it is one of
// these. A box holds an immutable json.Number, so trees may share it.
var smallNumbers = func() (t [100]any) {
	for i := range t {
		t[i] = json.Number(strconv.Itoa(i))
	}
	return
}()

// boxedSmallNumber returns the box of a number spelled num (valid as RFC
// 8259 spells numbers) when it is one of smallNumbers, and nil for any
// other. A valid number of one or two digits has no leading zero but 0
// itself, so it is spelled as strconv.Itoa spells it.
func boxedSmallNumber(num []byte) any {
	switch {
	case len(num) == 1 && '0' <= num[0] && num[0] <= '9':
		return smallNumbers[num[0]-'0']
	case len(num) == 2 && '1' <= num[0] && num[0] <= '9' && '0' <= num[1] && num[1] <= '9':
		return smallNumbers[(num[0]-'0')*10+num[1]-'0']
	}
	return nil
}

func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// plainByte marks the bytes a string may hold unexamined: printable ASCII
// other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// fastString reads the string literal at d.pos, unescaped, as readString
// does. A value (not a member name) that is one of the strings boxed once
// comes back as that box, without a copy of its bytes.
func (d *decoder) fastString(value bool) (str string, boxed any, ok bool) {
	data := d.data
	start := d.pos + 1
	i, escaped, ascii := start, false, true
	for {
		for i < len(data) && plainByte[data[i]] {
			i++
		}
		if i >= len(data) {
			return "", nil, false
		}
		switch c := data[i]; {
		case c == '"':
		case c == '\\':
			escaped = true
			i += 2 // the backslash and the byte it escapes
			continue
		case c < 0x20:
			return "", nil, false
		default:
			ascii = false
			i++
			continue
		}
		break
	}
	inner := data[start:i]
	d.pos = i + 1
	rest := len(data) - d.pos
	switch {
	case escaped:
		var err error
		d.unquoted, err = jsontext.AppendUnquote(d.unquoted[:0], data[start-1:d.pos])
		if err != nil || (d.maxString > 0 && len(d.unquoted) > d.maxString) {
			return "", nil, false
		}
		str = d.keep(d.unquoted, rest)
		if value {
			return str, box(str), true
		}
		return str, nil, true
	case !ascii && !utf8.Valid(inner):
		return "", nil, false
	case d.maxString > 0 && len(inner) > d.maxString:
		return "", nil, false
	}
	if value {
		if b := boxedConstant(inner); b != nil {
			return "", b, true
		}
		str = d.keep(inner, rest)
		return str, str, true
	}
	return d.keep(inner, rest), nil, true
}
