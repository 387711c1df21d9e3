package risk

import (
	"slices"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// apiMethods are the HTTP methods a pass-through tool is named by.
var apiMethods = map[string]bool{"get": true, "put": true, "post": true, "patch": true, "delete": true}

// pathParams name a parameter that takes a free-form request path or URL.
var pathParams = map[string]bool{"path": true, "url": true, "endpoint": true, "uri": true, "route": true,
	"resourcepath": true, "apipath": true, "urlpath": true, "relativeurl": true}

// bodyParams name a parameter that takes a free-form request body.
var bodyParams = map[string]bool{"body": true, "data": true, "payload": true, "json": true, "requestbody": true,
	"content": true}

// arbitraryCall says whether a tool is a pass-through to a service's API:
// named by an HTTP method and taking a free-form path (and, to write, a
// body). Such a tool can do anything the account can, whatever its name
// says; it returns the method.
func arbitraryCall(t *tooldef.Tool, tokens []string) string {
	// The method is the name, alone or after a prefix naming the service
	// (bb_get, http_post) or before "request": a method followed by an
	// object (get_file_info) names an ordinary tool.
	method := ""
	for i, tok := range tokens {
		if apiMethods[tok] && (i == len(tokens)-1 || (i == len(tokens)-2 && (tokens[i+1] == "request" || tokens[i+1] == "api"))) {
			method = tok
		}
	}
	if method == "" {
		return ""
	}
	path, body := false, false
	for _, p := range schemaObject(t.InputSchema).GetObject("properties").Members() {
		flat := strings.ToLower(separators.Replace(p.Key))
		ps, _ := p.Value.(*tooldef.Object)
		typ := ps.GetString("type")
		enum := ps.Has("enum")
		if pathParams[flat] && (typ == "string" || typ == "") && !enum {
			path = true
		}
		if bodyParams[flat] && typ != "boolean" && typ != "number" && typ != "integer" {
			body = true
		}
	}
	switch {
	case !path:
		return ""
	case method == "get" || method == "delete" || body:
		return method
	}
	return ""
}

// schemaObject is a schema as an object, nil (which reads as empty) when
// it is absent or not an object.
func schemaObject(v any) *tooldef.Object {
	m, _ := v.(*tooldef.Object)
	return m
}

// anyRequestPhrases say a tool sends whatever request or command it is given.
var anyRequestPhrases = []string{"any graphql", "arbitrary graphql", "raw graphql", "any rest", "arbitrary rest",
	"any api", "arbitrary api", "raw api", "any cli command", "arbitrary cli", "any command", "arbitrary command",
	"any endpoint", "arbitrary endpoint", "any http request", "arbitrary http"}

// keyQualifiers make "key" a credential: an API, SSH, access or signing key.
var keyQualifiers = map[string]bool{"api": true, "ssh": true, "access": true, "deploy": true, "signing": true,
	"secret": true, "pgp": true, "private": true, "encryption": true, "auth": true, "service": true,
	"account": true}

// clientNouns are OAuth clients and applications: they are credentials when
// the tool's prose speaks of authentication.
var clientNouns = map[string]bool{"application": true, "app": true, "client": true, "connection": false}

// authPhrases in a description put an application or client in the
// business of authentication.
var authPhrases = []string{"oauth", "oidc", "client secret", "client_secret", "client id", "sso", "grant type",
	"identity provider", "authentication", "credentials"}

var authPhraseSet = phrase.New(authPhrases...)

// accessNouns name network and browser access controls: firewall rules,
// allowlists and their bypasses, CORS origins.
var accessNouns = map[string]bool{"firewall": true, "allowlist": true, "whitelist": true, "blocklist": true,
	"bypass": true, "cors": true, "ipallowlist": true, "ip": true, "cidr": true, "ingress": true, "peering": true}

// credentialObject names the credential or access control a tool's name
// works on, beyond the plain privilege nouns: a qualified key, an OAuth
// client or application, an access control. secret says whether reading
// it back reveals a secret (a key or a client does, an allowlist does not).
func credentialObject(objects []string, desc string) (name string, secret bool) {
	for i, o := range objects {
		switch {
		case o == "key":
			if q := keyQualifier(objects, i); q != "" {
				return q + " key", true
			}
			if strings.Contains(desc, "api key") || strings.Contains(desc, "secret") {
				return "key", true
			}
		case clientNouns[o]:
			if authPhraseSet.Any(desc) {
				return o + " (an authentication client)", true
			}
		case accessNouns[o]:
			if (o == "ip" || o == "cidr") && (containsAny(objects, "reserved", "floating", "static") || ipRoutingSet.Any(opening(desc, 160))) &&
				!ipAccessSaid(objects, desc) {
				// "assign_reserved_ip": an address kept for machines and
				// given to one routes traffic; it decides nobody's
				// access. Any other address in a change is taken for an
				// access rule's: failing closed costs a review.
				continue
			}
			return o, false
		}
	}
	return "", false
}

// keyQualifier is the word of a name that makes its i-th object, "key", a
// credential: the nearest qualifier before it ("api_v2010_fetch_signing_key"
// reads a signing key), else the first after it; "" when none does. The
// choice follows the name's order, so a name reads the same on every run.
func keyQualifier(objects []string, i int) string {
	for j := i - 1; j >= 0; j-- {
		if keyQualifiers[objects[j]] {
			return objects[j]
		}
	}
	for _, o := range objects[i+1:] {
		if keyQualifiers[o] {
			return o
		}
	}
	return ""
}

// privilegeReach says a change of who may do what reaches the whole
// account: it grants (users, roles, access lists, grants) to an account
// rather than to one container named by a required parameter, and is not
// the write of one secret value, one thing's access level or one
// network's security.
func privilegeReach(s signals) bool {
	if s.runsAs {
		return false // the automation's own reach decides, not the credential's
	}
	switch s.privilege {
	case "secret", "secrets", "credential", "credentials", "token", "tokens", "password", "config", "configuration", "settings", "setting",
		"CI/CD variable", sshLoginKeys, "delegate":
		return false
	case accessLevel, wirelessNetwork, clientRedirects:
		return false // one thing's level, one network's security, one client's redirects: their reach is the thing's
	}
	return !s.requiredContainer
}

// credentialWords name what authenticates whoever holds it: a token, an API
// key, a password, a secret. Minting or changing one grants access, the way
// adding a role does, whatever the tool calls the step.
var credentialWords = map[string]bool{"token": true, "apikey": true, "password": true, "passphrase": true,
	"secret": true, "credential": true, "sshkey": true, "accesskey": true, "privatekey": true}

// mintingVerbs make a credential or give it a new value: whoever receives
// the result, or sets it, can sign in with it.
var mintingVerbs = map[string]bool{"create": true, "add": true, "generate": true, "regenerate": true,
	"rotate": true, "issue": true, "reissue": true, "mint": true, "reset": true, "renew": true, "refresh": true,
	"roll": true, "set": true, "update": true, "change": true, "replace": true, "new": true}

// isMintingVerb is mintingVerbs as a switch, asked of every word of every
// name (TestCredentialWordsAgree keeps the two the same).
func isMintingVerb(w string) bool {
	switch w {
	case "create", "add", "generate", "regenerate", "rotate", "issue", "reissue", "mint", "reset", "renew",
		"refresh", "roll", "set", "update", "change", "replace", "new":
		return true
	}
	return false
}

// creatingVerbs are the minting verbs that make a new thing, not change
// one: renaming a trigger or editing its description mints nothing.
var creatingVerbs = map[string]bool{"create": true, "add": true, "generate": true, "issue": true, "mint": true,
	"new": true}

// triggerOfRuns says the last of a name's objects is a trigger of a
// pipeline or a build ("pipeline_trigger", "build_triggers"): the runs'
// noun comes before it. "pipeline_trigger_jobs" are jobs.
func triggerOfRuns(words []string) bool {
	n := len(words)
	if n < 2 || (words[n-1] != "trigger" && words[n-1] != "triggers") {
		return false
	}
	for _, w := range words[:n-1] {
		switch w {
		case "pipeline", "pipelines", "build", "builds":
			return true
		}
	}
	return false
}

// localPhrases say a generated value is made on the spot and stored
// nowhere: a random password from a generator is a computation, not a
// credential some service now accepts.
var localPhrases = []string{"random", "locally", "offline", "without storing", "client-side"}

var localPhraseSet = phrase.New(localPhrases...)

// pipelineVariablePhrases say a variable is handed to CI/CD runs, where it
// holds the deploy keys and cloud credentials those runs sign in with.
var pipelineVariablePhrases = []string{"ci/cd", "cicd", "ci variable", "pipeline variable", "build variable",
	"masked"}

var pipelineVariableSet = phrase.New(pipelineVariablePhrases...)

// credentialChange names the credential a tool mints or changes: a name
// whose verb makes or changes one (generate_api_key, regenerate_secret,
// rotate_deploy_key), or a description that opens by doing so ("Create a
// pipeline trigger token", "Adds an SSH key to your account"). A variable
// handed to CI/CD runs counts as a credential: those variables carry the
// runs' keys and tokens. A read's description is read for it only when the
// name names a credential too. Removing a credential is left to the delete
// rules (revoking is the safe direction). "" when the tool does neither;
// verb is the name's minting verb when the name decided.
func credentialChange(tokens []string, desc string, act action) (credential, verb string) {
	at, named := -1, ""
	for i, tok := range tokens {
		if at < 0 && isMintingVerb(tok) {
			at = i
		} else if named == "" || accessLink(named) {
			// A graver credential after a link is the one named:
			// "create_console_link_token" mints a token.
			if c := credentialAt(tokens, i, desc); c != "" && (named == "" || !accessLink(c)) {
				named = c
			}
		}
	}
	if at >= 0 && named != "" {
		if verbs[tokens[at]] == actUtility && localPhraseSet.Any(desc) && !savesOrSets.Any(desc) && !goesOnTo(desc) &&
			!statesChangeSaid(desc) && !strings.Contains(desc, "then ") {
			// A generator of random strings stores nothing anywhere,
			// unless the description says it puts the value to use.
			return "", ""
		}
		return named, tokens[at]
	}
	if at < 0 && (act == actRead || act == actObserve) && (strings.HasPrefix(named, "signed ") || strings.HasPrefix(named, "presigned ")) {
		// "get_signed_url": a signed URL is signed when it is asked for;
		// the read makes one, as "generate_presigned_url" does — unless
		// the description says it mints a graver credential too ("Creates
		// a new API key for the bucket and returns a signed URL").
		if c := credentialInProse(desc); c != "" && !accessLink(c) {
			return c, ""
		}
		return named, ""
	}
	if (act == actRead || act == actObserve) == (named == "") {
		// A read that mints says so in its name too
		// ("get_registration_token"); the prose of every other read is
		// spared the search, and so is that of a change whose name
		// already names its credential (a privilege noun, §6).
		return "", ""
	}
	if act >= actMutate && at < 0 && !slices.Contains(tokens, "register") {
		// A change that mints what its name does not name is named to
		// create, add or register something ("create_pipeline_trigger");
		// moving, closing or merging mints nothing.
		return "", ""
	}
	return credentialInProse(desc), ""
}

// credentialAt says the i-th word is a credential: a credential word, a
// key qualified as an API, deploy, SSH or similar key, or a variable of
// CI/CD runs (desc says which variables are).
func credentialAt(words []string, i int, desc string) string {
	// Every credential word makes its plural with an s; trimming it spares
	// singular's allocation for the "-ies" plurals most names hold.
	w := strings.TrimSuffix(words[i], "s")
	// A switch, not the map: every word of every name is asked, and most
	// are none of these. credentialWords lists the same words for the
	// reference (TestCredentialWordsAgree).
	switch w {
	case "token":
		if i > 0 && notCredentialWords[words[i-1]] || i+1 < len(words) && notCredentialWords[words[i+1]] {
			return "" // a page token, or the tokens a model reads and writes
		}
		return w
	case "apikey", "password", "passphrase", "secret", "credential", "sshkey", "accesskey", "privatekey":
		return w
	case "key", "keypair":
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			if keyQualifiers[words[j]] {
				return words[j] + " key"
			}
		}
	case "variable", "var":
		if pipelineVariableSet.Any(desc) {
			return "CI/CD variable"
		}
	case "url", "link":
		// A presigned URL or a share link is a bearer credential:
		// whoever holds it opens what it points to, signed in or not.
		if i > 0 && accessLinkQualifiers[words[i-1]] {
			return words[i-1] + " " + w
		}
	}
	return ""
}

