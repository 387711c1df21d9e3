package gate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// The call path. A tools/call is decided by package decide from what the
// gate gathered (decideCall); a call the decision holds is put before a
// human through the Approver and decided again once they answer (hold);
// then it is forwarded or refused, and recorded in one audit line and the
// calls metric (serveCall), in decide's words.

// approvalGrace is how long past the approval timeout the gate waits for
// the operator's Expired before giving up on its own.
const approvalGrace = 5 * time.Second

// call is a decided call, as the gate acts on it and records it.
type call struct {
	decide.Outcome
	// tool is the configuration's entry for the tool the agent named when
	// the call came, nil when it had none: the audit line's level and the
	// calls metric's tool.
	tool *gateproto.Tool
	// by is who decided a held call, as the operator recorded them.
	by string
	// callID is the id the operator recorded a held call under on its
	// ToolPin (pendingCalls, callHistory).
	callID string
}

func (g *Gate) serveCall(x *exchange) {
	c := call{tool: x.ss.tools[x.msg.Name]}
	c.Outcome = g.decideCall(x, x.st, x.ss, nil)
	if c.Verdict == decide.Hold {
		g.hold(x, &c)
	}
	switch {
	case c.Verdict.Forwards() && x.held != nil:
		g.forwardHeld(x)
	case c.Verdict.Forwards():
		g.forward(x)
	default:
		g.refuseCall(x, c.Message)
	}
	if x.answerRefused {
		// Forwarded, but what reached the agent was the gate's error.
		c.Verdict, c.Reason = decide.Refuse, decide.ReasonBadAnswer
	}
	g.observeLatency(x)
	level, tool := "", gatemetrics.UnknownTool
	if c.tool != nil {
		level, tool = c.tool.Level, c.tool.Name
	}
	g.metrics.Calls.WithLabelValues(x.ss.cfg.ID, tool, level, string(c.Verdict)).Inc()
	line := decisionLine{
		tool: clip.String(x.msg.Name, 256), fingerprint: c.Fingerprint, level: level, decision: c.Verdict,
		reason: c.Reason, enforce: c.EnforceWould, callID: c.callID, rpcID: clip.String(string(x.msg.ID), 128), upstream: x.upstream, by: c.by,
	}
	if x.facts != nil && x.facts.Judgement.Judged {
		j := x.facts.Judgement
		line.arguments = argumentsLine(j, x.msg.Arguments)
	}
	g.auditLine(x.st, x.ss, line)
}

// refuseCall answers a refused call with a JSON-RPC error, where the agent
// reads responses: on the SSE transport, the session's stream.
func (g *Gate) refuseCall(x *exchange, message string) {
	resp := rpcmsg.ErrorResponse(x.msg.ID, rpcmsg.CodeInvalidParams, message)
	if x.held != nil {
		_ = x.held.writeMessage(resp)
		x.held.close()
		return
	}
	if x.ss.sse {
		if s := x.sess.getStream(); s != nil && s.writeMessage(resp) == nil {
			x.w.WriteHeader(http.StatusAccepted)
			return
		}
		writeRPCError(x.w, http.StatusBadRequest, x.msg.ID, rpcmsg.CodeInvalidParams, message)
		return
	}
	writeRPCError(x.w, http.StatusOK, x.msg.ID, rpcmsg.CodeInvalidParams, message)
}

// decideCall decides a tools/call under the configuration st, ss being its
// entry for the call's server (nil when it has none), and approved the
// tool as a human approved the call (nil before one has). It gathers what
// the gate knows in memory and decides (decide.Call); when the decision
// waits on a fact the gate can fetch, it fetches it and decides again: the
// tool's live definition by listing the server in the agent's session
// (the only I/O, bounded by the server's timeout), and the arguments'
// check against the approved inputSchema. A call that goes on — forwarded
// or held — leaves the exchange under st, with the schema its arguments
// were checked against.
func (g *Gate) decideCall(x *exchange, st *state, ss *serverState, approved *gateproto.Tool) decide.Outcome {
	name := x.msg.Name
	f, schema := gatherCall(st, ss, name, approved)
	out := decide.Call(f)
	if out.Missing == decide.MissingObservation {
		ctx, cancel := context.WithTimeout(x.r.Context(), 2*ss.headerTimeout)
		err := g.establish(ctx, st, ss, x.via())
		cancel()
		if err != nil {
			if approved != nil {
				g.log.Warn("listing the server before an approved call failed", "server", ss.cfg.ID, "tool", name, "error", err)
			} else {
				g.log.Warn("listing the server before a call failed; call refused", "server", ss.cfg.ID, "tool", name, "error", err)
			}
		}
		f, schema = gatherCall(st, ss, name, approved)
		out = decide.Call(f)
	}
	if out.Missing == decide.MissingArgumentCheck {
		f.Arguments = decide.Checked(g.args.Check(f.Tool.Fingerprint, func() []byte { return schemaOrLoose(schema) }, x.msg.Arguments))
		out = decide.Call(f)
	}
	if out.Missing == decide.MissingArgumentJudgement {
		f.Judgement = g.judge(st, ss, f.Tool, schema, x.msg.Arguments)
		out = decide.Call(f)
	}
	x.facts = &f
	if out.Verdict.Forwards() || out.Verdict == decide.Hold {
		x.st, x.ss, x.schema = st, ss, schema
	}
	return out
}

