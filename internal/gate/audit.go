package gate

import (
	"context"
	"log/slog"
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
	// Attributes rather than alternating keys and values: a string held
	// in an any is a copy on the heap each, and a line is written for
	// every call.
	var buf [22]slog.Attr
	attrs := append(buf[:0],
		slog.String("namespace", st.cfg.Namespace), slog.String("pod", st.cfg.Pod), slog.String("server", ss.cfg.ID),
		slog.String("tool", d.tool), slog.String("fingerprint", d.fingerprint), slog.String("level", d.level),
		slog.String("decision", string(d.decision)), slog.String("reason", string(d.reason)),
		slog.String("callID", d.callID), slog.String("rpcID", d.rpcID), //nolint:sloglint // the audit line's keys are its published format
		slog.Float64("upstreamLatencyMs", float64(d.upstream.Microseconds())/1000),
		slog.String("mode", string(st.cfg.Mode)), slog.String("revision", st.cfg.Revision),
	)
	if d.enforce != "" {
		attrs = append(attrs, slog.String("enforceWould", string(d.enforce)))
	}
	if d.by != "" {
		attrs = append(attrs, slog.String("decidedBy", d.by))
	}
	if a := d.arguments; a != nil {
		attrs = append(attrs, slog.String("argumentRule", a.rule), slog.String("argumentOutcome", a.outcome), slog.String("argumentsDigest", a.digest))
		if a.level != "" {
			attrs = append(attrs, slog.String("callLevel", a.level), slog.String("raisedBy", a.raised))
		}
	}
	g.audit.LogAttrs(context.Background(), slog.LevelInfo, "toolgate.decision", attrs...)
}
