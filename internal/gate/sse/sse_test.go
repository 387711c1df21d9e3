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
