package resultscan

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

type signal uint8

const (
	sigModel signal = iota
	sigTool
	sigExfil
	sigSensitive
	sigHidden
	sigInvisible
	sigControl
	sigEncoded
	numSignals
)

var signalNames = [numSignals]string{
	sigModel:     SignalModelInstruction,
	sigTool:      SignalToolSolicitation,
	sigExfil:     SignalExfiltration,
	sigSensitive: SignalSensitivePath,
	sigHidden:    SignalHiddenMarkup,
	sigInvisible: SignalInvisibleUnicode,
	sigControl:   SignalControlCharacter,
	sigEncoded:   SignalEncodedPayload,
}

// hit is a span a rule flagged. A weak hit becomes a finding only next to
// another hit (see final): one cue alone is how ordinary text reads.
type hit struct {
	sig        signal
	strong     bool
	start, end int
	// quoted says the words that made it a hit are inside quotes or a
	// code fence.
	quoted bool
}

// tok is one word (or one phrase of a language written without spaces) of
// the sentence being read.
type tok struct {
	start, end int
	roles      role
	fl         tokFlag
}

type tokFlag uint16

const (
	fClause    tokFlag = 1 << iota // first word of a clause
	fQuoted                        // inside quotes, backticks or a code fence
	fHidden                        // inside markup a renderer hides
	fAgentTool                     // names one of the agent's tools
	fIdent                         // written as an identifier: snake_case, `code`, name(
	fDest                          // a URL or an e-mail address
	fNegated                       // a negation just before it
	fPermit                        // "can", "may": a permission just before it
	fSubstr                        // from a language written without spaces
	fLineStart                     // the first word of its line
)

// Bounds on the work one text can cause.
const (
	maxSentenceToks = 256     // words judged per sentence
	maxWordBytes    = 64      // longer words have no role
	markerReach     = 600     // bytes a role marker governs
	promoteReach    = 1024    // bytes within which two weak hits confirm each other
	maxDepth        = 2       // layers of decoding followed
	maxHiddenSpan   = 1 << 16 // bytes a comment or hidden element may cover
)

type pass struct {
	s     *Scanner
	text  string
	depth int

	toks       []tok
	sentStart  int
	sentSubstr bool
	// sentPath says the sentence may name a path (see mayNamePath): a
	// tilde, an underscore, a dot after a slash or a space.
	sentPath bool
	hits     []hit

	clause     bool // the next word starts a clause
	lineStart  bool // nothing but blank space and list marks since the line began
	quote      bool // inside "…" or `…`
	fence      bool // inside a ``` fence
	negAt      int  // token index of the last negation, -1 if none
	permitAt   int
	hiddenEnd  int // end of the hidden region being read, 0 if none
	markerEnd  int // end of a role marker's reach
	markerWeak bool
	addrEnd    int // end of an address's reach (see judge)
	// hiddenQuoted says the hidden region being read is quoted in prose.
	hiddenQuoted bool
	addrHidden   bool
	zwInWords    int
	// mentions are the offsets of words that talk about attacks
	// (attack, injection, example): text near them quotes rather than
	// commands.
	mentions []int
	// blobs are the offsets of encoded runs that decoded to text.
	blobs []int
	// slots are the offsets of URLs with a value for the model to fill.
	slots []int
	// blocks are the spans of marker tags and what they enclose
	// (<IMPORTANT>…</IMPORTANT>).
	blocks [][2]int

	// dialogue says the text is a subtitle file: every line is what a
	// character says.
	dialogue bool
	// startMarker is a role marker the text is read under from its start
	// (the content of a {"role": "system"} object).
	startMarker markerKind

	wbuf  [maxWordBytes + 8]byte
	child *pass
}

var passes = sync.Pool{New: func() any { return &pass{toks: make([]tok, 0, 64)} }}

func getPass() *pass { return passes.Get().(*pass) }

func putPass(c *pass) {
	c.text = ""
	c.s = nil
	passes.Put(c)
}

