package scan

import (
	"regexp"
	"strings"
)

// Tool shadowing: a description that tells the model how to use a tool of
// another server ("when send_email is called, always BCC ...") lets one
// server steer calls to another without ever being called itself. A plain
// mention ("similar to read_file") is not shadowing; a mention inside an
// instruction is.

// shadower holds the other servers' tool names for one Scan call. It
// keeps a two-hash Bloom filter over length and a few bytes of each name,
// so that rejecting a word costs two bit tests: Scan runs on every tool of
// every tools/list, usually with the same few hundred names.
type shadower struct {
	f1 [128]uint64
	f2 [128]uint64
	// byLen holds the names by length, in their order, so that a word the
	// filter lets through is compared with the names of its length only
	// (ordinary words such as "search" are often some server's tool name).
	// Names of maxByLen bytes or more share the last list. An Agent's
	// Scanners share one byLen over every server's names and skip the
	// scanned server's own: building a list per server cost more than
	// most of the scans it served.
	byLen *[maxByLen][]shadowName
	// skip marks, by id, the names the scanned server offers itself; nil
	// when there are none to skip.
	skip []uint64
}

// shadowName is a name with the id skip knows it by.
type shadowName struct {
	name string
	id   int32
}

const maxByLen = 48

// indexByLen sorts names into lists by length, keeping their order; each
// name's id is its index in names.
func indexByLen(names []string) *[maxByLen][]shadowName {
	var byLen [maxByLen][]shadowName
	for i, n := range names {
		k := min(len(n), maxByLen-1)
		byLen[k] = append(byLen[k], shadowName{name: n, id: int32(i)})
	}
	return &byLen
}

func newShadower(names []string) *shadower {
	if len(names) == 0 {
		return nil
	}
	sh := &shadower{byLen: indexByLen(names)}
	for _, n := range names {
		if len(n) >= 2 {
			a, b := nameSigs(n)
			sh.f1[a/64] |= 1 << (a % 64)
			sh.f2[b/64] |= 1 << (b % 64)
		}
	}
	return sh
}

// skipped reports a name the scanned server offers itself.
func (sh *shadower) skipped(id int32) bool {
	return sh.skip != nil && sh.skip[id/64]&(1<<(id%64)) != 0
}

func (sh *shadower) mayHave(tok string) bool {
	a, b := nameSigs(tok)
	return sh.f1[a/64]&(1<<(a%64)) != 0 && sh.f2[b/64]&(1<<(b%64)) != 0
}

// nameSigs hashes a name (case-insensitively) into two 8192-bit indexes.
func nameSigs(s string) (uint, uint) {
	n := len(s)
	l := uint(n)
	a := l*2654435761 ^ uint(lowerByte(s[0]))*40503 ^ uint(lowerByte(s[1]))*769 ^ uint(lowerByte(s[n-1]))*31
	b := l*97 ^ uint(lowerByte(s[n-2]))*1031 ^ uint(lowerByte(s[n/2]))*131 ^ uint(lowerByte(s[n/3]))
	return a % 8192, b % 8192
}

func lowerByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// plainWord reports a name that is an ordinary word ("echo", "Query");
// such names count only when written as a tool. A camel-case name
// ("getUser") is not one: prose never spells it.
func plainWord(n string) bool {
	for i := 0; i < len(n); i++ {
		b := n[i]
		if !('a' <= b && b <= 'z') && !(i == 0 && 'A' <= b && b <= 'Z') {
			return false
		}
	}
	return true
}

func isNameByte(b byte) bool {
	return isWordByte(b) || b == '-' || b == '.'
}

