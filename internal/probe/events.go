package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// eventRewriter reads a stream of server-sent events and hands the SDK the
// same stream with every message event decoded and encoded again: the
// page of a tools/list call without its tools, other messages whole. The
// SDK's own event reader would buffer each event (up to the response cap)
// two or three times over before decoding it; here the data of a message
// is held once, its member names checked (checkNames), and decoded before
// the SDK reads any of it. Other events (the SSE transport's endpoint) are passed on as they are,
// up to the string limit.
type eventRewriter struct {
	body   io.ReadCloser
	br     *bufio.Reader
	cat    *catalogue
	limits Limits
	out    bytes.Buffer
	err    error
}

func newEventRewriter(body io.ReadCloser, cat *catalogue, limits Limits) *eventRewriter {
	return &eventRewriter{body: body, br: bufio.NewReaderSize(body, 64<<10), cat: cat, limits: limits}
}

func (r *eventRewriter) Close() error { return r.body.Close() }

func (r *eventRewriter) Read(p []byte) (int, error) {
	for r.out.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.err = r.next()
	}
	return r.out.Read(p)
}

// maxFieldBytes bounds an event's name, id and retry fields.
const maxFieldBytes = 1 << 10

// errMalformedEvents is a stream that is not server-sent events; its
// lines are never quoted.
var errMalformedEvents = errors.New("malformed event stream")

// next reads one event and appends what the SDK should read of it to out.
func (r *eventRewriter) next() error {
	var name, id, retry string
	var fields int
	for {
		field, err := r.fieldName()
		if err != nil {
			return err
		}
		switch field {
		case "": // a blank line ends an event
			if fields > 0 {
				r.emit(name, id, retry, nil)
				return nil
			}
			continue
		case ":": // a comment
			if err := r.skipLine(); err != nil {
				return err
			}
			continue
		case "data":
			if name != "" && name != "message" {
				data, err := r.rawData()
				if err != nil {
					return err
				}
				r.emit(name, id, retry, data)
				return nil
			}
			d := &eventData{br: r.br, inData: true}
			if blank, err := d.blank(); err != nil {
				return err
			} else if blank {
				// A priming event, carrying only an id.
				id, retry = cmpOr(d.id, id), cmpOr(d.retry, retry)
				r.emit(name, id, retry, nil)
				return nil
			}
			data, err := r.messageData(d)
			if err != nil {
				return err
			}
			msg, err := r.cat.decodeWhole(data, r.cat.inFlight)
			if err != nil {
				return err
			}
			if d.sawEventName {
				return r.cat.failWith(invalid("an event names itself after its data"))
			}
			id, retry = cmpOr(d.id, id), cmpOr(d.retry, retry)
			r.emit("message", id, retry, msg)
			return nil
		}
		value, err := r.fieldValue()
		if err != nil {
			return err
		}
		fields++
		switch field {
		case "event":
			name = value
		case "id":
			id = value
		case "retry":
			retry = value
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (r *eventRewriter) emit(name, id, retry string, data []byte) {
	if name != "" {
		fmt.Fprintf(&r.out, "event: %s\n", name)
	}
	if id != "" {
		fmt.Fprintf(&r.out, "id: %s\n", id)
	}
	if retry != "" {
		fmt.Fprintf(&r.out, "retry: %s\n", retry)
	}
	if data != nil {
		r.out.WriteString("data: ")
		r.out.Write(data)
		r.out.WriteByte('\n')
	}
	r.out.WriteByte('\n')
}

// fieldName reads a line's field name and its colon: "" for a blank line,
// ":" for a comment.
func (r *eventRewriter) fieldName() (string, error) {
	var b []byte
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) == 0 {
				return "", io.EOF
			}
			return "", err
		}
		switch {
		case c == '\n':
			if len(bytes.TrimRight(b, "\r")) == 0 {
				return "", nil
			}
			return "", r.cat.failWith(&Error{Reason: InvalidResponse, Msg: "an event stream line without a field name", Err: errMalformedEvents})
		case c == ':':
			if len(b) == 0 {
				return ":", nil
			}
			return string(b), nil
		case len(b) >= 16:
			return "", r.cat.failWith(&Error{Reason: InvalidResponse, Msg: "an event stream line without a field name", Err: errMalformedEvents})
		}
		b = append(b, c)
	}
}

