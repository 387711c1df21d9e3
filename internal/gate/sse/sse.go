package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrEventTooLarge is returned when one event is longer than the reader's
// bound.
var ErrEventTooLarge = errors.New("server-sent event too large")

// Event is one event as read. Raw, Data, Name and ID alias the reader's
// buffers and are valid until the next call to Next.
type Event struct {
	// Raw is every byte of the event, the blank line that ends it included.
	Raw []byte
	// Name is the event field ("message" when absent, per the standard).
	Name string
	// ID is the id field, empty when absent.
	ID string
	// Data is the data fields joined by newlines.
	Data []byte
}

// Reader reads events from a stream.
type Reader struct {
	br   *bufio.Reader
	max  int
	raw  []byte
	data []byte
}

// NewReader reads events of at most maxEvent bytes from r.
func NewReader(r io.Reader, maxEvent int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 4096), max: maxEvent}
}

// SetMax sets the bound on one event's size.
func (r *Reader) SetMax(maxEvent int) { r.max = maxEvent }

// Buffered is how many bytes the reader has read from its stream and not
// yet returned in an event.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// Reset makes the reader read from r, keeping its buffers.
func (r *Reader) Reset(rd io.Reader) {
	r.br.Reset(rd)
	r.raw, r.data = r.raw[:0], r.data[:0]
}

// ErrUnterminated is returned, at the end of the stream, with an event
// that the stream ended inside of: its last line or the blank line that
// ends it is missing. The event's fields are parsed as far as the stream
// went, because a lenient client (the Go SDK's, for one) still dispatches
// such an event: a proxy must judge it like any other, never relay its raw
// bytes unread.
var ErrUnterminated = errors.New("server-sent event not terminated")

// Next returns the next event. At the end of the stream it returns io.EOF
// when nothing preceded it, and ErrUnterminated with the partial event
// (Raw, and the fields read so far) when something did.
func (r *Reader) Next() (Event, error) {
	r.raw, r.data = r.raw[:0], r.data[:0]
	var ev Event
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil && (!errors.Is(err, io.EOF) || len(r.raw) == 0) {
			ev.Raw = r.raw
			return ev, err
		}
		body := bytes.TrimRight(line, "\r\n")
		if len(body) == 0 {
			if err != nil {
				// The stream ended after a complete line, before the blank
				// line that would end the event.
				return r.unterminated(ev)
			}
			if len(r.raw) == len(line) {
				// A blank line before any field: keep-alive padding.
				ev.Raw = r.raw
				return ev, nil
			}
			ev.Raw, ev.Data = r.raw, r.data
			if ev.Name == "" {
				ev.Name = "message"
			}
			return ev, nil
		}
		if body[0] != ':' { // a comment otherwise
			field, value, _ := bytes.Cut(body, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if hasData {
					r.data = append(r.data, '\n')
				}
				hasData = true
				r.data = append(r.data, value...)
			case "event":
				ev.Name = string(value)
			case "id":
				ev.ID = string(value)
			}
		}
		if err != nil {
			// A last line with no newline, read as a line.
			return r.unterminated(ev)
		}
	}
}

func (r *Reader) unterminated(ev Event) (Event, error) {
	ev.Raw, ev.Data = r.raw, r.data
	if ev.Name == "" {
		ev.Name = "message"
	}
	return ev, ErrUnterminated
}

// readLine appends one line to r.raw and returns it. A last line with no
// newline is returned with io.EOF; io.EOF alone means no line was left.
func (r *Reader) readLine() ([]byte, error) {
	start := len(r.raw)
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.raw = append(r.raw, chunk...)
		if r.max > 0 && len(r.raw) > r.max {
			return nil, fmt.Errorf("%w: over %d bytes", ErrEventTooLarge, r.max)
		}
		switch {
		case err == nil:
			return r.raw[start:], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return r.raw[start:], io.EOF
		default:
			return nil, err
		}
	}
}

// AppendEvent appends an event with the given id (none when empty) whose
// data is data, one data field per line of it, to b. The event is named
// "message", the only name MCP streams carry besides SSE's "endpoint".
func AppendEvent(b []byte, id string, data []byte) []byte {
	b = append(b, "event: message\n"...)
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	for {
		line, rest, more := bytes.Cut(data, []byte("\n"))
		b = append(b, "data: "...)
		b = append(b, bytes.TrimSuffix(line, []byte("\r"))...)
		b = append(b, '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(b, '\n')
}