func (c *pass) reset(s *Scanner, text string, depth int) {
	c.s, c.text, c.depth = s, text, depth
	c.toks = c.toks[:0]
	c.hits = c.hits[:0]
	c.sentStart, c.sentSubstr, c.sentPath = 0, false, false
	c.clause, c.lineStart, c.quote, c.fence = true, true, false, false
	c.negAt, c.permitAt = -1, -1
	c.hiddenEnd, c.markerEnd, c.markerWeak, c.addrEnd, c.hiddenQuoted = 0, 0, false, 0, false
	c.zwInWords = 0
	c.dialogue = strings.Count(text, " --> ") >= 2 && strings.Contains(text, ",0") || strings.HasPrefix(text, "WEBVTT")
	if c.startMarker != markerNone {
		c.markerEnd, c.markerWeak = len(text)+1, c.startMarker == markerWeak
	}
	c.startMarker = markerNone
	c.mentions = c.mentions[:0]
	c.blobs = c.blobs[:0]
	c.slots = c.slots[:0]
	c.blocks = c.blocks[:0]
}

// run reads text once.
func (c *pass) run(s *Scanner, text string, depth int) {
	c.reset(s, text, depth)
	n := len(text)
	i := 0
	for i < n {
		if c.hiddenEnd > 0 && i >= c.hiddenEnd {
			c.endSentence(i)
			c.hiddenEnd = 0
		}
		b := text[i]
		if b < utf8.RuneSelf {
			if b == '~' || b == '_' || b == '/' && (i+1 < n && (text[i+1] == '.' || text[i+1] == 'e') || i == 0 || text[i-1] == ' ' || text[i-1] == '(' || text[i-1] == '"' || text[i-1] == '`') ||
				b == '.' && i > 0 && (text[i-1] == ' ' || i+3 < n && text[i+1:i+4] == "pem" || i >= 3 && text[i-3:i] == "254") {
				c.sentPath = true
			}
			switch asciiClass[b] {
			case clWord:
				i = c.word(i)
				continue
			case clSpace:
			case clNewline:
				i = c.newline(i)
				continue
			case clStop:
				if b == '!' && i+1 < n && text[i+1] == '[' {
					i = c.markdownLink(i+1, true)
					continue
				}
				if i+1 < n && text[i+1] == '"' && c.quote {
					// "Done." — the quote closes with the sentence.
					c.endSentence(i + 2)
					i += 2
					continue
				}
				if i+1 >= n || classOf(text[i+1]) == clSpace || classOf(text[i+1]) == clNewline || text[i+1] == '"' || text[i+1] == ')' || text[i+1] >= utf8.RuneSelf {
					c.endSentence(i + 1)
				}
			case clClause:
				c.clause = true
				if b == '(' || b == ')' {
					break
				}
			case clQuote:
				if b == '`' && i+2 < n && text[i+1] == '`' && text[i+2] == '`' {
					c.fence = !c.fence
					c.endSentence(i)
					i += 3
					continue
				}
				if b == '\'' {
					break // an apostrophe more often than a quote
				}
				if b == '"' && !c.quote && i > 0 && (text[i-1] == ',' || text[i-1] == ';' || text[i-1] == '\t' && !indentation(text, i-1)) {
					break // a CSV or TSV field's delimiter, not a quotation
				}
				if b == '"' && c.roleMember(i) {
					break
				}
				c.quote = !c.quote
			case clAngle:
				i = c.markup(i)
				continue
			case clBracket:
				i = c.markdownLink(i, false)
				continue // a bracket keeps the line's start: "[SYSTEM] …"

			case clControl:
				i = c.control(i)
				continue
			}
			if b != ' ' && b != '\t' && b != '#' && b != '*' && b != '>' && b != '-' {
				c.lineStart = false
			}
			i++
			continue
		}
		r, sz := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && sz == 1:
		case substringScript(r):
			c.substring(i, r)
		case isInvisible(r):
			i = c.invisible(i)
			continue
		case unicode.IsLetter(r) || unicode.IsMark(r):
			i = c.word(i)
			continue
		case r == '。' || r == '！' || r == '？' || r == '\u2029':
			c.endSentence(i + sz)
		case r == '，' || r == '、' || r == '：' || r == '；' || r == '—' || r == '–':
			c.clause = true
		case r == '“' || r == '”' || r == '«' || r == '»' || r == '「' || r == '」' || r == '『' || r == '』' || r == '„':
			c.quote = r == '“' || r == '«' || r == '「' || r == '『' || r == '„'
		}
		c.lineStart = false
		i += sz
	}
	c.endSentence(n)
}

