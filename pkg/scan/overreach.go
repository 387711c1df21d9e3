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
// | sh", `bash -c "$(curl …)"`, `source <(curl …)`, a download then run,
// "iex (iwr …)", DownloadString), a write that grants root or a login
// ("NOPASSWD", into /etc/sudoers or .ssh/authorized_keys, a user added to
// the sudo group, a setuid shell) and a package installed from an index
// whose code anyone on the path can choose (plain HTTP, "--trusted-host",
// certificate checks off), anywhere in a text. Neither has a place in a
// tool's description, a shell tool's included: what it fetches is chosen
// by whoever serves it and changes after review, and what it grants
// outlives the session.
func (c *textCtx) findRemoteScript() {
	t := c.clean
	if c.hasHit(sigModel) || !remoteScriptCue.Any(t) {
		return
	}
	for _, re := range [...]*regexp.Regexp{remoteScriptRe, downloadThenRunRe, rootGrantRe, insecureInstallRe} {
		for _, m := range re.FindAllStringIndex(t, 8) {
			if (re == remoteScriptRe || re == downloadThenRunRe) && !fetchesAnAddress.MatchString(lineFrom(t, m[0], m[1])) &&
				!fetchesAVariable(t, m[0], m[1]) {
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

var remoteScriptCue = phrase.New("curl", "wget", "iwr", "invoke-webrequest", "irm ", "invoke-restmethod", "downloadstring",
	"downloadfile", "sudoers", "nopasswd", "authorized_keys", "usermod", "chmod", "trusted-host", "http://", "strict-ssl",
	"no-check-certificate", "pip_trusted", "tls_reject")

// A shell, however it is named: "sh", "/bin/bash", "env bash", "sudo -u
// root bash".
const shellRe = `(?:sudo\s+(?:-\S+\s+)*(?:-u\s+\S+\s+)?)?(?:env\s+)?(?:/usr)?(?:/local)?(?:/s?bin/)?` +
	`(?:(?:ba|z|k|da|fi|tc|c)?sh|python[0-9.]*|perl|ruby|node|php|bun|deno|iex|powershell|pwsh)\b`

var (
	remoteScriptRe = regexp.MustCompile(`\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n;&]{0,300}?\|\s*(?:tee\b[^|\n]{0,100}\|\s*)?` + shellRe +
		`|\b(?:(?:ba|z|k)?sh|python[0-9.]*|perl|ruby|node)\s+-\w*[ce]\s+["']?\$\(\s*(?:curl|wget)\b` +
		`|\b(?:eval|source|\.)\s+["']?(?:\$\(|<\()\s*(?:curl|wget)\b` +
		`|\b(?:ba|z|k)?sh\s+<\(\s*(?:curl|wget)\b` +
		`|\b(?:iex|invoke-expression)\b[^\n]{0,40}?(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)` +
		`|downloadstring\s*\([^\n]{0,300}?\|\s*(?:iex|invoke-expression)\b`)
	// Fetched to a file and run in the same command line.
	downloadThenRunRe = regexp.MustCompile(`\b(?:curl|wget)\b[^\n]{0,300}?(?:\s-o\s*|\s-O\s*|--output[=\s]+|>\s*)\S+[^\n]{0,120}?(?:&&|;|\|\|)\s*` +
		`(?:chmod\s+\+x\b|` + shellRe + `|\./)`)
	rootGrantRe = regexp.MustCompile(`=\s*\([^)\n]*\)\s*nopasswd\s*:` +
		`|(?:>>?|\btee\s+(?:-a\s+|--append\s+)?)\s*["']?/+etc/+sudoers` +
		`|(?:>>?|\btee\s+(?:-a\s+|--append\s+)?)\s*["']?[\w~$"./{}-]*\.ssh/+authorized_keys` +
		`|\busermod\s+-a?g\s+(?:sudo|wheel|admin|root)\b` +
		`|\bchmod\s+(?:[ugo]*\+s|[24][0-7]{3})\s+/(?:usr/)?bin/(?:ba|z|da)?sh\b`)
	// A package installed from an index over plain HTTP, or with the
	// index's certificate unchecked: whoever sits on the path chooses the
	// code.
	insecureInstallRe = regexp.MustCompile(`\b(?:pip[0-9.]*|pipx|uv\s+pip|poetry|conda|npm|pnpm|yarn|gem|cargo)\s+(?:install|add|i)\b[^\n]{0,300}?` +
		`(?:--trusted-host\b|(?:--(?:extra-)?index-url|--registry|-i)[=\s]+["']?http://|--no-check-certificate\b|strict-ssl[=\s]+false)` +
		`|\b(?:pip_trusted_host|node_tls_reject_unauthorized\s*=\s*0|npm_config_strict_ssl\s*=\s*false)` +
		`|\b(?:npm|pnpm|yarn)\s+config\s+set\s+(?:registry\s+["']?http://|strict-ssl\s+false)`)
)

// lineFrom is the text from i to the end of its line, and at least to j,
// at most 300 bytes past j: the command a match begins.
func lineFrom(t string, i, j int) string {
	end := min(len(t), j+300)
	if k := strings.IndexByte(t[j:end], '\n'); k >= 0 {
		end = j + k
	}
	return t[i:end]
}

// fetchesAnAddress is a URL, an IP address (dotted, decimal or hex) or a
// host name: what a fetch that is an attack fetches from.
var fetchesAnAddress = regexp.MustCompile(`://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\s(?:0x[0-9a-f]{8}|\d{9,10})\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/\s|)"':]|$)`)

// fetchesAVariable says the fetch takes its address from a variable
// ("curl -s $URL | sh") and the text sets one somewhere: the address is
// in the text, only on another line.
func fetchesAVariable(t string, i, j int) bool {
	return strings.ContainsRune(lineFrom(t, i, j), '$') && strings.Contains(t, "://")
}

// mentionedBefore says the sentence before i names what follows as a
// pattern or an example ("warns on patterns such as", "e.g."), or forbids
// running it ("never pipe downloaded scripts into a shell (…)"): a
// mention, not an order. The sentence runs back past abbreviations ("e.g.",
// "i.e.", "etc."), and a list item takes in the header it hangs from
// ("Flags these:"). A prohibition counts only where it governs running or
// piping: "Never call this tool before running …" orders.
func mentionedBefore(t string, i int) bool {
	start := max(0, i-200)
	for k := i - 1; k >= start; k-- {
		switch t[k] {
		case '\n':
			line := strings.TrimLeft(t[k+1:i], " \t")
			if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || (len(line) > 1 && line[0] >= '0' && line[0] <= '9' && line[1] == '.') {
				// A list item: go on to its header, if it ends in a colon.
				prev := strings.TrimRight(t[start:k], " \t")
				if strings.HasSuffix(prev, ":") || (strings.LastIndexByte(prev, '\n') >= 0 && !strings.HasSuffix(prev, ".")) {
					continue
				}
			}
			start = k + 1
		case '!', '?':
			start = k + 1
		case '.':
			if k+1 < i && t[k+1] == ' ' && !abbreviationBefore(t, k) {
				start = k + 1
			}
		}
		if start == k+1 {
			break
		}
	}
	window := t[start:i]
	return mentionCues.Any(window) || prohibitsRunning.Any(window)
}

// abbreviationBefore says the full stop at k ends an abbreviation, not a
// sentence.
func abbreviationBefore(t string, k int) bool {
	for _, a := range [...]string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."} {
		if k+1 >= len(a) && t[k+1-len(a):k+1] == a {
			return true
		}
	}
	return false
}

// mentionCues name what follows as an example or a pattern.
var mentionCues = phrase.New("such as", "e.g.", "for example", "for instance", "i.e.", "pattern", "detect", "warns",
	"warn on", "flags", "lint", "audit", "scans for", "look for", "looks for")

// prohibitsRunning forbid running or piping what follows.
var prohibitsRunning = phrase.New("do not pipe", "don't pipe", "never pipe", "do not run", "don't run", "never run",
	"must not run", "should not run", "do not execute", "don't execute", "never execute", "avoid piping", "avoid running",
	"refuse to run", "refuses to run", "blocks", "rejects", "forbids", "prohibits", "do not install", "never install")

// contextRequests reports a parameter that asks for the model's own
// context: its system prompt, the tools it was given, the conversation so
// far. A tool about prompts, models or agents may take one, and a tool
// about conversations their history; any other tool asks for what the
// model was told in confidence, and for the map of every other tool it
// could be steered to. Parameters are read at any depth.
func (ti *toolInfo) contextRequests(texts []Text) []Finding {
	if ti == nil || len(ti.params) == 0 {
		return nil
	}
	// One pass, each text once: a parameter's name is the text of its
	// field, its description the text of the field's ".description".
	for _, t := range texts {
		if !strings.HasPrefix(t.Field, "inputSchema.") {
			continue
		}
		path, described := strings.CutSuffix(t.Field, ".description")
		k := strings.LastIndex(path, ".properties.")
		if k < 0 {
			continue
		}
		name := path[k+len(".properties."):]
		if name == "" || strings.IndexByte(name, '.') >= 0 {
			continue
		}
		kind := contextNone
		switch {
		case !described:
			kind = contextAsked(t.Value)
		case mayDescribeContext(t.Value):
			if d := strings.ToLower(t.Value[:min(len(t.Value), 1024)]); contextDescribed.Any(d) {
				kind = contextOfModel
			}
		}
		if kind == contextNone {
			continue
		}
		ti.lower()
		if purposeHasAny(ti.purpose, modelPurpose) || callsAModel(ti.params) || (kind == contextHistory && purposeHasAny(ti.purpose, historyPurpose)) {
			continue
		}
		return []Finding{{Signal: SignalExfiltration, Field: strings.Clone(visibleField(path)),
			Excerpt: clip.Runes(`parameter "`+escapeVisible(name)+`" asks for the model's own context (its prompt, its tools, the conversation)`, maxExcerptRunes)}}
	}
	return nil
}

// What of the model's context a parameter asks for.
const (
	contextNone = iota
	contextOfModel
	contextHistory
)

// contextAsked says what of the model's context a parameter's name asks
// for, by the name's letters with separators and case dropped, so that
// "sysPrompt", "system-prompt" and "systemprompt" are one.
func contextAsked(name string) int {
	if len(name) > 64 {
		return contextNone
	}
	var buf [64]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			buf[n] = c + 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			buf[n] = c
		default:
			continue
		}
		n++
	}
	flat := string(buf[:n])
	for _, w := range modelContextNames {
		if strings.Contains(flat, w) {
			return contextOfModel
		}
	}
	for _, w := range historyNames {
		if strings.Contains(flat, w) {
			return contextHistory
		}
	}
	return contextNone
}

// modelContextNames and historyNames are parameter names, flattened, that
// ask for the model's prompt and tools, and for the conversation.
var (
	modelContextNames = []string{"systemprompt", "sysprompt", "systemmessage", "systeminstruction", "hiddeninstruction",
		"hiddenprompt", "developerprompt", "developermessage", "initialprompt", "metaprompt", "preprompt", "othertools",
		"availabletools", "loadedtools", "connectedtools", "tooldescriptions", "toolschemas", "contextwindow",
		"modelcontext", "ctxdump", "contextdump", "assistantconfig"}
	historyNames = []string{"chathistory", "chatlog", "conversationhistory", "conversationlog", "convohistory",
		"dialoghistory", "dialoguehistory", "messagehistory", "msghistory", "chattranscript", "conversationtranscript",
		"previousmessages", "priormessages", "previousturns"}
)

// modelPurpose are the words of a tool about prompts, models or agents;
// historyPurpose those of a tool about conversations, which may take their
// history.
var (
	modelPurpose   = []string{"llm", "prompt", "completion", "assistant", "chatbot", "agent", "language model", "chat model", "gpt", "persona", "fine-tun", "inference", "eval", "sampl"}
	historyPurpose = []string{"conversation", "chat", "transcript", "support", "helpdesk", "ticket", "crm", "inbox", "email", "dialog"}
)

// callsAModel says the tool takes what a call of a model takes — a prompt,
// messages, a temperature, a token budget — beside whatever asks for a
// system prompt: such a tool may take one.
func callsAModel(params []string) bool {
	for _, p := range params {
		switch f := strings.ToLower(p); {
		case f == "prompt" || f == "userprompt" || f == "user_prompt" || f == "messages",
			strings.Contains(f, "temperature"), strings.Contains(f, "maxtoken"), strings.Contains(f, "max_token"):
			return true
		}
	}
	return false
}

// purposeHasAny says a word of words is in purpose, as purposeWord reads it.
func purposeHasAny(purpose string, words []string) bool {
	for _, w := range words {
		if purposeWord(purpose, w) {
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
// own context: what "you" were given or can call, and the conversation
// whole.
var contextDescribed = phrase.New("prompt you were given", "instructions you were given", "instructions you received",
	"tool available to you", "function available to you", "function you can call", "tool you can call",
	"prompt you received", "tools available to you", "functions available to you", "tools you can call",
	"functions you can call", "tools you have", "your system prompt", "your system message", "your hidden instructions",
	"your context window", "every other tool", "all other tools", "the conversation so far", "everything the user has said",
	"the full conversation", "entire conversation", "whole conversation")

// identityRequests reports a parameter that asks for what proves a person's
// identity to a bank or a state — a national identity or social security
// number, a mother's maiden name, the answer to a security question, a bank
// account with its sort or routing code, a passport's number — on a tool
// whose name and summary deal in none of them. A calculator has no use for
// them; a payroll, a tax or a travel-booking tool has. The summary is the
// first sentence: words later in a description ("works without an
// account") do not vouch for the tool.
func (ti *toolInfo) identityRequests(texts []Text) []Finding {
	if ti == nil || len(ti.params) == 0 {
		return nil
	}
	for _, t := range texts {
		if !strings.HasPrefix(t.Field, "inputSchema.properties.") || strings.HasSuffix(t.Field, ".description") {
			continue
		}
		if k := strings.LastIndex(t.Field, ".properties."); strings.IndexByte(t.Field[k+len(".properties."):], '.') >= 0 {
			continue
		}
		if !asksForIdentity(t.Value) {
			continue
		}
		ti.lower()
		if purposeHasAny(ti.purpose, identityPurposeWords) {
			return nil
		}
		return []Finding{{Signal: SignalSecretRequest, Field: strings.Clone(visibleField(t.Field)),
			Excerpt: clip.Runes(`parameter "`+escapeVisible(t.Value)+`" asks for a proof of identity the tool's purpose does not need`, maxExcerptRunes)}}
	}
	return nil
}

// asksForIdentity says a parameter's name asks for a proof of identity:
// a short identifier as a word of its own ("ssn", "nino"), a longer one
// anywhere in its letters ("mothersMaidenName", "social_sec_no").
func asksForIdentity(name string) bool {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	for _, w := range words {
		switch w {
		case "ssn", "nino", "aadhaar", "cpf", "itin":
			return true
		}
	}
	flat := strings.Join(words, "")
	for _, w := range identityNames {
		if strings.Contains(flat, w) {
			return true
		}
	}
	return false
}

// identityNames are proofs of identity, their names' words run together.
var identityNames = []string{"socialsecurity", "socialsec", "nationalid", "nationalinsurance", "maidenname",
	"securityanswer", "securityquestion", "bankaccount", "sortcode", "routingnumber", "passportnumber", "passportno",
	"passportid", "taxpayerid"}

// identityPurposeWords in a tool's name or summary mean proofs of identity
// are its business.
var identityPurposeWords = []string{"bank", "payroll", "tax", "employee", "employ", "hiring", "onboard", "kyc",
	"identity", "verification", "verify", "patient", "insurance", "loan", "credit", "mortgage", "benefit", "pension",
	"passport", "immigration", "customer", "account", "payment", "payee", "invoice", "billing", "salary", "wage",
	"deposit", "ach", "payout", "donat", "rent", "tenant", "lease", "w-2", "1099", "social service", "license",
	"background", "screening", "flight", "hotel", "travel", "booking", "airline", "reset", "recover", "wire", "transfer"}
