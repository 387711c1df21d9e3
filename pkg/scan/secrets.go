package scan

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Secret kinds, each with the expression for its documented format. The
// expressions are anchored at the word that starts the secret and run on
// the original text, case-sensitively.
const (
	secretAWS = iota
	secretGitHub
	secretSlack
	secretPEM
	secretBearer
	secretJWT
	secretKey // Stripe, OpenAI, Anthropic
	secretOther
)

var secretRes, secretWholeRes = func() (anchored, whole []*regexp.Regexp) {
	for _, p := range []string{
		secretAWS:    `(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,
		secretGitHub: `gh[pousr]_[A-Za-z0-9]{36,}\b|github_pat_[A-Za-z0-9_]{40,}`,
		secretSlack:  `xox[abposre]-[A-Za-z0-9-]{10,}`,
		secretPEM:    `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n|\\r)*(?:[A-Za-z0-9+/=]{32,}|Proc-Type:)`,
		secretBearer: `(?i:bearer)\s+[A-Za-z0-9._~+/-]{30,}=*`,
		secretJWT:    `eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,
		secretKey:    `[sr]k_live_[0-9a-zA-Z]{20,}|sk-(?:proj-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_-]{32,}`,
		secretOther:  `AIza[0-9A-Za-z_-]{35}\b|npm_[A-Za-z0-9]{36}\b|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{34,}\b|pypi-AgE[A-Za-z0-9_-]{50,}`,
	} {
		anchored = append(anchored, regexp.MustCompile(`^(?:`+p+`)`))
		whole = append(whole, regexp.MustCompile(p))
	}
	return
}()

// secretAnchor returns the kind of secret a clean-text word may start, or
// -1.
func secretAnchor(tok string) int {
	switch {
	case len(tok) < 2:
	case tok == "begin":
		return secretPEM
	case tok == "bearer":
		return secretBearer
	case tok == "sk":
		return secretKey
	case tok == "glpat" || tok == "pypi":
		return secretOther
	case len(tok) == 4 && strings.HasPrefix(tok, "xox"):
		return secretSlack
	case len(tok) < 13:
	case len(tok) == 20 && (strings.HasPrefix(tok, "akia") || strings.HasPrefix(tok, "asia") ||
		strings.HasPrefix(tok, "abia") || strings.HasPrefix(tok, "acca")):
		return secretAWS
	case len(tok) >= 40 && tok[0] == 'g' && tok[1] == 'h' && tok[3] == '_' && strings.IndexByte("pousr", tok[2]) >= 0,
		strings.HasPrefix(tok, "github_pat_"):
		return secretGitHub
	case strings.HasPrefix(tok, "eyj"):
		return secretJWT
	case strings.HasPrefix(tok, "sk_live_") || strings.HasPrefix(tok, "rk_live_"):
		return secretKey
	case (len(tok) >= 39 && strings.HasPrefix(tok, "aiza")) || (len(tok) == 40 && strings.HasPrefix(tok, "npm_")) ||
		(len(tok) >= 37 && strings.HasPrefix(tok, "hf_")):
		return secretOther
	}
	return -1
}

// shortSecretWords are the short clean-text words a secret may start with
// ("xoxb-…", "Bearer …", "sk-…"); see secretBit.
const shortSecretWords = "xoxa xoxb xoxe xoxo xoxp xoxr xoxs begin bearer sk glpat pypi"

type secretHit struct{ pos, kind int32 }

// findSecrets tries each candidate word against its format. Past maxTries
// candidates, each format runs once over the whole text instead.
func (c *textCtx) findSecrets(at []secretHit) {
	o := c.orig
	if len(at) > maxTries {
		for _, re := range secretWholeRes {
			for _, m := range re.FindAllStringIndex(o, -1) {
				if plausibleSecret(o[m[0]:m[1]]) {
					c.secretHit(m[0], m[1])
					return
				}
			}
		}
		return
	}
	for _, a := range at {
		op := c.origOff(int(a.pos))
		if a.kind == secretPEM {
			if op < 5 || o[op-5:op] != "-----" {
				continue
			}
			op -= 5
		}
		win := o[op:min(len(o), op+600)]
		m := secretRes[a.kind].FindStringIndex(win)
		if m == nil || !plausibleSecret(win[:m[1]]) {
			continue
		}
		c.secretHit(op, op+m[1])
		return
	}
}