// character classes of ASCII bytes.
const (
	clOther uint8 = iota
	clWord
	clSpace
	clNewline
	clStop
	clClause
	clQuote
	clAngle
	clBracket
	clControl
)

var asciiClass = func() (t [128]uint8) {
	for b := 0; b < 128; b++ {
		switch {
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_':
			t[b] = clWord
		case b == ' ' || b == '\t' || b == '\f' || b == '\v':
			t[b] = clSpace
		case b == '\n' || b == '\r':
			t[b] = clNewline
		case b == '.' || b == '!' || b == '?':
			t[b] = clStop
		case b == ',' || b == ';' || b == ':' || b == '(' || b == ')' || b == '|':
			t[b] = clClause
		case b == '"' || b == '`' || b == '\'':
			t[b] = clQuote
		case b == '<':
			t[b] = clAngle
		case b == '[':
			t[b] = clBracket
		case b < 0x20 || b == 0x7f:
			t[b] = clControl
		}
	}
	return t
}()

// substringScript reports whether r is of a script whose cue words are
// found as substrings: Han, kana, Hangul, Arabic, Devanagari.
func substringScript(r rune) bool {
	switch {
	case r >= 0x3040 && r <= 0x30FF, // kana
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0xAC00 && r <= 0xD7AF, // Hangul syllables
		r >= 0x0600 && r <= 0x06FF, // Arabic
		r >= 0x0900 && r <= 0x097F: // Devanagari
		return true
	}
	return false
}

// substring adds the phrases of the lexicon that start at i.
func (c *pass) substring(i int, r rune) {
	c.sentSubstr = true
	for _, p := range substringLexicon[r] {
		if len(c.text)-i >= len(p.text) && c.text[i:i+len(p.text)] == p.text {
			c.addTok(tok{start: i, end: i + len(p.text), roles: p.r, fl: fSubstr})
		}
	}
	// Latin words such as "AI" inside CJK text are read by word().
}

// word reads the word at i and returns the offset after it.
func (c *pass) word(i int) int {
	text := c.text
	n := len(text)
	start := i
	wl := 0
	ident := false
	upperInside := false
	latin, other := false, false
	hyphen := false
	zw := 0
	for i < n {
		b := text[i]
		if b < utf8.RuneSelf {
			switch {
			case b >= 'a' && b <= 'z' || b >= '0' && b <= '9':
				latin = latin || b >= 'a'
			case b >= 'A' && b <= 'Z':
				if i > start && wl > 0 {
					upperInside = true
				}
				latin = true
				b += 'a' - 'A'
			case b == '_':
				ident = true
				c.sentPath = true
			case (b == '-' || b == '\'' || b == '.') && i+1 < n && i > start && isWordByte(text[i+1]):
				hyphen = hyphen || b == '-'
				// "e-mail", "don't", "e.g.", "id_rsa.pub" hold together
				if b == '.' && !(wl <= 3 && i+2 < n && text[i+2] == '.') {
					goto done
				}
			default:
				goto done
			}
			if wl < maxWordBytes {
				c.wbuf[wl] = b
			}
			wl++
			i++
			continue
		}
		r, sz := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\u2019' && i > start && i+sz < n && isWordByte(text[i+sz]):
			if wl < maxWordBytes {
				c.wbuf[wl] = '\''
			}
			wl++
		case isZeroWidth(r) && i > start && i+sz < n && isWordByte(text[i+sz]):
			// Read through: the model reads the word whole. Between Latin
			// letters it has no use in writing; elsewhere a joiner is how
			// some scripts and emoji are written.
			zw++
		case substringScript(r) || !(unicode.IsLetter(r) || unicode.IsMark(r)):
			goto done
		default:
			if r >= 0xFF01 && r <= 0xFF5E {
				r -= 0xFEE0 // full-width ASCII reads as ASCII
				latin = true
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
			} else if f, ok := lookalike(r); ok && latin {
				r = f
			} else if r >= 0x400 && r <= 0x52F || r >= 0x370 && r <= 0x3FF {
				other = true
			}
			r = unicode.ToLower(r)
			if wl+utf8.RuneLen(r) <= maxWordBytes {
				utf8.EncodeRune(c.wbuf[wl:], r)
			}
			wl += utf8.RuneLen(r)
		}
		i += sz
	}
