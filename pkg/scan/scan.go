package scan

import (
	"sort"
	"strings"
	"sync"
)

// Finding is one poisoning signal found in one field of a tool definition.
type Finding struct {
	// Signal is one of the Signal* constants.
	Signal string
	// Field says where the hit is: "description", "title", "name",
	// "instructions", or a schema path such as
	// "inputSchema.properties.path.description".
	Field string
	// Excerpt is at most 120 runes around the hit. Invisible and control
	// characters are escaped ("\u200b", "\x1b") so that a reviewer sees
	// what the model sees; it never contains them raw.
	Excerpt string
}

// Text is one string of a tool definition to scan, with where it came from.
type Text struct {
	// Field names where Value came from; it becomes Finding.Field (escaped
	// if it holds invisible or control characters, "text" if empty). The
	// field "name" is also checked as an identifier.
	Field string
	// Value is the string itself, exactly as the server sent it.
	Value string
}

// Options tune a scan.
type Options struct {
	// OtherTools are names of tools offered by OTHER servers to the same
	// agent; a text that gives instructions about one of them is
	// cross-server shadowing. Leave out names the scanned server offers
	// itself: a server describing its own tools is not shadowing, even when
	// another server happens to use the same name. Names match without
	// regard to ASCII case; a name that is an ordinary word ("echo",
	// "query") counts only when written as a tool ("the `query` tool",
	// "query()"), since the word alone is prose.
	OtherTools []string
}

// The signals a scan reports. They are strings rather than an enum so that
// they can be written unchanged into status fields, events and metrics.
const (
	// SignalModelInstruction is a directive aimed at the model, in English
	// or one of nine other languages, that seeks concealment ("do not tell
	// the user"), overrides other instructions ("ignore previous
	// instructions"), reads credentials or private files ("read
	// ~/.ssh/id_rsa"), claims authority ("SYSTEM:", "you are authorised",
	// "<IMPORTANT>"), persists itself into memory or files later sessions
	// read, runs a risky command first, avoids or replaces other tools, or
	// does any of that or lies to the user on a later trigger.
	SignalModelInstruction = "model-instruction"
	// SignalToolShadowing is an instruction about another server's tool
	// ("when using send_email, always BCC ..."); it needs Options.OtherTools.
	SignalToolShadowing = "tool-shadowing"
	// SignalExfiltration is a directive to send, include or pass data the
	// tool does not need (the conversation, the user's messages or files,
	// credentials) elsewhere: to a literal URL, e-mail address or phone
	// number, another tool, or into a parameter that has nothing to do
	// with it.
	SignalExfiltration = "exfiltration"
	// SignalSensitivePath names a credential or private file: ~/.ssh,
	// id_rsa, /etc/shadow, .aws/credentials, MCP client configuration,
	// browser cookie stores; weaker ones (.env, .kube/config) only next to a
	// read or send verb.
	SignalSensitivePath = "sensitive-path"
	// SignalSecret is a literal credential: AWS access key IDs, GitHub,
	// Slack, Stripe, OpenAI, Anthropic, Google, npm, GitLab, Hugging Face
	// tokens, PEM private keys with key material, long bearer tokens, JWTs.
	SignalSecret = "secret"
	// SignalInvisibleUnicode is a character that renders as nothing:
	// zero-width characters, Unicode tag characters, bidirectional
	// controls, variation-selector runs and other default-ignorables. Their
	// legitimate uses (emoji sequences, joiners in Indic and Arabic script,
	// marks in right-to-left text, flag tag sequences) are allowed.
	SignalInvisibleUnicode = "invisible-unicode"
	// SignalControlCharacter is an ANSI escape sequence or another C0/C1
	// control character other than tab, line feed and carriage return.
	SignalControlCharacter = "control-character"
	// SignalMixedScript is a word or identifier that mixes Latin letters
	// with Cyrillic, Greek or Armenian look-alikes; in a tool name also an
	// identifier made only of look-alikes or of compatibility forms.
	SignalMixedScript = "mixed-script"
	// SignalEncodedPayload is a base64, base32, hex, percent-encoded or
	// escaped blob (nested up to three layers) that decodes to readable text,
	// text in ROT13, a Caesar shift, ROT47 or reversed that deciphers to an
	// instruction, or a long random-looking base64 blob.
	SignalEncodedPayload = "encoded-payload"
	// SignalHiddenMarkup is markup a renderer hides but the model reads:
	// HTML comments, markdown comments, <script>, elements hidden with CSS
	// or the hidden attribute, zero-size text, and text pushed out of view
	// by a long run of blank space.
	SignalHiddenMarkup = "hidden-markup"
	// SignalConfusableName is a tool name that a reader cannot tell from
	// another server's tool: the same by the Unicode TR39 skeleton, or
	// apart from case, blank space or separators; or a name with blank
	// space in it.
	SignalConfusableName = "confusable-name"
	// SignalSecretRequest is a parameter that asks for a credential (a
	// password, private key, token, cookie, cloud secret, one-time code,
	// card number) on a tool whose purpose does not need one.
	SignalSecretRequest = "secret-request"
	// SignalMisleadingAnnotation is a tool that destroys (deletes, purges,
	// drops, terminates, overwrites ...) while it declares readOnlyHint
	// true or destructiveHint false, or calls itself safe or harmless.
	SignalMisleadingAnnotation = "misleading-annotation"
	// SignalLanguageSwitch is a text that starts in English and switches,
	// mid-text, to another language to give an order in it ("always",
	// "never", "you must" in that language).
	SignalLanguageSwitch = "language-switch"
)

