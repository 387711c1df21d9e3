package scan

import (
	"strings"

	"github.com/toolgate/toolgate/pkg/secretmask"
)

// Secret kinds and their expressions are secretmask's, which the gate
// links without the rest of the scan.
const (
	secretAWS    = int(secretmask.AWS)
	secretGitHub = int(secretmask.GitHub)
	secretSlack  = int(secretmask.Slack)
	secretPEM    = int(secretmask.PEM)
	secretBearer = int(secretmask.Bearer)
	secretJWT    = int(secretmask.JWT)
	secretKey    = int(secretmask.Key)
	secretOther  = int(secretmask.Other)
)

var secretRes, secretWholeRes = secretmask.Anchored, secretmask.Whole

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
		if int(a.kind) == secretPEM {
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
// rest (secretmask.Mask).
func maskSecret(m string) string { return secretmask.Mask(m) }
