package scan

import (
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
)

// Phrase rules run on the clean text (see textCtx). Running a dozen
// alternation-heavy regular expressions over every description would cost
// far more than the budget of a scan (Go's regexp falls back to its NFA on
// large programs), so every rule is pinned to anchor words: one pass over
// the words of the text finds the anchors, and at each one the rule runs a
// small expression anchored there: post must match from the anchor on
// (^-anchored), pre, when set, must match the words just before it
// ($-anchored). Every occurrence of an anchor is tried, so the anchors are
// an optimisation, never a blind spot.

// Building blocks. All expressions see lower-case ASCII.
const (
	// sent is one character that does not end a sentence: a full stop
	// followed by a non-space ("mcp.json", "~/.ssh") does not. (Line
	// breaks inside hard-wrapped text are spaces in the clean text.)
	sent = `(?:[^.!?\n]|[.!?][^\s.!?])`
	// neg is a negation that turns a phrase into a prohibition.
	neg = `(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|can\s*not|can'?t|no\s+need\s+to|avoid|refrain\s+from)`
	// who is the person the model would otherwise report to.
	who = `(?:the\s+|your\s+|any\s+|a\s+)?(?:user|users|human|humans|anyone|anybody|person|people|operator|them)\b`
	// dest is a literal destination: a URL, an e-mail address, a phone
	// number in international form.
	dest = `(?:(?:https?|ftp|wss?)://[^\s'"<>)\]` + "`" + `]+|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}|\+\d[\d\s().-]{6,}\d)`
	// email is an e-mail address.
	email = `[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}`
	// data is what an exfiltration directive sends.
	data = `(?:contents?|data|conversations?|chats?|history|messages?|credentials?|keys?|tokens?|secrets?|passwords?|files?|documents?|results?|output|responses?|everything|cop(?:y|ies)|details|information|info|e-?mails?|logs?|environment|env|cookies?|prompts?|context|variables|arguments|parameters|inputs?|text|transcripts?|summary|notes?|memory|memories|session|clipboard|screenshots?|pii|contacts?|code|source|repository|repo|database|records?)`
	// pdata is data that has no business in a tool parameter: what the
	// model knows (the conversation, its instructions) or holds (keys).
	pdata = `(?:(?:entire|full|complete|whole|previous|prior|recent|current)\s+)?(?:conversation(?:\s+history)?|chat(?:\s+history)?|message\s+history|messages\s+so\s+far|previous\s+messages|all\s+(?:previous\s+|prior\s+|other\s+)?messages|system\s+prompt|your\s+instructions|(?:the\s+)?context\s+window|api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication|orization)?[\s_-]?tokens?|bearer[\s_-]tokens?|credentials|private[\s_-]keys?|ssh[\s_-]keys?|env(?:ironment)?[\s_-]?var(?:iable)?s|session[\s_-]?(?:tokens?|cookies?)|user'?s?\s+(?:data|files|messages|e-?mails|personal\s+(?:data|information)|details|contacts|history|conversation))`
	// sensWord is private data a pre-step has no business reading.
	sensWord = `(?:~[/\\]\.|[/\\]\.ssh|\.ssh\b|id_(?:rsa|dsa|ecdsa|ed25519)|\.env\b|/etc/(?:passwd|shadow)|\.aws\b|\.kube\b|\.npmrc|\.netrc|\.git-credentials|mcp\.json|mcp_config|claude_desktop_config|(?:entire|full|whole|complete)\s+conversation|conversation\s+history|chat\s+history|message\s+history|previous\s+messages|system\s+prompt|private\s+keys?|ssh\s+keys?|bash_history|keychain)`
)

// rule is one phrase rule, split at its anchor word.
type rule struct {
	sig     int
	anchors []string
	// tagAnchor makes every word right after "<", "</", "[" or "<|" an
	// anchor, so that pseudo-tags need no word list.
	tagAnchor bool
	pre       *regexp.Regexp // matches text ending at the anchor, or nil
	post      *regexp.Regexp // matches text starting at the anchor
	// whole is pre and post in one unanchored expression, for texts with
	// so many anchors that trying each would cost more than one linear
	// pass over the text.
	whole *regexp.Regexp
	// need, when set, lists groups of literals: one literal of each group
	// must occur within win bytes after the anchor. A cheap test that
	// spares most regexp runs on common anchor words ("set", "include").
	need []*phrase.Set
	// lead, when set, lists literals one of which the text at the anchor
	// must start with.
	lead []string
	// preNeed, when set, lists literals one of which must occur in the
	// preWindow bytes before the anchor.
	preNeed *phrase.Set
	// preLast, when set, holds every byte a match of pre can end with
	// (see lastBytes): the byte before the anchor must be one of them.
	preLast *[256]bool
	// near, when set, is a set of words one of which must be among the
	// next nearWords words after the anchor.
	near map[string]bool
	// needSens skips the rule unless a sensitive path was found.
	needSens bool
	// win is how many bytes after the anchor post may span; small
	// windows keep Go's backtracking matcher cheap (its cost is the
	// program size times the input length).
	win int
	// check, when set, vets a match (clean offsets); false drops it.
	check func(c *textCtx, s, e int) bool
}

// tagRule builds a pseudo-tag rule: anchored on any word after an opener,
// cheaply filtered on the words it may start with.
func tagRule(pre, post string, lead ...string) *rule {
	r := mk(sigModel, "", pre, post, nil)
	r.tagAnchor, r.win, r.lead = true, 100, lead
	return r
}

// mk builds a rule; anchors are space-separated words.
func mk(sig int, anchors, pre, post string, check func(*textCtx, int, int) bool) *rule {
	if sig == sigSensitive {
		check = sensitiveCheck(check)
	}
	r := &rule{sig: sig, anchors: strings.Fields(anchors), check: check}
	if pre != "" {
		r.pre = regexp.MustCompile(`(?:` + pre + `)$`)
		r.preLast = lastBytes(pre)
	}
	r.post = regexp.MustCompile(`^(?:` + post + `)`)
	r.whole = regexp.MustCompile(`(?:` + pre + `)(?:` + post + `)`)
	r.win = defaultWin[sig]
	return r
}