// accessLink says a credential is a link: a presigned URL, a share link.
func accessLink(credential string) bool {
	return strings.HasSuffix(credential, " url") || strings.HasSuffix(credential, " link")
}

// accessLinkQualifiers make a URL or a link one that grants access.
var accessLinkQualifiers = map[string]bool{"presigned": true, "signed": true, "share": true, "sharing": true,
	"shareable": true, "public": true, "access": true, "invite": true, "invitation": true, "magic": true,
	"terminal": true, "console": true, "shell": true}

// credentialStems are in every sentence that names a credential; most
// descriptions hold none, and are not split into words at all.
var credentialStems = phrase.New("token", "key", "password", "passphrase", "secret", "credential", "variable", "var",
	"url", "link")

// proseWindow is how much of a description is read for a credential it
// mints: the verb is among the first twelve words and its object within
// six more, well inside it.
const proseWindow = 120

// nounPhraseEnds end the noun phrase a verb takes: what follows them says
// for whom or of what, not what is made ("generates a report of tokens").
var nounPhraseEnds = map[string]bool{"of": true, "for": true, "from": true, "with": true, "about": true,
	"in": true, "on": true, "to": true, "by": true, "that": true, "which": true, "using": true, "via": true,
	"into": true, "as": true, "at": true, "when": true, "if": true}

