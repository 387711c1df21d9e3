package scan

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/toolgate/toolgate/pkg/clip"
)

// textCtx is one string under scan. The phrase rules run on clean, a
// normalised copy of the text as the model would read it: ASCII lower case,
// invisible characters removed, Unicode tag characters decoded to the ASCII
// they smuggle, look-alike letters, full-width and compatibility forms folded
// to ASCII, combining marks dropped. Obfuscation therefore cannot hide a
// phrase from the rules; it is reported by the character-level signals
// instead. deltas map clean offsets back to the original for excerpts.
type textCtx struct {
	orig  string
	clean string
	// deltas is a sparse map from clean to original offsets: from
	// deltas[k].at on, clean offset i is original offset i+deltas[k].d.
	// Nil when clean[i] is orig[i]. Most runes keep their bytes, so the
	// map has an entry only where folding changed a length.
	deltas []offDelta
	ident  bool // the text is an identifier (a tool name)
	hits   []hit
	// commandCue and contextCue say the word pass (runPhraseRules) saw a
	// word of a command that fetches, grants or installs, or of a
	// description that may ask for the model's context.
	commandCue, contextCue bool

	// punct has a punctMark bit for each of < ! ] = % \ & the clean text
	// holds, noted by the word pass: the rules that look for markup
	// ("<!--", "![", "</") or escapes ("%41", "&#") read only a text that
	// has their first byte. Folding keeps every ASCII byte but letters and
	// controls, so a byte clean lacks is not in orig either.
	punct uint8

	// sensitive-path hits in clean offsets, for rules that need one nearby.
	sens []int

	// tool is what the tool under scan is for (nil when unknown); field is
	// the field of the text.
	tool  *toolInfo
	field string
	// info is the space tool points to during a Scan, kept with the
	// pooled context.
	info toolInfo
	// foreignN counts words of other languages the intent pass saw.
	foreignN int
	// depth is how many encodings the text was found inside.
	depth int
	// phrases caches the indexed phrases of the sentence last analysed.
	phrases   phraseBits
	phrasesOf int
	phrasesAt int32
	// cipherSpans are original offsets of clauses that read as no
	// English at all (see findCiphers).
	cipherSpans [][2]int
	// codeProse are clean offsets of code spans that hold a sentence,
	// read after the text's own sentences (see intentSentences);
	// inCodeProse is set while they are.
	codeProse   [][2]int
	inCodeProse bool

	// pre, when hasPre is set, is the clean form of this text made
	// beforehand (see prepareASCII); preCtl says the text holds a control
	// character, which prepare then looks for.
	pre            string
	hasPre, preCtl bool
	prePlain       bool // prepareASCII found the text its own clean form
	// origASCII says orig is all ASCII, as prepare found it: the readers
	// of its other scripts need not look at its bytes again.
	origASCII bool

	// Scratch space reused from one text to the next within a Scan.
	itoks   []itok
	scratch []byte
	// cleans holds the clean forms prepareASCII makes for one Scan, and
	// cleanAt where each text's is in them (start -1 for none).
	cleans  []byte
	cleanAt []preAt
	anchors []anchorHit
	secrets []secretHit
	// cleanChunk holds the strings prepareASCII returns, one Scan's after
	// another's: a tool's clean forms are a kilobyte or two, so one chunk
	// serves several tools, where a string of their own was an allocation
	// for each.
	cleanChunk stringChunks
}

// cleanChunkSize is the least a chunk of clean forms is allocated at.
const cleanChunkSize = 16 << 10

// stringChunks copies strings into shared chunks: a builder only appends,
// so a string sliced from it never changes, and a chunk that lacks room
// for the next string is left to the strings already sliced from it.
type stringChunks struct {
	b strings.Builder
}

