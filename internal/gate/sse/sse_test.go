package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderKeepsRawBytes(t *testing.T) {
	in := "event: endpoint\ndata: /x?s=1\n\n: comment\nid: 7\ndata: {\"a\":\ndata: 1}\r\n\r\n"
	r := NewReader(strings.NewReader(in), 0)
	var raw bytes.Buffer
	ev, err := r.Next()
	if err != nil || ev.Name != "endpoint" || string(ev.Data) != "/x?s=1" {
		t.Fatalf("%+v %v", ev, err)
	}
	raw.Write(ev.Raw)
	ev, err = r.Next()
	if err != nil || ev.ID != "7" || string(ev.Data) != "{\"a\":\n1}" || ev.Name != "message" {
		t.Fatalf("%+v %v", ev, err)
	}
	raw.Write(ev.Raw)
	if raw.String() != in {
		t.Fatalf("raw bytes changed: %q", raw.String())
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
}

func TestReaderBound(t *testing.T) {
	r := NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("over the bound: %v", err)
	}
}

// FuzzReader: whatever a server streams, the reader neither panics nor
// loses or invents a byte.
func FuzzReader(f *testing.F) {
	f.Add([]byte("event: message\ndata: {}\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n:x\n\ndata"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b), 0)
		var out bytes.Buffer
		for {
			ev, err := r.Next()
			out.Write(ev.Raw)
			if err != nil {
				break
			}
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatalf("relayed %q, read %q", out.Bytes(), b)
		}
		_ = AppendEvent(nil, "1", b)
	})
}

// An event the stream ends inside of is parsed as far as it went: a client
// may still dispatch it, so a proxy must be able to judge it.
func TestReaderParsesAnUnterminatedEvent(t *testing.T) {
	for _, in := range []string{
		"id: 4\ndata: {\"a\":1}",
		"id: 4\ndata: {\"a\":1}\n",
		"id: 4\ndata: {\"a\":1}\r\n",
	} {
		r := NewReader(strings.NewReader("data: first\n\n"+in), 0)
		if ev, err := r.Next(); err != nil || string(ev.Data) != "first" {
			t.Fatalf("%q: first event %+v %v", in, ev, err)
		}
		ev, err := r.Next()
		if !errors.Is(err, ErrUnterminated) || string(ev.Data) != `{"a":1}` || ev.ID != "4" || ev.Name != "message" || string(ev.Raw) != in {
			t.Fatalf("%q: %+v %v", in, ev, err)
		}
	}
	r := NewReader(strings.NewReader("data: x\n\n"), 0)
	_, _ = r.Next()
	if ev, err := r.Next(); !errors.Is(err, io.EOF) || len(ev.Raw) != 0 {
		t.Fatalf("a clean end: %+v %v", ev, err)
	}
}
