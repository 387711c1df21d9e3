package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/secretmask"
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

// secretWords are the parts of a name whose value must not reach a
// reviewer's screen or the audit trail.
const secretWords = `pass(?:word|wd)?|secret|token|api[-_]?key|auth|credential|private[-_]?key|cookie|session`

// secretKey matches argument names whose values are redacted whole.
var secretKey = regexp.MustCompile(`(?i)(?:` + secretWords + `)`)

// secretAssignment matches a secret-named setting written inside a value —
// "password=…", "Authorization: Bearer …", "--api-key=…", "TOKEN: '…'" —
// up to the end of its value; group 1 is what stays (the name and the
// sign), the rest is redacted. A header's scheme word is taken with the
// value, so that "Authorization: Basic dXNlcjpwYXNz" loses its
// credentials, not just the word "Basic".
var secretAssignment = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:` + secretWords + `)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)` +
	`(?:(?:bearer|basic|digest|token)\s+)?["']?[^\s"'&;,]+`)

// Bounds of the preview beyond its total length.
const (
	// previewValueBytes bounds one string (a key or a value) in the
	// preview, so that one long value does not take the room of the others.
	previewValueBytes = 256
	// previewDepth is how deep the preview follows nested objects and
	// arrays; anything deeper is shown as "[…]".
	previewDepth = 32
)

// ArgumentsPreview is a bounded, human-readable form of the arguments for
// the reviewer: JSON with sorted keys, every string at most
// previewValueBytes, the whole at most gateproto.MaxArgumentsPreview. It
// hides what looks secret whatever its name: the value of a member whose
// name looks secret ("password", "apiKey", "authorization", …), any
// literal secret the scanner recognises in a key or value (tokens, keys,
// JWTs, private key blocks: secretmask.MaskAll), and the value of a
// secret-named setting written inside a string ("--password=…",
// "Authorization: Bearer …"). Secrets are masked before strings are
// clipped, so a clip never leaves a recognisable secret's head unmasked.
// Arguments that are not JSON have no preview.
func ArgumentsPreview(raw []byte) string {
	s, _ := Preview(raw)
	return s
}

// Preview is ArgumentsPreview, and whether it shows every argument in
// full: nothing redacted, masked, clipped or cut short. A reviewer told
// that it does not is approving arguments they cannot all see (the
// digest still covers them all).
func Preview(raw []byte) (text string, complete bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as written, not as float64
	var v any
	if dec.Decode(&v) != nil {
		return "", false
	}
	p := preview{limit: gateproto.MaxArgumentsPreview}
	p.value(v, 0)
	out := p.b.String()
	if len(out) > gateproto.MaxArgumentsPreview {
		out, p.partial = clip.String(out, gateproto.MaxArgumentsPreview), true
	}
	return out, !p.partial
}

// preview writes a redacted value, and stops writing once it has written
// past its limit, so that huge arguments cost no more than the preview.
type preview struct {
	b     strings.Builder
	limit int
	// partial: something was left out of the preview.
	partial bool
}

func (p *preview) full() bool {
	if p.b.Len() > p.limit {
		p.partial = true
		return true
	}
	return false
}

func (p *preview) value(v any, depth int) {
	if p.full() {
		return
	}
	if depth > previewDepth {
		p.b.WriteString(`"[…]"`)
		p.partial = true
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p.b.WriteByte('{')
		for i, k := range keys {
			if p.full() {
				return
			}
			if i > 0 {
				p.b.WriteByte(',')
			}
			p.str(k)
			p.b.WriteByte(':')
			if secretKey.MatchString(k) {
				p.b.WriteString(`"[redacted]"`)
				p.partial = true
				continue
			}
			p.value(x[k], depth+1)
		}
		p.b.WriteByte('}')
	case []any:
		p.b.WriteByte('[')
		for i, e := range x {
			if p.full() {
				return
			}
			if i > 0 {
				p.b.WriteByte(',')
			}
			p.value(e, depth+1)
		}
		p.b.WriteByte(']')
	case string:
		p.str(x)
	case json.Number:
		if len(x.String()) > previewValueBytes {
			p.partial = true
		}
		p.b.WriteString(clip.String(x.String(), previewValueBytes))
	case bool:
		p.b.WriteString(strconv.FormatBool(x))
	default:
		p.b.WriteString("null")
	}
}

// str writes s as a JSON string, masked, then clipped.
func (p *preview) str(s string) {
	orig := s
	s, _ = secretmask.MaskAll(s)
	s = secretAssignment.ReplaceAllString(s, "${1}[redacted]")
	s = clip.String(s, previewValueBytes)
	if s != orig {
		p.partial = true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<" is shown as "<" to the reviewer
	if enc.Encode(s) != nil {
		p.b.WriteString(`""`)
		return
	}
	p.b.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