done:
	if i-start >= 24 && (i-start >= minEncodedRun || i < n && (text[i] == '+' || text[i] == '/' || text[i] == '=')) {
		if j := c.encodedRun(start); j > i {
			c.lineStart = false
			return j
		}
	}
	if latin && other {
		// A word mixing Latin and Cyrillic or Greek letters is read as the
		// Latin word its look-alikes spell.
		wl = c.refold(start, i)
	}
	t := tok{start: start, end: i}
	if wl <= maxWordBytes {
		w := c.wbuf[:wl]
		t.roles = words.get(fnv(w), w)
		if t.roles == 0 && other && wl > 2*stemRunes {
			st := []byte(stemOf(string(w)))
			t.roles = stems.get(fnv(st), st)
		}
		if t.roles == 0 && wl >= 10 && compoundAddr(w) {
			// German compounds: "Reiseassistenten", "Betriebsagent".
			t.roles = rAddr
		}
		if t.roles == 0 && (ident || hyphen || bytes.IndexByte(w, '\'') >= 0) {
			// "KI-Assistenten", "l'agent": each part is a word.
			t.roles = c.partRoles(w)
			if ident {
				// "list_files" names a tool, it does not order a listing:
				// an identifier is never the verb of a directive.
				t.roles &^= verbs | rSend | rRead | rPlease | rModal | rUrgent
			}
		}
		if t.roles&rMention != 0 && allCaps(text[start:i]) {
			// "ES00 EJEMPLO 0000": a placeholder in a value, not a word
			// about attacks.
			t.roles &^= rMention
		}
		if start > 0 && (text[start-1] == '.' || text[start-1] == '/' || text[start-1] == '@') ||
			start >= 3 && (text[start-3:start] == "．" || text[start-3:start] == "／" || text[start-3:start] == "＠") {
			// A part of a host name or a path ("attacker.example"), not a word.
			t.roles &^= rMention | rVerb | rAct
		}
		if c.s != nil && len(c.s.tools) > 0 {
			asIdent := ident || upperInside || c.quote || i < n && text[i] == '('
			if asIdent && c.s.tools[string(w)] {
				t.fl |= fAgentTool
			}
		}
		if ident || upperInside || i < n && text[i] == '(' {
			t.fl |= fIdent
		}
		switch string(w) {
		case "ai", "ia", "ki":
			if !allCapsShort(text[start:i]) {
				t.roles &^= rAddr // French "vous ai", Portuguese "ai": not AI
			}
		case "end":
			// "=== END OF SEARCH RESULTS ===", "END OF TOOL OUTPUT": the
			// frame of what a tool returned, written inside it.
			if endOfFrame(text[i:min(n, i+48)]) {
				c.endSentence(start)
				c.marker(start, true)
			}
		case "http", "https":
			if i+3 <= n && text[i:i+3] == "://" {
				return c.url(start, false)
			}
		case "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa":
			if i+4 <= n && text[i:i+4] == ".pub" {
				t.roles = 0 // a public key is for sharing
			}
		case "can", "may", "could", "might", "optionally", "optional":
			c.permitAt = len(c.toks)
		}
	}
	if zw > 0 {
		// A zero-width character inside a cue word hides it from a reader
		// who searches for it; one between most letters of a word spells it
		// out of sight. A few in a long word are where it may wrap.
		if t.roles != 0 || t.fl&fAgentTool != 0 || zw >= 2 && zw*3 >= wl {
			c.hits = append(c.hits, hit{sig: sigInvisible, strong: true, start: start, end: i})
		}
		c.zwInWords += zw
	}
	if i < n && text[i] == '@' {
		if j := c.email(i); j > i {
			t.fl |= fDest
			t.roles = 0 // "you@bastion.example" is an address, not the second person
			t.end = j
			i = j
		}
	}
	if (c.lineStart || c.clause && start > 0 && (text[start-1] == ' ' || text[start-1] == ']') && prevColon(text, start)) && c.markerAhead(i, t.roles) {
		// "SYSTEM:", and in a chat export "[02:36] Rui: Sistema: …".
		c.marker(start, true)
	}
	c.addTok(t)
	return i
}