// credentialInProse finds, in the description's first sentence, a minting
// verb (create, creates, rotates …) whose object is a credential: the first
// verb of the sentence decides, so "Lists tokens created by the user" and
// "Returns a new token" are not mints, and the object ends at a
// preposition, so "Generates a report of tokens" is not either.
func credentialInProse(desc string) string {
	sentence := opening(desc, proseWindow)
	if !credentialStems.Any(sentence) {
		return "" // most descriptions name no credential at all
	}
	if i := strings.Index(sentence, ". "); i >= 0 {
		sentence = sentence[:i]
	}
	ws := words(sentence, proseWindow)
	for i, w := range ws[:min(len(ws), 12)] {
		base := w
		if !mintingVerbs[base] {
			base = strings.TrimSuffix(w, "s")
			if !mintingVerbs[base] {
				base = strings.TrimSuffix(w, "es")
			}
		}
		if base == "new" || !mintingVerbs[base] {
			if _, _, isVerb := conjugatedVerb(w); isVerb {
				return "" // the sentence's first verb does something else
			}
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+6; j++ {
			if nounPhraseEnds[ws[j]] {
				break
			}
			if c := credentialAt(ws, j, desc); c != "" {
				if accessLink(c) {
					// "Creates a console URL and a temporary admin
					// password": a graver credential minted beside the
					// link is the one judged.
					for k := j + 1; k < len(ws); k++ {
						if g := credentialAt(ws, k, desc); g != "" && !accessLink(g) {
							return g
						}
					}
				}
				return c
			}
		}
		return ""
	}
	return ""
}

// storedCredentialPhrases say an automation runs as someone: with stored
// credentials, or with the permissions of whoever owns it.
var storedCredentialPhrases = []string{"stored credentials", "saved credentials", "with the permissions of",
	"with the credentials of", "as the owner", "owner's permissions", "owner's credentials"}

var storedCredentialSet = phrase.New(storedCredentialPhrases...)

// notCredentialWords qualify a "token" that pages a listing, keys a
// request or counts what a model reads: a page token, a continuation
// token, a token limit.
var notCredentialWords = map[string]bool{"page": true, "next": true, "continuation": true, "sync": true,
	"cursor": true, "idempotency": true, "resume": true, "pagination": true, "max": true, "prev": true,
	"previous": true, "count": true, "limit": true, "budget": true, "usage": true, "input": true,
	"output": true, "estimate": true, "window": true}

// automationCredential names the credential an automation acts with: a
// pipeline, workflow, job, schedule or trigger started or changed with a
// token, password or secret the caller passes, or one the description says
// runs with stored credentials or its owner's permissions. Whatever it runs
// then signs in as that credential's holder, so starting or changing it is
// using the credential, not only running stored steps. "" when there is
// none.
func automationCredential(s *signals) string {
	if s.act < actMutate || s.act >= actDelete || s.act == actSend {
		return ""
	}
	// A webhook's secret signs what it sends; it signs nobody in.
	if !namesAutomation(s.objects) {
		return ""
	}
	var buf [8]string
	for _, p := range s.params {
		if p.typ != "string" && p.typ != "" || hasOptions(p.schema) {
			continue
		}
		toks := appendTokens(buf[:0], p.name)
		if len(toks) == 0 {
			continue
		}
		last := singular(toks[len(toks)-1])
		if !credentialWords[last] && !(last == "key" && len(toks) > 1 && keyQualifiers[toks[len(toks)-2]]) {
			continue
		}
		if containsAnyMap(toks, notCredentialWords) {
			continue
		}
		return "the " + p.name + " it runs with"
	}
	if storedCredentialSet.Any(opening(s.desc, claimWindow)) {
		return "the credentials it runs with"
	}
	return ""
}

// namesAutomation says a name's objects hold an automation noun (§7.1) or
// a schedule, cron, trigger or automation: what runs on its own. A switch,
// as every changing tool asks (TestCredentialWordsAgree keeps it with the
// list).
func namesAutomation(objects []string) bool {
	for _, o := range objects {
		switch o {
		case "pipeline", "workflow", "job", "build", "actor", "task", "evaluation", "test", "suite",
			"schedule", "cron", "trigger", "automation":
			return true
		}
	}
	return false
}

// secretFlags are the switches that mark a variable's value as a secret:
// masked in run logs, stored encrypted, kept as a secret. A variable
// merely "sensitive" is only hidden from display (an infrastructure
// workspace's inputs), and is not among them.
var secretFlags = map[string]bool{"masked": true, "ismasked": true, "encrypted": true, "isencrypted": true,
	"secret": true, "issecret": true, "secured": true, "issecured": true, "issecure": true}

// maskedVariable says a tool writes a variable that can be marked secret:
// a boolean of secretFlags beside a variable in the name, at any depth of
// the schema (a group's list of variables). Masking and encryption exist
// to keep a value out of run logs and sight, so such variables hold what
// runs sign in with.
func maskedVariable(s *signals) bool {
	if !containsAny(s.objects, "variable", "var") {
		return false
	}
	for _, p := range s.params {
		if p.typ == "boolean" && secretFlags[p.flat] {
			return true
		}
	}
	return false
}

// ipRoutingSet are a description's words for an address that routes
// traffic to a machine or names it, not a rule about who gets in.
var ipRoutingSet = phrase.New("reserved ip", "static ip", "floating ip", "reverse dns", "ptr record")

// ipAccessSaid says a reserved, floating or static address is an access
// rule's after all: another word of the name makes it a list or a rule
// ("ip_allowlist", "add_ip_rule", "block_ip"), or the description speaks
// of allowing, blocking, access, a rule or a policy.
func ipAccessSaid(objects []string, desc string) bool {
	if containsAny(objects, "allow", "allowed", "block", "blocked", "deny", "access", "list", "rule", "rules",
		"whitelist", "allowlist", "blocklist", "range", "ranges", "restriction", "restrictions", "trusted") {
		return true
	}
	return ipAccessSet.Any(desc)
}

var ipAccessSet = phrase.New("allow", "whitelist", "blocklist", "block ", "blocked", "deny", "access", "restrict",
	"trusted", "firewall", "accept traffic", "connect", "reach", "inbound", "permit", "grant", "admit", "open", "rule",
	"security group", "policy", "authoriz", "authoris", "source", "exempt", "ban", "requests from", "skip the", "bypass")

// standingForward says a change sets up mail forwarding that goes on by
// itself — of mail, which the name or the description must speak of: a forwarding or redirect the name calls automatic, or the
// description calls automatic or of all incoming or new mail; or an inbox
// rule, mail rule or filter with a parameter that forwards or redirects.
// Every message that arrives from then on leaves for the address the call
// names, unseen by the mailbox's owner: a channel out, not one message
// sent. The address may be any parameter: forwarding has no other business.
func standingForward(s *signals) bool {
	if s.act != actMutate {
		return false
	}
	if !containsAny(s.objects, "mail", "email", "mailbox", "inbox", "message", "messages") && !mailSaid.Any(s.desc) && !mailParam(s.params) {
		return false // a port forwarded or a page redirected carries no one's mail
	}
	forwards := containsAny(s.objects, "forwarding", "forward", "autoforward", "autoforwarding", "redirect", "redirection")
	if forwards {
		return containsAny(s.objects, "auto", "automatic", "autoforward", "autoforwarding") || standingForwardSaid.Any(s.desc)
	}
	if !containsAny(s.objects, "rule", "filter", "inbox", "mail", "mailbox", "message") || !containsAny(s.objects, "rule", "filter") {
		return false
	}
	for _, p := range s.params {
		if strings.Contains(p.flat, "forward") || strings.Contains(p.flat, "redirect") {
			return true
		}
	}
	return false
}

// mailParam says a parameter names a mail address.
func mailParam(params []param) bool {
	for _, p := range params {
		if strings.Contains(p.flat, "mail") {
			return true
		}
	}
	return false
}

// mailSaid are a description's words for mail.
var mailSaid = phrase.New("mail", "inbox", "message")

// standingForwardSaid are a description's words for forwarding that goes
// on by itself.
var standingForwardPhrases = []string{"automatic", "auto-forward", "autoforward", "all incoming", "every incoming",
	"all new mail", "every new message", "all new messages", "all mail", "all messages", "all email", "all e-mail",
	"every message", "that arrives", "that arrive"}

var standingForwardSaid = phrase.New(standingForwardPhrases...)
