package resultscan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/secretmask"
)

// markup reads what starts with '<' at i: a comment or a hidden element
// (whose content is then read as hidden), a role marker written as a tag
// (<system>, <IMPORTANT>, <|im_start|>), an image. It returns where reading
// goes on.
func (c *pass) markup(i int) int {
	text := c.text
	n := len(text)
	if strings.HasPrefix(text[i:], "<!--") {
		end := strings.Index(text[i+4:min(n, i+4+maxHiddenSpan)], "-->")
		if end < 0 {
			end = min(n, i+4+maxHiddenSpan)
		} else {
			end += i + 4 + 3
		}
		c.hide(i, end)
		// A comment written inside a sentence of prose ("a page containing
		// <!-- AI: … --> caused …") is markup quoted in text, not markup a
		// renderer hides.
		c.hiddenQuoted = i >= 2 && (text[i-1] == ' ' || text[i-1] == '\n') && text[i-2] >= 'a' && text[i-2] <= 'z' &&
			end+1 < n && (text[end] == ' ' || text[end] == '\n') && text[end+1] >= 'a' && text[end+1] <= 'z'
		return i + 4
	}
	if i+1 < n && text[i+1] == '|' {
		// A chat template's special token: <|im_start|>, <|system|>.
		if j := strings.Index(text[i+2:min(n, i+40)], "|>"); j >= 0 {
			c.endSentence(i)
			// In quotes or on a line of code it is a template's text.
			c.marker(i, c.quote || c.fence || codeLike(lineAround(text, i)))
			return i + 2 + j + 2
		}
	}
	// A tag: its name, its attributes up to '>'.
	j := i + 1
	closing := j < n && text[j] == '/'
	if closing {
		j++
	}
	ns := j
	for j < n && (isWordByte(text[j]) && text[j] < utf8.RuneSelf || text[j] == '-' || text[j] == ':') {
		j++
	}
	name := strings.ToLower(text[ns:j])
	if name == "" {
		c.lineStart = false
		return i + 1
	}
	gt := strings.IndexByte(text[j:min(n, j+2048)], '>')
	if gt < 0 {
		c.lineStart = false
		return j
	}
	attrs := text[j : j+gt]
	after := j + gt + 1
	r := lexicon[name]
	switch {
	case markerTag(name, r):
		// <system>, </tool_result>, <IMPORTANT>, <instructions>: the
		// structure of a prompt, not of a document.
		c.endSentence(i)
		c.marker(i, false)
		if !closing && len(c.blocks) < 64 {
			// A finding inside the block takes the block with it when it
			// is redacted: the tags alone still tell the model that
			// something important was said.
			if e := strings.Index(strings.ToLower(text[after:min(n, after+maxHiddenSpan)]), "</"+name); e >= 0 {
				end := after + e
				if gt := strings.IndexByte(text[end:min(n, end+64)], '>'); gt >= 0 {
					c.blocks = append(c.blocks, [2]int{i, end + gt + 1})
				}
			}
		}
		return after
	case closing:
	case name == "script" || name == "style" || name == "template" || hides(attrs):
		end := strings.Index(strings.ToLower(text[after:min(n, after+maxHiddenSpan)]), "</"+name)
		if end < 0 {
			end = min(n, after+maxHiddenSpan)
		} else {
			end += after
		}
		c.hide(after, end)
	case name == "img" || name == "image" || name == "source":
		if u := attrValue(attrs, "src"); u != "" {
			c.checkURL(u, true, i, after)
		}
	}
	c.endSentence(i)
	// What a page's attributes say (alt, title, a meta description) is
	// read by a model that reads the markup and seen by few people: it is
	// read as hidden text.
	for _, a := range []string{"alt", "title", "content", "aria-label", "placeholder", "data-note", "data-instructions"} {
		if v, at := attrValueAt(attrs, a); len(v) >= 12 {
			vs := j + at
			c.hide(vs, vs+len(v))
			return vs
		}
	}
	return after
}

// markerTag reports whether a tag's name is a piece of a prompt's
// structure: a role, the word for instructions, "important".
func markerTag(name string, r role) bool {
	switch name {
	case "important", "im_start", "im_end", "sys", "inst", "tool_result", "tool_output", "function_results", "start_of_turn", "end_of_turn",
		"function_result", "tool_response", "system-reminder", "system_prompt", "system-prompt", "admin", "assistant":
		return true
	}
	return r&(rRules|rAuth) != 0 && name != "security" && name != "root"
}