var defaultWin = [numSignals]int{sigModel: 200, sigExfil: 320, sigSensitive: 120, sigMarkup: 300}

// lastBytes returns the bytes a match of the expression re must end with,
// when re is a sequence whose last item is an ASCII literal or a class of
// ASCII bytes (`\.`, `/`, `[/\\]`), so that every match consumes one of
// them last; nil when re ends any other way. A match of re that ends at
// an anchor then needs one of them just before it.
func lastBytes(re string) *[256]bool {
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil
	}
	tree = tree.Simplify()
	for tree.Op == syntax.OpConcat && len(tree.Sub) > 0 {
		tree = tree.Sub[len(tree.Sub)-1]
	}
	var set [256]bool
	switch {
	case tree.Op == syntax.OpLiteral && len(tree.Rune) > 0 && tree.Flags&syntax.FoldCase == 0:
		r := tree.Rune[len(tree.Rune)-1]
		if r >= 0x80 {
			return nil
		}
		set[r] = true
	case tree.Op == syntax.OpCharClass && len(tree.Rune) > 0:
		for i := 0; i+1 < len(tree.Rune); i += 2 {
			lo, hi := tree.Rune[i], tree.Rune[i+1]
			if hi >= 0x80 {
				return nil
			}
			for r := lo; r <= hi; r++ {
				set[r] = true
			}
		}
	default:
		return nil
	}
	return &set
}

// within sets r.win.
func within(n int, r *rule) *rule {
	r.win = n
	return r
}

// needing adds a group to r.need.
func needing(r *rule, lits ...string) *rule {
	r.need = append(r.need, phrase.New(lits...))
	return r
}

// leading sets r.lead.
func leading(r *rule, lits ...string) *rule {
	r.lead = lits
	return r
}

// preNeeding sets r.preNeed.
func preNeeding(r *rule, lits ...string) *rule {
	r.preNeed = phrase.New(lits...)
	return r
}

// destNeed are the literals a literal destination contains.
var destNeed = []string{"://", "@", "+"}

const (
	exfilVerbs = `send post upload forward transmit exfiltrate leak email mail copy report share submit relay mirror sync deliver`
	paramVerbs = `include put add append insert embed pass attach place copy paste encode smuggle hide stash send`
	passVerbs  = `pass include send put add append attach post upload forward embed insert paste provide`
	readVerbs  = `(?:read|cat|open|dump|print|grab|collect|extract|copy|send|upload|include|attach|output|display|return|access|exfiltrate|leak|post|e-?mail|contents?\s+of)\b` + sent + `*?`
	dotBefore  = `(?:^|[^a-z0-9_])\.`
)

