package rpcmsg

import (
	"bytes"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// ErrBadAnswer is what every error of an AnswerCheck wraps: the body is not
// one JSON-RPC response to the request it answers.
var ErrBadAnswer = answerError("not the answer to the request")

type answerError string

func (e answerError) Error() string { return string(e) }

// Is makes every answer error match ErrBadAnswer.
func (answerError) Is(target error) bool { return target == ErrBadAnswer }

// Why an answer is refused. They are values, not formatted, so that the
// check allocates nothing however it fails.
var (
	errAnswerBatch       = answerError("the answer is a JSON-RPC batch")
	errAnswerNotObject   = answerError("the answer is not a JSON object")
	errAnswerEmpty       = answerError("the answer is empty")
	errAnswerEnded       = answerError("the answer ends inside its object")
	errAnswerTrailing    = answerError("the answer has data after its object")
	errAnswerMalformed   = answerError("the answer is not valid JSON")
	errAnswerTooDeep     = answerError("the answer nests deeper than the check follows")
	errAnswerMethod      = answerError("the answer has a method: it is a request or notification, not a response")
	errAnswerTwoIDs      = answerError("the answer has more than one id")
	errAnswerNoID        = answerError("the answer has no id")
	errAnswerIDType      = answerError("the answer's id is neither a string nor a number")
	errAnswerIDTooLong   = answerError("the answer's id is far longer than the request's")
	errAnswerOtherID     = answerError("the answer's id is not the request's")
	errAnswerTwoOutcomes = answerError("the answer has more than one result or error")
	errAnswerNoOutcome   = answerError("the answer has neither a result nor an error")
	errAnswerFoldedName  = answerError("the answer has a member whose name differs from a JSON-RPC member's only in case")
)

// maxAnswerDepth is how deep the check follows nesting. The Go SDK refuses
// messages nested deeper than 1000; a bounded depth keeps the check's
// memory constant.
const maxAnswerDepth = 1024

// maxKeyBytes is how much of a member name the check keeps decoded. The
// names it looks for are short; a longer name is another member, which the
// check still reads past.
const maxKeyBytes = 64

// MaxAnswerIDBytes is the longest raw id an answer to a request of id
// requestID may carry: the request's id re-escaped (six bytes a character at
// most) with room to spare. A longer one is refused rather than kept.
func MaxAnswerIDBytes(requestID []byte) int { return 6*len(requestID) + 64 }

// Where the check is in the body.
type answerState uint8

const (
	stBefore     answerState = iota // before the object, whitespace only
	stFirstKey                      // after '{': a name or '}'
	stKey                           // after ',': a name
	stInKey                         // inside a member name
	stColon                         // after a name: ':'
	stValue                         // after ':': a value
	stTopString                     // inside a string value of the object
	stTopScalar                     // inside a number, true, false or null of the object
	stNested                        // inside an object or array value of the object
	stAfterValue                    // after a value: ',' or '}'
	stAfter                         // after the object, whitespace only
	stFailed                        // refused; err says why
)

// Which member of the object a value belongs to.
type memberKind uint8

const (
	memberOther memberKind = iota
	memberID
	memberOutcome // result or error
)

// AnswerCheck decides, as a body streams past, whether it is exactly one
// JSON-RPC response to one request: one JSON object, nothing after it but
// whitespace, with exactly one id equal to the request's (as IDKey compares
// ids), exactly one result or error, and no method. It does not parse the
// body: it follows strings and nesting, and reads only the object's own
// member names (escapes decoded, so "\u0069d" is an id) and its id. What
// lies inside the result is the server's answer and passes unread.
//
// A member whose name equals id, result, error or method but for case
// (under the folding encoding/json matches field names with) is refused:
// a client whose decoder matches names loosely would take it for that
// member.
//
// The check is linear in the body, allocates nothing per byte and holds a
// constant amount of memory (the id it reads is bounded by
// MaxAnswerIDBytes). Errors wrap ErrBadAnswer; the first one sticks.
type AnswerCheck struct {
	state answerState
	err   error

	// want is the request's id, and wantKey its IDKey, computed only when
	// the answer's id is not written byte for byte as the request's.
	want    []byte
	wantKey string

	// Strings: inside one, after a backslash, and how many hex digits of
	// a \u escape are still to come (and their value so far).
	inString, escaped bool
	hexLeft           uint8
	hexValue          rune
	// highSurrogate is the first half of a \u escape pair in a name.
	highSurrogate rune

	// depth is the nesting below the object (1 is a value of the object);
	// closers records, one bit a level, whether each open level is an
	// array, so that a ']' closing an object is refused.
	depth   int
	closers [maxAnswerDepth / 64]uint64

	// The member whose value is being read.
	key         [maxKeyBytes]byte
	keyLen      int
	keyOverflow bool
	member      memberKind

	id       []byte
	maxID    int
	ids      int
	outcomes int
}

// NewAnswerCheck returns a check of the answer to the request of raw id
// requestID.
func NewAnswerCheck(requestID []byte) *AnswerCheck {
	c := &AnswerCheck{}
	c.Reset(requestID)
	return c
}

// Reset makes c a fresh check of the answer to the request of raw id
// requestID, keeping the memory it has.
func (c *AnswerCheck) Reset(requestID []byte) {
	maxID := MaxAnswerIDBytes(requestID)
	id := c.id[:0]
	if cap(id) < maxID {
		id = make([]byte, 0, maxID)
	}
	*c = AnswerCheck{want: bytes.TrimSpace(requestID), id: id, maxID: maxID}
}

// CheckAnswer checks a whole body as the answer to the request of raw id
// requestID.
func CheckAnswer(body, requestID []byte) error {
	c := NewAnswerCheck(requestID)
	if err := c.Write(body); err != nil {
		return err
	}
	return c.Close()
}

// Err is why the check has refused the body so far, nil if it has not.
func (c *AnswerCheck) Err() error { return c.err }

// Done reports whether the object has ended: from then on only whitespace
// may follow.
func (c *AnswerCheck) Done() bool { return c.state == stAfter }

// Write feeds the check the next bytes of the body. It returns the error
// once the body is refused; the bytes that made it so must not reach the
// client, nor any after them.
func (c *AnswerCheck) Write(p []byte) error {
	if c.err != nil {
		return c.err
	}
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch c.state {
		case stNested:
			// Most of a large answer is here: a tight loop over what
			// cannot change the object's shape.
			if c.inString {
				i = c.skipInString(p, i)
			} else {
				i = c.nested(p, i)
			}
		case stTopString:
			if !c.stringByte(b, false) {
				c.endValue()
			}
		case stInKey:
			if !c.stringByte(b, true) {
				c.endKey()
			}
		case stTopScalar:
			if isScalarByte(b) {
				c.keepID(b)
			} else {
				c.endValue()
				c.afterValue(b)
			}
		case stBefore:
			switch {
			case isSpace(b):
			case b == '{':
				c.state = stFirstKey
			case b == '[':
				c.fail(errAnswerBatch)
			default:
				c.fail(errAnswerNotObject)
			}
		case stFirstKey, stKey:
			switch {
			case isSpace(b):
			case b == '"':
				c.state, c.keyLen, c.keyOverflow, c.highSurrogate = stInKey, 0, false, 0
			case b == '}' && c.state == stFirstKey:
				c.state = stAfter
			default:
				c.fail(errAnswerMalformed)
			}
		case stColon:
			switch {
			case isSpace(b):
			case b == ':':
				c.state = stValue
			default:
				c.fail(errAnswerMalformed)
			}
		case stValue:
			c.startValue(b)
		case stAfterValue:
			c.afterValue(b)
		case stAfter:
			if !isSpace(b) {
				c.fail(errAnswerTrailing)
			}
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// Close ends the body: it returns nil only when the body was one whole
// answer to the request.
func (c *AnswerCheck) Close() error {
	switch {
	case c.err != nil:
		return c.err
	case c.state == stBefore:
		c.fail(errAnswerEmpty)
	case c.state != stAfter:
		c.fail(errAnswerEnded)
	case c.ids == 0:
		c.fail(errAnswerNoID)
	case c.outcomes == 0:
		c.fail(errAnswerNoOutcome)
	}
	return c.err
}

func (c *AnswerCheck) fail(err error) {
	c.state, c.err = stFailed, err
}

// skipInString moves past the bytes of a nested string from p[i],
// returning the index of the last byte it consumed. A string inside the
// result is what most of a large answer is, so it is searched for its
// closing quote rather than read byte by byte. What the string holds is not
// checked: a client's parser refuses a malformed one whole.
func (c *AnswerCheck) skipInString(p []byte, i int) int {
	for i < len(p) {
		if c.escaped {
			c.escaped = false
			i++
			continue
		}
		q := bytes.IndexByte(p[i:], '"')
		if q < 0 {
			// The string goes on in the next bytes; they begin escaped
			// when these end in an odd run of backslashes.
			c.escaped = backslashesBefore(p[i:], len(p)-i)%2 == 1
			return len(p) - 1
		}
		if backslashesBefore(p[i:], q)%2 == 0 {
			c.inString = false
			return i + q
		}
		i += q + 1 // an escaped quote
	}
	return len(p) - 1
}

// backslashesBefore counts the backslashes that come right before p[end].
func backslashesBefore(p []byte, end int) int {
	n := 0
	for end > 0 && p[end-1] == '\\' {
		n++
		end--
	}
	return n
}

// structural marks the bytes that matter in a nested value outside
// strings.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// nested reads the bytes of a nested value outside strings from p[i] up to
// and including the first one that matters, returning its index.
func (c *AnswerCheck) nested(p []byte, i int) int {
	for i < len(p) && !structural[p[i]] {
		i++
	}
	if i == len(p) {
		return i - 1
	}
	switch b := p[i]; b {
	case '"':
		c.inString = true
	case '{', '[':
		c.open(b)
	case '}', ']':
		isArray := c.closers[c.depth/64]>>(c.depth%64)&1 == 1
		if isArray != (b == ']') {
			c.fail(errAnswerMalformed)
			return i
		}
		c.depth--
		if c.depth == 0 {
			c.endValue()
		}
	}
	return i
}

func (c *AnswerCheck) open(b byte) {
	c.depth++
	if c.depth >= maxAnswerDepth {
		c.fail(errAnswerTooDeep)
		return
	}
	bit := uint64(1) << (c.depth % 64)
	if b == '[' {
		c.closers[c.depth/64] |= bit
	} else {
		c.closers[c.depth/64] &^= bit
	}
	c.state = stNested
}

// stringByte reads one byte of a string of the object (a name, when key,
// or a value) and reports whether the string goes on.
func (c *AnswerCheck) stringByte(b byte, key bool) bool {
	switch {
	case c.hexLeft > 0:
		d, ok := hexDigit(b)
		if !ok {
			c.fail(errAnswerMalformed)
			return true
		}
		c.hexValue = c.hexValue<<4 | d
		c.hexLeft--
		if c.hexLeft == 0 && key {
			c.keyRune(c.hexValue)
		}
	case c.escaped:
		c.escaped = false
		switch b {
		case 'u':
			c.hexLeft, c.hexValue = 4, 0
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			if key {
				c.keyRune(rune(unescape(b)))
			}
		default:
			c.fail(errAnswerMalformed)
		}
	case b == '\\':
		c.escaped = true
	case b == '"':
		if key {
			c.flushSurrogate()
		} else {
			c.keepID(b)
		}
		return false
	case b < 0x20:
		c.fail(errAnswerMalformed)
	default:
		if key {
			c.flushSurrogate()
			c.keyByte(b)
		}
	}
	if !key {
		c.keepID(b)
	}
	return true
}

// keyRune adds a decoded escape to the name, pairing surrogate halves as
// JSON decoders do (a half alone decodes to U+FFFD).
func (c *AnswerCheck) keyRune(r rune) {
	switch {
	case c.highSurrogate != 0 && r >= 0xDC00 && r <= 0xDFFF:
		r = 0x10000 + (c.highSurrogate-0xD800)<<10 + (r - 0xDC00)
		c.highSurrogate = 0
	case r >= 0xD800 && r <= 0xDBFF:
		c.flushSurrogate()
		c.highSurrogate = r
		return
	default:
		c.flushSurrogate()
		if r >= 0xDC00 && r <= 0xDFFF {
			r = utf8.RuneError
		}
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	for _, b := range buf[:n] {
		c.keyByte(b)
	}
}

// flushSurrogate ends a pending high surrogate that no low one followed.
func (c *AnswerCheck) flushSurrogate() {
	if c.highSurrogate == 0 {
		return
	}
	c.highSurrogate = 0
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], utf8.RuneError)
	for _, b := range buf[:n] {
		c.keyByte(b)
	}
}

func (c *AnswerCheck) keyByte(b byte) {
	if c.keyLen == len(c.key) {
		c.keyOverflow = true
		return
	}
	c.key[c.keyLen] = b
	c.keyLen++
}

// endKey decides what member the name just read names.
func (c *AnswerCheck) endKey() {
	c.state, c.member = stColon, memberOther
	if c.keyOverflow {
		return
	}
	name := c.key[:c.keyLen]
	switch string(name) { // no allocation: the conversion is only compared
	case "id":
		c.ids++
		if c.ids > 1 {
			c.fail(errAnswerTwoIDs)
			return
		}
		c.member = memberID
	case "result", "error":
		c.outcomes++
		if c.outcomes > 1 {
			c.fail(errAnswerTwoOutcomes)
			return
		}
		c.member = memberOutcome
	case "method":
		c.fail(errAnswerMethod)
	default:
		if foldsToMember(name) {
			c.fail(errAnswerFoldedName)
		}
	}
}

// startValue reads the first byte of a value of the object.
func (c *AnswerCheck) startValue(b byte) {
	if isSpace(b) {
		return
	}
	if c.member == memberID {
		if b != '"' && b != '-' && (b < '0' || b > '9') {
			c.fail(errAnswerIDType)
			return
		}
		c.keepID(b)
	}
	switch {
	case b == '"':
		c.state = stTopString
	case b == '{' || b == '[':
		c.open(b)
	case isScalarByte(b):
		c.state = stTopScalar
	default:
		c.fail(errAnswerMalformed)
	}
}

// keepID keeps a byte of the id's raw value.
func (c *AnswerCheck) keepID(b byte) {
	if c.member != memberID || c.err != nil {
		return
	}
	if len(c.id) == c.maxID {
		c.fail(errAnswerIDTooLong)
		return
	}
	c.id = append(c.id, b)
}

// endValue ends a value of the object, and compares the id when it was one.
func (c *AnswerCheck) endValue() {
	c.state = stAfterValue
	if c.member != memberID || c.err != nil {
		return
	}
	if bytes.Equal(c.id, c.want) {
		return
	}
	// Written another way (1.0 for 1, an escape): compare as JSON-RPC
	// means ids. This allocates, once a body at most.
	if c.wantKey == "" {
		c.wantKey = IDKey(c.want)
	}
	if IDKey(c.id) != c.wantKey {
		c.fail(errAnswerOtherID)
	}
}

// afterValue reads a byte after a value of the object.
func (c *AnswerCheck) afterValue(b byte) {
	if c.err != nil {
		return
	}
	switch {
	case isSpace(b):
		c.state = stAfterValue
	case b == ',':
		c.state = stKey
	case b == '}':
		c.state = stAfter
	default:
		c.fail(errAnswerMalformed)
	}
}

// foldsToMember reports whether a name that is not itself a member of a
// JSON-RPC message (jsonrpc, id, method, params, result, error) is one of
// them under the case folding a case-insensitive decoder matches names with
// (namefold.Key): "ID", "Params", "reſult".
func foldsToMember(name []byte) bool {
	if len(name) > 4*len("jsonrpc") {
		return false
	}
	var buf [4 * 7]byte
	switch string(namefold.AppendKey(buf[:0], name)) {
	case "JSONRPC", "ID", "METHOD", "PARAMS", "RESULT", "ERROR":
		switch string(name) {
		case "jsonrpc", "id", "method", "params", "result", "error":
			return false
		}
		return true
	}
	return false
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// isScalarByte reports whether b may be part of a number, true, false or
// null. Anything else ends the value, or makes the body malformed.
func isScalarByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b == '-' || b == '+' || b == '.' || b == 'E'
}

func hexDigit(b byte) (rune, bool) {
	switch {
	case b >= '0' && b <= '9':
		return rune(b - '0'), true
	case b >= 'a' && b <= 'f':
		return rune(b-'a') + 10, true
	case b >= 'A' && b <= 'F':
		return rune(b-'A') + 10, true
	}
	return 0, false
}

func unescape(b byte) byte {
	switch b {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return b
}
