package gate

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toolgate/toolgate/internal/gate/sse"
)

// TestEventsAcrossQuietSpells: a stream read through events, which gives
// its reader back whenever nothing of the next event has come, yields the
// events a reader held throughout yields, and holds no reader while quiet.
func TestEventsAcrossQuietSpells(t *testing.T) {
	// Each stream as it arrives: a piece a read, each ending an event.
	streams := map[string][]string{
		"one event":        {"event: message\ndata: {\"a\":1}\n\n"},
		"two, then quiet":  {"data: 1\n\n", "data: 2\n\n"},
		"keep-alive":       {"\n", "\n", "data: x\n\n"},
		"comment and id":   {": hello\nid: 7\ndata: y\n\n"},
		"unterminated end": {"data: 1\n\n", "data: 2"},
		"CRLF":             {"data: 1\r\n\r\n", "data: 2\r\n\r\n"},
		"empty":            nil,
	}
	g := New(Options{})
	for name, pieces := range streams {
		body := strings.Join(pieces, "")
		want := readAll(t, sse.NewReader(strings.NewReader(body), 1<<20).Next, nil)
		for _, how := range []string{"whole", "pieces", "a byte a read"} {
			var r io.Reader
			switch how {
			case "whole":
				r = strings.NewReader(body)
			case "pieces":
				r = &piecesReader{pieces: pieces}
			default:
				// The reader is taken and given back within one event.
				r = iotest.OneByteReader(strings.NewReader(body))
			}
			evs := g.events(r)
			got := readAll(t, evs.next, func() {
				evs.rest()
				if how == "pieces" && evs.rd != nil {
					t.Errorf("%s: a reader held after an event with nothing of the next come", name)
				}
			})
			evs.close()
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s, read %s: events %q, want %q", name, how, got, want)
			}
		}
	}
}

// piecesReader returns a piece a read, as a stream whose events come
// apart.
type piecesReader struct{ pieces []string }

func (p *piecesReader) Read(b []byte) (int, error) {
	if len(p.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.pieces[0])
	if p.pieces[0] = p.pieces[0][n:]; p.pieces[0] == "" {
		p.pieces = p.pieces[1:]
	}
	return n, nil
}

// readAll reads events until an error, as raw bytes, data and the error
// that ended them; after is called after each event.
func readAll(t *testing.T, next func() (sse.Event, error), after func()) []string {
	t.Helper()
	var out []string
	for range 100 {
		ev, err := next()
		out = append(out, string(ev.Raw)+"#"+string(ev.Data)+"#"+ev.Name+"#"+ev.ID)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, sse.ErrUnterminated) {
				t.Fatalf("read: %v", err)
			}
			return append(out, err.Error())
		}
		if after != nil {
			after()
		}
	}
	t.Fatal("no end to the events")
	return nil
}
