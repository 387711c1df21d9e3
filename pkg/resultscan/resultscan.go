package resultscan

import (
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The signals a scan reports. Where one means what pkg/scan's signal of
// the same name means for a definition, it has that name, so that a
// dashboard counts both alike.
const (
	// SignalModelInstruction is text addressed to the model inside data:
	// an override of its instructions, a directive to the assistant, a role
	// or chat-template marker followed by a directive, concealment from the
	// user, persistence into memory.
	SignalModelInstruction = "model-instruction"
	// SignalToolSolicitation is a directive to call a tool, naming one of
	// the agent's tools or written as a call.
	SignalToolSolicitation = "tool-solicitation"
	// SignalExfiltration is a link or image whose URL would carry data out
	// when the client renders it (a placeholder the model is to fill, a
	// secret in the query), or a directive to send the conversation or
	// credentials somewhere.
	SignalExfiltration = "exfiltration"
	// SignalSensitivePath is a directive to read, show or send a credential
	// or a private file.
	SignalSensitivePath = "sensitive-path"
	// SignalHiddenMarkup is a directive inside markup a renderer hides: an
	// HTML comment, an element hidden by its style or attribute.
	SignalHiddenMarkup = "hidden-markup"
	// SignalInvisibleUnicode is text smuggled in characters that render as
	// nothing: Unicode tag characters, zero-width characters inside words,
	// runs of variation selectors, bidirectional overrides.
	SignalInvisibleUnicode = "invisible-unicode"
	// SignalControlCharacter is a terminal control sequence other than
	// colour, which can hide or rewrite what a person sees.
	SignalControlCharacter = "control-character"
	// SignalEncodedPayload is an encoded run (base64, hex) that decodes to
	// a directive.
	SignalEncodedPayload = "encoded-payload"
)

// Finding is one flagged span of one string.
type Finding struct {
	// Signal is one of the Signal* constants.
	Signal string `json:"signal"`
	// Field is where the string is in the message, as a path:
	// "result.content[0].text", "params.data.detail".
	Field string `json:"field"`
	// Excerpt is at most 120 runes around the span, with invisible and
	// control characters escaped ("\u200b") so that a person sees what the
	// model reads.
	Excerpt string `json:"excerpt"`
	// Start and End are the span's byte offsets in the string (decoded
	// from JSON), which a redaction replaces.
	Start int `json:"start"`
	End   int `json:"end"`
}

// Report is what a scan found in one answer or message.
type Report struct {
	// Findings in the order of the message, at most MaxFindings.
	Findings []Finding `json:"findings,omitempty"`
	// Scanned is the bytes of text examined.
	Scanned int64 `json:"scanned"`
	// Unscanned is the bytes of text past Options.MaxBytes, not examined:
	// they are not known to be clean.
	Unscanned int64 `json:"unscanned,omitempty"`
	// InputRequests says the message is a result that carries requests
	// for the client to fulfil (the stateless revision's inputRequests:
	// sampling, elicitation), under any spelling of the member a
	// case-insensitive decoder reads as that name.
	InputRequests bool `json:"inputRequests,omitempty"`
}

// Clean reports whether the scan found nothing and examined everything.
func (r *Report) Clean() bool { return len(r.Findings) == 0 && r.Unscanned == 0 }

// Signals is the distinct signals of the findings, sorted.
func (r *Report) Signals() []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Signal)
	}
	sort.Strings(out)
	return compact(out)
}

func compact(s []string) []string {
	if len(s) < 2 {
		return s
	}
	j := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[j-1] {
			s[j] = s[i]
			j++
		}
	}
	return s[:j]
}

// MaxFindings caps one report.
const MaxFindings = 64

// DefaultMaxBytes is the text a Scanner examines per answer by default.
const DefaultMaxBytes = 1 << 20

// Options tune a Scanner.
type Options struct {
	// AgentTools are the names of the tools the agent can call, on every
	// server: text in a result that directs the model to one of them is
	// tool solicitation. Names that are ordinary words ("search") count
	// only when written as a tool (`search`, search(), "the search tool").
	AgentTools []string
	// MaxBytes bounds the text examined per answer; zero means
	// DefaultMaxBytes.
	MaxBytes int64
}

// Scanner scans answers against one set of options. Build one per
// configuration and share it: it is safe for concurrent use.
type Scanner struct {
	tools    map[string]bool // lower-cased
	maxBytes int64
}

// New prepares a Scanner.
func New(o Options) *Scanner {
	s := &Scanner{tools: map[string]bool{}, maxBytes: o.MaxBytes}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	for _, t := range o.AgentTools {
		if len(t) >= 3 {
			s.tools[strings.ToLower(t)] = true
		}
	}
	return s
}

// Text scans one string found at field and adds to r what it finds,
// within what is left of the answer's MaxBytes.
func (s *Scanner) Text(r *Report, field, text string) {
	s.text(r, field, text, markerNone)
}

// markerKind is a role marker a text is read under from its start.
type markerKind int

const (
	markerNone markerKind = iota
	markerWeak
	markerStrong
)

func (s *Scanner) text(r *Report, field, text string, marker markerKind) {
	left := s.maxBytes - r.Scanned
	if left <= 0 {
		r.Unscanned += int64(len(text))
		return
	}
	if int64(len(text)) > left {
		r.Unscanned += int64(len(text)) - left
		text = cutValid(text, int(left))
	}
	if looksJSON(text) && jsontext.Value(text).IsValid() {
		// A tool that returns JSON as text: its strings are read one by
		// one (and together), not the document as one sentence.
		_ = s.scanJSON(r, []byte(text), false, field)
		return
	}
	r.Scanned += int64(len(text))
	c := getPass()
	defer putPass(c)
	c.startMarker = marker
	c.run(s, text, 0)
	for _, h := range c.final() {
		if len(r.Findings) >= MaxFindings {
			return
		}
		r.Findings = append(r.Findings, Finding{
			Signal: signalNames[h.sig], Field: field,
			Excerpt: excerpt(text, h.start), Start: h.start, End: h.end,
		})
	}
}

// looksJSON reports a text that starts as a JSON object or array.
func looksJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return len(s) > 2
		}
		return false
	}
	return false
}

// cutValid cuts s to at most n bytes without splitting a rune.
func cutValid(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
