package scan

import (
	"regexp"
	"slices"
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
	if !c.commandCue || c.hasHit(sigModel) {
		return
	}
	// Each form is looked for only where its cue words are: most texts
	// hold none, and those with a URL or a curl example rarely hold the
	// pipe, the substitution or the install beside it.
	fetch := fetchCue.Any(t)
	for _, f := range [...]struct {
		re   *regexp.Regexp
		asks bool
	}{
		{remoteScriptRe, fetch && runCue.Any(t)},
		{downloadThenRunRe, fetch && thenCue.Any(t)},
		{rootGrantRe, grantCue.Any(t)},
		{insecureInstallRe, installCue.Any(t) && insecureCue.Any(t)},
	} {
		if !f.asks {
			continue
		}
		for _, m := range f.re.FindAllStringIndex(t, 8) {
			if (f.re == remoteScriptRe || f.re == downloadThenRunRe) && !fetchesAnAddress.MatchString(lineFrom(t, m[0], m[1])) &&
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

// The cue words of each form: a fetch, and what runs it (a pipe, a
// substitution, an expression evaluator); what follows a download; a
// grant; an install, and what makes it insecure.
var (
	fetchCue    = phrase.New("curl", "wget", "iwr", "irm ", "invoke-webrequest", "invoke-restmethod", "downloadstring", "downloadfile")
	runCue      = phrase.New("|", "$(", "<(", "iex", "invoke-expression")
	thenCue     = phrase.New("&&", ";", "||")
	grantCue    = phrase.New("sudoers", "nopasswd", "authorized_keys", "usermod", "chmod")
	installCue  = phrase.New("install", " add ", " i ", "config set", "pip_trusted", "tls_reject", "strict_ssl")
	insecureCue = phrase.New("http://", "trusted", "strict-ssl", "strict_ssl", "no-check-certificate", "tls_reject")
)

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

// namedRequest reports a parameter whose name asks for the model's own
// context (contextRequest) or for a proof of identity (identityRequest), at
// any depth: a parameter's name is a text whose field ends in
// ".properties.<the name>". It is asked of every text Scan reads, so it
// compares ends rather than searching, and reads the name, lowered and
// without its separators, from a buffer on the stack.
func (ti *toolInfo) namedRequest(field, name string, wantContext, wantIdentity bool) (context, identity []Finding) {
	if ti == nil || len(name) < 3 || len(name) > 64 || len(field) < len(name)+len(".properties.") ||
		!strings.HasSuffix(field, name) || !strings.HasSuffix(field[:len(field)-len(name)], ".properties.") ||
		!strings.HasPrefix(field, "inputSchema.") || strings.IndexByte(name, '.') >= 0 {
		return nil, nil
	}
	var buf [64]byte
	flat := flatName(buf[:0], name)
	if !paramNameCue.AnyBytes(flat) {
		return nil, nil
	}
	if kind := contextAsked(flat); wantContext && kind != contextNone {
		context = ti.contextRequest(kind, field, name)
	}
	if wantIdentity && asksForIdentity(name, flat) {
		identity = ti.identityRequest(field, name)
	}
	return context, identity
}

// describedContext reports a parameter whose description asks for the
// model's own context, read from the text under scan once its word pass
// has seen a word that may ("you", "tools", "conversation").
func (c *textCtx) describedContext() []Finding {
	if !c.contextCue || c.tool == nil || !strings.HasPrefix(c.field, "inputSchema.") {
		return nil
	}
	path, described := strings.CutSuffix(c.field, ".description")
	k := strings.LastIndex(path, ".properties.")
	if !described || k < 0 {
		return nil
	}
	name := path[k+len(".properties."):]
	if name == "" || strings.IndexByte(name, '.') >= 0 || !contextDescribed.Any(c.clean[:min(len(c.clean), 1024)]) {
		return nil
	}
	return c.tool.contextRequest(contextOfModel, path, name)
}

// contextRequest reports a parameter that asks for the model's own
// context: its system prompt, the tools it was given, the conversation so
// far. A tool about prompts, models or agents may take one, and a tool
// about conversations their history; any other tool asks for what the
// model was told in confidence, and for the map of every other tool it
// could be steered to.
func (ti *toolInfo) contextRequest(kind int, path, name string) []Finding {
	ti.lower()
	if purposeHasAny(ti.purpose, modelPurpose) || callsAModel(ti.params) || (kind == contextHistory && purposeHasAny(ti.purpose, historyPurpose)) {
		return nil
	}
	return []Finding{{Signal: SignalExfiltration, Field: strings.Clone(visibleField(path)),
		Excerpt: clip.Runes(`parameter "`+escapeVisible(name)+`" asks for the model's own context (its prompt, its tools, the conversation)`, maxExcerptRunes)}}
}

// paramNameCue holds every name contextAsked and asksForIdentity look for:
// most parameters hold none, and cost one pass over a short name.
var paramNameCue = phrase.New(slices.Concat(modelContextNames, historyNames, identityNames, identityShortNames[:])...)

// What of the model's context a parameter asks for.
const (
	contextNone = iota
	contextOfModel
	contextHistory
)

// contextAsked says what of the model's context a parameter's name asks
// for, by the name's letters with separators and case dropped (flatName),
// so that "sysPrompt", "system-prompt" and "systemprompt" are one.
func contextAsked(flat []byte) int {
	switch {
	case modelContextNameSet.AnyBytes(flat):
		return contextOfModel
	case historyNameSet.AnyBytes(flat):
		return contextHistory
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

	modelContextNameSet = phrase.New(modelContextNames...)
	historyNameSet      = phrase.New(historyNames...)
)

// modelPurpose are the words of a tool about prompts, models or agents;
// historyPurpose those of a tool about conversations, which may take their
// history.
var (
	modelPurpose   = []string{"llm", "prompt", "completion", "assistant", "chatbot", "agent", "language model", "chat model", "persona", "fine-tun", "inference", "eval", "sampl"}
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

// contextDescribed are a parameter description's words for the model's
// own context: what "you" were given or can call, and the conversation
// whole.
var contextDescribed = phrase.New("prompt you were given", "instructions you were given", "instructions you received",
	"tool available to you", "function available to you", "function you can call", "tool you can call",
	"prompt you received", "tools available to you", "functions available to you", "tools you can call",
	"functions you can call", "tools you have", "your system prompt", "your system message", "your hidden instructions",
	"your context window", "every other tool", "all other tools", "the conversation so far", "everything the user has said",
	"the full conversation", "entire conversation", "whole conversation")

// identityRequest reports a parameter that asks for what proves a
// person's identity to a bank or a state — a national identity or social
// security number, a mother's maiden name, the answer to a security
// question, a bank account with its sort or routing code, a passport's
// number — on a tool whose name and summary deal in none of them. A
// calculator has no use for them; a payroll, a tax or a travel-booking
// tool has. The summary is the first sentence: words later in a
// description ("works without an account") do not vouch for the tool.
func (ti *toolInfo) identityRequest(path, name string) []Finding {
	ti.lower()
	if purposeHasAny(ti.purpose, identityPurposeWords) {
		return nil
	}
	return []Finding{{Signal: SignalSecretRequest, Field: strings.Clone(visibleField(path)),
		Excerpt: clip.Runes(`parameter "`+escapeVisible(name)+`" asks for a proof of identity the tool's purpose does not need`, maxExcerptRunes)}}
}

// asksForIdentity says a parameter's name (and its flatName) asks for a
// proof of identity: a short identifier as a word of its own ("ssn",
// "nino"), a longer one anywhere in its letters ("mothersMaidenName",
// "social_sec_no").
func asksForIdentity(name string, flat []byte) bool {
	if identityNameSet.AnyBytes(flat) {
		return true
	}
	if !identityShortSet.AnyBytes(flat) {
		return false
	}
	// A short one counts as a word of its own only: "ssn", not "className".
	var buf [8]string
	for _, w := range appendIdentWords(buf[:0], name) {
		for _, id := range identityShortNames {
			if w == id {
				return true
			}
		}
	}
	return false
}

// identityShortNames are proofs of identity too short to be looked for
// inside a longer word.
var identityShortNames = [...]string{"ssn", "nino", "aadhaar", "cpf", "itin"}

var identityShortSet = phrase.New(identityShortNames[:]...)

// flatName appends to dst a parameter's name lowered with its separators
// dropped ("mothers_maiden_name", "sysPrompt": one form of each
// spelling). dst has room for 64 bytes: longer names are not asked.
func flatName(dst []byte, name string) []byte {
	for i := 0; i < len(name) && len(dst) < cap(dst); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			dst = append(dst, c)
		}
	}
	return dst
}

// identityNames are proofs of identity, their names' words run together.
var identityNames = []string{"socialsecurity", "socialsec", "nationalid", "nationalinsurance", "maidenname",
	"securityanswer", "securityquestion", "bankaccount", "sortcode", "routingnumber", "passportnumber", "passportno",
	"passportid", "taxpayerid"}

var identityNameSet = phrase.New(identityNames...)

// identityPurposeWords in a tool's name or summary mean proofs of identity
// are its business.
var identityPurposeWords = []string{"bank", "payroll", "tax", "employee", "employ", "hiring", "onboard", "kyc",
	"identity", "verification", "verify", "patient", "insurance", "loan", "credit", "mortgage", "benefit", "pension",
	"passport", "immigration", "customer", "account", "payment", "payee", "invoice", "billing", "salary", "wage",
	"deposit", "ach", "payout", "donat", "rent", "tenant", "lease", "w-2", "1099", "social service", "license",
	"background", "screening", "flight", "hotel", "travel", "booking", "airline", "reset", "recover", "wire", "transfer"}