// keep returns b as a string copied into the current chunk, first
// starting a chunk of at least least bytes when b does not fit.
func (c *stringChunks) keep(b []byte, least int) string {
	if len(b) == 0 {
		return ""
	}
	if c.b.Cap()-c.b.Len() < len(b) {
		c.b = strings.Builder{}
		c.b.Grow(max(len(b), least))
	}
	n := c.b.Len()
	c.b.Write(b)
	return c.b.String()[n:]
}

func newTextCtx(s string, ident bool) *textCtx {
	c := &textCtx{}
	c.reset(s, ident)
	return c
}

// reset readies c for another text, keeping its scratch space.
func (c *textCtx) reset(s string, ident bool) {
	c.orig, c.clean, c.ident = capString(s), "", ident
	c.pre, c.hasPre, c.preCtl, c.prePlain, c.origASCII = "", false, false, false, false
	c.deltas, c.hits, c.sens = nil, c.hits[:0], c.sens[:0]
	c.foreignN = 0
	c.cipherSpans = c.cipherSpans[:0]
	c.codeProse, c.inCodeProse = c.codeProse[:0], false
	c.phrasesOf = -1
}

func (c *textCtx) origOff(i int) int {
	o := i
	if c.deltas != nil {
		k := sort.Search(len(c.deltas), func(k int) bool { return int(c.deltas[k].at) > i }) - 1
		if k >= 0 {
			o = i + int(c.deltas[k].d)
		}
	}
	o = max(0, min(o, len(c.orig)))
	// Inside an expansion ("…" became "..."), point at the rune start.
	for o > 0 && o < len(c.orig) && !utf8.RuneStart(c.orig[o]) {
		o--
	}
	return o
}

type offDelta struct{ at, d int32 }

// prepare builds clean and reports invisible characters, control characters
// and homoglyphs, which all need a walk over the runes anyway.
func (c *textCtx) prepare() {
	if c.ident {
		c.checkIdentifier()
	}
	s := c.orig
	// Every way below but prepareUnicode's finds the text all ASCII.
	c.origASCII = true
	if c.prePlain {
		c.clean = s
		return
	}
	i := 0
	for i < len(s) && (lowerPlain[s[i]] || s[i] == '\n' && !wrapped(s, i+1)) {
		i++
	}
	if i == len(s) {
		// Lower-case ASCII already: clean is the text itself.
		c.clean = s
		return
	}
	if s[i] >= 0x80 {
		c.prepareUnicode()
		return
	}
	if c.hasPre {
		// Made by prepareASCII, as below; which also noted whether the
		// text holds a control character, so that most texts are not
		// read again to find none.
		c.clean = c.pre
		if c.preCtl {
			for k := 0; k < len(s); k++ {
				if isC0(s[k]) {
					c.hits = append(c.hits, hit{sig: sigControl, start: k, end: k + 1})
					break
				}
			}
		}
		return
	}
	// ASCII with capitals or controls: same length, identity offsets.
	buf := append(c.scratch[:0], s...)
	defer func() { c.scratch = buf }()
	ctrlAt := -1
	var high, ctl byte
	for k, b := range buf {
		high |= b
		ctl |= asciiCtl[b]
		buf[k] = asciiLower[b]
	}
	if high >= 0x80 {
		c.prepareUnicode()
		return
	}
	unwrap(buf, s, 0)
	if ctl != 0 {
		for k := 0; k < len(s); k++ {
			if isC0(s[k]) {
				ctrlAt = k
				break
			}
		}
	}
	c.clean = string(buf)
	if ctrlAt >= 0 {
		c.hits = append(c.hits, hit{sig: sigControl, start: ctrlAt, end: ctrlAt + 1})
	}
}

// preAt is where a text's clean form made beforehand is in the string
// prepareASCII returns, start -1 for none, and whether the text holds a
// control character.
type preAt struct {
	start, end int32
	ctl        bool
	// plain says the text is its own clean form (start is -1): prepare
	// need not read it again to find so.
	plain bool
}