// gatherCall reads, in memory and without waiting on anything but the
// watch's lock, what the gate knows of a call of the tool name under the
// configuration st: the configuration's entry, the watch's block, and the
// definition observed under st, whose inputSchema it also returns.
func gatherCall(st *state, ss *serverState, name string, approved *gateproto.Tool) (decide.CallFacts, []byte) {
	f := decide.CallFacts{Approved: approved}
	if st == nil || ss == nil {
		return f, nil
	}
	f.Mode = st.cfg.Mode
	f.Ceiling, f.ApprovalLevel = st.cfg.Ceiling, st.cfg.ApprovalLevel
	if !ss.cfg.Ready {
		f.Server = decide.ServerNotReady
		return f, nil
	}
	f.Server = decide.ServerReady
	if f.Tool = ss.tools[name]; f.Tool == nil {
		return f, nil
	}
	blocked, o, ok := ss.watch.callView(name)
	f.Blocked = blocked
	if !ok || o.gen != st.gen {
		return f, nil
	}
	f.Observed = decide.Observation{Current: true, Fingerprint: o.fingerprint}
	return f, o.schema
}

// looseSchema stands for a definition that states no inputSchema (or
// null), which MCP requires but some servers omit: it says nothing of the
// arguments but that they are an object, which is all the gate checks.
var looseSchema = []byte(`{"type":"object"}`)

func schemaOrLoose(schema []byte) []byte {
	if len(schema) == 0 || string(schema) == "null" {
		return looseSchema
	}
	return schema
}

// hold puts a call before a human through the Approver and, once they
// answer, makes c what came of it, with who decided and the id the
// operator recorded the call under. An approval is checked again against
// what the gate knows then (decideCall with the approved tool), since the
// human may have taken minutes: the configuration in force must still
// offer the tool at the approved pin and fingerprint, and the server must
// still send that definition. The call then goes to the upstream of the
// configuration in force.
func (g *Gate) hold(x *exchange, c *call) {
	t := c.tool
	digest, err := ArgumentsDigest(x.msg.Arguments)
	if err != nil {
		c.Outcome = decide.Refusal(decide.ReasonApprovalUnavailable)
		return
	}
	preview, complete := Preview(x.msg.Arguments)
	why := decide.Held(*x.facts)
	req := gateproto.CallRequest{
		HeldBy: why.By, Rule: why.Rule, Level: why.Level, Reason: clip.String(why.Reason, gateproto.MaxMessageLength),
		Version:          gateproto.Version,
		CallID:           randomKey(),
		Server:           x.ss.cfg.ID,
		Tool:             t.Name,
		Pin:              t.Pin,
		Fingerprint:      t.Fingerprint,
		ArgumentsDigest:  digest,
		ArgumentsPreview: preview, ArgumentsComplete: complete,
	}
	// The audit line carries the id the pin records the call under, so
	// that the two can be joined.
	c.callID = req.CallID
	// The operator sends Expired at the timeout; the gate's own bound
	// comes a little later, so that it is the operator's record (Expired,
	// not Withdrawn) that ends a call nobody decided, and still holds when
	// the operator cannot be heard.
	ctx, cancel := context.WithCancel(x.r.Context())
	defer cancel()
	if d := x.st.cfg.ApprovalTimeout.Duration; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, d+approvalGrace)
		defer stop()
	}
	// Deferred, so that an approver that panics does not leave the
	// keep-alive writing to a response whose handler has returned.
	release := g.holdCall(x, cancel)
	defer release()
	stopKeepAlive := g.keepAlive(x, req.CallID)
	defer stopKeepAlive()
	out, err := g.approver.Approve(ctx, req)
	if err == nil && out.Verdict == gateproto.CallApproved && (out.CallID != req.CallID || out.ArgumentsDigest != digest) {
		// An approval covers one call and its arguments only.
		err = fmt.Errorf("the approval names call %s with arguments %s, not call %s with %s", out.CallID, out.ArgumentsDigest, req.CallID, digest)
	}
	if err == nil && ctx.Err() != nil {
		// The agent gave up as the outcome came: the call stays withdrawn.
		err = ctx.Err()
	}
	answer := decide.ApproverAnswer{Verdict: out.Verdict}
	switch {
	case errors.Is(err, ErrApprovalRequired):
		answer.NoApprover = true
	case err != nil:
		answer.Failed = true
		g.log.Warn("approval failed; call refused", "server", x.ss.cfg.ID, "tool", t.Name, "error", err)
	default:
		c.by = out.By
	}
	c.Outcome = decide.Answer(answer)
	if c.Verdict != decide.Forward {
		return
	}
	cur := g.state.Load()
	var ss *serverState
	if cur != nil {
		ss = cur.servers[x.ss.cfg.ID]
	}
	c.Outcome = g.decideCall(x, cur, ss, t)
	if !c.Verdict.Forwards() {
		// The human approved the call as it was asked; the gate has since
		// seen the definition change, or a new configuration stopped
		// offering the tool as approved. The approval does not carry over.
		g.log.Warn("an approved call no longer stands; refused", "server", x.ss.cfg.ID, "tool", t.Name, "reason", string(c.Reason))
	}
}

// argumentsLine is what the audit line says of a call its arguments
// tightened: the rule (or floors) and what it did, the call's level after
// its arguments, and the digest of the arguments, which the person who
// reads the line can match against a held call's; nil when the arguments
// changed nothing.
func argumentsLine(j decide.ArgumentJudgement, raw []byte) *argumentsAudit {
	a := &argumentsAudit{}
	switch {
	case j.Unevaluable != nil:
		a.rule, a.outcome = j.Unevaluable.Rule, "unevaluable"
	case j.Refuse != nil:
		a.rule, a.outcome = j.Refuse.Rule, "refuse"
	case j.Hold != nil:
		a.rule, a.outcome = j.Hold.Rule, "hold"
	case j.Raised != "":
		a.rule, a.outcome = j.RaisedBy, "raise"
	default:
		return nil
	}
	if j.Raised != "" {
		a.level, a.raised = j.Level, j.Raised
	}
	a.digest, _ = ArgumentsDigest(raw)
	return a
}
