package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/resultscan"
)

// What a server says after its tools were reviewed — the results of calls,
// log notifications, the requests it sends the agent's client, prompts and
// resources — is scanned (pkg/resultscan) before it reaches the agent, and
// what the gate does on a finding is the configuration's FindingAction:
// the tool's ResultAction for a tools/call result, the server's
// MessageAction for everything else.

// FindingReporter is told of every finding the gate did not hold, so that
// the operator can mark the tool's pin with an Event. An Approver that
// implements it is used; reports are best-effort and never delay an
// answer.
type FindingReporter interface {
	ReportFindings(ctx context.Context, rep gateproto.FindingReport) error
}

// said is one message a server sent, as the scan sees it.
type said struct {
	// method is the message's own method, or the method of the request it
	// answers.
	method string
	// tool is the tool a tools/call result comes from; "" when unknown.
	tool string
	// id is the id of the agent's request a response answers, of the
	// server's request, or nil for a notification.
	id []byte
	// request says the message is a request the server sends the client
	// (sampling/createMessage, elicitation/create ...).
	request bool
	// holdable says the message answers the exchange's own request, whose
	// agent is waiting on it: only such a result can be held for a person.
	holdable bool
	// stream is where the agent is being answered, when it is an event
	// stream the gate can keep alive while a result is held.
	stream *stream
}

// saidOutcome is what becomes of a scanned message.
type saidOutcome int

const (
	saidPass     saidOutcome = iota // the bytes returned go to the agent
	saidDrop                        // nothing goes to the agent
	saidRefused                     // nothing goes to the agent; the server's request is answered with an error
	saidAnswered                    // the gate answered the agent itself (a held result's keep-alive stream)
)

// scansAnswerTo reports whether the answer to method is scanned: every
// answer but those the gate judges otherwise — a tools/list by the
// fingerprints of its tools, an initialize by its reviewed instructions.
func scansAnswerTo(method string) bool {
	return method != rpcmsg.MethodToolsList && !rpcmsg.CarriesInstructions(method)
}

// judgeSaid scans one message of the server's and returns what the agent
// is sent instead of it.
func (g *Gate) judgeSaid(x *exchange, m said, msg []byte) ([]byte, saidOutcome) {
	st := g.state.Load()
	if st == nil {
		st = x.st
	}
	ss := st.servers[x.ss.cfg.ID]
	if ss == nil {
		ss = x.ss
	}
	var r resultscan.Report
	if err := st.scanner().Message(&r, msg); err != nil {
		// rpcmsg.Scan read it as JSON already; a message the scan cannot
		// walk is not passed unjudged.
		r.Findings = append(r.Findings, resultscan.Finding{Signal: signalUnreadable})
	}
	action, scope := g.findingAction(ss, m)
	carriesRequest := m.request || r.InputRequests
	refuseRequest := carriesRequest && action != gateproto.FindingRecord && (len(r.Findings) > 0 || ss.watch.tainted.Load())
	if r.Clean() && !refuseRequest {
		return msg, saidPass
	}
	if r.Unscanned > 0 {
		g.metrics.UnscannedBytes.WithLabelValues(ss.cfg.ID).Add(float64(r.Unscanned))
		if action != gateproto.FindingRecord {
			// What was not read is not known to be clean: under a setting
			// that acts, it is a finding of its own.
			r.Findings = append(r.Findings, resultscan.Finding{Signal: signalUnscanned,
				Excerpt: fmt.Sprintf("%d bytes past the scan's bound of %d", r.Unscanned, g.limits.MaxScanBytes)})
		}
	}
	if len(r.Findings) > 0 {
		ss.watch.tainted.Store(true)
	}
	did := action
	switch {
	case refuseRequest:
		did = gateproto.FindingWithhold
	case action == gateproto.FindingHold && (!m.holdable || scope != scopeTool || m.tool == ""):
		// Only the result the agent waits on can be held, and only on a
		// tool's pin.
		did = gateproto.FindingWithhold
	}
	var out []byte
	outcome := saidPass
	switch did {
	case gateproto.FindingRecord:
		out = msg
	case gateproto.FindingRedact:
		red, err := resultscan.Redact(msg, r.Findings)
		if err == nil {
			out = red
			break
		}
		g.log.Warn("a flagged answer could not be redacted; withheld", "server", ss.cfg.ID, "method", m.method, "error", err)
		did = gateproto.FindingWithhold
		fallthrough
	case gateproto.FindingWithhold:
		out, outcome = g.withheldSaid(m, r.Findings, refuseRequest)
	case gateproto.FindingHold:
		out, outcome = g.holdResult(x, ss, m, msg, r.Findings)
	}
	g.recordFindings(st, ss, m, did, &r)
	return out, outcome
}

