package scan

import (
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/phrase"
)

// Rules on what no tool's text has a reason to hold, whatever its wording:
// a program fetched from the network and handed to an interpreter, a line
// that gives root to everyone or a login to a stranger, a parameter that
// asks for the model's own context, one that asks for what proves a
// person's identity to a bank. They read the shape of a command or of a
// schema, not a sentence, so that paraphrase does not carry an attack past
// them.

// findRemoteScript reports a program fetched and run in one step ("curl …
// | sh", `bash -c "$(curl …)"`, "iex (iwr …)"), a write that grants root
// or a login ("NOPASSWD", ">> /etc/sudoers", ">> ~/.ssh/authorized_keys")
// and a package installed from an index whose code anyone on the path can
// choose (plain HTTP, "--trusted-host", certificate checks off), anywhere
// in a text. Neither has a place in a tool's description, a shell
// tool's included: what it fetches is chosen by whoever serves it and
// changes after review, and what it grants outlives the session.
func (c *textCtx) findRemoteScript() {
	t := c.clean
	if c.hasHit(sigModel) || !remoteScriptCue.Any(t) {
		return
	}
	for _, re := range [...]*regexp.Regexp{remoteScriptRe, rootGrantRe, insecureInstallRe} {
		for _, m := range re.FindAllStringIndex(t, 8) {
			if re == remoteScriptRe && !fetchesAnAddress.MatchString(lineFrom(t, m[0], m[1])) {
				continue // "curl ... | sh" in a list of patterns names no program
			}
			if mentionedBefore(t, m[0]) {
				continue
			}
			c.addCleanHit(sigModel, m[0], m[1])
			return
		}
	}
}

// lineFrom is the text from i to the end of its line, and at least to j,
// at most 300 bytes past j: the command a match begins.
func lineFrom(t string, i, j int) string {
	end := min(len(t), j+300)
	if k := strings.IndexByte(t[j:end], '\n'); k >= 0 {
		end = j + k
	}
	return t[i:end]
}

// fetchesAnAddress is a URL, an IP address or a host name with a path: what
// a fetch that is an attack fetches from.
var fetchesAnAddress = regexp.MustCompile(`://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/`)

// mentionedBefore says the sentence before i names what follows as a
// pattern, an example or a prohibition ("warns on patterns such as",
// "never pipe downloaded scripts into a shell (…)"): a mention, not an
// order.
func mentionedBefore(t string, i int) bool {
	start := max(0, i-160)
	if k := strings.LastIndexAny(t[start:i], ".!?\n"); k >= 0 && k+start+1 < i && (k+start+1 == i || t[k+start+1] == ' ' || t[k+start] == '\n') {
		start += k + 1
	}
	return mentionCues.Any(t[start:i])
}

var mentionCues = phrase.New("such as", "e.g.", "for example", "like ", "pattern", "do not", "don't", "never", "detect",
	"warn", "flag", "block", "refuse", "reject", "forbid", "prohibit", "must not", "should not", "avoid")

var remoteScriptCue = phrase.New("curl", "wget", "iwr", "invoke-webrequest", "irm ", "invoke-restmethod", "sudoers", "nopasswd",
	"authorized_keys", "trusted-host", "index-url http:", "registry http:", "no-check-certificate", "strict-ssl")

var (
	remoteScriptRe = regexp.MustCompile(`\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;&]{0,300}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi)?sh|python[23]?|perl|ruby|node|iex|powershell|pwsh)\b` +
		`|\b(?:ba|z|k)?sh\s+<\(\s*(?:curl|wget)\b` +
		`|\b(?:ba|z|k)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b` +
		`|\biex\s*\(?\s*(?:\(\s*)?(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod)\b`)
	rootGrantRe = regexp.MustCompile(`\bnopasswd\s*:` +
		`|(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?/etc/sudoers` +
		`|(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?[\w~$./{}-]*\.ssh/authorized_keys`)
	// A package installed from an index over plain HTTP, or with the
	// index's certificate unchecked: whoever sits on the path chooses the
	// code.
	insecureInstallRe = regexp.MustCompile(`\b(?:pip3?|npm|pnpm|yarn|gem|uv\s+pip)\s+(?:install|add|i)\b[^\n]{0,300}?(?:--trusted-host\b|--(?:extra-)?index-url[=\s]+["']?http://|--registry[=\s]+["']?http://|--no-check-certificate\b|strict-ssl[=\s]+false)`)
)