// hides reports whether a tag's attributes hide its content from a reader:
// the hidden attribute, display:none, visibility:hidden, zero size,
// transparent or white text, off-screen positions.
func hides(attrs string) bool {
	if attrs == "" {
		return false
	}
	a := strings.ToLower(attrs)
	a = strings.NewReplacer(" ", "", "\t", "", "\n", "", "'", "\"").Replace(a)
	for _, p := range []string{
		"display:none", "visibility:hidden", "font-size:0", "font-size:1px", "opacity:0;", "opacity:0\"",
		"color:#fff;", "color:#fff\"", "color:#ffffff", "color:white", "color:transparent", "height:0;width:0",
		"left:-9999", "left:-10000", "text-indent:-9999", "clip:rect(0", "max-height:0",
	} {
		if strings.Contains(a, p) {
			return true
		}
	}
	// The bare attribute "hidden", not "aria-hidden" or type="hidden".
	for _, f := range strings.FieldsFunc(strings.ToLower(attrs), func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '/' }) {
		if f == "hidden" || f == "hidden=\"\"" || f == "hidden=\"hidden\"" {
			return true
		}
	}
	return false
}

// attrValue is the value of attribute name in a tag's attributes.
func attrValue(attrs, name string) string {
	l := strings.ToLower(attrs)
	k := strings.Index(l, name+"=")
	if k < 0 {
		return ""
	}
	v := attrs[k+len(name)+1:]
	if v == "" {
		return ""
	}
	if q := v[0]; q == '"' || q == '\'' {
		if e := strings.IndexByte(v[1:], q); e >= 0 {
			return v[1 : 1+e]
		}
		return v[1:]
	}
	if e := strings.IndexAny(v, " \t\n>"); e >= 0 {
		return v[:e]
	}
	return v
}

// attrValueAt is like attrValue, with the value's offset in attrs.
func attrValueAt(attrs, name string) (string, int) {
	l := strings.ToLower(attrs)
	k := strings.Index(l, " "+name+"=")
	if k < 0 {
		return "", 0
	}
	at := k + len(name) + 2
	if at >= len(attrs) {
		return "", 0
	}
	if q := attrs[at]; q == '"' || q == '\'' {
		if e := strings.IndexByte(attrs[at+1:], q); e >= 0 {
			return attrs[at+1 : at+1+e], at + 1
		}
	}
	return "", 0
}

// hide marks text[start:end] as hidden: its sentences are judged on their
// own, and what they ask counts as hidden markup.
func (c *pass) hide(start, end int) {
	c.endSentence(start)
	c.hiddenQuoted = false
	if end > c.hiddenEnd {
		c.hiddenEnd = end
	}
}

// markdownLink reads a markdown link or image at the '[' at i.
func (c *pass) markdownLink(i int, image bool) int {
	text := c.text
	n := len(text)
	closeAt := strings.IndexByte(text[i:min(n, i+512)], ']')
	if closeAt < 0 || i+closeAt+1 >= n || text[i+closeAt+1] != '(' {
		if image {
			return i
		}
		if closeAt > 0 && closeAt <= 24 {
			// [INST], [SYSTEM], [/INST], [ADMIN]: the structure of a prompt.
			switch strings.ToLower(strings.TrimSpace(text[i+1 : i+closeAt])) {
			case "inst", "/inst", "sys", "/sys":
				c.endSentence(i)
				c.marker(i, c.quote || c.fence)
				return i + closeAt + 1
			case "system", "admin", "administrator", "assistant", "developer", "system message", "system note", "system prompt":
				c.endSentence(i)
				c.marker(i, true)
				return i + closeAt + 1
			}
		}
		return i + 1
	}
	us := i + closeAt + 2
	ue := strings.IndexAny(text[us:min(n, us+4096)], ") \n")
	if ue < 0 {
		return i + 1
	}
	u := text[us : us+ue]
	start := i
	if image {
		start = i - 1
	}
	c.checkURL(u, image, start, us+ue+1)
	// The link text is read as text.
	return i + 1
}

