package gate

import (
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
)

// outstanding is a server's record of the requests agents have sent it
// and not yet been answered, by agent session. An agent's client routes a
// response from any stream by its id, so the gate must know, for every
// response a server writes on a stream other than the POST it answers,
// whether it answers a request of the agent's at all, and whether that
// request is a tools/list, whose answer is filtered wherever it comes.
//
// The record is bounded per session: a request that would exceed the bound
// is refused, never forwarded untracked, since an untracked request's
// answer could not be judged.
type outstanding struct {
	mu sync.Mutex
	// bySession maps an agent session ("" when the agent has none) to its
	// outstanding requests.
	bySession map[string]*sessionRequests
	// last is the token of the last request registered: each exchange
	// releases its own request, not another's of the same id.
	last uint64
	// spare are records of sessions that had nothing outstanding any
	// more, kept for the next session: a session's record goes when its
	// last request is answered, and an agent sends its requests one after
	// another, so without them every request would build one anew.
	spare []*sessionRequests
}

// maxSpare bounds the spare records a server keeps: about as many as
// sessions send requests at once.
const maxSpare = 64

// sessionRequests are one session's outstanding requests by id key. An id
// may be outstanding more than once: agents without a session share one
// record, and each numbers its requests from 1.
type sessionRequests struct {
	byID map[string][]outstandingRequest
	n    int
}

type outstandingRequest struct {
	token  uint64
	method string
	// tool is the tool a tools/call names, whose ResultAction judges its
	// answer.
	tool string
	// detached is when the request's exchange ended unanswered while its
	// answer may still come on another stream (a resumed stream, the SSE
	// transport's); zero while the exchange runs.
	detached time.Time
}

func newOutstanding() *outstanding {
	return &outstanding{bySession: map[string]*sessionRequests{}}
}

// register records a request before it is forwarded. When the session's
// record holds limit requests, those detached for longer than stale are
// forgotten first; if it is still full the request is refused (false). The
// token names the request to release and detach.
func (o *outstanding) register(session, key, method, tool string, limit int, stale time.Duration) (uint64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	sr := o.bySession[session]
	if sr == nil {
		if n := len(o.spare); n > 0 {
			sr, o.spare[n-1] = o.spare[n-1], nil
			o.spare = o.spare[:n-1]
		} else {
			sr = &sessionRequests{byID: map[string][]outstandingRequest{}}
		}
		o.bySession[session] = sr
	}
	if sr.n >= limit {
		sr.sweep(time.Now(), stale)
		if sr.n >= limit {
			if sr.n == 0 {
				delete(o.bySession, session)
			}
			return 0, false
		}
	}
	o.last++
	sr.byID[key] = append(sr.byID[key], outstandingRequest{token: o.last, method: method, tool: tool})
	sr.n++
	return o.last, true
}

// answerAmbiguous is what take reports for an id under which a
// tools/list and a request whose answer carries instructions (initialize,
// server/discover) are both outstanding: no one check judges an answer
// that may be either, and it is not relayed.
const answerAmbiguous = "\x00ambiguous"

// take removes a request whose answer is being delivered, reporting its
// method, its tool (for a tools/call; "" when calls to different tools
// share the id, so that the strictest action judges the answer) and
// whether one of that id was outstanding. When several are (the
// agents without a session share one record, and each numbers its
// requests from 1), the one whose answer the gate judges is taken first —
// a tools/list, then an initialize or server/discover — since its check is
// safe whichever request the answer is for: a filtered list or an
// instructions check changes nothing in another answer. A list and an
// instructions answer under one id cannot both be judged: answerAmbiguous.
func (o *outstanding) take(session, key string) (method, tool string, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	sr := o.bySession[session]
	if sr == nil || len(sr.byID[key]) == 0 {
		return "", "", false
	}
	reqs := sr.byID[key]
	list, instr := -1, -1
	for j, r := range reqs {
		switch {
		case r.method == rpcmsg.MethodToolsList && list < 0:
			list = j
		case rpcmsg.CarriesInstructions(r.method) && instr < 0:
			instr = j
		}
	}
	i := 0
	switch {
	case list >= 0 && instr >= 0:
		return answerAmbiguous, "", true
	case list >= 0:
		i = list
	case instr >= 0:
		i = instr
	}
	method, tool = reqs[i].method, reqs[i].tool
	for _, r := range reqs {
		if r.method == rpcmsg.MethodToolsCall && r.tool != tool {
			tool = ""
		}
	}
	o.removeLocked(session, sr, key, i)
	return method, tool, true
}

// release removes the request of that token, whose exchange ended
// answered, or failed; one already taken is gone already.
func (o *outstanding) release(session, key string, token uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if sr := o.bySession[session]; sr != nil {
		if i := sr.find(key, token); i >= 0 {
			o.removeLocked(session, sr, key, i)
		}
	}
}

// detach keeps a request whose exchange ended before its answer came: the
// answer may still come on another stream. A request already answered
// there stays removed.
func (o *outstanding) detach(session, key string, token uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if sr := o.bySession[session]; sr != nil {
		if i := sr.find(key, token); i >= 0 {
			sr.byID[key][i].detached = time.Now()
		}
	}
}

// drop forgets a session's record: the session is gone.
func (o *outstanding) drop(session string) {
	o.mu.Lock()
	delete(o.bySession, session)
	o.mu.Unlock()
}

// find is the index of the request of that id and token, -1 when it is
// gone.
func (sr *sessionRequests) find(key string, token uint64) int {
	for i, r := range sr.byID[key] {
		if r.token == token {
			return i
		}
	}
	return -1
}

func (sr *sessionRequests) sweep(now time.Time, stale time.Duration) {
	for k, reqs := range sr.byID {
		kept := reqs[:0]
		for _, r := range reqs {
			if r.detached.IsZero() || now.Sub(r.detached) <= stale {
				kept = append(kept, r)
			}
		}
		sr.n -= len(reqs) - len(kept)
		if len(kept) == 0 {
			delete(sr.byID, k)
		} else {
			sr.byID[k] = kept
		}
	}
}

func (o *outstanding) removeLocked(session string, sr *sessionRequests, key string, i int) {
	reqs := sr.byID[key]
	reqs = append(reqs[:i], reqs[i+1:]...)
	sr.n--
	if len(reqs) == 0 {
		delete(sr.byID, key)
	} else {
		sr.byID[key] = reqs
	}
	if sr.n == 0 {
		delete(o.bySession, session)
		// Nothing is left in it (n counts what byID holds, and an id
		// without requests is deleted): it can serve another session.
		if len(o.spare) < maxSpare {
			o.spare = append(o.spare, sr)
		}
	}
}