// usePre gives the text about to be prepared its clean form made
// beforehand, if it has one.
func (c *textCtx) usePre(cleans string, at preAt) {
	if at.start >= 0 {
		c.pre, c.hasPre, c.preCtl = cleans[at.start:at.end], true, at.ctl
	}
	c.prePlain = at.plain
}

// prepareASCII makes, before a Scan reads its texts, the clean form of
// every text that prepare would make by lower-casing ASCII (most texts with
// a capital), all in one string, and sets cleanAt to where each is: one
// allocation for a tool's texts instead of one for each. It must decide
// exactly as prepare does; prepare reports the text's first control
// character itself, when this notes there is one.
func (c *textCtx) prepareASCII(texts []Text) string {
	buf := c.cleans[:0]
	at := c.cleanAt[:0]
	for _, t := range texts {
		s := capString(t.Value)
		i := 0
		for i < len(s) && (lowerPlain[s[i]] || s[i] == '\n' && !wrapped(s, i+1)) {
			i++
		}
		if i == len(s) || s[i] >= 0x80 {
			at = append(at, preAt{start: -1, plain: i == len(s)})
			continue
		}
		// Grown once and written by index: an append per byte tested the
		// capacity at every byte.
		start := len(buf)
		buf = slices.Grow(buf, len(s))[:start+len(s)]
		dst := buf[start:]
		var high, ctl byte
		// A word at a time when it holds only printable ASCII; a word
		// with a line break, a control or a byte above ASCII, and the
		// tail, a byte at a time by the tables.
		k := 0
		for ; k+8 <= len(dst); k += 8 {
			if x := load8(s, k); x&high8 == 0 && !hasBelow8(x, 0x20) && !hasByte8(x, 0x7f) {
				store8(dst, k, lower8(x))
				continue
			}
			for m := k; m < k+8; m++ {
				c := s[m]
				high |= c
				ctl |= asciiCtl[c]
				dst[m] = asciiLower[c]
			}
		}
		for ; k < len(dst); k++ {
			c := s[k]
			high |= c
			ctl |= asciiCtl[c]
			dst[k] = asciiLower[c]
		}
		if high >= 0x80 {
			buf = buf[:start]
			at = append(at, preAt{start: -1})
			continue
		}
		unwrap(buf[start:], s, 0)
		at = append(at, preAt{start: int32(start), end: int32(len(buf)), ctl: ctl != 0})
	}
	c.cleans, c.cleanAt = buf, at
	return c.cleanChunk.keep(buf, cleanChunkSize)
}

// wrapped reports whether the line starting at s[i] continues the
// sentence of the line before, as in hard-wrapped text: after optional
// indentation it starts with a lower-case word, not with a capital, a list
// marker or a blank line.
func wrapped(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < len(s) && (('a' <= s[i] && s[i] <= 'z') || s[i] == '(')
}

// unwrap turns the line breaks of hard-wrapped text into spaces in buf,
// the clean copy of s[at:at+len(buf)], so that phrase rules read a wrapped
// sentence as one, while a line break elsewhere still ends a sentence.
func unwrap(buf []byte, s string, at int) {
	for k := 0; k < len(buf); {
		n := bytes.IndexByte(buf[k:], '\n')
		if n < 0 {
			return
		}
		k += n
		if wrapped(s, at+k+1) {
			buf[k] = ' '
		}
		k++
	}
}

// asciiLower lower-cases ASCII letters and blanks C0 controls; asciiCtl
// marks those controls.
var asciiLower, asciiCtl = func() (l, c [256]byte) {
	for i := range l {
		l[i] = byte(i)
		switch {
		case 'A' <= i && i <= 'Z':
			l[i] = byte(i) + 'a' - 'A'
		case i < 0x80 && isC0(byte(i)):
			l[i], c[i] = ' ', 1
		}
	}
	return
}()

// isC0 reports an ASCII control character other than tab, LF and CR.
// lowerPlain marks the ASCII bytes clean keeps as they are: not a capital,
// not a control character, not a line break (which may join a wrapped
// line). A table, since every byte of every text is tested.
var lowerPlain = func() (t [256]bool) {
	for b := 0; b < 0x80; b++ {
		t[b] = !('A' <= b && b <= 'Z') && !isC0(byte(b)) && b != '\n'
	}
	return
}()

