package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/internal/gate/gatemetrics"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gate/sse"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// internalIDPrefix starts the ids of the gate's own requests to a server.
const internalIDPrefix = "toolgate/"

// Decisions and reasons of the audit line beyond the configuration's own.
const (
	decisionForward  = "forward"
	decisionRefuse   = "refuse"
	decisionWithhold = "withhold"
	// decisionAuditForward: forwarded in Audit mode, where Enforce would
	// have refused the call (enforceWould "refuse").
	decisionAuditForward = "audit-forward"
	// decisionAuditForwardUnheld: an approval-gated call forwarded in
	// Audit mode without a human, where Enforce would have held it
	// (enforceWould "hold"). A decision of its own, not audit-forward,
	// so that the calls metric, which has no enforceWould, still tells a
	// call Enforce would refuse from one it would put before a human.
	decisionAuditForwardUnheld = "audit-forward-unheld"
	// enforceHold is what Enforce does with an approval-gated call: hold it
	// until a human decides.
	enforceHold = "hold"

	reasonUnknown        = "Unknown"
	reasonChanged        = "FingerprintChanged"
	reasonNotObserved    = "NotObserved"
	reasonApproval       = "ApprovalRequired"
	reasonApproved       = "Approved"
	reasonNotApproved    = "NotApproved"
	reasonApprovalFailed = "ApprovalUnavailable"
	// reasonBadAnswer: the call was forwarded, but the server's answer was
	// not the one response to it, and did not reach the agent.
	reasonBadAnswer = "BadAnswer"
	// reasonAmbiguous: the message had member names a peer could read as
	// other members (rpcmsg.CheckRequest), so which tool it names, or with
	// which arguments, cannot be told.
	reasonAmbiguous = "AmbiguousMessage"
	// reasonInvalidArguments: the call's arguments are not what the
	// approved definition's inputSchema allows (argcheck).
	reasonInvalidArguments = "InvalidArguments"
	// reasonInstructionsChanged: the instructions a server sent an agent
	// are not the ones the operator reviewed, and were taken out.
	reasonInstructionsChanged = "InstructionsChanged"
	// auditInstructions is the tool field of an audit line about a
	// server's instructions, which belong to no tool.
	auditInstructions = "_instructions"
)

// approvalGrace is how long past the approval timeout the gate waits for
// the operator's Expired before giving up on its own.
const approvalGrace = 5 * time.Second

// notAvailable is the one answer to a call of a tool the agent may not
// reach, whatever the reason: the model learns nothing it could use to get
// around the gate.
const notAvailable = "tool not available"

type verdict struct {
	forward bool
	// decision and reason are what the audit line records; enforce is
	// what Enforce would have done, in Audit mode.
	decision, reason, enforce string
	message                   string
	tool                      *gateproto.Tool
	fingerprint               string
	approvedBy                string
	// callID is the id the operator recorded the call under on its
	// ToolPin (pendingCalls, callHistory), when it asked for approval.
	callID string
}

func refuse(reason string, t *gateproto.Tool) verdict {
	return verdict{decision: decisionRefuse, reason: reason, message: notAvailable, tool: t}
}

