package gateserver

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// An HTTP/2 stream costs the operator three goroutines as long as it is
// open (the connection's reader and its serve loop, and the handler, which
// must not return) and the connection's HTTP/2 state: its framer's
// buffers, its HPACK tables, its flow control. With thousands of gates
// that is most of the operator's memory. A gate that asks for its stream
// over HTTP/1.1 is authenticated exactly as over HTTP/2, by its own token
// on the same TLS connection; then its connection is taken over from the
// HTTP server and the stream written to it as a chunked response, from the
// stream's timers, with no goroutine left waiting on it.

// hijackedHeader is the response head of a stream taken over. The
// connection carries this stream alone and closes with it.
const hijackedHeader = "HTTP/1.1 200 OK\r\n" +
	"Content-Type: " + gateproto.StreamContentType + "\r\n" +
	"Cache-Control: no-store\r\n" +
	"Connection: close\r\n" +
	"Transfer-Encoding: chunked\r\n\r\n"

// connSink writes a stream's frames to a connection taken over from the
// HTTP server, one HTTP/1.1 chunk a frame.
type connSink struct {
	conn    net.Conn
	timeout time.Duration
}

// hijackStream takes the request's connection over and writes the
// response's head.
func hijackStream(w http.ResponseWriter, timeout time.Duration) (*connSink, error) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("taking over the connection: %w", err)
	}
	// A gate sends nothing after its request; the server's buffers are
	// dropped with brw, so that the stream keeps none of them.
	if brw.Reader.Buffered() > 0 {
		conn.Close()
		return nil, errors.New("the gate sent more after its request")
	}
	c := &connSink{conn: conn, timeout: timeout}
	if err := c.write([]byte(hijackedHeader)); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *connSink) write(b []byte) error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.timeout))
	_, err := c.conn.Write(b)
	return err
}

// chunkHead is room for a chunk's size: eight hex digits, leading zeros
// allowed, and CRLF. A frame is at most gateproto.MaxFrameBytes.
const chunkHead = len("00000000\r\n")

// chunkBuffers hold a frame while it is written, so that a frame is one
// write (one TLS record for most) and the stream keeps no buffer between
// frames.
var chunkBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledChunk is the largest buffer put back in the pool: a rare large
// configuration's buffer is left to the collector.
const maxPooledChunk = 256 << 10

func (c *connSink) writeLine(pieces ...any) error {
	buf := chunkBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledChunk {
			buf.Reset()
			chunkBuffers.Put(buf)
		}
	}()
	buf.Reset()
	buf.Write(make([]byte, chunkHead))
	if err := writePieces(buf, pieces); err != nil {
		return err
	}
	n := buf.Len() - chunkHead
	if n == 0 {
		return nil
	}
	copy(buf.Bytes(), fmt.Sprintf("%08x\r\n", n))
	buf.WriteString("\r\n")
	return c.write(buf.Bytes())
}

func (c *connSink) writeConfig(enc *gateproto.Encoded) error {
	pieces, err := configFrame(enc)
	if err != nil {
		return err
	}
	return c.writeLine(pieces...)
}

// close ends the chunked body and closes the connection.
func (c *connSink) close() {
	_ = c.write([]byte("0\r\n\r\n"))
	_ = c.conn.Close()
}
