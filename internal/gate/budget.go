package gate

import (
	"errors"
	"fmt"
)

// errDecodeBudget is wrapped by the error of a tools/list whose decoding
// would take more memory than the gate gives it.
var errDecodeBudget = errors.New("tools/list decoding over the memory budget")

// The gate's decode budget (Gate.decode) is the memory shared by every
// tools/list it decodes at once. A list charges it, node by node as
// pkg/tooldef decodes, before the node is allocated, and gives it all back
// when it is judged; one that cannot get its share is refused at once.

// listMeter charges one list's decoding to its own bound and to the gate's
// budget. What a list decodes is garbage once the list is judged, but it is
// charged cumulatively: a list of many small tools costs its entries and
// the collector's work as surely as one large tool costs its tree.
type listMeter struct {
	g    *Gate
	used int64
	held int64
}

func (g *Gate) newListMeter() *listMeter { return &listMeter{g: g} }

func (m *listMeter) charge(n int64) error {
	if limit := m.g.limits.MaxListDecodedBytes; m.used+n > limit {
		return fmt.Errorf("%w: decoding it needs more than %d bytes of memory, the bound on one list", errDecodeBudget, limit)
	}
	if !m.g.decode.Take(n) {
		return fmt.Errorf("%w: the gate's %d bytes for decoding lists, shared by every list being checked, are taken", errDecodeBudget, m.g.decode.Limit())
	}
	m.used += n
	m.held += n
	return nil
}

// close gives back what the list holds of the gate's budget.
func (m *listMeter) close() {
	m.g.decode.Give(m.held)
	m.held = 0
}
