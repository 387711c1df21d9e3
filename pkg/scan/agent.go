package scan

import "sync"

// AgentServer is one server offered to an agent: an identifier and the
// names of its tools.
type AgentServer struct {
	// ID identifies the server; servers with the same ID count as one.
	ID    string
	Tools []string
}

// Agent holds the tool names of every server offered to one agent, each
// name hashed and indexed once, and builds each server's Scanner from
// them. A catalogue of thirty servers gives each Scanner the ~500 names of
// the others; hashing and indexing every name for every server cost more
// than some of the scans it prepared.
type Agent struct {
	servers []AgentServer
	// sigs holds, per server and tool, the name's bits in nameIndex's and
	// the shadower's filters.
	sigs [][]nameBits
	// ids holds, per server and tool, the index of the name among the
	// distinct names of all servers; distinct is how many there are.
	ids      [][]int32
	distinct int
	// byLen is every server's names for the shadower, keyed by ids; each
	// Scanner skips its own server's.
	byLen *[maxByLen][]shadowName
	// once guards the index, built for the first Scanner that needs it.
	once sync.Once
}

type nameBits struct {
	key              [2]uint64 // nameIndex: the bits of the folded key
	short            bool      // too short for the shadower
	shadow1, shadow2 uint      // the shadower's two bits
}

// NewAgent holds the servers' tool names; they are indexed when the first
// Scanner needs another server's names, so that vetting one catalogue
// alone builds no index.
func NewAgent(servers []AgentServer) *Agent {
	return &Agent{servers: servers}
}

// index hashes every name once and sorts them into the shadower's lists.
func (a *Agent) index() {
	a.sigs, a.ids = make([][]nameBits, len(a.servers)), make([][]int32, len(a.servers))
	buf := make([]byte, 0, 64)
	idOf := map[string]int32{}
	var byLen [maxByLen][]shadowName
	for i, s := range a.servers {
		a.sigs[i] = make([]nameBits, len(s.Tools))
		a.ids[i] = make([]int32, len(s.Tools))
		for j, n := range s.Tools {
			nb := &a.sigs[i][j]
			buf = nameKey(buf[:0], n, true)
			nb.key[0], nb.key[1] = bloomBits(hashKey(buf))
			if nb.short = len(n) < 2; !nb.short {
				nb.shadow1, nb.shadow2 = nameSigs(n)
			}
			id, ok := idOf[n]
			if !ok {
				id = int32(len(idOf))
				idOf[n] = id
			}
			a.ids[i][j] = id
			k := min(len(n), maxByLen-1)
			byLen[k] = append(byLen[k], shadowName{name: n, id: id})
		}
	}
	a.distinct, a.byLen = len(idOf), &byLen
}

// Scanner returns the Scanner New would build for the server id with, as
// Options.OtherTools, the tool names of every server with another id, in
// order, less the names server id offers itself.
func (a *Agent) Scanner(id string) *Scanner {
	count := 0
	for _, s := range a.servers {
		if s.ID != id {
			count += len(s.Tools)
		}
	}
	if count == 0 {
		return New(Options{})
	}
	a.once.Do(a.index)
	// The names server id offers, by their ids: every server's names are
	// indexed once, and a Scanner skips these.
	own := make([]uint64, (a.distinct+63)/64)
	for i, s := range a.servers {
		if s.ID == id {
			for _, n := range a.ids[i] {
				own[n/64] |= 1 << (n % 64)
			}
		}
	}
	names := make([]string, 0, count)
	ix, sh := &nameIndex{}, &shadower{byLen: a.byLen, skip: own}
	for i, s := range a.servers {
		if s.ID == id {
			continue
		}
		for j, t := range s.Tools {
			if n := a.ids[i][j]; own[n/64]&(1<<(n%64)) != 0 {
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
	ix.names = names
	return &Scanner{sh: sh, names: ix}
}