// Limits. They bound the work a hostile server can cause on every
// tools/list without bounding what an honest one can say.
const (
	// maxFindings caps one Scan's findings; one per signal and field is
	// enough for the risk engine, and status must stay small.
	maxFindings = 64
	// maxScanBytes is how much of each string is examined. Text beyond the
	// first 64 KiB of a string is not scanned; no honest tool needs that
	// much, and the probe's size limits reject catalogues long before.
	maxScanBytes = 64 << 10
	// maxExcerptRunes is the length of an excerpt, ellipses included.
	maxExcerptRunes = 120
)

// signal indexes; the order is the tie-break when two hits start at the
// same offset.
const (
	sigModel = iota
	sigShadow
	sigExfil
	sigSensitive
	sigSecret
	sigInvisible
	sigControl
	sigMixed
	sigEncoded
	sigMarkup
	sigConfusable
	sigSecretReq
	sigAnnotation
	sigSwitch
	numSignals
)

var signalNames = [numSignals]string{
	sigModel:      SignalModelInstruction,
	sigShadow:     SignalToolShadowing,
	sigExfil:      SignalExfiltration,
	sigSensitive:  SignalSensitivePath,
	sigSecret:     SignalSecret,
	sigInvisible:  SignalInvisibleUnicode,
	sigControl:    SignalControlCharacter,
	sigMixed:      SignalMixedScript,
	sigEncoded:    SignalEncodedPayload,
	sigMarkup:     SignalHiddenMarkup,
	sigConfusable: SignalConfusableName,
	sigSecretReq:  SignalSecretRequest,
	sigAnnotation: SignalMisleadingAnnotation,
	sigSwitch:     SignalLanguageSwitch,
}

// hit is a finding before it is turned into a Finding: offsets index the
// original (capped) string; excerpt, when set, replaces the computed one.
type hit struct {
	sig        int
	start, end int
	excerpt    string
	escConf    bool // escape homoglyphs in the excerpt
}

// Scan scans the given texts and returns findings in input order: texts in
// the order given, hits within a text by position. It reports at most one
// finding per (signal, field) pair and at most 64 findings in total. Scan is
// deterministic, never panics, and examines at most the first 64 KiB of
// each string. A text whose Field is "name" is checked as an identifier
// (see NameFindings) as well as text.
func Scan(texts []Text, opts Options) []Finding {
	return New(opts).Scan(texts)
}

// Scanner scans texts against one set of options. Building the index of
// other servers' tool names once per server, rather than once per tool,
// matters when hundreds of tools are scanned against hundreds of names. A
// Scanner is safe for concurrent use.
type Scanner struct {
	sh    *shadower
	names *nameIndex
}

// ctxs keeps the per-text scratch space (tokens, buffers) from one Scan
// call to the next: a catalogue's tools are scanned one Scan call each, and
// the servers offered to one agent one Scanner each, so the pool is shared
// by every Scanner.
var ctxs sync.Pool

// New prepares a Scanner for opts.
func New(opts Options) *Scanner {
	return &Scanner{sh: newShadower(opts.OtherTools), names: newNameIndex(opts.OtherTools)}
}