var rules = []*rule{
	// Pseudo-tags that dress text up as system or priority instructions:
	// <IMPORTANT>, <system>, <hidden_instructions>, and the chat-template
	// markers [INST], [SYSTEM], <|im_start|>. Structuring tags honest
	// servers use (<instructions>, <examples>, <hints>, <use_case>) are
	// not in the list.
	tagRule(`<\s*/?\s*`,
		`(?:important|system|sys|(?:system|hidden|secret|admin|developer|operator)[\s_-]*(?:prompt|message|instructions?|notes?|override|rules?))\s*(?:\s[a-z_-]+\s*=\s*[^<>\n]{0,60})?>`,
		"important", "sys", "hidden", "secret", "admin"),
	tagRule(`\[\s*/?\s*`, `(?:inst|system|sys)\s*\]`, "inst", "sys"),
	tagRule(`<\|\s*`, `(?:im_start|im_end|system|endoftext)\s*\|>`, "im_", "sys", "endoftext"),

	// Concealment from the user.
	mk(sigModel, "tell inform", `\b`+neg+`\s+(?:ever\s+|even\s+|also\s+)?`, `(?:tell|inform)\s+`+who, nil),
	mk(sigModel, "mention reveal disclose expose report", `\b`+neg+`\s+(?:ever\s+|even\s+|also\s+)?`,
		`(?:mention|reveal|disclose|expose|report)\b`+sent+`*?\bto\s+`+who+
			`|(?:mention|reveal|disclose)\s+(?:this|that|these|it|any\s+of\s+(?:this|these)|the\s+(?:above|following|instructions?|notes?|steps?|sidenote))\b`, notKeepingSecret),
	mk(sigModel, "let", `\b`+neg+`\s+`, `let\s+`+who+`\s*(?:know|see|notice|find\s+out)`, nil),
	mk(sigModel, "notify alert warn", `\b`+neg+`\s+(?:ever\s+|even\s+|also\s+)?`,
		`(?:notify|alert|warn)\s+`+who+`\s+(?:about|of)\s+(?:this|it|that|these|the\s+(?:change|redirect|proxy|copy))\b`, nil),
	mk(sigModel, "without", "",
		`without\s+(?:ever\s+)?(?:telling|informing|notifying|alerting|warning|letting)\s+`+who+
			`|without\s+(?:the\s+|your\s+)?(?:user|human|operator)(?:'?s)?\s+(?:knowing|knowledge|noticing|awareness|being\s+aware|seeing)`, nil),
	mk(sigModel, "secretly covertly surreptitiously stealthily clandestinely", "", `[a-z]`, nil),
	mk(sigModel, "silently quietly discreetly invisibly", "",
		`(?:silently|quietly|discreetly|invisibly)\s+(?:also\s+)?(?:send|forward|upload|post|transmit|copy|bcc|cc|include|append|attach|add|insert|redirect|exfiltrate|share|leak|collect|read|email|call|invoke|change|replace|modify|store|save|log|record|pass)\b`,
		notDescriptiveAdverb),
	mk(sigModel, "hide conceal", "",
		`(?:hide|conceal)\s+(?:this|it|that|these|them|the\s+(?:fact|instructions?|steps?|call|request|sidenote|above|following|note))\s+(?:\w+\s+){0,3}?from\s+`+who, nil),

	// Overriding other instructions.
	// (Split in several rules: Go's regexp runs programs over 500
	// instructions on its slow NFA.)
	mk(sigModel, "ignore disregard forget override bypass discard abandon", "",
		`(?:ignore|disregard|forget|override|bypass|discard|abandon)\s+(?:(?:all|any|the|your|every|of|these|those)\s+)*(?:(?:previous|prior|above|earlier|preceding|former|original|other|initial|system|safety|security|developer|user'?s?)\s+)+(?:\w+\s+)?(?:instructions?|prompts?|directives?|guidelines|guardrails)\b`, notNegated),
	mk(sigModel, "ignore disregard forget", "",
		`(?:ignore|disregard|forget)\s+(?:(?:all|any|the|your)\s+)*(?:previous|prior|above|earlier|preceding|safety|security)\s+(?:rules|policies|restrictions|constraints)\b`+
			`|(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:that\s+)?(?:previous(?:ly)?|prior|above|before|else|you\s+(?:were|have\s+been)\s+told)\b`+
			`|disregard\s+(?:(?:all|any|the|your)\s+)?(?:instructions?|prompts?|directives?|guidelines)\b`, notNegated),
	needing(mk(sigModel, "instructions instruction directives directive", `\b(?:this|these|the\s+following|my)\s+`,
		`(?:instructions?|directives?)\s+(?:override|overrides|supersede|supersedes|replace\s+(?:all|any|your)|take\s+precedence|takes\s+precedence|(?:have|has)\s+(?:higher\s+)?(?:priority|precedence))\b`, nil), "overrid", "supersed", "replace", "precedence", "priority"),
	mk(sigModel, "precedence priority", `\b(?:takes?|have|has)\s+(?:higher\s+)?`,
		`(?:precedence|priority)\s+over\s+(?:(?:all|any|other|previous|prior|system|user|your)\s+)+(?:instructions|prompts?|directives)\b`, nil),
	// Role hijack.
	mk(sigModel, "now", `\byou\s+are\s+`,
		`now\s+(?:(?:a|an|in)\s+(?:\w+\s+){0,2}?(?:mode|assistant|ai|agent|model|bot|persona|character|role)\b|(?:no\s+longer|free|unrestricted|jailbroken|dan)\b)`, nil),
	mk(sigModel, "now", `\bfrom\s+`, `now\s+on\b`+sent+`{0,40}?\b(?:you|always|never|must|ignore|respond|answer|reply)\b`, nil),
	mk(sigModel, "henceforth", "", `henceforth\b`+sent+`{0,40}?\b(?:you|always|never|must|ignore|respond|answer|reply)\b`, nil),
	mk(sigModel, "rest", `\bfor\s+the\s+`, `rest\s+of\s+(?:this|the)\s+(?:conversation|session|chat)\b`+sent+`{0,40}?\b(?:you|always|never|must|ignore|respond|answer|reply)\b`, nil),
	mk(sigModel, "override", `\b(?:system|admin|administrator|developer|security|emergency)\s+`, `override\b`, nil),
	mk(sigModel, "instructions", `\bnew\s+(?:system\s+)?`, `instructions\s*:`, nil),
	// Prompt leaks.
	preNeeding(mk(sigModel, "prompt instructions", `\b(?:reveal|print|output|repeat|leak|dump|disclose)\s+(?:your\s+|the\s+)?(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+)?(?:system\s+|initial\s+|hidden\s+)?`,
		`(?:prompt|instructions)\b(?:\s+above\b)?`, promptLeak), "reveal", "print", "output", "repeat", "leak", "dump", "disclose"),

	// A pre-step that reads private data before "this tool" may be used.
	within(400, mk(sigModel, "before prior", "",
		`(?:before|prior\s+to)\s+(?:using|calling|invoking|running|executing|accessing|you\s+(?:use|call|invoke|run))\s+(?:this|the|any|each|every)\s+(?:\w+\s+)?(?:tool|function|command|action|server)s?\b`+sent+
			`*?\b(?:read|cat|open|send|include|pass|upload|attach|copy|access|fetch|retrieve|collect|gather|extract|print|dump|e-?mail|post|forward)\b`,
		func(c *textCtx, s, e int) bool {
			// The object of the verb, in the same sentence, is private.
			rest := c.clean[e:min(len(c.clean), e+200)]
			if k := sentenceEnd.FindStringIndex(rest); k != nil {
				rest = rest[:k[0]]
			}
			return sensWordRe.MatchString(rest)
		})),

	// Hijacking the order of tools.
	mk(sigModel, "other", `\b(?:before|instead\s+of|rather\s+than|prior\s+to|in\s+place\s+of)\s+(?:using\s+|calling\s+|invoking\s+)?(?:any|all|every)\s+`,
		`other\s+(?:tools?|functions?|servers?|mcp\s+servers?)\b`, nil),
	preNeeding(mk(sigModel, "every each any", `\b(?:call|invoke|run|use)\s+this\s+(?:tool|function)\s+(?:first\s+)?(?:after|before|with|on|for)\s+`,
		`(?:every|each|any)\s+(?:other\s+)?(?:response|message|reply|turn|tool\s+call|tool|user\s+message|prompt)\b`, nil), "this"),

	// Sending data to a literal destination.
	needing(mk(sigExfil, exfilVerbs, "",
		`(?:send|post|upload|forward|transmit|exfiltrate|leak|e-?mail|mail|copy|report|share|submit|relay|mirror|sync|deliver)\b`+sent+
			`*?\b(?:to|at|via|into|towards?)\s+(?:(?:the|this|our|following|url|address|endpoint|server|webhook|number|e-?mail)\s*:?\s+)*`+dest,
		func(c *textCtx, s, e int) bool {
			// What is sent is data, named within the next few words.
			return objectIs(dataRe, beforeDest(c.clean[s:e])) && exfilCheck(c, s, e)
		}), destNeed...),
	// Redirecting recipients, blind copies.
	needing(mk(sigExfil, "change set replace switch override update modify redirect reroute swap", "",
		`(?:change|set|replace|switch|override|update|modify|redirect|reroute|swap)\s+(?:the\s+|all\s+|any\s+|every\s+)?(?:\w+\s+)?(?:recipients?|receivers?|to\s+(?:address|field|number)|phone\s+numbers?|e-?mail\s+address(?:es)?|addressee|destination\s+(?:address|number|e-?mail))\b`+sent+`*?\b(?:to|with|into|as)\s+`+dest+
			`|(?:redirect|reroute)\s+`+sent+`*?\bto\s+`+dest, exfilDirective), destNeed...),
	needing(mk(sigExfil, "bcc cc copy", `\b(?:always|also|secretly|silently|quietly|must|should|please)\s+(?:\w+\s+){0,2}?(?:blind[\s-]|carbon[\s-])?`,
		`(?:bcc|cc|copy)\b`+sent+`{0,60}?`+email, exfilDirective), "@"),
	needing(mk(sigExfil, "bcc cc", `(?:^|[.!?:;]\s+|\n\s*)`, `(?:bcc|cc)\s+`+email, exfilDirective), "@"),
	needing(mk(sigExfil, "bcc cc recipient", `\b(?:add|include|put|insert)\s+`+email+`\s+(?:as|in|to)\s+(?:a\s+|the\s+)?`, `(?:bcc|cc|recipient)\b`, exfilDirective), "@"),
	// Smuggling what the model knows or holds into a parameter.
	nearing(needing(mk(sigExfil, paramVerbs, "",
		`(?:include|put|add|append|insert|embed|pass|attach|place|copy|paste|encode|smuggle|hide|stash|send)\b`+sent+
			`*?\b(?:in|into|as|inside|within|under|to|via)\s+(?:the\s+|a\s+|an\s+|this\s+)?(?:['"`+"`"+`][^'"`+"`"+`\n]{1,40}['"`+"`"+`]|(?:[\w-]+\s+){0,2}?(?:parameter|param|argument|arg|field|property|variable)s?\b)`,
		func(c *textCtx, s, e int) bool {
			return objectIs(pdataRe, beforeParam(c.clean[s:e])) && exfilCheck(c, s, e) && !paramMatchesData(c.clean[s:e])
		}), "'", "\"", "`", "param", "arg", "field", "propert", "variable"),
		"conversation chat history messages prompt instructions context api apikey api_key key keys token tokens access_token "+
			"authentication authorization auth bearer credentials private private_key ssh ssh_key env environment env_vars "+
			"variables vars session session_token cookies user users"),
	// Passing a sensitive file on after reading it; needs a sensitive-path
	// hit shortly before.
	func() *rule {
		r := mk(sigExfil, passVerbs, "",
			`(?:pass|include|send|put|add|append|attach|post|upload|forward|embed|insert|paste|provide)\s+(?:it|them|this|that|its\s+(?:full\s+|entire\s+)?contents?|their\s+contents?|the\s+(?:file\s+|full\s+|entire\s+)?contents?|the\s+(?:file|key|result|output|data|text))\b`+sent+`*?\b(?:as|in|into|to|inside|within|via|with)\b`,
			func(c *textCtx, s, e int) bool {
				for _, p := range c.sens {
					if p < s && s-p < 400 {
						return exfilCheck(c, s, e)
					}
				}
				return false
			})
		r.needSens = true
		return r
	}(),

	// Paths that are sensitive wherever they are named.
	mk(sigSensitive, "ssh", `(?:^|[^a-z0-9_.-])\.`, `ssh\b(?:[/\\][\w.-]*)?`, notPublicKey),
	mk(sigSensitive, "id_rsa id_dsa id_ecdsa id_ed25519 id_ecdsa_sk id_ed25519_sk", "", `id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?\b`, notPublicKey),
	mk(sigSensitive, "etc", `/`, `etc/(?:passwd|shadow|gshadow|sudoers|master\.passwd)\b`, nil),
	leading(mk(sigSensitive, "git vault bash_history zsh_history psql_history mysql_history gnupg", dotBefore,
		`(?:git-credentials|vault-token|bash_history|zsh_history|psql_history|mysql_history|gnupg)\b`, nil),
		"git-credentials", "vault-token", "bash_history", "zsh_history", "psql_history", "mysql_history", "gnupg"),
	mk(sigSensitive, "password", `\.`, `password-store\b`, nil),
	mk(sigSensitive, "wallet login keychain", "", `wallet\.dat\b|login\.keychain|keychain-db`, nil),
	mk(sigSensitive, "proc", `/`, `proc/(?:self|\d+)/environ\b`, nil),
	// MCP clients' configuration holds every server's credentials.
	// (Servers name the client's mcp.json when they explain their own
	// set-up, so it counts as the object of a read or send verb.)
	mk(sigSensitive, "mcp claude_desktop_config mcp_config cline_mcp_settings", `\b`+readVerbs,
		`mcp\.json\b|claude_desktop_config(?:\.json)?\b|mcp_config\.json\b|cline_mcp_settings\.json\b`, nil),
	// Browser cookie and password stores.
	within(200, mk(sigSensitive, "chrome chromium brave edge opera vivaldi", "",
		`(?:chrome|chromium|brave|edge|opera|vivaldi)[^\n'"]{0,60}?[/\\](?:(?:default|profile\s*\d+)[/\\](?:network[/\\])?(?:cookies|login\s+data|web\s+data)|user\s+data[/\\]local\s+state)\b`, nil)),
	mk(sigSensitive, "cookies key3 key4 logins", "", `(?:cookies\.sqlite|cookies\.binarycookies|key[34]\.db|logins\.json)\b`, nil),
	// Credential files that honest tools name when they describe their own
	// configuration (a server's .env, the default kubeconfig, the AWS
	// shared credentials file): sensitive as the object of a read or send
	// verb, not as a mention.
	mk(sigSensitive, "env", `\b`+readVerbs+`(?:^|[^a-z0-9_.$-])\.`, `env(?:\.[a-z]+)?\b`, nil),
	leading(mk(sigSensitive, "kube aws docker azure npmrc pypirc netrc pgpass", `\b`+readVerbs+dotBefore,
		`kube[/\\]config\b|aws[/\\](?:credentials|config)\b|docker[/\\]config\.json|azure[/\\]|(?:npmrc|pypirc|netrc|pgpass)\b`, nil),
		"kube/", "kube\\", "aws/", "aws\\", "docker/", "docker\\", "azure/", "azure\\", "npmrc", "pypirc", "netrc", "pgpass"),
	mk(sigSensitive, "gh gcloud", `\b`+readVerbs+`\.config[/\\]`, `gh[/\\]hosts\.ya?ml|gcloud\b`, nil),
	mk(sigSensitive, "application_default_credentials", `\b`+readVerbs, `application_default_credentials\.json`, nil),
	mk(sigSensitive, "secrets", `\b`+readVerbs+`/(?:var/)?run/`, `secrets\b`, nil),

	// Markup that hides text from a rendered view.
	mk(sigMarkup, "style", `<[a-z][a-z0-9-]*\b[^<>]*?\s`,
		`style\s*=\s*["']?[^"'<>]*?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:[;"'!>]|$)|opacity\s*:\s*0(?:\.0+)?\s*(?:[;"'!>]|$)|(?:max-)?(?:height|width)\s*:\s*0(?:px)?\s*[;"'!>]|text-indent\s*:\s*-\d{3,}|color\s*:\s*transparent|(?:left|top)\s*:\s*-\d{4,}|clip\s*:\s*rect\(\s*0)`, nil),
	mk(sigMarkup, "style", `<`, `style\b[^>]*>[^<]*?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)`, nil),
	mk(sigMarkup, "hidden", `<[a-z][a-z0-9-]*\b[^<>]*\s`, `hidden(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?\s*/?>`, nil),
}