// Signals the gate adds to the scan's.
const (
	// signalUnscanned stands for text past the scan's bound under a
	// setting that acts on findings.
	signalUnscanned = "unscanned"
	// signalUnreadable stands for a message the scan could not walk.
	signalUnreadable = "unreadable"
)

type actionScope int

const (
	scopeServer actionScope = iota
	scopeTool
)

// findingAction is the configuration's action for the message: a tool's
// ResultAction for its results, the server's MessageAction otherwise. A
// result whose tool is unknown (an answer on a stream the agent resumed)
// takes the strictest action of the server's.
func (g *Gate) findingAction(ss *serverState, m said) (gateproto.FindingAction, actionScope) {
	if m.method != rpcmsg.MethodToolsCall {
		return messageAction(ss.cfg.MessageAction), scopeServer
	}
	if t := ss.tools[m.tool]; t != nil && m.tool != "" {
		return t.ResultAction.OrRecord(), scopeTool
	}
	a := messageAction(ss.cfg.MessageAction)
	for _, t := range ss.tools {
		if strictness(t.ResultAction.OrRecord()) > strictness(a) {
			a = t.ResultAction.OrRecord()
		}
	}
	return a, scopeServer
}

// messageAction is a server's MessageAction as the gate applies it: there
// is no pin to hold a message on, so Hold withholds.
func messageAction(a gateproto.FindingAction) gateproto.FindingAction {
	if a == gateproto.FindingHold {
		return gateproto.FindingWithhold
	}
	return a.OrRecord()
}

func strictness(a gateproto.FindingAction) int {
	switch a {
	case gateproto.FindingRedact:
		return 1
	case gateproto.FindingHold:
		return 2
	case gateproto.FindingWithhold:
		return 3
	}
	return 0
}

// withheldSaid is what the agent gets in place of a withheld message: a
// JSON-RPC error answering its request, or nothing for a notification or
// a request of the server's (whose server is then told no).
func (g *Gate) withheldSaid(m said, fs []resultscan.Finding, refused bool) ([]byte, saidOutcome) {
	switch {
	case m.request:
		return nil, saidRefused
	case m.id == nil:
		return nil, saidDrop
	}
	text := "toolgate: the server's answer was withheld: " + describeFindings(fs)
	if refused {
		text = "toolgate: the server's answer asks the client for input, and the server has said things the gate flagged; refused"
	}
	return rpcmsg.ErrorResponse(m.id, rpcmsg.CodeGate, text), saidPass
}

// describeFindings names the signals found, for the agent. Not where:
// a field's path holds the server's own member names, which may be the
// payload itself; the audit line and the pin have the paths.
func describeFindings(fs []resultscan.Finding) string {
	seen := map[string]bool{}
	var sigs []string
	for _, f := range fs {
		if !seen[f.Signal] {
			seen[f.Signal] = true
			sigs = append(sigs, f.Signal)
		}
	}
	sort.Strings(sigs)
	return "flagged as " + strings.Join(sigs, ", ")
}