func classOf(b byte) uint8 {
	if b >= utf8.RuneSelf {
		return clOther
	}
	return asciiClass[b]
}

func isWordByte(b byte) bool {
	return b >= utf8.RuneSelf || asciiClass[b] == clWord
}

// allCapsShort reports a word written in capitals, however short: "AI".
func allCapsShort(w string) bool {
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// allCaps reports a word of three letters or more, all upper case.
func allCaps(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n >= 3
}

// upperInitial reports whether s starts with an upper-case letter.
func upperInitial(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// roleMember reads a "role": "system" member at i, in JSON that is part of
// a text: a fake turn of a conversation, whose content follows under a
// role marker.
func (c *pass) roleMember(i int) bool {
	t := c.text[i:min(len(c.text), i+40)]
	if !strings.HasPrefix(t, `"role"`) {
		return false
	}
	v := strings.TrimLeft(t[6:], " \t:")
	for _, r := range []string{`"system"`, `"developer"`} {
		if strings.HasPrefix(v, r) {
			c.marker(i, false)
			return true
		}
	}
	for _, r := range []string{`"assistant"`, `"user"`, `"model"`, `"tool"`} {
		if strings.HasPrefix(v, r) {
			c.marker(i, true)
			return true
		}
	}
	return false
}

// endOfFrame reports whether the words after "end" close what a tool
// returned: " of (the) search results", " of tool output", " of document".
func endOfFrame(s string) bool {
	l := strings.ToLower(s)
	if !strings.HasPrefix(l, " of ") {
		return false
	}
	l = strings.TrimPrefix(strings.TrimPrefix(l[4:], "the "), "this ")
	for _, w := range []string{"search", "results", "result", "tool", "output", "document", "context", "data", "file", "email", "message", "page", "function", "response"} {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}

// indentation reports whether the blank space ending at i opens its line.
func indentation(text string, i int) bool {
	for i >= 0 && (text[i] == '\t' || text[i] == ' ') {
		i--
	}
	return i < 0 || text[i] == '\n'
}

// prevColon reports whether the word at i follows a colon or a closing
// bracket, past blank space.
func prevColon(text string, i int) bool {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i > 0 && (text[i-1] == ':' || text[i-1] == ']')
}

// compoundAddr reports a word that ends in a word for the machine, as
// German compounds do.
func compoundAddr(w []byte) bool {
	for _, suf := range []string{"assistent", "assistenten", "assistentin", "assistentinnen", "agenten", "sprachmodell", "sprachmodelle"} {
		if bytes.HasSuffix(w, []byte(suf)) {
			return true
		}
	}
	return false
}

// partRoles is the roles of the parts of a word joined by hyphens or
// underscores.
func (c *pass) partRoles(w []byte) role {
	var r role
	from := 0
	addr, other := false, false
	for k := 0; k <= len(w); k++ {
		if k == len(w) || w[k] == '-' || w[k] == '_' || w[k] == '\'' {
			if k > from {
				p := w[from:k]
				pr := words.get(fnv(p), p)
				if pr == 0 && len(p) > 2*stemRunes && p[0] >= utf8.RuneSelf {
					st := []byte(stemOf(string(p)))
					pr = stems.get(fnv(st), st)
				}
				pr &^= rMention // "example-org" is a name
				r |= pr
				if pr&(rAddr|rMachine) != 0 {
					addr = true
				} else if len(p) > 2 {
					other = true
				}
			}
			from = k + 1
		}
	}
	if addr && other {
		// "assistant-pager", "llm-gateway": a name that holds the word, not
		// the machine called by it ("KI-Assistent", "l'agent" are).
		r &^= rAddr
	}
	return r
}

// refold rewrites the word text[start:end] into wbuf with every look-alike
// folded, and returns its length.
func (c *pass) refold(start, end int) int {
	wl := 0
	for _, r := range c.text[start:end] {
		if isZeroWidth(r) {
			continue
		}
		if f, ok := lookalike(r); ok {
			r = f
		}
		r = unicode.ToLower(r)
		if wl+utf8.RuneLen(r) > maxWordBytes {
			return maxWordBytes + 1
		}
		wl += utf8.EncodeRune(c.wbuf[wl:], r)
	}
	return wl
}

// addTok adds a word to the sentence, marking its position.
func (c *pass) addTok(t tok) {
	if c.clause {
		t.fl |= fClause
		c.clause = false
	}
	if c.quote || c.fence {
		t.fl |= fQuoted
	}
	if c.hiddenEnd > 0 {
		t.fl |= fHidden
		if c.hiddenQuoted {
			t.fl |= fQuoted
		}
	}
	if c.lineStart {
		t.fl |= fLineStart
		c.lineStart = false
	}
	k := len(c.toks)
	if c.negAt >= 0 && k-c.negAt <= 3 {
		t.fl |= fNegated
	}
	if c.permitAt >= 0 && k-c.permitAt <= 3 {
		t.fl |= fPermit
	}
	if t.roles&rNeg != 0 {
		c.negAt = k
	}
	if t.roles&rMachine != 0 && k > 0 && c.toks[k-1].roles&(rMachine|rAddr) != 0 {
		// "automated operators", "AI summarisers", "Reviewer bot": what a
		// machine reader is called.
		t.roles |= rAddr
	}
	if t.roles&rMention != 0 && len(c.mentions) < 1024 && (t.fl&(fClause|fSubstr) != 0 || !upperInitial(c.text[t.start:])) {
		// A capitalised word inside a clause is a name ("Acme Example
		// GmbH"), not talk about attacks.
		c.mentions = append(c.mentions, t.start)
	}
	if k >= maxSentenceToks {
		return
	}
	if t.roles&verbs != 0 && k > 0 {
		// "… and send", "then call", "please run", and a verb after a
		// negation that opens its clause: "Never reveal", "Do not mention".
		p := c.toks[k-1]
		pw := c.text[p.start:p.end]
		switch {
		case isClauseOpener(pw):
			t.fl |= fClause
		case p.fl&fClause != 0 && (p.roles&rNeg != 0 || eqFold(pw, "do") || eqFold(pw, "always") || eqFold(pw, "now")):
			t.fl |= fClause
		case k > 1 && p.roles&rNeg != 0 && eqFold(c.text[c.toks[k-2].start:c.toks[k-2].end], "do") && c.toks[k-2].fl&fClause != 0:
			t.fl |= fClause
		}
	}
	c.toks = append(c.toks, t)
}

// isClauseOpener is a word after which a verb starts a clause of its own:
// "… and send", "then call", "now run".
func isClauseOpener(w string) bool {
	switch len(w) {
	case 3:
		return eqFold(w, "and") || eqFold(w, "now")
	case 4:
		return eqFold(w, "then") || eqFold(w, "also") || eqFold(w, "just") || eqFold(w, "next")
	case 5:
		return eqFold(w, "first") || eqFold(w, "after")
	case 6:
		return eqFold(w, "please") || eqFold(w, "simply") || eqFold(w, "kindly")
	case 7:
		return eqFold(w, "finally") || eqFold(w, "quickly") || eqFold(w, "silently") || eqFold(w, "quietly")
	case 11:
		return eqFold(w, "immediately")
	}
	return false
}

func eqFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x := a[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != b[i] {
			return false
		}
	}
	return true
}

// newline ends the sentence unless the next line continues it, as in
// hard-wrapped prose.
func (c *pass) newline(i int) int {
	n := len(c.text)
	j := i
	blank := 0
	for j < n && (c.text[j] == '\n' || c.text[j] == '\r') {
		if c.text[j] == '\n' {
			blank++
		}
		j++
	}
	k := j
	for k < n && (c.text[k] == ' ' || c.text[k] == '\t') {
		k++
	}
	if blank == 1 && len(c.toks) > 0 && k < n && c.text[k] >= 'a' && c.text[k] <= 'z' {
		c.lineStart = false
		return j
	}
	c.endSentence(i)
	c.lineStart = true
	return j
}

// endSentence judges the sentence read so far and starts the next.
func (c *pass) endSentence(end int) {
	if len(c.toks) > 0 {
		c.judge(end)
	}
	c.toks = c.toks[:0]
	c.sentStart = end
	c.sentSubstr = false
	c.sentPath = false
	c.clause = true
	c.quote = false
	c.negAt, c.permitAt = -1, -1
}

// final is the hits that become findings. Near words that talk about
// attacks (an advisory, a detector's tests, a write-up) a hit is a
// quotation, and goes. A hit whose words are in quotes is weak. Then every
// strong hit stays, and a weak one when a hit of another sentence is near
// it.
func (c *pass) final() []hit {
	hs := c.hits
	sort.SliceStable(hs, func(a, b int) bool {
		if hs[a].start != hs[b].start {
			return hs[a].start < hs[b].start
		}
		return hs[a].strong && !hs[b].strong // of two hits on one span, the strong one first
	})
	if debugHits != nil {
		debugHits(c, hs)
	}
	kept := hs[:0]
	for _, h := range hs {
		if h.sig != sigInvisible && h.sig != sigControl && c.mentionNear(h.start, h.end) {
			continue
		}
		if h.quoted {
			h.strong = false
		}
		kept = append(kept, h)
	}
	// Two rules that each found a weak cue in one sentence confirm each
	// other: one finding, strong.
	for i := 1; i < len(kept); i++ {
		for k := i - 1; k >= 0 && kept[k].start == kept[i].start; k-- {
			if kept[k].sig == kept[i].sig && !kept[k].strong && !kept[i].strong && !kept[k].quoted && !kept[i].quoted {
				kept[k].strong = true
			}
		}
	}
	out := kept[:0:0]
	for i, h := range kept {
		if dupOf(kept[:i], h) {
			continue // two rules, one span
		}
		if !h.strong {
			// A weak hit stands next to another of a different sentence;
			// a quoted one only next to a strong one.
			near := false
			for j, o := range kept {
				if j != i && abs(o.start-h.start) <= promoteReach && o.start != h.start && (!h.quoted || o.strong) && !(o.quoted && !o.strong) {
					near = true
					break
				}
			}
			if !near {
				continue
			}
		}
		for _, b := range c.blocks {
			if h.start >= b[0] && h.start < b[1] {
				h.start, h.end = min(h.start, b[0]), max(h.end, b[1])
			}
		}
		out = append(out, h)
	}
	return out
}

// dupOf reports whether an earlier hit has h's signal and start.
func dupOf(before []hit, h hit) bool {
	for k := len(before) - 1; k >= 0 && before[k].start == h.start; k-- {
		if before[k].sig == h.sig {
			return true
		}
	}
	return false
}

// mentionReach is how near a word about attacks makes a hit a quotation.
const mentionReach = 300

func (c *pass) mentionNear(start, end int) bool {
	for _, m := range c.mentions {
		if m >= start-mentionReach && m <= end+mentionReach {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