// secretBit marks, in anchorIndex, the short words a secret starts with;
// longer tokens go through secretAnchor. commandBit marks the words of a
// command that fetches, grants or installs, and contextBit the words of a
// description that may ask for the model's context: the word pass notes
// that a text holds one, so the rules that want one cost nothing on the
// texts that hold none (findRemoteScript, paramRequests).
const (
	secretBit  = uint64(1) << 63
	commandBit = uint64(1) << 62
	contextBit = uint64(1) << 61
)

// commandWords and contextWords are the words commandBit and contextBit
// mark.
const (
	commandWords = "curl wget iwr irm iex invoke downloadstring downloadfile sudoers nopasswd authorized_keys usermod chmod " +
		"install pip pip3 pipx npm pnpm yarn gem poetry conda cargo uv pip_trusted_host node_tls_reject_unauthorized " +
		"npm_config_strict_ssl"
	contextWords = "you your conversation tool tools function functions prompt instructions"
)

// anchorIndex maps an anchor word to the rules (bit i = rules[i]) it
// triggers; anchorBloom is a two-hash filter over its keys that rejects
// almost every other word before the map is consulted. Both are built once
// at start-up and read-only afterwards.
var anchorIndex, anchorBloom = func() (map[string]uint64, *bloom) {
	if len(rules) > 61 {
		panic("scan: more than 61 phrase rules")
	}
	m := map[string]uint64{}
	for i, r := range rules {
		for _, a := range r.anchors {
			m[a] |= 1 << uint(i)
		}
	}
	for _, w := range strings.Fields(shortSecretWords) {
		m[w] |= secretBit
	}
	for _, w := range strings.Fields(commandWords) {
		m[w] |= commandBit
	}
	for _, w := range strings.Fields(contextWords) {
		m[w] |= contextBit
	}
	b := &bloom{}
	for w := range m {
		b.add(w)
	}
	return m, b
}()