func (g *Gate) serveCall(x *exchange) {
	v := g.decideCall(x)
	switch {
	case v.forward && x.held != nil:
		g.forwardHeld(x)
	case v.forward:
		g.forward(x)
	default:
		g.refuseCall(x, v.message)
	}
	if x.answerRefused {
		v.decision, v.reason = decisionRefuse, reasonBadAnswer
	}
	g.observeLatency(x)
	level, tool := "", gatemetrics.UnknownTool
	if v.tool != nil {
		level, tool = v.tool.Level, v.tool.Name
	}
	g.metrics.Calls.WithLabelValues(x.ss.cfg.ID, tool, level, v.decision).Inc()
	g.auditLine(x.st, x.ss, decisionLine{
		tool: clip.String(x.msg.Name, 256), fingerprint: v.fingerprint, level: level, decision: v.decision,
		reason: v.reason, enforce: v.enforce, callID: v.callID, rpcID: clip.String(string(x.msg.ID), 128), upstream: x.upstream, by: v.approvedBy,
	})
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

// decideCall judges a tools/call. The order matters: what the
// configuration says first, then what the server sends now (listing it if
// the gate has not seen the tool since the configuration was applied),
// and only then a human, who is never asked about a definition that
// changed.
func (g *Gate) decideCall(x *exchange) verdict {
	st, ss := x.st, x.ss
	name := x.msg.Name
	t := ss.tools[name]
	if t == nil {
		return refuse(reasonUnknown, nil)
	}
	if ss.watch.isBlocked(name) {
		return refuse(reasonChanged, t)
	}
	audit := st.cfg.Mode == gateproto.ModeAudit
	v := verdict{forward: true, decision: decisionForward, tool: t, fingerprint: t.Fingerprint}
	if t.Decision == gateproto.DecisionWithheld {
		if !audit || !t.AuditForwardable {
			return refuse(string(t.Reason), t)
		}
		v.decision, v.reason, v.enforce = decisionAuditForward, string(t.Reason), decisionRefuse
	}
	o, ok := ss.watch.observation(name)
	if !ok || o.gen != st.gen {
		ctx, cancel := context.WithTimeout(x.r.Context(), 2*ss.headerTimeout)
		err := g.establish(ctx, st, ss, x.via())
		cancel()
		if err != nil {
			g.log.Warn("listing the server before a call failed; call refused", "server", ss.cfg.ID, "tool", name, "error", err)
		}
		o, ok = ss.watch.observation(name)
	}
	switch {
	case !ok || o.gen != st.gen:
		return refuse(reasonNotObserved, t)
	case ss.watch.isBlocked(name) || o.fingerprint != t.Fingerprint:
		r := refuse(reasonChanged, t)
		r.fingerprint = o.fingerprint
		return r
	}
	x.schema = o.schema
	if err := g.args.Check(t.Fingerprint, func() []byte { return schemaOrLoose(o.schema) }, x.msg.Arguments); err != nil {
		// Arguments the reviewer never saw, or of another shape than the
		// definition approved, reach neither the server nor a human: in
		// Audit mode too, since the schema is no policy choice.
		r := refuse(reasonInvalidArguments, t)
		r.message = "toolgate: " + err.Error()
		return r
	}
	if t.Decision != gateproto.DecisionApprovalGated {
		return v
	}
	if audit {
		// Recorded as Enforce would have held it: the rule's reason, and
		// a decision and enforceWould that say a human was skipped.
		v.decision, v.reason, v.enforce = decisionAuditForwardUnheld, reasonApproval, enforceHold
		return v
	}
	return g.approve(x, t, v)
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

func (g *Gate) approve(x *exchange, t *gateproto.Tool, v verdict) verdict {
	digest, err := ArgumentsDigest(x.msg.Arguments)
	if err != nil {
		return refuse(reasonApprovalFailed, t)
	}
	preview, complete := Preview(x.msg.Arguments)
	req := gateproto.CallRequest{
		Version:          gateproto.Version,
		CallID:           randomKey(),
		Server:           x.ss.cfg.ID,
		Tool:             t.Name,
		Pin:              t.Pin,
		Fingerprint:      t.Fingerprint,
		ArgumentsDigest:  digest,
		ArgumentsPreview: preview, ArgumentsComplete: complete,
	}
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
	var r verdict
	switch {
	case errors.Is(err, ErrApprovalRequired):
		r = refuse(reasonApproval, t)
		r.message = "approval required"
	case err != nil:
		g.log.Warn("approval failed; call refused", "server", x.ss.cfg.ID, "tool", t.Name, "error", err)
		r = refuse(reasonApprovalFailed, t)
		r.message = "approval required"
	case out.Verdict == gateproto.CallApproved:
		if why := g.stillApproved(x, t); why != "" {
			// The human approved the call as it was asked; the gate has
			// since seen the definition change, or a new configuration
			// stopped gating the tool. The approval does not carry over.
			g.log.Warn("an approved call no longer stands; refused", "server", x.ss.cfg.ID, "tool", t.Name, "reason", why)
			r = refuse(why, t)
			r.approvedBy = out.By
			break
		}
		r = v
		r.reason, r.approvedBy = reasonApproved, out.By
	default:
		r = refuse(reasonNotApproved, t)
		r.approvedBy = out.By
		r.message = "call not approved"
		if out.Verdict == gateproto.CallExpired {
			r.message = "approval timed out"
		}
	}
	// The audit line carries the id the pin records the call under, so
	// that the two can be joined.
	r.callID = req.CallID
	return r
}

// stillApproved checks an approved call again against what the gate knows
// now, since the human may have taken minutes: the configuration in force
// must still offer the tool at the approved pin and fingerprint, and the
// server's live definition must still be that fingerprint. It returns why
// not, or "" and points the exchange at the current configuration, whose
// upstream the call then goes to.
func (g *Gate) stillApproved(x *exchange, approved *gateproto.Tool) string {
	name := x.msg.Name
	cur := g.state.Load()
	if cur == nil {
		return reasonUnknown
	}
	ss := cur.servers[x.ss.cfg.ID]
	switch {
	case ss == nil:
		return reasonUnknown
	case !ss.cfg.Ready:
		return string(gateproto.ReasonServerNotReady)
	}
	t := ss.tools[name]
	switch {
	case t == nil:
		return reasonUnknown
	case t.Decision == gateproto.DecisionWithheld:
		return string(t.Reason)
	case t.Pin != approved.Pin || t.Fingerprint != approved.Fingerprint || ss.watch.isBlocked(name):
		return reasonChanged
	}
	o, ok := ss.watch.observation(name)
	if !ok || o.gen != cur.gen {
		ctx, cancel := context.WithTimeout(x.r.Context(), 2*ss.headerTimeout)
		err := g.establish(ctx, cur, ss, x.via())
		cancel()
		if err != nil {
			g.log.Warn("listing the server before an approved call failed", "server", ss.cfg.ID, "tool", name, "error", err)
		}
		o, ok = ss.watch.observation(name)
	}
	switch {
	case !ok || o.gen != cur.gen:
		return reasonNotObserved
	case ss.watch.isBlocked(name) || o.fingerprint != approved.Fingerprint:
		return reasonChanged
	}
	x.st, x.ss, x.schema = cur, ss, o.schema
	return ""
}

// establish makes sure the gate has observed the server's live catalogue
// under the configuration in force, listing it itself when it has not.
// Concurrent callers share one listing.
func (g *Gate) establish(ctx context.Context, st *state, ss *serverState, v via) error {
	w := ss.watch
	w.mu.Lock()
	if l := w.listing; l != nil && l.gen == st.gen {
		w.mu.Unlock()
		select {
		case <-l.done:
			return l.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l := &listing{gen: st.gen, done: make(chan struct{})}
	w.listing = l
	w.mu.Unlock()
	l.err = g.listServer(ctx, st, ss, v)
	close(l.done)
	w.mu.Lock()
	if w.listing == l {
		w.listing = nil
	}
	w.mu.Unlock()
	return l.err
}

// listServer reads every page of the server's tools/list in the agent's
// session, so the gate sees what the agent would be shown, and records it.
func (g *Gate) listServer(ctx context.Context, st *state, ss *serverState, v via) error {
	var meta []byte
	if statelessProtocol(v.protocol) {
		meta = rpcmsg.ClientMeta(v.meta, v.protocol)
	}
	cursor := ""
	for range g.limits.MaxListPages {
		id := []byte(strconv.Quote(internalIDPrefix + strconv.FormatUint(g.ids.Add(1), 10)))
		data, err := g.roundTrip(ctx, ss, v, id, rpcmsg.ListRequest(id, cursor, meta))
		if err != nil {
			return err
		}
		meter := g.newListMeter()
		_, res, err := rpcmsg.FilterList(nil, data, rpcmsg.ListOptions{
			Observe: func(tools []rpcmsg.Listed) { g.record(st, ss, tools) },
			Charge:  meter.charge,
		})
		meter.close()
		if err != nil {
			if errors.Is(err, errDecodeBudget) {
				g.limitHit("list-decoded-bytes", "tools/list over its memory budget", "server", ss.cfg.ID, "error", err)
			}
			return err
		}
		if res.IsError {
			return errors.New("the server answered tools/list with an error")
		}
		if res.NextCursor == "" {
			return nil
		}
		cursor = res.NextCursor
	}
	g.limitHit("list-pages", "server's tools/list has too many pages", "server", ss.cfg.ID, "max", g.limits.MaxListPages)
	return fmt.Errorf("tools/list has more than %d pages", g.limits.MaxListPages)
}

// roundTrip sends one request of the gate's own to a server and returns
// the response message.
func (g *Gate) roundTrip(ctx context.Context, ss *serverState, v via, id, body []byte) ([]byte, error) {
	target := ss.cfg.Upstream.URL
	var wait chan []byte
	if ss.sse {
		if v.sess == nil {
			return nil, errors.New("no SSE session")
		}
		target = v.sess.endpoint
		k := rpcmsg.IDKey(id)
		wait = v.sess.addWaiter(k)
		defer v.sess.removeWaiter(k)
	}
	req, err := newUpstreamRequest(ctx, ss, http.MethodPost, target, bytes.NewReader(body), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if v.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", v.sessionID)
	}
	if v.protocol != "" {
		req.Header.Set("Mcp-Protocol-Version", v.protocol)
	}
	if statelessProtocol(v.protocol) {
		req.Header.Set(headerMethod, rpcmsg.MethodToolsList)
	}
	resp, err := ss.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		return nil, fmt.Errorf("the server answered tools/list with HTTP %d: %q", resp.StatusCode, b)
	}
	if wait != nil {
		select {
		case data := <-wait:
			return data, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		data, err := readBounded(resp.Body, g.limits.MaxListBytes)
		if err != nil {
			if errors.Is(err, errListTooLarge) {
				g.limitHit("list-bytes", "tools/list response too large", "server", ss.cfg.ID, "max", g.limits.MaxListBytes)
			}
			return nil, err
		}
		return data, nil
	case "text/event-stream":
		want := rpcmsg.IDKey(id)
		rd := sse.NewReader(resp.Body, g.limits.MaxEventBytes)
		for {
			ev, err := rd.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, errors.New("the server closed the stream before answering tools/list")
				}
				return nil, err
			}
			if len(ev.Data) == 0 {
				continue
			}
			m, err := rpcmsg.Scan(ev.Data)
			if err == nil && m.IsResponse() && rpcmsg.IDKey(m.ID) == want {
				return bytes.Clone(ev.Data), nil
			}
		}
	}
	return nil, fmt.Errorf("the server answered tools/list with content type %q", resp.Header.Get("Content-Type"))
}

// decisionLine is one audit line.
type decisionLine struct {
	tool, fingerprint, level, decision, reason, enforce, callID, rpcID, by string
	upstream                                                               time.Duration
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
		"decision", d.decision, "reason", d.reason, "callID", d.callID, "rpcID", d.rpcID,
		"upstreamLatencyMs", float64(d.upstream.Microseconds()) / 1000,
		"mode", string(st.cfg.Mode), "revision", st.cfg.Revision,
	}
	if d.enforce != "" {
		attrs = append(attrs, "enforceWould", d.enforce)
	}
	if d.by != "" {
		attrs = append(attrs, "decidedBy", d.by)
	}
	g.audit.Info("toolgate.decision", attrs...)
}