// holdResult puts a flagged result before a person through the pending
// path calls use, and returns the result if they release it.
func (g *Gate) holdResult(x *exchange, ss *serverState, m said, msg []byte, fs []resultscan.Finding) ([]byte, saidOutcome) {
	t := ss.tools[m.tool]
	digest, err := ArgumentsDigest(x.msg.Arguments)
	if err != nil {
		return g.withheldSaid(m, fs, false)
	}
	sum := sha256.Sum256(msg)
	resultDigest := "sha256:" + hex.EncodeToString(sum[:])
	preview, complete := Preview(x.msg.Arguments)
	req := gateproto.CallRequest{
		Version:          gateproto.Version,
		CallID:           randomKey(),
		Server:           ss.cfg.ID,
		Tool:             t.Name,
		Pin:              t.Pin,
		Fingerprint:      t.Fingerprint,
		ArgumentsDigest:  digest,
		ArgumentsPreview: preview, ArgumentsComplete: complete,
		Kind:         gateproto.CallKindResult,
		ResultDigest: resultDigest,
		Findings:     protoFindings(fs),
	}
	ctx, cancel := context.WithCancel(x.r.Context())
	defer cancel()
	if d := x.st.cfg.ApprovalTimeout.Duration; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, d+approvalGrace)
		defer stop()
	}
	release := g.holdCall(x, cancel)
	defer release()
	var stopKeepAlive func()
	if m.stream != nil {
		stopKeepAlive = g.keepAliveOn(m.stream, x.msg.Meta, req.CallID, "result")
	} else {
		stopKeepAlive = g.keepAlive(x, req.CallID)
	}
	out, err := g.approver.Approve(ctx, req)
	stopKeepAlive()
	if err == nil && out.Verdict == gateproto.CallApproved && (out.CallID != req.CallID || out.ResultDigest != resultDigest) {
		err = fmt.Errorf("the release names call %s with result %s, not call %s with %s", out.CallID, out.ResultDigest, req.CallID, resultDigest)
	}
	verdict, reason := decide.Refuse, decide.ReasonApprovalUnavailable
	var answer []byte
	switch {
	case err == nil && out.Verdict == gateproto.CallApproved && ctx.Err() == nil:
		verdict, reason, answer = decide.Forward, decide.ReasonApproved, msg
	case err == nil:
		reason = decide.ReasonNotApproved // rejected, or expired
	case errors.Is(err, ErrApprovalRequired):
		reason = decide.ReasonApprovalRequired
	default:
		g.log.Warn("holding a flagged result failed; dropped", "server", ss.cfg.ID, "tool", t.Name, "error", err)
	}
	g.auditLine(x.st, ss, decisionLine{tool: t.Name, fingerprint: t.Fingerprint, level: t.EffectiveLevel,
		decision: verdict, reason: reason, callID: req.CallID, rpcID: string(x.msg.ID), by: out.By})
	if answer == nil {
		answer = rpcmsg.ErrorResponse(m.id, rpcmsg.CodeGate, "toolgate: the server's result was held for review and dropped ("+string(reason)+"): "+describeFindings(fs))
	}
	if x.held != nil {
		// keepAlive began the agent's response as an event stream.
		_ = x.held.writeMessage(answer)
		x.held.close()
		return nil, saidAnswered
	}
	return answer, saidPass
}

// protoFindings are the first findings as a person deciding sees them.
func protoFindings(fs []resultscan.Finding) []gateproto.Finding {
	out := make([]gateproto.Finding, 0, min(len(fs), gateproto.MaxFindings))
	for _, f := range fs {
		if len(out) == gateproto.MaxFindings {
			break
		}
		out = append(out, gateproto.Finding{
			Signal:  clip.String(f.Signal, gateproto.MaxFindingSignalBytes),
			Field:   gateproto.RenderExcerpt(f.Field, gateproto.MaxFindingFieldBytes-8),
			Excerpt: gateproto.RenderExcerpt(f.Excerpt, gateproto.MaxFindingExcerptBytes-8),
		})
	}
	return out
}

