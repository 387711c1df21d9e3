package scan

// AgentServer is one server offered to an agent: an identifier and the
// names of its tools.
type AgentServer struct {
	// ID identifies the server; servers with the same ID count as one.
	ID    string
	Tools []string
}

// Agent holds the tool names of every server offered to one agent, each
// name hashed once, and builds each server's Scanner from them. A
// catalogue of thirty servers gives each Scanner the ~500 names of the
// others; hashing every name for every server cost more than some of the
// scans it prepared.
type Agent struct {
	servers []AgentServer
	// sigs holds, per server and tool, the name's bits in nameIndex's and
	// the shadower's filters.
	sigs [][]nameBits
}

type nameBits struct {
	key              [2]uint64 // nameIndex: the bits of the folded key
	short            bool      // too short for the shadower
	shadow1, shadow2 uint      // the shadower's two bits
}

// NewAgent indexes the servers' tool names.
func NewAgent(servers []AgentServer) *Agent {
	a := &Agent{servers: servers, sigs: make([][]nameBits, len(servers))}
	buf := make([]byte, 0, 64)
	for i, s := range servers {
		a.sigs[i] = make([]nameBits, len(s.Tools))
		for j, n := range s.Tools {
			nb := &a.sigs[i][j]
			buf = nameKey(buf[:0], n, true)
			nb.key[0], nb.key[1] = bloomBits(hashKey(buf))
			if nb.short = len(n) < 2; !nb.short {
				nb.shadow1, nb.shadow2 = nameSigs(n)
			}
		}
	}
	return a
}

// Scanner returns the Scanner New would build for the server id with, as
// Options.OtherTools, the tool names of every server with another id, in
// order, less the names server id offers itself.
func (a *Agent) Scanner(id string) *Scanner {
	own := map[string]bool{}
	for _, s := range a.servers {
		if s.ID == id {
			for _, t := range s.Tools {
				own[t] = true
			}
		}
	}
	var names []string
	ix, sh := &nameIndex{}, &shadower{}
	for i, s := range a.servers {
		if s.ID == id {
			continue
		}
		for j, t := range s.Tools {
			if own[t] {
				continue
			}
			names = append(names, t)
			nb := a.sigs[i][j]
			for _, b := range nb.key {
				ix.bits[b/64] |= 1 << (b % 64)
			}
			if !nb.short {
				sh.f1[nb.shadow1/64] |= 1 << (nb.shadow1 % 64)
				sh.f2[nb.shadow2/64] |= 1 << (nb.shadow2 % 64)
			}
		}
	}
	if len(names) == 0 {
		return New(Options{})
	}
	ix.names, sh.names = names, names
	sh.index()
	return &Scanner{sh: sh, names: ix}
}