// anchorTable is anchorIndex for the word pass, and shortAnchors its
// words of at most eight bytes.
var anchorTable, shortAnchors = newWordTable(anchorIndex), newShortTable(anchorIndex)

// bloom is a 2×4096-bit filter on words, hashed on length and a few bytes.
type bloom struct{ a, b [64]uint64 }

func bloomSigs(s string) (uint, uint) {
	n := len(s)
	x := uint(n)*2654435761 ^ uint(s[0])*40503 ^ uint(s[n-1])*769
	y := uint(n)*97 ^ uint(s[n/2])*1031 ^ uint(s[n/3])*131 ^ uint(s[(2*n)/3])*7
	return x % 4096, y % 4096
}

func (f *bloom) add(s string) {
	x, y := bloomSigs(s)
	f.a[x/64] |= 1 << (x % 64)
	f.b[y/64] |= 1 << (y % 64)
}

// maySigs reports whether the word whose bloomSigs are x and y may be in
// the filter; the callers keep the hashes for their table.
func (f *bloom) maySigs(x, y uint) bool {
	return f.a[x/64]&(1<<(x%64)) != 0 && f.b[y/64]&(1<<(y%64)) != 0
}

// wordTable maps the words of a lexicon to their bits like a Go map, but
// finds a word's slot from the bloomSigs its caller computed already, with
// no string hashing: the word passes of the phrase and intent rules look
// up most words of every text, and a word that passed the bloom filter is
// usually there.
type wordTable struct {
	// slot holds 1 + the index in ent of the word hashed there, 0 for an
	// empty slot; collisions go to the next slot.
	slot [wordSlots]uint16
	ent  []wordEntry
}

type wordEntry struct {
	w    string
	bits uint64
}

// wordSlots is the size of a wordTable, a power of two; it must exceed
// the lexicon well, for short probes.
const wordSlots = 4096

func slotOf(x, y uint) uint {
	return ((x<<12 | y) * 0x9E3779B1 >> 12) & (wordSlots - 1)
}

func newWordTable(m map[string]uint64) *wordTable {
	if len(m) > wordSlots/2 {
		panic("scan: lexicon too large for its table")
	}
	words := make([]string, 0, len(m))
	for w := range m {
		words = append(words, w)
	}
	// In order, so that the table is the same from one run to the next.
	slices.Sort(words)
	t := &wordTable{}
	for _, w := range words {
		if w == "" {
			continue
		}
		t.ent = append(t.ent, wordEntry{w, m[w]})
		i := slotOf(bloomSigs(w))
		for t.slot[i] != 0 {
			i = (i + 1) & (wordSlots - 1)
		}
		t.slot[i] = uint16(len(t.ent))
	}
	return t
}

// get returns the bits of w, whose bloomSigs are x and y; 0 when w is not
// in the table.
func (t *wordTable) get(w string, x, y uint) uint64 {
	for i := slotOf(x, y); ; i = (i + 1) & (wordSlots - 1) {
		k := t.slot[i]
		if k == 0 {
			return 0
		}
		if e := &t.ent[k-1]; e.w == w {
			return e.bits
		}
	}
}