func isC0(b byte) bool {
	return (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f
}

// prepareUnicode is the general path for text with non-ASCII bytes.
func (c *textCtx) prepareUnicode() {
	c.origASCII = false
	s := c.orig
	buf := c.scratch[:0]
	defer func() { c.scratch = buf }()
	var deltas []offDelta
	cur := int32(0)
	// mark starts the clean bytes of the rune at original offset at.
	mark := func(at int) {
		if d := int32(at - len(buf)); d != cur {
			deltas = append(deltas, offDelta{int32(len(buf)), d})
			cur = d
		}
	}
	emit := func(b byte, at int) {
		mark(at)
		buf = append(buf, b)
	}
	emitRune := func(r rune, at int) {
		mark(at)
		buf = utf8.AppendRune(buf, r)
	}

	invisAt, invisEnd := -1, -1
	ctrlAt := -1
	bidiMarkAt := -1 // LRM/RLM/ALM, allowed when the text has RTL letters
	hasRTL := false
	var tagText []byte
	tagAt := -1
	mixedAt, mixedEnd := -1, -1
	checkedTo := 0 // words before this offset were checked for homoglyphs

	prev := rune(-1) // previous visible rune
	prevVS := false  // previous rune was a variation selector
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			// A run of ASCII, copied and lower-cased in bulk: most of any
			// text, even a non-English one.
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf {
				j++
			}
			mark(i)
			k0 := len(buf)
			buf = append(buf, s[i:j]...)
			for k := k0; k < len(buf); k++ {
				b := buf[k]
				if 'A' <= b && b <= 'Z' {
					buf[k] = b + 'a' - 'A'
				} else if isC0(b) {
					if ctrlAt < 0 {
						ctrlAt = i + k - k0
					}
					buf[k] = ' '
				}
			}
			unwrap(buf[k0:], s, i)
			prev, prevVS = rune(s[j-1]), false
			i = j
			continue
		}
		r, sz := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && sz <= 1 {
			// Invalid UTF-8: a word separator; excerpts show it as \xNN.
			emit(' ', i)
			i++
			prev, prevVS = -1, false
			continue
		}
		if r <= 0x9f { // C1 controls
			if ctrlAt < 0 {
				ctrlAt = i
			}
			emit(' ', i)
			prev, prevVS = -1, false
			i += sz
			continue
		}
		if isInvisible(r) {
			next, _ := utf8.DecodeRuneInString(s[i+sz:])
			// A flag tag sequence (black flag, tag letters, cancel tag) is
			// how subdivision flags are spelled; consume it whole.
			if r >= 0xE0020 && r <= 0xE007F && prev == 0x1F3F4 {
				if n := flagTagLen(s[i:]); n > 0 {
					i += n
					prev, prevVS = -1, false
					continue
				}
			}
			allowed := false
			switch {
			case r == 0x200D || r == 0x200C:
				allowed = (isEmoji(prev) && isEmoji(next) && r == 0x200D) ||
					(joinerScript(prev) && joinerScript(next))
			case r >= 0xFE00 && r <= 0xFE0F:
				allowed = !prevVS && prev >= 0 && !isLetterLike(prev)
			case r >= 0xE0100 && r <= 0xE01EF:
				allowed = !prevVS && prev >= 0 && unicode.Is(unicode.Han, prev)
			case r == 0x200E || r == 0x200F || r == 0x061C:
				if bidiMarkAt < 0 {
					bidiMarkAt = i
				}
				allowed = true
			case r == 0xFEFF:
				// A byte-order mark at the very start is a file-encoding
				// artefact, not a hiding place.
				allowed = i == 0
			case r >= 0x180B && r <= 0x180F && r != 0x180E:
				allowed = prev >= 0x1800 && prev <= 0x18AF
			case r == 0x17B4 || r == 0x17B5:
				allowed = prev >= 0x1780 && prev <= 0x17FF
			}
			if r >= 0xE0000 && r <= 0xE007F {
				if tagAt < 0 {
					tagAt = i
				}
				if r >= 0xE0020 && r <= 0xE007E {
					b := byte(r - 0xE0000)
					if len(tagText) < 256 {
						tagText = append(tagText, b)
					}
					if 'A' <= b && b <= 'Z' {
						b += 'a' - 'A'
					}
					// The model reads tag characters as the ASCII they
					// encode, so the phrase rules must read them too.
					emit(b, i)
				}
			}
			if !allowed && invisAt < 0 {
				invisAt, invisEnd = i, i+sz
			}
			prevVS = isVS(r)
			i += sz
			continue
		}
		prevVS = false
		if isRTL(r) {
			hasRTL = true
		}
		if !c.ident && mixedAt < 0 && i >= checkedTo {
			if _, ok := confusable(r); ok {
				ws, we, mixed := mixedWord(s, i)
				if mixed {
					mixedAt, mixedEnd = ws, we
				}
				checkedTo = we
			}
		}
		c.foldRune(r, i, s[i:i+sz], emit, emitRune)
		prev = r
		i += sz
	}
	mark(len(s))
	c.clean = string(buf)
	c.deltas = deltas

	if invisAt < 0 && bidiMarkAt >= 0 && !hasRTL {
		_, sz := utf8.DecodeRuneInString(s[bidiMarkAt:])
		invisAt, invisEnd = bidiMarkAt, bidiMarkAt+sz
	}
	if invisAt >= 0 {
		h := hit{sig: sigInvisible, start: invisAt, end: invisEnd}
		if len(tagText) > 0 {
			h.start = tagAt
			h.excerpt = clip.Runes(`hidden tag text: "`+escapeVisible(string(tagText))+`"`, maxExcerptRunes)
		}
		c.hits = append(c.hits, h)
	}
	if ctrlAt >= 0 {
		c.hits = append(c.hits, hit{sig: sigControl, start: ctrlAt, end: ctrlAt + 1})
	}
	if mixedAt >= 0 {
		c.hits = append(c.hits, hit{sig: sigMixed, start: mixedAt, end: mixedEnd, escConf: true})
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWordByte(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// mixedWord finds the word around the look-alike letter at i and reports
// whether it also holds Latin letters. Invisible characters do not split a
// word: "p\u200bаth" is still one word to a reader.
func mixedWord(s string, i int) (start, end int, mixed bool) {
	start = i
	for start > 0 {
		r, sz := utf8.DecodeLastRuneInString(s[:start])
		if !isWordRune(r) && !isInvisible(r) {
			break
		}
		start -= sz
	}
	end = i
	latin, conf := 0, 0
	for end < len(s) {
		r, sz := utf8.DecodeRuneInString(s[end:])
		if !isWordRune(r) && !isInvisible(r) {
			break
		}
		end += sz
	}
	for _, r := range s[start:end] {
		if _, ok := confusable(r); ok {
			conf++
		} else if isASCIILetter(r) || (r >= 0x80 && unicode.Is(unicode.Latin, r) && !isCompat(r)) {
			latin++
		}
	}
	return start, end, latin > 0 && conf > 0
}

// checkIdentifier holds a tool name to a stricter rule than prose: Latin
// mixed with look-alikes, an identifier spelled only in look-alikes
// ("ехес"), or one using compatibility forms (full-width letters,
// ligatures, mathematical letters) renders as an ASCII name it is not.
func (c *textCtx) checkIdentifier() {
	letters, latin, conf, compat := 0, 0, 0, 0
	for _, r := range c.orig {
		if isCompat(r) {
			compat++
		}
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if _, ok := confusable(r); ok {
			conf++
		} else if isASCIILetter(r) || (unicode.Is(unicode.Latin, r) && !isCompat(r)) {
			latin++
		}
	}
	if (latin > 0 && conf > 0) || (letters >= 2 && conf == letters) || compat > 0 {
		c.hits = append(c.hits, hit{sig: sigMixed, start: 0, end: len(c.orig), escConf: true})
	}
}

// foldRune appends the clean form of a visible non-ASCII rune.
func (c *textCtx) foldRune(r rune, at int, raw string, emit func(byte, int), emitRune func(rune, int)) {
	if a, ok := confusable(r); ok {
		emit(a, at)
		return
	}
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		b := byte(r - 0xFEE0)
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		emit(b, at)
		return
	case r == 0x2018 || r == 0x2019 || r == 0x02BC || r == 0x2032:
		emit('\'', at)
		return
	case r == 0x201C || r == 0x201D || r == 0x2033:
		emit('"', at)
		return
	case r == 0x2028 || r == 0x2029:
		emit('\n', at)
		return
	case unicode.IsSpace(r):
		emit(' ', at)
		return
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		// Combining marks: "i̸g̸n̸o̸r̸e̸" reads as "ignore".
		return
	}
	if needsNorm(r) {
		if d := norm.NFKD.PropertiesString(raw).Decomposition(); len(d) > 0 {
			for len(d) > 0 {
				dr, n := utf8.DecodeRune(d)
				d = d[n:]
				switch {
				case dr < utf8.RuneSelf:
					b := byte(dr)
					if 'A' <= b && b <= 'Z' {
						b += 'a' - 'A'
					}
					emit(b, at)
				case unicode.Is(unicode.Mn, dr):
				default:
					emitRune(dr, at)
				}
			}
			return
		}
	}
	emitRune(r, at)
}

// needsNorm limits compatibility decomposition to the blocks where it maps
// to Latin letters or digits (accents, ligatures, letter-like symbols,
// enclosed and mathematical alphanumerics, full-width forms), so that
// ordinary CJK or Cyrillic prose is not run through it.
func needsNorm(r rune) bool {
	return (r >= 0xC0 && r < 0x370) || (r >= 0x1D00 && r < 0x2000) ||
		(r >= 0x2070 && r < 0x2200) || (r >= 0x2460 && r < 0x2500) ||
		(r >= 0xFB00 && r < 0xFB07) || (r >= 0xFF00 && r < 0xFFF0) ||
		(r >= 0x1D400 && r < 0x1D800) || (r >= 0x1F100 && r < 0x1F1E6)
}

// isCompat reports compatibility forms that render like ASCII letters or
// digits: full-width, ligatures, mathematical and enclosed alphanumerics.
func isCompat(r rune) bool {
	return (r >= 0xFF01 && r <= 0xFF5E) || (r >= 0xFB00 && r <= 0xFB06) ||
		(r >= 0x1D400 && r <= 0x1D7FF) || (r >= 0x2460 && r <= 0x24FF) ||
		(r >= 0x1F130 && r <= 0x1F189)
}

func isASCIIWordByte(b byte) bool {
	return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9') || b == '_'
}

func isASCIILetter(r rune) bool {
	return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

// isInvisible reports default-ignorable and format characters that render
// as nothing: Cf, Other_Default_Ignorable_Code_Point and variation
// selectors, minus the prepended concatenation marks and Egyptian
// hieroglyph format controls, which are visible; plus the blank look-alikes
// (Hangul fillers, braille blank) used to fake empty text. The switch is
// hand-written for speed; a test checks it against the Unicode tables.
func isInvisible(r rune) bool {
	switch {
	case r < 0xAD:
		return false
	case r == 0xAD, r == 0x34F, r == 0x61C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5:
	case r >= 0x180B && r <= 0x180F:
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F:
	case r == 0x2800, r == 0x3164, r >= 0xFE00 && r <= 0xFE0F, r == 0xFEFF, r == 0xFFA0:
	case r >= 0xFFF0 && r <= 0xFFFB:
	case r >= 0x1BCA0 && r <= 0x1BCA3, r >= 0x1D173 && r <= 0x1D17A:
	case r >= 0xE0000 && r <= 0xE0FFF:
	default:
		return false
	}
	return true
}

func isVS(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF) || (r >= 0x180B && r <= 0x180D) || r == 0x180F
}

// isEmoji approximates Extended_Pictographic plus the modifiers, enough to
// allow zero-width joiners inside emoji sequences.
func isEmoji(r rune) bool {
	return (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF) ||
		(r >= 0x2B00 && r <= 0x2BFF) || (r >= 0x2190 && r <= 0x21FF) ||
		r == 0x2640 || r == 0x2642 || r == 0x2695 || r == 0x2708 || r == 0x2764
}

// joinerScript reports letters of scripts whose orthography uses ZWJ/ZWNJ
// (Arabic, Persian, the Indic scripts and their neighbours). Latin, Greek
// and Cyrillic never need them.
func joinerScript(r rune) bool {
	return r >= 0x0590 && r < 0x1E00 && (unicode.IsLetter(r) || unicode.IsMark(r)) &&
		!(r >= 0x1C80 && r <= 0x1C8F) // Cyrillic Extended-C
}

// isLetterLike reports letters and digits a variation selector has no
// business following (Latin, Greek, Cyrillic, ASCII digits are not emoji
// bases except keycaps, which use U+FE0F after a digit and are allowed via
// the non-letter rule below).
func isLetterLike(r rune) bool {
	if r < 0x80 {
		return isASCIILetter(r)
	}
	return r < 0x530 && unicode.IsLetter(r)
}

func isRTL(r rune) bool {
	return (r >= 0x0590 && r <= 0x08FF) || (r >= 0xFB1D && r <= 0xFDFF) ||
		(r >= 0xFE70 && r <= 0xFEFE) || (r >= 0x10800 && r <= 0x10FFF) ||
		(r >= 0x1E800 && r <= 0x1EFFF)
}

// flagTagLen returns the byte length of a valid subdivision-flag tag
// sequence at the start of s (2-6 tag letters or digits, then CANCEL TAG),
// or 0.
func flagTagLen(s string) int {
	n, count := 0, 0
	for n < len(s) {
		r, sz := utf8.DecodeRuneInString(s[n:])
		switch {
		case r == 0xE007F:
			if count >= 2 && count <= 6 {
				return n + sz
			}
			return 0
		case (r >= 0xE0030 && r <= 0xE0039) || (r >= 0xE0061 && r <= 0xE007A):
			count++
			if count > 6 {
				return 0
			}
		default:
			return 0
		}
		n += sz
	}
	return 0
}

// confusable maps Cyrillic, Greek and Armenian letters that look like Latin
// letters to the ASCII letter they imitate (in lower case).
func confusable(r rune) (byte, bool) {
	if r < 0x370 || r > 0x58F {
		return 0, false
	}
	b, ok := confusables[r]
	return b, ok
}

var confusables = map[rune]byte{
	// Cyrillic lower case
	'а': 'a', 'е': 'e', 'ё': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x',
	'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w',
	'ӏ': 'l', 'ү': 'y', 'к': 'k', 'ԍ': 'g',
	// Cyrillic upper case
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p',
	'С': 'c', 'Т': 't', 'Х': 'x', 'У': 'y', 'І': 'i', 'Ј': 'j', 'Ѕ': 's', 'Ԛ': 'q',
	'Ԝ': 'w', 'Ү': 'y', 'Ӏ': 'i', 'Ԍ': 'g',
	// Greek
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'χ': 'x',
	'γ': 'y', 'ϲ': 'c', 'ϳ': 'j',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm',
	'Ν': 'n', 'Ο': 'o', 'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x', 'Ϲ': 'c',
	// Armenian
	'օ': 'o', 'ս': 'u', 'ց': 'g', 'հ': 'h', 'ո': 'n', 'զ': 'q',
}
