package gate

import (
	"time"

	"github.com/toolgate/toolgate/internal/gate/decide"
)

// auditInstructions is the tool field of an audit line about a server's
// instructions, which belong to no tool.
const auditInstructions = "_instructions"

// decisionLine is one audit line. Its decision, reason and enforceWould
// are the words of package decide, and nothing else.
type decisionLine struct {
	tool, fingerprint, level string
	decision, enforce        decide.Verdict
	reason                   decide.Reason
	callID, rpcID, by        string
	upstream                 time.Duration
	// arguments is set when a call's arguments tightened its decision.
	arguments *argumentsAudit
}

// argumentsAudit is what the audit line says of the arguments of a call
// an argument rule or floor tightened.
type argumentsAudit struct {
	rule, outcome, level, raised, digest string
}

// auditLine writes one structured line per decision: the pod, the server,
// the tool and its level, the decision and why, the call id and the time
// the server took.
func (g *Gate) auditLine(st *state, ss *serverState, d decisionLine) {
	if d.callID == "" {
		d.callID = randomKey()
	}
	attrs := []any{
		"namespace", st.cfg.Namespace, "pod", st.cfg.Pod, "server", ss.cfg.ID,
		"tool", d.tool, "fingerprint", d.fingerprint, "level", d.level,
		"decision", string(d.decision), "reason", string(d.reason), "callID", d.callID, "rpcID", d.rpcID,
		"upstreamLatencyMs", float64(d.upstream.Microseconds()) / 1000,
		"mode", string(st.cfg.Mode), "revision", st.cfg.Revision,
	}
	if d.enforce != "" {
		attrs = append(attrs, "enforceWould", string(d.enforce))
	}
	if d.by != "" {
		attrs = append(attrs, "decidedBy", d.by)
	}
	if a := d.arguments; a != nil {
		attrs = append(attrs, "argumentRule", a.rule, "argumentOutcome", a.outcome, "argumentsDigest", a.digest)
		if a.level != "" {
			attrs = append(attrs, "callLevel", a.level, "raisedBy", a.raised)
		}
	}
	g.audit.Info("toolgate.decision", attrs...)
}