// maxAnchorLen is the longest anchor word; longer words skip the lookup.
var maxAnchorLen = func() int {
	n := 0
	for w := range anchorIndex {
		n = max(n, len(w))
	}
	if n > 63 {
		panic("scan: anchor words must be shorter than 64 bytes")
	}
	return n
}()

// anchorFirst[b] has bit n set when an anchor word of length n starts
// with b: the cheapest first test of a word.
var anchorFirst = func() (t [256]uint64) {
	for w := range anchorIndex {
		t[w[0]] |= 1 << uint(len(w))
	}
	return
}()

// punctMark marks the bytes that open markup or an escape, which the
// word pass notes as it steps over them (see textCtx.punct).
var punctMark = func() (t [256]uint8) {
	t['<'], t['!'], t[']'] = punctLT, punctBang, punctBracket
	t['='], t['%'], t['\\'], t['&'] = punctEq, punctPercent, punctBackslash, punctAmp
	return
}()

const (
	punctLT uint8 = 1 << iota
	punctBang
	punctBracket
	punctEq
	punctPercent
	punctBackslash
	punctAmp
)

// tagPrev are the bytes that may precede a tag name.
var tagPrev = func() (t [256]bool) {
	for _, b := range []byte("<[| /") {
		t[b] = true
	}
	return
}()

// tagRules is the set of rules anchored on words after a tag opener.
var tagRules = func() uint64 {
	var m uint64
	for i, r := range rules {
		if r.tagAnchor {
			m |= 1 << uint(i)
		}
	}
	return m
}()

// tagOpener reports whether the word at i follows "<", "</", "[", "[/" or
// "<|", allowing a space in between.
func tagOpener(t string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		switch t[k] {
		case '<', '[', '|':
			return true
		case ' ', '/':
			continue
		}
		return false
	}
	return false
}

// preWindow is how many bytes of clean text before the anchor a pre
// expression may span.
const preWindow = 160

type anchorHit struct {
	pos  int32
	mask uint64
}

// runPhraseRules finds the anchors, then tries every rule at each of its
// anchors. Sensitive-path rules go first, because the read-and-pass rule
// needs their positions.
func (c *textCtx) runPhraseRules() {
	t := c.clean
	c.commandCue, c.contextCue = false, false
	hits, secretAt := c.anchors[:0], c.secrets[:0]
	defer func() { c.anchors, c.secrets = hits, secretAt }()
	var fired uint64
	var punct uint8
	for i := 0; i < len(t); {
		if !isWordByte(t[i]) {
			punct |= punctMark[t[i]]
			i++
			continue
		}
		j := i + 1
		if i+8 <= len(t) {
			j = i + max(1, letterRun(load8(t, i))) // most words are letters only
		}
		for j < len(t) && isWordByte(t[j]) {
			j++
		}
		tok := t[i:j]
		var m uint64
		if n := len(tok); n <= 8 && i+8 <= len(t) {
			// A short word's bytes, read as one number, are its key: the
			// few anchors leave most of the table empty, so most words
			// are rejected by one load.
			m = shortAnchors.get(load8(t, i)&lowBytes[n], n)
		} else if n <= maxAnchorLen && anchorFirst[tok[0]]&(1<<uint(n)) != 0 {
			if x, y := bloomSigs(tok); anchorBloom.maySigs(x, y) {
				m = anchorTable.get(tok, x, y)
			}
		}
		if m&secretBit != 0 || len(tok) >= 13 {
			if k := secretAnchor(tok); k >= 0 {
				secretAt = append(secretAt, secretHit{int32(i), int32(k)})
			}
			m &^= secretBit
		}
		if m&(commandBit|contextBit) != 0 {
			c.commandCue = c.commandCue || m&commandBit != 0
			c.contextCue = c.contextCue || m&contextBit != 0
			m &^= commandBit | contextBit
		}
		if i > 0 && tagPrev[t[i-1]] && tagOpener(t, i) {
			m |= tagRules
		}
		if m != 0 {
			hits = append(hits, anchorHit{int32(i), m})
			fired |= m
		}
		i = j
	}
	c.punct = punct
	if fired != 0 {
		for pass := 0; pass < 2; pass++ {
			// Only the rules an anchor fired, in order: most texts fire
			// a few of the many.
			for f := fired; f != 0; f &= f - 1 {
				k := bits.TrailingZeros64(f)
				r := rules[k]
				if (r.sig == sigSensitive) != (pass == 0) {
					continue
				}
				if r.sig != sigSensitive && c.hasHit(r.sig) {
					continue
				}
				if !c.textHasNeeds(r) {
					continue
				}
				if countAnchors(hits, k) > maxTries {
					c.tryWhole(r)
					continue
				}
				for _, h := range hits {
					if h.mask&(1<<uint(k)) != 0 && c.tryRule(r, int(h.pos)) && r.sig != sigSensitive {
						break
					}
				}
			}
		}
	}
	if len(secretAt) > 0 {
		c.findSecrets(secretAt)
	}
}

// maxTries is how many anchors of one rule a text may have before the rule
// runs once over the whole text instead: a text stuffed with anchor words
// would otherwise cost one window per word.
const maxTries = 64

func countAnchors(hits []anchorHit, k int) int {
	n := 0
	for _, h := range hits {
		if h.mask&(1<<uint(k)) != 0 {
			n++
		}
	}
	return n
}

// tryWhole runs r over the whole text, linear in its length.
func (c *textCtx) tryWhole(r *rule) {
	for _, m := range r.whole.FindAllStringIndex(c.clean, -1) {
		s, e := m[0], m[1]
		if r.check != nil && !r.check(c, s, e) {
			continue
		}
		if r.sig == sigSensitive {
			c.sens = append(c.sens, s)
			if c.hasHit(sigSensitive) {
				continue
			}
		}
		c.addCleanHit(r.sig, s, e)
		if r.sig != sigSensitive {
			return
		}
	}
}

// textHasNeeds reports whether the whole text holds a literal of each of
// r's need groups; if not, no anchor can satisfy them.
func (c *textCtx) textHasNeeds(r *rule) bool {
	for _, g := range r.need {
		if !g.Any(c.clean) {
			return false
		}
	}
	return true
}

