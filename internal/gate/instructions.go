package gate

import (
	"errors"
	"io"
	"net/http"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// serveInstructionsJSON answers an initialize (or server/discover) whose
// answer is JSON: read whole, within the list's bound, since the
// instructions in it reach the model and are judged like a definition.
func (g *Gate) serveInstructionsJSON(x *exchange, resp *http.Response, body io.Reader) {
	data, err := readBounded(body, g.limits.MaxListBytes)
	if err != nil {
		if errors.Is(err, errListTooLarge) {
			g.limitHit("list-bytes", "answer to initialize too large", "server", x.ss.cfg.ID, "max", g.limits.MaxListBytes)
		}
		writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, "toolgate: the server's answer could not be read whole")
		return
	}
	if err := rpcmsg.CheckAnswer(data, x.msg.ID); err != nil {
		g.refuseAnswer(x, false, err)
		return
	}
	out, err := g.judgeInstructions(x, x.msg.Method, data)
	if err != nil {
		writeRPCError(x.w, http.StatusBadGateway, x.msg.ID, rpcmsg.CodeGate, g.instructionsRefused(x, err))
		return
	}
	x.w.Header().Del("Content-Length")
	x.w.WriteHeader(resp.StatusCode)
	_, _ = x.w.Write(out)
}

// judgeInstructions returns a server's answer to initialize as the agent
// may see it: refused when its member names could be read another way
// (two instructions members, "Instructions"), and without its
// instructions when they are not the ones the operator reviewed.
func (g *Gate) judgeInstructions(x *exchange, method string, data []byte) ([]byte, error) {
	text, present, err := rpcmsg.Instructions(data, method)
	if err != nil || !present {
		return data, err
	}
	if why := g.instructionsUnreviewed(x, text); why != "" {
		g.metrics.Errors.WithLabelValues("instructions-withheld").Inc()
		g.log.Warn("server's instructions withheld", "why", why, "server", x.ss.cfg.ID, "length", len(text))
		g.auditLine(x.st, x.ss, decisionLine{tool: auditInstructions, decision: decide.Withhold, reason: decide.ReasonInstructionsChanged})
		return rpcmsg.WithoutInstructions(data, method)
	}
	return data, nil
}

// instructionsRefused counts and logs an answer to initialize the gate
// does not relay, and returns what the agent is told instead.
func (g *Gate) instructionsRefused(x *exchange, err error) string {
	if errors.Is(err, rpcmsg.ErrAmbiguous) {
		g.metrics.Errors.WithLabelValues("ambiguous-answer").Inc()
		g.log.Warn("answer to initialize refused: member names a peer may read otherwise", "server", x.ss.cfg.ID, "error", clip.String(err.Error(), 512))
		return "toolgate: the server's answer has member names a client may read another way"
	}
	g.metrics.Errors.WithLabelValues("bad-answer").Inc()
	g.log.Warn("answer to initialize refused", "server", x.ss.cfg.ID, "error", clip.String(err.Error(), 512))
	return "toolgate: the server's answer could not be checked"
}

// instructionsUnreviewed says why instructions an agent would receive are
// not the reviewed ones, or "" when they are. The configuration says what
// the operator's probe read and scanned; a server that gives the probe one
// text and agents another is caught here, as a changed definition is.
func (g *Gate) instructionsUnreviewed(x *exchange, text string) string {
	if text == "" {
		return ""
	}
	reviewed := x.ss.cfg.Instructions
	switch {
	case reviewed == nil:
		return "the operator has not reviewed this server's instructions"
	case reviewed.None:
		return "the operator's probe was sent no instructions"
	case reviewed.Fingerprint != tooldef.InstructionsFingerprint(text):
		return "they are not the instructions the operator reviewed"
	}
	return ""
}