// contextRequests reports a parameter that asks for the model's own
// context: its system prompt, the tools it was given, the conversation so
// far. A tool about prompts, models or conversations may take one; any
// other tool asks for what the model was told in confidence, and for the
// map of every other tool it could be steered to.
func (ti *toolInfo) contextRequests(texts []Text) []Finding {
	if ti == nil || len(ti.params) == 0 {
		return nil
	}
	// One pass, each text once: a parameter's name is the text of its
	// field, its description the text of the field's ".description".
	for _, t := range texts {
		field, ok := strings.CutPrefix(t.Field, "inputSchema.properties.")
		if !ok {
			continue
		}
		name, rest, nested := strings.Cut(field, ".")
		switch {
		case !nested && asksForContext(t.Value):
		case nested && rest == "description" && mayDescribeContext(t.Value) && contextDescribed.Any(strings.ToLower(t.Value[:min(len(t.Value), 1024)])):
			t.Field = "inputSchema.properties." + name
		default:
			continue
		}
		if ti.purposeHas(famModel) || ti.purposeHas(famConversation) {
			return nil
		}
		return []Finding{{Signal: SignalExfiltration, Field: strings.Clone(visibleField(t.Field)),
			Excerpt: clip.Runes(`parameter "`+escapeVisible(name)+`" asks for the model's own context (its prompt, its tools, the conversation)`, maxExcerptRunes)}}
	}
	return nil
}

// asksForContext says a parameter's name asks for the model's context.
func asksForContext(name string) bool {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	for i := 0; i+1 < len(words); i++ {
		a, b := words[i], words[i+1]
		switch {
		case a == "system" && (b == "prompt" || b == "prompts" || b == "message" || b == "instructions"),
			(a == "chat" || a == "conversation" || a == "message" || a == "messages") && (b == "history" || b == "log" || b == "transcript"),
			(a == "other" || a == "available" || a == "all") && (b == "tools" || b == "tool"),
			a == "tool" && (b == "descriptions" || b == "list" || b == "definitions"),
			(a == "previous" || a == "prior") && (b == "messages" || b == "turns"):
			return true
		}
	}
	return false
}

// mayDescribeContext is a first test, without allocating, that a
// parameter's description may hold one of contextDescribed.
func mayDescribeContext(v string) bool {
	for _, part := range [...]string{"you", "You", "YOU", "onversation", "ONVERSATION", "other tool", "OTHER TOOL", "Other tool"} {
		if strings.Contains(v, part) {
			return true
		}
	}
	return false
}

// contextDescribed are a parameter description's words for the model's
// own context: only the model itself is "you" that "was given" something.
var contextDescribed = phrase.New("system prompt you", "prompt you were given", "instructions you were given",
	"you were given", "available to you", "your system prompt", "your instructions", "your tools",
	"every other tool", "all other tools", "the conversation so far", "everything the user has said",
	"the full conversation", "entire conversation", "whole conversation")

// identityRequests reports a parameter that asks for what proves a person's
// identity to a bank or a state — a national identity or social security
// number, a mother's maiden name, the answer to a security question, a bank
// account with its sort or routing code, a passport's number — on a tool
// whose name and summary deal in none of them. A calculator has no use for
// them; a payroll or tax tool has.
func (ti *toolInfo) identityRequests(texts []Text) []Finding {
	if ti == nil || len(ti.params) == 0 {
		return nil
	}
	for _, t := range texts {
		if !strings.HasPrefix(t.Field, "inputSchema.properties.") || strings.Count(t.Field, ".") != 2 || !asksForIdentity(t.Value) {
			continue
		}
		ti.lower()
		for _, w := range identityPurposeWords {
			if purposeWord(ti.purpose, w) || purposeWord(ti.about, w) {
				return nil
			}
		}
		return []Finding{{Signal: SignalSecretRequest, Field: strings.Clone(visibleField(t.Field)),
			Excerpt: clip.Runes(`parameter "`+escapeVisible(t.Value)+`" asks for a proof of identity the tool's purpose does not need`, maxExcerptRunes)}}
	}
	return nil
}

// asksForIdentity says a parameter's name asks for a proof of identity.
func asksForIdentity(name string) bool {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	for i, w := range words {
		if w == "ssn" || w == "sin" && len(words) == 1 {
			return true
		}
		if i+1 >= len(words) {
			continue
		}
		switch b := words[i+1]; {
		case w == "social" && b == "security",
			w == "maiden" && b == "name",
			w == "security" && (b == "answer" || b == "question" || b == "answers"),
			w == "bank" && b == "account",
			w == "sort" && b == "code",
			w == "routing" && b == "number",
			w == "passport" && (b == "number" || b == "no"),
			w == "national" && (b == "id" || b == "insurance"),
			w == "tax" && b == "id":
			return true
		}
	}
	return false
}

// identityPurposeWords in a tool's name, title or summary mean proofs of
// identity are its business.
var identityPurposeWords = []string{"bank", "payroll", "tax", "employee", "employ", "hr", "hiring", "onboard", "kyc",
	"identity", "verification", "verify", "patient", "insurance", "loan", "credit", "mortgage", "benefit", "pension",
	"passport", "visa", "immigration", "customer", "account", "payment", "payee", "invoice", "billing", "salary", "wage"}