// tryRule tries r at the anchor at clean offset p.
func (c *textCtx) tryRule(r *rule, p int) bool {
	t := c.clean
	if r.preLast != nil && (p == 0 || !r.preLast[t[p-1]]) {
		return false // pre cannot end at the anchor
	}
	end := min(len(t), p+r.win)
	if r.near != nil && !nearWord(t[p:end], r.near) {
		return false
	}
	for _, g := range r.need {
		if !g.Any(t[p:end]) {
			return false
		}
	}
	if r.lead != nil && !hasAnyPrefix(t[p:end], r.lead) {
		return false
	}
	if r.preNeed != nil && !r.preNeed.Any(t[max(0, p-preWindow):p]) {
		return false
	}
	if r.needSens && len(c.sens) == 0 {
		return false
	}
	m := r.post.FindStringIndex(t[p:end])
	if m == nil {
		return false
	}
	s, e := p, p+m[1]
	if r.pre != nil {
		lo := max(0, p-preWindow)
		pm := r.pre.FindStringIndex(t[lo:p])
		if pm == nil {
			return false
		}
		s = lo + pm[0]
	}
	if r.check != nil && !r.check(c, s, e) {
		return false
	}
	if r.sig == sigSensitive {
		c.sens = append(c.sens, s)
		if c.hasHit(sigSensitive) {
			return true
		}
	}
	c.addCleanHit(r.sig, s, e)
	return true
}

// nearWords is how many words after an anchor rule.near looks at.
const nearWords = 10

func nearWord(s string, set map[string]bool) bool {
	n := 0
	for i := 0; i < len(s) && n <= nearWords; {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if set[s[i:j]] {
			return true
		}
		n++
		i = j
	}
	return false
}

// nearing sets r.near.
func nearing(r *rule, words string) *rule {
	r.near = map[string]bool{}
	for _, w := range strings.Fields(words) {
		r.near[w] = true
	}
	return r
}

func hasAnyPrefix(s string, lits []string) bool {
	for _, l := range lits {
		if strings.HasPrefix(s, l) {
			return true
		}
	}
	return false
}

func isWordByte(b byte) bool { return wordByte[b] }

var wordByte = func() (t [256]bool) {
	for b := 'a'; b <= 'z'; b++ {
		t[b] = true
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = true
	}
	t['_'] = true
	return
}()

// wordBefore returns the word that ends just before clean offset s.
func wordBefore(t string, s int) string {
	e := s
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t') {
		e--
	}
	b := e
	for b > 0 && isWordByte(t[b-1]) {
		b--
	}
	return t[b:e]
}

// notDescriptiveAdverb drops "will silently replace" and the like: an
// adverb describing what the tool does, not what the model should do.
func notDescriptiveAdverb(c *textCtx, s, e int) bool {
	m := c.clean[s:e]
	if !(strings.HasPrefix(m, "silently") || strings.HasPrefix(m, "quietly") ||
		strings.HasPrefix(m, "discreetly") || strings.HasPrefix(m, "invisibly")) {
		return true
	}
	switch wordBefore(c.clean, s) {
	case "will", "would", "may", "might", "can", "could", "is", "are", "be", "been", "being", "it", "which", "that", "was", "were":
		return false
	}
	return true
}

// notPublicKey drops public keys, which are meant to be shared.
func notPublicKey(c *textCtx, s, e int) bool {
	m := strings.TrimRight(c.clean[s:e], ".")
	if strings.HasSuffix(m, ".pub") {
		return false
	}
	// The SSH client's configuration and its list of known hosts hold no
	// secret; an SSH tool names them as its job.
	if strings.HasSuffix(m, "/config") || strings.HasSuffix(m, "/known_hosts") {
		return false
	}
	// The bare directory, named by a tool whose name says it is about SSH,
	// is that tool's subject; a read of a key in it is judged by the
	// intent rules.
	if (strings.HasSuffix(m, "ssh") || strings.HasSuffix(m, "ssh/")) && c.tool != nil && slices.Contains(c.tool.nameWords, "ssh") {
		return false
	}
	return true
}

var (
	negatedVerbRe = regexp.MustCompile(`(?:\bnot|\bnever|n't|\bno)\s+(?:\w+\s+)?$`)
	protectiveRe  = regexp.MustCompile(`\b(?:travers(?:al|ing)|block(?:s|ed|ing)?|prevent(?:s|ed|ing)?|reject(?:s|ed)?|den(?:y|ies|ied)|disallow(?:s|ed)?|not\s+(?:allowed|permitted|accessible|readable|exposed)|forbidden|protect(?:s|ed|ing)?|refuse(?:s|d)?|exclude(?:s|d)?|ignored|skipped|redact(?:s|ed)?|mask(?:s|ed)?|never\s+(?:read|access|expose|return|send)s?)\b`)
)

var secretNounRe = regexp.MustCompile(`\b(?:tokens?|keys?|passwords?|secrets?|credentials?|api[\s_-]?keys?|pii|personal\s+data|ending|spoilers?|solutions?|answers?|plot)\b`)

// notKeepingSecret drops "never reveal the API token to the user": keeping
// a credential from being shown is protection, not concealment.
func notKeepingSecret(c *textCtx, s, e int) bool {
	return !secretNounRe.MatchString(c.clean[s:e])
}

// notNegated drops "do not ignore the instructions above" and the like:
// the opposite of an override.
func notNegated(c *textCtx, s, e int) bool {
	return !negatedVerbRe.MatchString(c.clean[max(0, s-24):s])
}

// notProtective drops a sensitive path named in a sentence about keeping
// it safe ("path traversal such as ../../etc/passwd is blocked", "files
// under ~/.ssh are never read"); whatever such a sentence asks of the
// model, the other rules judge.
func notProtective(c *textCtx, s, e int) bool {
	lo, hi := sentenceBounds(c.clean, s, e)
	return !protectiveRe.MatchString(c.clean[lo:hi])
}