// secretHit records a secret with its value masked in the excerpt.
func (c *textCtx) secretHit(s, e int) {
	masked := c.orig[:s] + maskSecret(c.orig[s:e])
	c.hits = append(c.hits, hit{sig: sigSecret, start: s, end: e, excerpt: excerpt(masked, s, false)})
}

// plausibleSecret drops documentation placeholders: AWS's published
// example key, "ghp_xxxx…", "Bearer YOUR_ACCESS_TOKEN_HERE", "sk-...".
func plausibleSecret(m string) bool {
	if strings.HasPrefix(m, "-----BEGIN") {
		return true
	}
	low := strings.ToLower(m)
	// (The last one is the signature of jwt.io's example token.)
	for _, p := range []string{"example", "xxxx", "your", "placeholder", "redacted", "dummy", "sample", "token_here", "secret_here", "sflkxwrjsmekkf2qt4fwpmejf36pok6yjv_adqssw5c"} {
		if strings.Contains(low, p) {
			return false
		}
	}
	// Skip the prefix ("ghp_", "Bearer ") and look at the random part.
	body := m
	if k := strings.LastIndexAny(body, " \t\n"); k >= 0 {
		body = body[k+1:]
	}
	var seen [128]bool
	distinct, digits, run, maxRun := 0, 0, 0, 0
	var last byte
	for i := 0; i < len(body); i++ {
		b := body[i]
		if b < 128 && !seen[b] {
			seen[b] = true
			distinct++
		}
		if '0' <= b && b <= '9' {
			digits++
		}
		if b == last {
			run++
		} else {
			run = 1
		}
		if run > maxRun {
			maxRun = run
		}
		last = b
	}
	if digits == 0 || distinct < 10 || maxRun >= 6 {
		return false
	}
	// Free-form formats (bearer tokens, "sk-" keys) could be any slug; a
	// real one is random, mixing cases.
	if strings.HasPrefix(low, "bearer") || strings.HasPrefix(m, "sk-") {
		return strings.ToLower(body) != body && strings.ToUpper(body) != body
	}
	return true
}

// maskSecret keeps enough of a secret to identify its kind and hides the
// rest: findings end up in status, events and logs, which must not become
// the leak they report.
func maskSecret(m string) string {
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
// to the end of the text when the block is cut: MaskSecrets hides the
// whole key, where a finding only needs its first line to be recognised.
var privateKeyBlock = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*-----|\z)`)

// MaskSecrets returns s with every literal secret of the formats the scan
// detects (AWS access keys, GitHub, Slack, Stripe, OpenAI, Anthropic,
// Google, npm, GitLab, Hugging Face and PyPI tokens, bearer tokens, JWTs,
// private key blocks) masked as findings mask them — the start that names
// the kind kept, the rest replaced by "…[redacted]" — and whether it
// masked any. A private key block is masked whole, up to its END line.
//
// Unlike Scan it does not pass over documentation placeholders: it is for
// text shown to people (the arguments of a call awaiting approval), where
// masking a placeholder costs nothing and showing a key leaks it. Work is
// linear in the length of s.
func MaskSecrets(s string) (string, bool) {
	var spans [][2]int
	for kind, re := range secretWholeRes {
		if kind == secretPEM {
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
			// Keep the BEGIN line only: maskSecret would keep up to the
			// END line, and so the key.
			if k := strings.Index(m[len("-----BEGIN"):], "-----"); k >= 0 {
				b.WriteString(m[:len("-----BEGIN")+k+5] + "…[redacted]")
			} else {
				b.WriteString("-----BEGIN…[redacted]")
			}
		} else {
			b.WriteString(maskSecret(m))
		}
		at = end
	}
	b.WriteString(s[at:])
	return b.String(), true
}
