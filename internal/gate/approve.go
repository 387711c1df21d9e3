package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/gowebpki/jcs"

	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
)

// Approver decides calls to approval-gated tools. Approve blocks until a
// human decides, the configuration's approval timeout passes (ctx carries
// it) or ctx ends; an error refuses the call.
type Approver interface {
	Approve(ctx context.Context, req gateproto.CallRequest) (gateproto.CallOutcome, error)
}

// ErrApprovalRequired is DenyApprover's answer.
var ErrApprovalRequired = errors.New("approval required")

// DenyApprover refuses every gated call: the default until the gate can
// open pending calls with the operator. Failing closed here is the point — a
// gate that cannot ask a human must not let a gated call through.
type DenyApprover struct{}

// Approve refuses.
func (DenyApprover) Approve(context.Context, gateproto.CallRequest) (gateproto.CallOutcome, error) {
	return gateproto.CallOutcome{}, ErrApprovalRequired
}

// ArgumentsDigest is "sha256:" and the hex SHA-256 of the RFC 8785
// canonical form of a call's arguments (absent arguments count as {}), so
// that an approval names exactly the arguments approved, whatever their
// formatting or key order.
func ArgumentsDigest(raw []byte) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	c, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("arguments are not canonical JSON: %w", err)
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// secretKey matches argument names whose values must not reach a reviewer's
// screen or the audit trail.
var secretKey = regexp.MustCompile(`(?i)(pass(word|wd)?|secret|token|api[-_]?key|auth|credential|private[-_]?key|cookie|session)`)

// ArgumentsPreview is a bounded, human-readable form of the arguments for
// the reviewer, with the values of secret-looking members redacted.
func ArgumentsPreview(raw []byte) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	v = redact(v, 0)
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return clip.String(string(b), gateproto.MaxArgumentsPreview)
}

func redact(v any, depth int) any {
	if depth > 32 {
		return "[…]"
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if secretKey.MatchString(k) {
				x[k] = "[redacted]"
				continue
			}
			x[k] = redact(val, depth+1)
		}
	case []any:
		for i := range x {
			x[i] = redact(x[i], depth+1)
		}
	}
	return v
}