var (
	shadowPreRe = regexp.MustCompile(`(?:\b(?:instead\s+of|rather\s+than|in\s+place\s+of|do\s+not\s+use|don'?t\s+use|never\s+use|avoid\s+using|avoid|do\s+not\s+call|don'?t\s+call|never\s+call|stop\s+using|replaces?|supersedes?|overrides?)\s+(?:the\s+|using\s+|calling\s+)?` +
		`|\b(?:always|never|must|should)\s+(?:\w+\s+){0,2})['"` + "`" + `]?$`)
	shadowPostRe = regexp.MustCompile(`^['"` + "`" + `]?\s*(?:\(\s*\)\s*)?(?:tool\s+|function\s+|command\s+)?(?:` +
		`(?:is|are)\s+(?:invoked|called|used|run|executed)\b` + sent + `*\b(?:always|must|should|never|change|replace|set|add|include|send|bcc|cc|forward|redirect|instead|also|first)\b` +
		`|(?:must|should|shall|always|never|needs?\s+to|has\s+to|is\s+to)\b` +
		`|(?:is|has\s+been)\s+(?:deprecated|broken|unsafe|disabled|insecure|compromised|not\s+safe|replaced|removed)\b` +
		`|will\s+(?:fail|not\s+work)\b)`)
	shadowCondRe      = regexp.MustCompile(`\b(?:when|whenever|before|after|once|if|each\s+time|every\s+time|any\s+time|anytime|while|upon)\b`)
	shadowDirectiveRe = regexp.MustCompile(`\b(?:always|never|must|should|shall|do\s+not|don'?t|make\s+sure|ensure|change|replace|set|add|include|send|bcc|cc|forward|redirect|use|call|first|also|instead|pass|append|remove|modify|ignore|strip|prepend|insert|attach)\b`)
)

// scan looks for other servers' tool names in instructions.
func (sh *shadower) scan(c *textCtx) {
	t := c.clean
	for i := 0; i < len(t); {
		if !isNameByte(t[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(t) && isNameByte(t[j]) {
			j++
		}
		s, e := i, j
		i = j
		for s < e && (t[s] == '.' || t[s] == '-') {
			s++
		}
		for e > s && (t[e-1] == '.' || t[e-1] == '-') {
			e--
		}
		if e-s < 2 {
			continue
		}
		tok := t[s:e]
		if !sh.mayHave(tok) {
			continue
		}
		for _, sn := range sh.byLen[min(len(tok), maxByLen-1)] {
			n := sn.name
			if len(n) != len(tok) || sh.skipped(sn.id) || !strings.EqualFold(n, tok) {
				continue
			}
			if plainWord(n) && !namedAsTool(t, e) {
				break
			}
			if shadowContext(t, s, e) {
				c.addCleanHit(sigShadow, s, e)
				return
			}
			break
		}
	}
}

// namedAsTool reports a mention of a plain-word name that is clearly a
// tool: called ("query()") or followed by the word tool, function or
// command, quoted or not. Quotes alone are not enough: parameter names and
// operators are quoted too ("before using 'query'").
func namedAsTool(t string, e int) bool {
	if e < len(t) && t[e] == '(' {
		return true
	}
	if e < len(t) && strings.IndexByte("`'\"", t[e]) >= 0 {
		e++
	}
	rest := strings.TrimLeft(t[e:min(len(t), e+12)], " ")
	return strings.HasPrefix(rest, "tool") || strings.HasPrefix(rest, "function") || strings.HasPrefix(rest, "command")
}

// shadowContext reports whether the mention at [s,e) sits in an
// instruction about that tool.
func shadowContext(t string, s, e int) bool {
	lo, hi := sentenceBounds(t, s, e)
	pre, post := t[lo:s], t[e:hi]
	if shadowPreRe.MatchString(pre) || shadowPostRe.MatchString(post) {
		return true
	}
	return shadowCondRe.MatchString(pre) && shadowDirectiveRe.MatchString(t[lo:hi])
}

// sentenceBounds returns the sentence around [s,e), at most 300 bytes
// either side.
func sentenceBounds(t string, s, e int) (int, int) {
	lo := s
	for lo > 0 && s-lo < 300 {
		ch := t[lo-1]
		if ch == '\n' || ((ch == ' ' || ch == '\t') && lo >= 2 && strings.IndexByte(".!?", t[lo-2]) >= 0) {
			break
		}
		lo--
	}
	hi := e
	for hi < len(t) && hi-e < 300 {
		ch := t[hi]
		if ch == '\n' || (strings.IndexByte(".!?", ch) >= 0 && (hi+1 == len(t) || t[hi+1] == ' ' || t[hi+1] == '\n')) {
			break
		}
		hi++
	}
	return lo, hi
}