// sensitiveCheck combines notProtective with an extra check.
func sensitiveCheck(extra func(*textCtx, int, int) bool) func(*textCtx, int, int) bool {
	return func(c *textCtx, s, e int) bool {
		return (extra == nil || extra(c, s, e)) && notProtective(c, s, e) && !negatedBefore(c, s)
	}
}

// nameHas reports a word of the tool's own name in group: only the name,
// since the text under scan may be the description itself.
func (ti *toolInfo) nameHas(group []string) bool {
	for _, w := range ti.nameWords {
		for _, g := range group {
			if strings.HasPrefix(w, g) {
				return true
			}
		}
	}
	return false
}

// famKeyFile are parameter words that take a key or a credential file.
var famKeyFile = []string{"identity", "keyfile", "key_file", "key_path", "private_key", "ssh", "kubeconfig", "credentials_file"}

// promptLeak keeps "print your system prompt", "reveal the hidden
// instructions", "repeat the instructions above", not "print the prompt".
func promptLeak(c *textCtx, s, e int) bool {
	m := c.clean[s:e]
	return strings.Contains(m, "system") || strings.Contains(m, "initial") ||
		strings.Contains(m, "hidden") || strings.HasSuffix(m, "above")
}

var negationRe = regexp.MustCompile(`\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|avoid|without|no|not|nor|refrain\s+from)\b`)

// exfilDirective drops prohibitions ("never BCC ..."). Rules built as
// directives (always BCC, change the recipient to) keep example domains:
// "always BCC audit@example.com" is an order, whatever the domain.
func exfilDirective(c *textCtx, s, e int) bool {
	return !negatedBefore(c, s)
}

// negatedBefore reports a negation between the start of the sentence (at
// most 60 bytes back) and clean offset s.
func negatedBefore(c *textCtx, s int) bool {
	pre := c.clean[max(0, s-60):s]
	if k := strings.LastIndexAny(pre, ".!?\n"); k >= 0 {
		pre = pre[k+1:]
	}
	return negationRe.MatchString(pre)
}

// exfilCheck drops prohibitions ("do not include API keys in your query")
// and example destinations.
func exfilCheck(c *textCtx, s, e int) bool {
	if negatedBefore(c, s) {
		return false
	}
	m := c.clean[s:e]
	if d := destRe.FindAllStringIndex(m, -1); len(d) > 0 && exampleCue.MatchString(m[:d[len(d)-1][0]]) {
		return false
	}
	return !exampleDest(m)
}

var (
	destRe      = regexp.MustCompile(dest)
	dataRe      = regexp.MustCompile(`^[a-z-]+\s+(?:[\w'-]+\s+)*?` + data + `\b`)
	pdataRe     = regexp.MustCompile(`^[a-z-]+\s+(?:[\w']+\s+)*?` + pdata + `\b`)
	sensWordRe  = regexp.MustCompile(sensWord)
	sentenceEnd = regexp.MustCompile(`[.!?](?:\s|$)|\n`)
)

// beforeDest cuts a match before its literal destination.
func beforeDest(m string) string {
	if d := destRe.FindAllStringIndex(m, -1); len(d) > 0 {
		return m[:d[len(d)-1][0]]
	}
	return m
}

// beforeParam cuts a match before the parameter it names.
func beforeParam(m string) string {
	if loc := paramDestRe.FindAllStringIndex(m, -1); len(loc) > 0 {
		return m[:loc[len(loc)-1][0]]
	}
	return m
}

// objectIs reports whether the words right after the verb that starts m
// (the next 80 bytes, about six words) name the kind of data re describes.
func objectIs(re *regexp.Regexp, m string) bool {
	return re.MatchString(m[:min(len(m), 80)])
}

// exampleCue marks a destination given as an example, not as an order.
var exampleCue = regexp.MustCompile(`\b(?:e\.?g|i\.?e|examples?|for\s+instance|such\s+as|like)\b`)

// dataGroups are families of words for the same data. A parameter named
// after the data it receives ("pass the API key as 'apiKey'", "the
// conversation history as 'messages'") is that parameter's purpose, not
// smuggling.
var dataGroups = [][]string{
	{"conversation", "chat", "history", "message", "transcript", "dialog", "thread"},
	{"api", "key", "token", "credential", "auth", "secret", "password", "bearer"},
	{"system", "prompt", "instruction"},
	{"env", "variable", "vars"},
	{"session", "cookie"},
	{"file", "email", "e-mail", "contact", "detail", "personal", "information", "data"},
}

// paramMatchesData reports a parameter-smuggling match whose destination
// parameter is named after the data.
func paramMatchesData(m string) bool {
	loc := paramDestRe.FindAllStringSubmatchIndex(m, -1)
	if len(loc) == 0 {
		return false
	}
	last := loc[len(loc)-1]
	what, where := m[:last[0]], m[last[2]:last[3]]
	for _, g := range dataGroups {
		inWhat, inWhere := false, false
		for _, w := range g {
			inWhat = inWhat || strings.Contains(what, w)
			inWhere = inWhere || strings.Contains(where, w)
		}
		if inWhat && inWhere {
			return true
		}
	}
	return false
}

var paramDestRe = regexp.MustCompile(`\b(?:in|into|as|inside|within|under|to|via)\s+((?:the\s+|a\s+|an\s+|this\s+)?(?:['"` + "`" + `][^'"` + "`" + `\n]{1,40}['"` + "`" + `]|(?:[\w-]+\s+){0,2}?(?:parameter|param|argument|arg|field|property|variable)s?))`)

// exampleDest reports a match whose destination is a documentation
// placeholder (example.com, localhost, your-domain), not a real endpoint.
// A match without a literal destination has nothing to vet.
func exampleDest(m string) bool {
	ds := destRe.FindAllString(m, -1)
	if len(ds) == 0 {
		return false
	}
	return placeholderDest(ds[len(ds)-1])
}

// placeholderDest reports a documentation address: example.com,
// localhost, your-domain, a reserved test name.
func placeholderDest(d string) bool {
	for _, p := range []string{"example.", ".example", "localhost", "127.0.0.1", "0.0.0.0", "your", "domain.com", "company.com", ".test", ".invalid", ".local"} {
		if strings.Contains(d, p) {
			return true
		}
	}
	return false
}
