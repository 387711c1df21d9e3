package secretmask

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Kind is a secret format; its value indexes Anchored and Whole.
type Kind int

// The secret formats, each with the expression for its documented format.
const (
	AWS Kind = iota
	GitHub
	Slack
	PEM
	Bearer
	JWT
	Key // Stripe, OpenAI, Anthropic
	Other
)

// patterns are the kinds' expressions, indexed by Kind.
var patterns = []string{
	AWS:    `(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,
	GitHub: `gh[pousr]_[A-Za-z0-9]{36,}\b|github_pat_[A-Za-z0-9_]{40,}`,
	Slack:  `xox[abposre]-[A-Za-z0-9-]{10,}`,
	PEM:    `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n|\\r)*(?:[A-Za-z0-9+/=]{32,}|Proc-Type:)`,
	Bearer: `(?i:bearer)\s+[A-Za-z0-9._~+/-]{30,}=*`,
	JWT:    `eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,
	Key:    `[sr]k_live_[0-9a-zA-Z]{20,}|sk-(?:proj-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_-]{32,}`,
	Other:  `AIza[0-9A-Za-z_-]{35}\b|npm_[A-Za-z0-9]{36}\b|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{34,}\b|pypi-AgE[A-Za-z0-9_-]{50,}`,
}

// Anchored holds each kind's expression anchored at the start of the
// text, for a scanner that knows where a secret may begin; it runs
// case-sensitively on the original text.
var Anchored = compile(`^(?:`, `)`)

// Whole holds the same expressions unanchored.
var Whole = compile(``, ``)

func compile(prefix, suffix string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for k, p := range patterns {
		out[k] = regexp.MustCompile(prefix + p + suffix)
	}
	return out
}

// Mask keeps enough of one secret to identify its kind and hides the rest:
// what reports a leak (a status, an event, a log line) must not become it.
func Mask(m string) string {
	keep := 8
	if strings.HasPrefix(m, "-----BEGIN") {
		if k := strings.LastIndex(m, "-----"); k > 0 {
			keep = k + 5
		}
	} else if k := strings.LastIndexAny(m, " \t"); k >= 0 && k+5 < len(m) {
		keep = k + 5
	}
	if keep > len(m) {
		keep = len(m)
	}
	return m[:keep] + "…[redacted]"
}

// privateKeyBlock runs from a private key's BEGIN line to its END line, or
// to the end of the text when the block is cut: MaskAll hides the whole
// key, where recognising one only needs its first line.
var privateKeyBlock = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*-----|\z)`)

// MaskAll returns s with every literal secret masked as Mask masks one —
// the start that names the kind kept, the rest replaced by "…[redacted]" —
// and whether it masked any. A private key block is masked whole, up to
// its END line. It does not pass over documentation placeholders: it is
// for text shown to people, where masking a placeholder costs nothing and
// showing a key leaks it. Work is linear in the length of s.
func MaskAll(s string) (string, bool) {
	var spans [][2]int
	for kind, re := range Whole {
		if Kind(kind) == PEM {
			re = privateKeyBlock
		}
		for _, m := range re.FindAllStringIndex(s, -1) {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var b strings.Builder
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		// Overlapping matches (a JWT after "Bearer ") are masked as one.
		for i++; i < len(spans) && spans[i][0] < end; i++ {
			end = max(end, spans[i][1])
		}
		if start < at {
			start = at
		}
		b.WriteString(s[at:start])
		m := s[start:end]
		if strings.HasPrefix(m, "-----BEGIN") {
			// Keep the BEGIN line only: Mask would keep up to the END
			// line, and so the key.
			if k := strings.Index(m[len("-----BEGIN"):], "-----"); k >= 0 {
				b.WriteString(m[:len("-----BEGIN")+k+5] + "…[redacted]")
			} else {
				b.WriteString("-----BEGIN…[redacted]")
			}
		} else {
			b.WriteString(Mask(m))
		}
		at = end
	}
	b.WriteString(s[at:])
	return b.String(), true
}