// url reads a bare URL at i and returns the offset after it.
func (c *pass) url(i int, image bool) int {
	text := c.text
	n := len(text)
	j := i
	for j < n {
		b := text[j]
		if b <= ' ' || b == '"' || b == '\'' || b == '`' || b == ')' || b == '>' || b == '<' || b == ']' && !strings.Contains(text[i:j], "[") {
			break
		}
		j++
	}
	for j > i && (text[j-1] == '.' || text[j-1] == ',') {
		j--
	}
	c.addTok(tok{start: i, end: j, fl: fDest})
	c.checkURL(text[i:j], image, i, j)
	return j
}

// email reads an e-mail address whose local part ended at the '@' at i
// and returns where it ends, or i if it is not one.
func (c *pass) email(i int) int {
	text := c.text
	j := i + 1
	dot := false
	for j < len(text) && (isWordByte(text[j]) && text[j] < utf8.RuneSelf || text[j] == '-' || text[j] == '.') {
		if text[j] == '.' && j+1 < len(text) && isWordByte(text[j+1]) {
			dot = true
		}
		j++
	}
	if !dot || j-i < 4 {
		return i
	}
	return j
}

// checkURL judges a URL a renderer may fetch: an image always is, a link
// when followed. Data put into it by the model leaves with the request.
func (c *pass) checkURL(u string, image bool, start, end int) {
	q := strings.IndexAny(u, "?#")
	rest := ""
	if k := strings.Index(u, "://"); k >= 0 {
		if s := strings.IndexByte(u[k+3:], '/'); s >= 0 {
			rest = u[k+3+s:]
		}
	} else if q >= 0 {
		rest = u[q:]
	}
	if rest == "" {
		return
	}
	if placeholderForData(rest) {
		// An image fetched on render, or a link the text asks the model to
		// fill: data leaves with the request. In quotes or a code fence it
		// is an example.
		quoted := c.quote || c.fence
		c.hits = append(c.hits, hit{sig: sigExfil, strong: image && !quoted, start: start, end: end, quoted: quoted})
		c.slots = append(c.slots, start)
		return
	}
	if q >= 0 && needsSlotCheck(u[q+1:]) && c.slotValue(u[q+1:]) {
		// ?u=SUMMARY, ?v=VERLAUF, ?mail=ユーザーのメール: a value written as a
		// name for the model to replace. Alone, a query may say that; an
		// order around it to fill it in makes it a finding (judge).
		c.hits = append(c.hits, hit{sig: sigExfil, start: start, end: end})
		c.slots = append(c.slots, start)
		return
	}
	if q >= 0 {
		if longValue(u[q:]) {
			if _, masked := secretmask.MaskAll(u[q:]); masked {
				c.hits = append(c.hits, hit{sig: sigExfil, strong: image, start: start, end: end})
			}
		}
	}
}

// placeholderForData reports whether a URL's path or query holds a slot
// for the model to fill with data: {conversation}, [SECRET], <summary>,
// $HISTORY, INSERT_…_HERE.
func placeholderForData(s string) bool {
	for k := 0; k < len(s); k++ {
		var closeB byte
		switch s[k] {
		case '{':
			closeB = '}'
		case '[':
			closeB = ']'
		case '<':
			closeB = '>'
		case '%':
			if k+2 < len(s) && (s[k+1:k+3] == "7B" || s[k+1:k+3] == "7b" || s[k+1:k+3] == "3C" || s[k+1:k+3] == "3c" || s[k+1:k+3] == "5B" || s[k+1:k+3] == "5b") {
				if dataWords(s[k+3 : min(len(s), k+80)]) {
					return true
				}
			}
			continue
		case '$':
			if k+1 < len(s) && s[k+1] >= 'A' && s[k+1] <= 'Z' && dataWords(s[k+1:min(len(s), k+40)]) {
				return true
			}
			continue
		default:
			continue
		}
		e := strings.IndexByte(s[k+1:min(len(s), k+120)], closeB)
		if e >= 0 && dataWords(s[k+1:k+1+e]) {
			return true
		}
	}
	return (containsFold(s, "insert") || containsFold(s, "_here")) && dataWords(s)
}