// Scan scans texts as the package-level Scan does.
func (s *Scanner) Scan(texts []Text) []Finding {
	var out []Finding
	type key struct {
		sig   int
		field string
	}
	// At most one finding per (signal, field), and at most 64 findings:
	// a linear search of those found is cheaper than a map per call.
	var seenBuf [16]key
	seenKeys := seenBuf[:0]
	seenHas := func(k key) bool {
		for _, s := range seenKeys {
			if s == k {
				return true
			}
		}
		return false
	}
	sh := s.sh
	c, _ := ctxs.Get().(*textCtx)
	if c == nil {
		c = &textCtx{}
	}
	defer func() {
		// The pooled context must not keep this tool's strings alive.
		c.info.fill(nil)
		c.tool = nil
		c.pre, c.hasPre, c.preCtl, c.prePlain = "", false, false, false
		ctxs.Put(c)
	}()
	c.info.fill(texts)
	c.tool = &c.info
	add := func(f Finding, sig int) {
		k := key{sig, f.Field}
		if !seenHas(k) && len(out) < maxFindings {
			seenKeys = append(seenKeys, k)
			out = append(out, f)
		}
	}
	for _, f := range s.names.check(c.tool.name) {
		add(f, sigConfusable)
	}
	for _, f := range c.tool.secretRequests(texts) {
		add(f, sigSecretReq)
	}
	var contextAsks, identityAsks []Finding
	cleans := c.prepareASCII(texts)
	for i, t := range texts {
		if len(out) >= maxFindings {
			break
		}
		// The field ends up in status and logs like the excerpt, so it is
		// escaped the same way.
		field := visibleField(t.Field)
		c.reset(t.Value, field == "name")
		c.usePre(cleans, c.cleanAt[i])
		c.field = field
		if contextAsks == nil || identityAsks == nil {
			ctx, id := c.tool.namedRequest(t.Field, t.Value, contextAsks == nil, identityAsks == nil)
			if id != nil {
				identityAsks = id
				add(id[0], sigSecretReq)
			}
			if ctx != nil {
				contextAsks = ctx
				add(ctx[0], sigExfil)
			}
		}
		c.analyse(sh)
		if len(contextAsks) == 0 {
			if contextAsks = c.describedContext(); len(contextAsks) > 0 {
				add(contextAsks[0], sigExfil)
			}
		}
		for _, h := range c.hits {
			k := key{h.sig, field}
			if seenHas(k) {
				continue
			}
			if (h.sig == sigModel || h.sig == sigExfil) && c.tool != nil && c.tool.nameHas(famDetector) && mentioned(c.orig, h.start) {
				// A scanner or sanitiser quotes the attacks it looks for
				// ("phrases like 'ignore previous instructions'"): a
				// mention, not an order.
				continue
			}
			if h.sig == sigModel && c.tool != nil && c.tool.nameHas(famChatFormat) && h.start < len(c.orig) && c.orig[h.start] == '<' {
				continue // a converter of chat formats names their role markers
			}
			if h.sig == sigSensitive && c.tool != nil && (c.tool.nameHas(famSecret) || c.tool.nameHas(famDetector) || c.tool.paramIn(famKeyFile)) {
				// A tool about keys, SSH or credentials names their files
				// because that is its job ("Path to a private key, e.g.
				// ~/.ssh/id_ed25519"); an order to read or send one is
				// still reported by the rules that judge orders.
				continue
			}
			seenKeys = append(seenKeys, k)
			out = append(out, c.finding(field, h))
			if len(out) >= maxFindings {
				break
			}
		}
	}
	return out
}

// NameFindings checks a tool name alone: invisible and control characters
// and homoglyphs. A name is an identifier, so it is held to a stricter rule
// than prose: besides Latin mixed with look-alikes, a name spelled only in
// Cyrillic or Greek look-alikes ("ехес") or in compatibility forms
// (full-width letters, ligatures, mathematical letters) is reported, since
// it renders like an ASCII name it is not.
func NameFindings(name string) []Finding {
	c := newTextCtx(name, true)
	c.prepare()
	var out []Finding
	done := [numSignals]bool{}
	c.sortHits()
	for _, h := range c.hits {
		if done[h.sig] {
			continue
		}
		done[h.sig] = true
		out = append(out, c.finding("name", h))
	}
	return out
}

// capString cuts s to maxScanBytes without splitting a UTF-8 sequence, so
// that excerpts stay valid.
func capString(s string) string {
	if len(s) <= maxScanBytes {
		return s
	}
	cut := maxScanBytes
	for i := 0; i < 3 && cut > 0; i++ {
		if b := s[cut]; b&0xC0 != 0x80 {
			break
		}
		cut--
	}
	return s[:cut]
}

// analyse runs every detector on the text.
func (c *textCtx) analyse(sh *shadower) {
	c.prepare()
	c.runPhraseRules()
	c.intentSentences()
	c.findForeign()
	c.findEncoded()
	c.findCiphers()
	c.findMarkup()
	c.findImageExfil()
	c.findRemoteScript()
	if sh != nil {
		sh.scan(c)
	}
	c.sortHits()
}