// recordFindings writes the audit line, counts, and reports what the gate
// did not hold to the operator.
func (g *Gate) recordFindings(st *state, ss *serverState, m said, did gateproto.FindingAction, r *resultscan.Report) {
	if len(r.Findings) == 0 {
		g.audit.Info("toolgate.unscanned", "namespace", st.cfg.Namespace, "pod", st.cfg.Pod, "server", ss.cfg.ID,
			"tool", m.tool, "method", clip.String(m.method, 64), "unscannedBytes", r.Unscanned)
		return
	}
	signals := map[string]bool{}
	for _, f := range r.Findings {
		signals[f.Signal] = true
	}
	names := make([]string, 0, len(signals))
	for s := range signals {
		names = append(names, s)
		g.metrics.Findings.WithLabelValues(ss.cfg.ID, s, string(did), methodLabel(m.method)).Inc()
	}
	sort.Strings(names)
	first := r.Findings[0]
	// The keys of the decision line, so that one query reads both.
	attrs := []any{
		"namespace", st.cfg.Namespace, "pod", st.cfg.Pod, "server", ss.cfg.ID,
		"tool", m.tool, "method", clip.String(m.method, 64), "action", string(did), "signals", names,
		"field", gateproto.RenderExcerpt(first.Field, 256), "excerpt", gateproto.RenderExcerpt(first.Excerpt, 256),
		"findings", len(r.Findings), "unscannedBytes", r.Unscanned, "rpcID", string(m.id),
		"mode", string(st.cfg.Mode), "revision", st.cfg.Revision,
	}
	g.audit.Info("toolgate.finding", attrs...)
	if did == gateproto.FindingHold {
		return // the pin records the held result itself
	}
	rep, ok := g.approver.(FindingReporter)
	if !ok {
		return
	}
	report := gateproto.FindingReport{Version: gateproto.Version, Server: ss.cfg.ID, Method: clip.String(m.method, gateproto.MaxMethodBytes),
		Action: did, Findings: protoFindings(r.Findings)}
	if _, known := ss.tools[m.tool]; known && m.method == rpcmsg.MethodToolsCall {
		report.Tool = m.tool
	}
	select {
	case g.reports <- struct{}{}:
		go func() {
			defer func() { <-g.reports }()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := rep.ReportFindings(ctx, report); err != nil {
				g.log.Debug("finding report not delivered", "server", ss.cfg.ID, "error", err)
			}
		}()
	default:
		g.metrics.Errors.WithLabelValues("finding-report-dropped").Inc()
	}
}

// refuseServerRequest answers a request the server sent the client with a
// JSON-RPC error, on the agent's behalf: the agent never saw it.
func (g *Gate) refuseServerRequest(x *exchange, id []byte) {
	body := rpcmsg.ErrorResponse(id, rpcmsg.CodeGate, "toolgate: request refused: this server has said things the gate flagged")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := newUpstreamRequest(ctx, x.ss, http.MethodPost, x.target(), bytes.NewReader(body), x.r.Header)
	if err != nil {
		return
	}
	req.ContentLength = int64(len(body))
	resp, err := x.ss.send(req)
	if err != nil {
		g.log.Debug("refusal of a server's request not delivered", "server", x.ss.cfg.ID, "error", err)
		return
	}
	_ = resp.Body.Close()
}

// serveSaidJSON answers the agent's request with the server's JSON answer
// once it is scanned. An answer within the scan's bound is read whole, so
// that a flagged one has not begun to reach the agent. A larger one cannot
// be judged whole: under Record it streams to the agent as any answer
// does (relayAnswer), its first part scanned and the rest counted as
// unscanned; under a setting that acts it is withheld, since what the
// scan did not read is not known to be clean.
func (g *Gate) serveSaidJSON(x *exchange, resp *http.Response, body io.Reader) {
	m := said{method: x.msg.Method, id: x.msg.ID, holdable: true}
	if x.msg.Method == rpcmsg.MethodToolsCall {
		m.tool = x.msg.Name
	}
	// The literal of a string is longer than its text by its escapes; a
	// sixteenth more keeps an answer of MaxScanBytes of text within it.
	bound := g.limits.MaxScanBytes + g.limits.MaxScanBytes/16 + 4096
	data, whole, charged, err := g.readForScan(x.r.Context(), body, bound)
	defer g.scanBuffers.Give(charged)
	switch {
	case err != nil:
		g.upstreamFailed(x, err)
		return
	case !whole:
		g.relayUnscannable(x, resp, m, body, data)
		return
	}
	if err := rpcmsg.CheckAnswer(data, x.msg.ID); err != nil {
		g.refuseAnswer(x, false, err)
		return
	}
	out, outcome := g.judgeSaid(x, m, data)
	if outcome == saidAnswered {
		return
	}
	x.answered = true
	x.w.Header().Del("Content-Length")
	x.w.WriteHeader(resp.StatusCode)
	_, _ = x.w.Write(out)
}