// fieldValue reads the rest of a short field's line.
func (r *eventRewriter) fieldValue() (string, error) {
	line, err := readLine(r.br, maxFieldBytes)
	if err != nil {
		if errors.Is(err, errLineTooLong) {
			return "", r.cat.failWith(&Error{Reason: TooLarge, Msg: fmt.Sprintf("an event field of more than %d bytes", maxFieldBytes)})
		}
		return "", err
	}
	return strings.TrimSpace(string(line)), nil
}

func (r *eventRewriter) skipLine() error {
	for {
		_, err := r.br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// rawData reads the data of an event that is not a message, whole, up to
// the string limit.
func (r *eventRewriter) rawData() ([]byte, error) {
	limit := r.limits.MaxStringBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	data, err := io.ReadAll(io.LimitReader(&eventData{br: r.br, inData: true}, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, r.cat.failWith(&Error{Reason: TooLarge, Msg: fmt.Sprintf("an event of more than %d bytes", limit)})
	}
	return bytes.TrimSpace(data), nil
}

// messageData reads the data of a message event whole, up to the response
// cap, so that its member names are checked before it is decoded.
func (r *eventRewriter) messageData(d *eventData) ([]byte, error) {
	limit := r.limits.MaxResponseBytes
	if limit <= 0 {
		limit = 8 << 20
	}
	data, err := io.ReadAll(io.LimitReader(d, limit+1))
	if err != nil {
		r.cat.mu.Lock()
		defer r.cat.mu.Unlock()
		return nil, r.cat.fail(r.cat.decodeError("a message from the server", "", err))
	}
	if int64(len(data)) > limit {
		return nil, r.cat.failWith(&Error{Reason: TooLarge, Msg: fmt.Sprintf("an event of more than %d bytes", limit)})
	}
	return data, nil
}

var errLineTooLong = errors.New("line too long")

func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// eventData reads the data of one event: its data lines joined by
// newlines (JSON whitespace), up to the blank line that ends it. Other
// fields on the way are noted.
type eventData struct {
	br     *bufio.Reader
	inData bool
	ended  bool
	// pend is the unread part of the current data line.
	pend         []byte
	id, retry    string
	sawEventName bool
}

func (d *eventData) Read(p []byte) (int, error) {
	for {
		if len(d.pend) > 0 {
			n := copy(p, d.pend)
			d.pend = d.pend[n:]
			return n, nil
		}
		if d.ended {
			return 0, io.EOF
		}
		if d.inData {
			frag, err := d.br.ReadSlice('\n')
			switch {
			case err == nil:
				d.inData = false
				frag = bytes.TrimRight(frag, "\r\n")
				// The newline that joins data lines, as JSON whitespace.
				d.pend = append(frag[:len(frag):len(frag)], '\n')
			case errors.Is(err, bufio.ErrBufferFull):
				d.pend = frag
			case errors.Is(err, io.EOF):
				d.inData, d.ended = false, true
				d.pend = frag
			default:
				return 0, err
			}
			continue
		}
		// At the start of a line: another data line, another field, or
		// the blank line that ends the event.
		var name []byte
		for {
			c, err := d.br.ReadByte()
			if err != nil {
				if errors.Is(err, io.EOF) {
					d.ended = true
					break
				}
				return 0, err
			}
			if c == '\n' {
				if len(bytes.TrimRight(name, "\r")) == 0 {
					d.ended = true
					break
				}
				return 0, errMalformedEvents
			}
			if c == ':' {
				break
			}
			if len(name) >= 16 {
				return 0, errMalformedEvents
			}
			name = append(name, c)
		}
		if d.ended {
			continue
		}
		switch string(name) {
		case "data":
			d.inData = true
		case "":
			if err := skipRest(d.br); err != nil {
				return 0, err
			}
		default:
			line, err := readLine(d.br, maxFieldBytes)
			if err != nil {
				return 0, err
			}
			switch string(name) {
			case "id":
				d.id = strings.TrimSpace(string(line))
			case "retry":
				d.retry = strings.TrimSpace(string(line))
			case "event":
				d.sawEventName = true
			}
		}
	}
}

// blank reads the data up to its first byte that is not whitespace, and
// reports whether there is none.
func (d *eventData) blank() (bool, error) {
	var b [1]byte
	for {
		n, err := d.Read(b[:])
		if n == 1 {
			switch b[0] {
			case ' ', '\t', '\r', '\n':
				continue
			}
			d.pend = append([]byte{b[0]}, d.pend...)
			return false, nil
		}
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

func skipRest(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