func (c *textCtx) sortHits() {
	if len(c.hits) < 2 {
		return // most texts have none, and sorting costs a boxed slice
	}
	sort.SliceStable(c.hits, func(i, j int) bool {
		a, b := c.hits[i], c.hits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.sig < b.sig
	})
}

func (c *textCtx) finding(field string, h hit) Finding {
	ex := h.excerpt
	if ex == "" {
		ex = excerpt(c.orig, h.start, h.escConf)
	}
	// The field may be a slice of the one string SchemaTexts builds for all
	// of a schema's paths: a finding, which outlives the scan, keeps a copy
	// of its own.
	return Finding{Signal: signalNames[h.sig], Field: strings.Clone(field), Excerpt: ex}
}

// addCleanHit records a hit given offsets in the clean text.
func (c *textCtx) addCleanHit(sig, cs, ce int) {
	c.hits = append(c.hits, hit{sig: sig, start: c.origOff(cs), end: c.origOff(ce)})
}

// hasHit reports whether the text already has a hit of the signal; rules
// that only add the same signal skip work once one is found.
func (c *textCtx) hasHit(sig int) bool {
	for _, h := range c.hits {
		if h.sig == sig {
			return true
		}
	}
	return false
}

// visibleField returns a field name safe to show: escaped, never empty.
func visibleField(f string) string {
	if f == "" {
		return "text"
	}
	// Schema paths are long and are all printable ASCII but in a hostile
	// catalogue: a word at a time.
	i := 0
	for ; i+8 <= len(f); i += 8 {
		if x := load8(f, i); x&high8 != 0 || hasBelow8(x, 0x20) || hasByte8(x, 0x7f) {
			return escapeVisible(f)
		}
	}
	for ; i < len(f); i++ {
		if f[i] < 0x20 || f[i] >= 0x7f {
			return escapeVisible(f)
		}
	}
	return f
}

// famChatFormat are name words of tools that convert or render chat
// transcripts and prompts: their text names role markers such as
// <|im_start|>.
var famChatFormat = []string{"chatml", "transcript", "template", "tokeniz"}

// famDetector are name words of tools that look for attacks: their text
// quotes what they look for, and names the pseudo-tags they flag.
var famDetector = []string{"inject", "poison", "jailbreak", "guard", "sanitiz", "sanitis", "moderat", "detect", "classif", "scan",
	"firewall", "security", "threat", "prompt"}

// insideQuotes reports whether offset i of s lies within quotes opened in
// the same sentence: an odd number of double quotes, curly quotes or
// single quotes that are not apostrophes ("user's") before it.
func insideQuotes(s string, i int) bool {
	if i > len(s) {
		return false
	}
	lo := i
	for lo > 0 && i-lo < 400 {
		b := s[lo-1]
		if b == '\n' || ((b == '.' || b == '!' || b == '?') && lo < len(s) && s[lo] == ' ') {
			break
		}
		lo--
	}
	dq, sq, curly := 0, 0, 0
	for k := lo; k < i; k++ {
		switch b := s[k]; b {
		case '"':
			dq++
		case '\'':
			letterBefore := k > 0 && isWordByte(s[k-1])
			letterAfter := k+1 < len(s) && isWordByte(s[k+1])
			if !(letterBefore && letterAfter) {
				sq++
			}
		case 0xE2: // “ and ” are E2 80 9C and E2 80 9D
			if k+2 < len(s) && s[k+1] == 0x80 && (s[k+2] == 0x9C || s[k+2] == 0x9D) {
				curly++
			}
		}
	}
	return dq%2 == 1 || sq%2 == 1 || curly%2 == 1
}

// mentioned reports a hit that a text lists as an example rather than
// says: inside quotes, or a pseudo-tag, introduced by "such as", "like",
// "e.g.", "patterns", "phrases" just before. The marker is required: a
// detector's name alone must not let its text quote an order it means.
func mentioned(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	at := i
	if s[i] != '<' {
		if !insideQuotes(s, i) {
			return false
		}
		at = strings.LastIndexAny(s[:i], "\"'\u201c")
		if at < 0 {
			return false
		}
	}
	before := strings.ToLower(s[max(0, at-48):at])
	for _, m := range [...]string{"such as", "like ", "e.g", "for example", "phrases", "patterns", "strings", "including", "fake "} {
		if strings.Contains(before, m) {
			return true
		}
	}
	return false
}