// freeScanBytes is what an answer read for the scan may hold without
// charging the budget all such answers share: most answers are smaller.
const freeScanBytes = 64 << 10

// readForScan reads an answer whole, up to bound bytes. Past its first
// freeScanBytes every byte held is charged to the budget of every answer
// being read for the scan (Limits.ScanBufferBudget), so that many large
// answers at once cannot hold the gate's memory: an answer waits for its
// share, and one that cannot get it in time is, like one past the bound,
// not read whole (whole is false, and data is what was read). charged is
// what to give back.
func (g *Gate) readForScan(ctx context.Context, body io.Reader, bound int64) (data []byte, whole bool, charged int64, err error) {
	buf := make([]byte, 0, 8<<10)
	for {
		if int64(len(buf)) > bound {
			return buf, false, charged, nil
		}
		if len(buf) == cap(buf) {
			grow := int64(cap(buf))
			if int64(cap(buf))+grow > freeScanBytes {
				// An answer larger than the whole budget will never fit; one
				// that would fit waits for the answers ahead of it.
				if charged+grow > g.limits.ScanBufferBudget || !g.takeScanBuffer(ctx, grow) {
					g.limitHit("scan-buffer-budget", "an answer read for the scan found no room in the budget", "max", g.limits.ScanBufferBudget)
					return buf, false, charged, nil
				}
				charged += grow
			}
			buf = append(buf, make([]byte, grow)...)[:len(buf)]
		}
		n, rerr := body.Read(buf[len(buf):min(cap(buf), int(bound)+1)])
		buf = buf[:len(buf)+n]
		if errors.Is(rerr, io.EOF) {
			return buf, int64(len(buf)) <= bound, charged, nil
		}
		if rerr != nil {
			return buf, false, charged, rerr
		}
	}
}

// scanBufferWait is how long an answer waits for the budget of answers
// read for the scan before it is treated as one past the bound: long
// enough for the answers ahead of it to be judged and sent, so that many
// large answers at once are served in turn rather than refused.
const scanBufferWait = 10 * time.Second

// takeScanBuffer takes n bytes of the budget, waiting up to
// scanBufferWait for them.
func (g *Gate) takeScanBuffer(ctx context.Context, n int64) bool {
	if g.scanBuffers.Take(n) {
		return true
	}
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	deadline := time.Now().Add(scanBufferWait)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if g.scanBuffers.Take(n) {
			return true
		}
	}
	return false
}

// relayUnscannable handles a JSON answer larger than the scan's bound (or
// than the budget let it read), of which prefix was read.
func (g *Gate) relayUnscannable(x *exchange, resp *http.Response, m said, body io.Reader, prefix []byte) {
	st := g.state.Load()
	if st == nil {
		st = x.st
	}
	ss := st.servers[x.ss.cfg.ID]
	if ss == nil {
		ss = x.ss
	}
	action, _ := g.findingAction(ss, m)
	var r resultscan.Report
	// The walk stops where the prefix is cut; every string before it is
	// scanned.
	_ = st.scanner().Message(&r, prefix)
	r.Unscanned += max(1, resp.ContentLength-int64(len(prefix)))
	g.metrics.UnscannedBytes.WithLabelValues(ss.cfg.ID).Add(float64(r.Unscanned))
	if action != gateproto.FindingRecord {
		r.Findings = append(r.Findings, resultscan.Finding{Signal: signalUnscanned,
			Excerpt: fmt.Sprintf("an answer longer than the scan's bound of %d bytes", g.limits.MaxScanBytes)})
		g.recordFindings(st, ss, m, gateproto.FindingWithhold, &r)
		writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate,
			fmt.Sprintf("toolgate: the server's answer is longer than the %d bytes the gate scans, and was withheld", g.limits.MaxScanBytes))
		return
	}
	if len(r.Findings) > 0 {
		ss.watch.tainted.Store(true)
	}
	g.recordFindings(st, ss, m, gateproto.FindingRecord, &r)
	g.relayAnswer(x, resp, io.MultiReader(bytes.NewReader(prefix), body))
}
