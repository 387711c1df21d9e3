package risk

import (
	"math"
	"strings"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Domain is what a server's catalogue as a whole is about, read from the
// words of all its tools. A tool judged alone cannot tell a password
// manager's "item" from a to-do list's, nor a bare "get" of a secret store
// from one of a weather service: the catalogue can, since a server that
// keeps secrets speaks of secrets across its tools.
//
// A domain only raises: it never lowers a level or a riskLevel, so a
// server that pads its catalogue with the words of a domain gains nothing
// but an equal or stricter judgement of its other tools (a test holds
// every tool of the corpora to that).
type Domain uint8

const (
	// DomainSecrets is a catalogue a share of whose tools speak of secrets, passwords,
	// vaults or credentials. An item of such a catalogue is a secret:
	// reading one reveals it, and placing one in a shared collection or an
	// organisation gives it to whoever reads there.
	DomainSecrets Domain = 1 << iota
	// DomainTriggerTokens is a catalogue one of whose tools speaks of
	// trigger tokens: its pipelines' and builds' triggers are the tokens
	// they are called with. A trigger elsewhere is as often a schedule or
	// a rule that fires on an event, configuration that holds no key; a
	// server that calls its triggers tokens says which kind it keeps.
	DomainTriggerTokens
)

// Has says d includes every domain of o.
func (d Domain) Has(o Domain) bool { return o != 0 && d&o == o }

// String names the domains of d, for reasons and reports.
func (d Domain) String() string {
	var names []string
	if d.Has(DomainSecrets) {
		names = append(names, "secrets")
	}
	if d.Has(DomainTriggerTokens) {
		names = append(names, "trigger tokens")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// catalogueDomainWords are the nouns that speak of each domain. Each names
// a kind of thing, never a product: "secrets" and "vault" are in any such
// service's vocabulary whatever it is built on. Words shared with other
// domains ("key" of a record, "token" of a session, "lock" of a file) are
// left out, and so are "credential" and "credentials", which any service's
// boilerplate uses ("Requires credentials in TODO_API_KEY"): a domain is
// read from words that say it alone.
var catalogueDomainWords = map[string]Domain{
	"secret": DomainSecrets, "secrets": DomainSecrets, "password": DomainSecrets, "passwords": DomainSecrets,
	"passphrase": DomainSecrets, "vault": DomainSecrets, "vaults": DomainSecrets,
	"passkey": DomainSecrets, "passkeys": DomainSecrets, "totp": DomainSecrets,
}

// Thresholds of a domain: at least this many tools, and at least this share
// of the catalogue, must speak of it. A catalogue of two or three tools
// says too little of itself, and a database server with one tool among
// twenty that sets a user's password is not a password manager. A fifth,
// not a half: a secret store's catalogue also manages its folders, its
// members, its groups and its policies, in tools that name no secret.
const (
	domainMinTools = 4
	domainMinShare = 0.2
)

// domainTextBytes bounds how much of a description is read for the domain:
// what a tool is about is said in its first sentence, and what follows
// (set-up notes, environment variables, boilerplate shared by every tool)
// says little of it.
const domainTextBytes = 200

// firstSentence is the opening of a description up to its first full stop,
// question or exclamation mark or line break, within domainTextBytes.
func firstSentence(desc string) string {
	desc = desc[:min(len(desc), domainTextBytes)]
	for i := 0; i < len(desc); i++ {
		switch desc[i] {
		case '\n', '!', '?':
			return desc[:i]
		case '.':
			if i+1 == len(desc) || desc[i+1] == ' ' {
				return desc[:i]
			}
		}
	}
	return desc
}

// ReadDomain reads what a catalogue as a whole is about, from each tool's
// name and the first sentence of its description. It runs once per
// catalogue before any tool is judged, on every pipeline pass, so it reads
// words in place: no text is lowered or split into new strings.
func ReadDomain(tools []*tooldef.Tool) Domain {
	need := max(domainMinTools, int(math.Ceil(domainMinShare*float64(len(tools)))))
	secrets := 0
	var d Domain
	for _, t := range tools {
		desc := firstSentence(t.Description)
		if !d.Has(DomainSecrets) && (saysDomain(t.Name, DomainSecrets) || saysDomain(desc, DomainSecrets)) {
			if secrets++; secrets >= need {
				d |= DomainSecrets
			}
		}
		if !d.Has(DomainTriggerTokens) && saysTriggerToken(desc) {
			d |= DomainTriggerTokens
		}
	}
	return d
}

// saysTriggerToken says a sentence speaks of a pipeline's or a build's
// trigger tokens: "trigger token" or "trigger tokens" as words, in any
// case, in a sentence that names a pipeline or a build. Every tool's first
// sentence is asked, and few hold "oken" at all: the byte search finds
// that first, and only what it finds is compared.
func saysTriggerToken(text string) bool {
	if !triggerTokenBefore(text, "oken") && !triggerTokenBefore(text, "OKEN") {
		return false
	}
	// Only the few sentences that speak of trigger tokens get here.
	lower := strings.ToLower(text)
	return strings.Contains(lower, "pipeline") || strings.Contains(lower, "build")
}

// triggerTokenBefore says an occurrence of rest in text follows "trigger
// t" in any case and ends a word, or ends one with an s ("trigger
// tokenization" is not one).
func triggerTokenBefore(text, rest string) bool {
	const before = "trigger t"
	for i := 0; ; {
		k := strings.Index(text[i:], rest)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(rest)
		if end < len(text) && (text[end] == 's' || text[end] == 'S') {
			end++
		}
		if k >= len(before) && strings.EqualFold(text[k-len(before):k], before) &&
			(k == len(before) || !isASCIILetterByte(text[k-len(before)-1])) &&
			(end == len(text) || !isASCIILetterByte(text[end])) {
			return true
		}
		i = k + 1
	}
}

// saysDomain says a word of text is one of the domain's words. A word is
// a run of ASCII letters, split where a lower-case letter meets an upper-
// case one ("getSecret": get, secret); each is looked up lowered in a
// buffer on the stack. Words longer than any domain word are skipped.
func saysDomain(text string, d Domain) bool {
	var buf [domainWordMax]byte
	n := 0
	long := false
	end := func() bool {
		hit := !long && n > 0 && catalogueDomainWords[string(buf[:n])] == d
		n, long = 0, false
		return hit
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		upper := c >= 'A' && c <= 'Z'
		if !upper && (c < 'a' || c > 'z') {
			if end() {
				return true
			}
			continue
		}
		if upper {
			if n > 0 && i > 0 && text[i-1] >= 'a' && text[i-1] <= 'z' && end() {
				return true
			}
			c += 'a' - 'A'
		}
		if n == len(buf) {
			long = true
			continue
		}
		buf[n] = c
		n++
	}
	return end()
}

// domainWordMax is the length of the longest domain word.
const domainWordMax = 12

// genericItems are the nouns a catalogue uses for what it keeps when it
// does not say what that is: the domain says it.
var genericItems = map[string]bool{"item": true, "items": true, "entry": true, "entries": true,
	"record": true, "records": true}

// sharedPlaces are where an item placed is seen by others: a collection
// or group of an organisation, the organisation itself.
var sharedPlaces = map[string]bool{"collection": true, "collections": true, "organization": true,
	"organisation": true, "org": true, "group": true, "groups": true, "team": true, "shared": true}

// applyDomain is what the catalogue as a whole says of one of its tools.
// It names a category or raises; it lowers nothing.
func applyDomain(d Domain, s *signals, v *actionVerdict, j *judgement) {
	if d.Has(DomainTriggerTokens) && triggerOfRuns(s.objects) {
		switch {
		case v.act == actMutate && s.privilege == "" && s.actSource == "name" && creatingVerbs[s.verb]:
			// "create_pipeline_trigger" where the catalogue speaks of
			// trigger tokens: creating one mints the token whoever holds
			// starts the runs with, with the deploy keys and secrets they
			// carry.
			s.credential, s.privilege = "pipeline trigger", "pipeline trigger"
			j.note("the catalogue's triggers are tokens: creating one mints a credential")
		case (v.act == actRead || v.act == actObserve) && s.sensitive == "":
			// "get_pipeline_trigger": reading one back reads its token.
			s.sensitive = "a pipeline trigger's token"
			j.note("the catalogue's triggers are tokens: reading one reads a credential")
		}
	}
	if d.Has(DomainSecrets) && secretsItemOnly(s.objects) {
		switch {
		case v.act == actRead && s.sensitive == "":
			// "get — Get a specific item from your vault": what a secret
			// store keeps is secrets, whatever it calls them.
			s.sensitive = "an item of a secret store"
			j.note("the catalogue keeps secrets: its items are secrets")
		case v.act == actMutate && s.privilege == "" && changeVerbs[s.verb] && len(s.objects) > 0 && !placesInShared(s) && changesSecretFields(s):
			// "item_edit — Edit an existing item": what the store keeps
			// is a secret, and changing one changes a credential that
			// someone signs in with.
			s.credential, s.privilege = "secret", "secret"
			j.note("the catalogue keeps secrets: changing an item changes a credential")
		case v.act == actMutate && s.privilege == "" && placesInShared(s):
			// "move — Move (share) a vault item to an organization": a
			// secret placed where others read is given to them.
			s.privilege = "who may read a secret"
			j.note("the catalogue keeps secrets: placing an item in a shared collection gives it to whoever reads there")
		}
	}
}

// secretsItemOnly says a name speaks of nothing but an item, or of
// nothing at all ("get", "list", "move"): the objects that are named
// ("folder", "member", "collection") are judged by their own nouns.
func secretsItemOnly(objects []string) bool {
	item := false
	for _, o := range objects {
		switch {
		case genericItems[o]:
			item = true
		case sharedPlaces[o] || o == "vault":
		default:
			return false
		}
	}
	return item || len(objects) == 0
}

// placesInShared says a change places its item in a shared collection or
// an organisation: its name or a parameter names one.
func placesInShared(s *signals) bool {
	if s.verb == "move" || s.verb == "share" {
		for _, p := range s.params {
			for _, w := range Tokenize(p.name) {
				if sharedPlaces[w] {
					return true
				}
			}
		}
	}
	for _, o := range s.objects {
		if sharedPlaces[o] && o != "shared" {
			return true
		}
	}
	return false
}

// changesSecretFields says a change of a secret store's item can change
// what its secret is: a parameter names a password, a secret, a value, a
// one-time code, a login, notes or fields — or none is shown at all.
// Setting an item's favourite, folder or tags changes no secret.
func changesSecretFields(s *signals) bool {
	if len(s.params) == 0 {
		return true
	}
	for _, p := range s.params {
		for _, w := range Tokenize(p.name) {
			switch w {
			case "password", "secret", "value", "totp", "otp", "login", "username", "notes", "fields", "field", "credential", "key":
				return true
			}
		}
	}
	return false
}