// needsSlotCheck reports whether a query has what a slot is written in:
// a capital letter or a letter of another script.
func needsSlotCheck(q string) bool {
	for i := 0; i < len(q); i++ {
		if q[i] >= 'A' && q[i] <= 'Z' || q[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// longValue reports whether a query holds a run of 16 or more characters
// a secret could be: the shortest formats secretmask knows are longer.
func longValue(q string) bool {
	run := 0
	for i := 0; i < len(q); i++ {
		b := q[i]
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.' {
			run++
			if run >= 16 {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// slotValue reports a query whose values include a name written to be
// replaced: upper-case letters and underscores that the text names again
// or that name the data, or a word in a script URLs are not written in.
func (c *pass) slotValue(q string) bool {
	for _, kv := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' || r == '#' }) {
		eq := strings.IndexByte(kv, '=')
		if eq < 0 {
			continue
		}
		v := kv[eq+1:]
		upper, other := 0, false
		for _, r := range v {
			switch {
			case r >= 'A' && r <= 'Z' || r == '_':
				upper++
			case r >= utf8.RuneSelf && unicode.IsLetter(r):
				other = true
			case r >= '0' && r <= '9':
			default:
				upper = -1000
			}
		}
		switch {
		case other:
			return true
		case upper >= 4 && upper > len(v)/2 && (strings.Count(c.text, v) >= 2 || strings.Contains(v, "_") && (dataWords(v) || slotName(v))):
			// A name the text refers to again ("… replacing SUMMARY with"),
			// or one that says what data goes in (USER_EMAIL): not an id.
			return true
		}
	}
	return false
}

// slotName reports a name of words in capitals joined by underscores,
// two or more of three letters or more: IBAN_DES_NUTZERS, CORREO_DEL_CLIENTE.
func slotName(v string) bool {
	// YOUR_API_KEY, DEIN_SCHLUESSEL: a slot the reader fills with their
	// own value, as API documentation writes it.
	first, _, _ := strings.Cut(v, "_")
	switch first {
	case "YOUR", "DEIN", "DEINE", "DEINEN", "IHR", "IHRE", "TU", "TUS", "TON", "TA", "VOTRE", "VOS", "SEU", "SUA", "TUO", "TUA", "VUESTRO", "VUESTRA":
		return false
	}
	long := 0
	for _, p := range strings.Split(v, "_") {
		letters := 0
		for _, r := range p {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 3 {
			long++
		}
	}
	return long >= 2
}

// dataWords reports whether a slot names what the model knows: the
// conversation, a secret, the user's data, a summary of either.
func dataWords(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{
		"conversation", "chat", "history", "message", "summary", "summar", "secret", "password", "token", "key",
		"credential", "data", "context", "prompt", "user", "email", "name", "address", "info", "memory",
		"answer", "response", "result", "content", "details", "ssn", "card", "env", "file",
	} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// control reads a C0 control at i: an escape sequence other than colour
// (which can move the cursor, erase a line, or conceal text from a person
// at a terminal) is a finding; so is a run of backspaces.
func (c *pass) control(i int) int {
	text := c.text
	n := len(text)
	switch text[i] {
	case 0x1b:
		if i+1 < n && text[i+1] == '[' {
			j := i + 2
			for j < n && (text[j] >= '0' && text[j] <= '9' || text[j] == ';' || text[j] == '?') {
				j++
			}
			if j < n && text[j] == 'm' && !concealSGR(text[i+2:j]) {
				return j + 1 // colour
			}
			c.hits = append(c.hits, hit{sig: sigControl, strong: true, start: i, end: min(n, j+1)})
			return min(n, j+1)
		}
		c.hits = append(c.hits, hit{sig: sigControl, strong: true, start: i, end: min(n, i+2)})
		return min(n, i+2)
	case 0x08:
		j := i
		for j < n && text[j] == 0x08 {
			j++
		}
		if j-i >= 3 {
			c.hits = append(c.hits, hit{sig: sigControl, strong: true, start: i, end: j})
		}
		return j
	}
	return i + 1
}

// concealSGR reports whether SGR parameters include 8 (conceal).
func concealSGR(p string) bool {
	for _, f := range strings.Split(p, ";") {
		if f == "8" || f == "08" {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds sub, which is lower-case ASCII,
// without regard to ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if eqFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// lineAround is the line holding offset i, at most 300 bytes of it.
func lineAround(text string, i int) string {
	s := strings.LastIndexByte(text[max(0, i-300):i], '\n')
	if s < 0 {
		s = max(0, i-300)
	} else {
		s += max(0, i-300) + 1
	}
	e := strings.IndexByte(text[i:min(len(text), i+300)], '\n')
	if e < 0 {
		e = min(len(text), i+300)
	} else {
		e += i
	}
	return text[s:e]
}
