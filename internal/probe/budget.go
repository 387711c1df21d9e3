package probe

import (
	"errors"
	"fmt"
	"sync"

	"github.com/toolgate/toolgate/internal/membudget"
)

// Budget is memory shared by every probe of a process. A probe charges it
// for what it decodes (the estimated heap of the catalogue's trees and
// canonical forms) and for the response bytes the SDK holds while it
// decodes them, and gives it all back when it returns. A probe that cannot
// get its share fails at once with TooLarge, and the server is probed
// again at its next interval. A nil *Budget is unlimited.
type Budget = membudget.Budget

// NewBudget returns a budget of limit bytes; zero or less is unlimited.
func NewBudget(limit int64) *Budget { return membudget.New(limit) }

// meter bounds and observes one probe: its HTTP traffic (the last status,
// whether anything answered, the bytes on the wire) and its memory (what it
// holds of the per-probe and the global budget).
type meter struct {
	limits Limits
	global *Budget

	mu       sync.Mutex
	bytes    int64 // response bytes read off the wire
	last     int   // status of the last response
	got      bool  // some server answered
	notMCP   bool  // a 200 response whose content type MCP does not use
	refused  error // a connection the guard refused
	over     error // the first bound exceeded
	decoded  int64 // decoded bytes held, against limits.MaxDecodedBytes
	buffered int64 // response bytes the SDK holds, estimated
	whole    int64 // bytes of messages held whole while they are checked
	held     int64 // what this probe holds of global
	closed   bool  // the probe returned; nothing more is charged
}

func (m *meter) total() int64 { m.mu.Lock(); defer m.mu.Unlock(); return m.bytes }
func (m *meter) status() int  { m.mu.Lock(); defer m.mu.Unlock(); return m.last }
func (m *meter) answered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.got
}
func (m *meter) overLimit() error { m.mu.Lock(); defer m.mu.Unlock(); return m.over }
func (m *meter) notMCPType() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.notMCP }
func (m *meter) refusal() error   { m.mu.Lock(); defer m.mu.Unlock(); return m.refused }
func (m *meter) refuse(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refused == nil {
		m.refused = err
	}
}

// fail records the first bound exceeded and returns it.
func (m *meter) fail(err error) error {
	if m.over == nil {
		m.over = err
	}
	return m.over
}

// takeGlobal takes n bytes of the budget every probe shares, or records
// that it is exhausted; m.mu is held.
func (m *meter) takeGlobal(n int64) error {
	if !m.global.Take(n) {
		return m.fail(fmt.Errorf("the operator's memory budget for probes (%d bytes, shared by every probe running) is exhausted; the server is probed again at its next interval", m.global.Limit()))
	}
	return nil
}

// chargeDecoded accounts for n bytes of decoded catalogue, which the probe
// keeps until it returns.
func (m *meter) chargeDecoded(n int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.over != nil {
		return m.over
	}
	if m.closed {
		// A reader the SDK has not stopped yet, after the probe returned.
		return m.fail(errors.New("the probe is over"))
	}
	if limit := m.limits.MaxDecodedBytes; limit > 0 && m.decoded+n > limit {
		return m.fail(fmt.Errorf("the catalogue needs more than %d bytes of memory decoded, the per-probe budget", limit))
	}
	if err := m.takeGlobal(n); err != nil {
		return err
	}
	m.decoded += n
	m.held += n
	return nil
}

// chargeBuffered accounts for n response bytes the SDK buffers: twice, for
// the transport's buffer and the decoded message's copy of its payload.
func (m *meter) chargeBuffered(n int64) error {
	if m.closed {
		return m.fail(errors.New("the probe is over"))
	}
	n *= 2
	if err := m.takeGlobal(n); err != nil {
		return err
	}
	m.buffered += n
	m.held += n
	return nil
}

// releaseBuffered gives back what a message of n payload bytes held once
// the connection has delivered it.
func (m *meter) releaseBuffered(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n = min(2*n, m.buffered)
	m.buffered -= n
	m.held -= n
	m.global.Give(n)
}

// chargeHeld accounts for a message of n bytes held whole while its member
// names are checked and it is decoded.
func (m *meter) chargeHeld(n int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.over != nil {
		return m.over
	}
	if m.closed {
		return m.fail(errors.New("the probe is over"))
	}
	if err := m.takeGlobal(n); err != nil {
		return err
	}
	m.whole += n
	m.held += n
	return nil
}

// releaseHeld gives back what chargeHeld took for a message of n bytes.
func (m *meter) releaseHeld(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n = min(n, m.whole)
	m.whole -= n
	m.held -= n
	m.global.Give(n)
}

// close gives back everything the probe holds of the global budget.
func (m *meter) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.global.Give(m.held)
	m.held, m.buffered, m.decoded, m.whole = 0, 0, 0, 0
	m.closed = true
}
