package scan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	tr39 "github.com/mtibben/confusables"

	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/phrase"
)

// Names an agent cannot tell apart. A server that offers "reаd_file" (with
// a Cyrillic а), "de1ete_repository", "Read_File" or "read\u00a0file" next
// to another server's read_file or delete_repository gets the calls meant
// for the other. Names are compared by the Unicode TR39 skeleton (the
// confusables table, through github.com/mtibben/confusables), with case,
// blank space, separators and invisible characters set aside.

// nameIndex is a Bloom filter over the comparison keys of the other
// servers' tool names. It is built for every Scanner over every name of the
// other servers, so building it must cost next to nothing: two bits per
// name. A name under scan whose key passes the filter (almost never) is
// then compared with the names one by one.
type nameIndex struct {
	bits  [1024]uint64
	names []string
}

func newNameIndex(names []string) *nameIndex {
	if len(names) == 0 {
		return nil
	}
	// Other names are indexed by their folded key only; the name under
	// scan is looked up by both of its keys. So "Iist_files" is reported
	// next to "list_files", and not the other way round: the finding lands
	// on the name that imitates.
	ix := &nameIndex{names: names}
	buf := make([]byte, 0, 64)
	for _, n := range names {
		buf = nameKey(buf[:0], n, true)
		a, b := bloomBits(hashKey(buf))
		ix.bits[a/64] |= 1 << (a % 64)
		ix.bits[b/64] |= 1 << (b % 64)
	}
	return ix
}

func bloomBits(h uint64) (uint64, uint64) {
	return h % 65536, (h >> 32) % 65536
}

func (ix *nameIndex) mayHave(key []byte) bool {
	a, b := bloomBits(hashKey(key))
	return ix.bits[a/64]&(1<<(a%64)) != 0 && ix.bits[b/64]&(1<<(b%64)) != 0
}

// hashKey is FNV-1a over the key.
func hashKey(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// check reports name when it looks like, but is not, another server's
// tool name. (A name equal to another server's is a collision the caller
// reports; see Options.OtherTools.)
func (ix *nameIndex) check(name string) []Finding {
	if ix == nil || name == "" {
		return nil
	}
	var other string
	// Keys of most names fit on the stack; the comparison key of every
	// other name is built into buf only when the filter lets a key through.
	var kbuf, obuf [64]byte
	buf := obuf[:0]
	for _, fold := range [...]bool{true, false} {
		key := nameKey(kbuf[:0], name, fold)
		if !ix.mayHave(key) {
			continue
		}
		for _, o := range ix.names {
			if o != name && string(nameKey(buf[:0], o, true)) == string(key) {
				other = o
				break
			}
		}
		if other != "" {
			break
		}
	}
	if other == "" {
		return nil
	}
	return []Finding{{
		Signal: SignalConfusableName, Field: "name",
		Excerpt: clip.Runes(`"`+escapeNameRunes(name)+`" looks like "`+escapeNameRunes(other)+`", a tool of another server`, maxExcerptRunes),
	}}
}

// escapeNameRunes shows a name with look-alikes, invisible characters and
// blank space escaped, so the excerpt shows the difference.
func escapeNameRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r > ' ' && r < utf8.RuneSelf:
			b.WriteRune(r)
		case r == ' ' || (unicode.IsSpace(r) && r != '\n' && r != '\t'):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(escapeRune(r, true))
		}
	}
	return b.String()
}

// nameKey appends a comparison key of a tool name: its Unicode TR39
// skeleton, lower-cased, with invisible characters dropped and blank space
// written as an underscore. With fold the name is lower-cased before the
// skeleton as well, so that names apart only by case meet ("SEND_EMAIL",
// "send_email"); without, the capital I keeps its skeleton "l"
// ("Iist_files", "list_files"). Two names are confusable when one of
// their keys meet. ASCII names, almost all of them, take tables built from
// the same confusables data.
func nameKey(buf []byte, name string, fold bool) []byte {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	table := &asciiSkeleton
	if fold {
		table = &asciiSkeletonFold
	}
	if ascii {
		for i := 0; i < len(name); i++ {
			b := name[i]
			if b == '_' || b == ' ' || b == '\t' {
				if len(buf) == 0 || buf[len(buf)-1] != '_' {
					buf = append(buf, '_')
				}
				continue
			}
			buf = append(buf, table[b]...)
		}
		return buf
	}
	var clean strings.Builder
	for _, r := range name {
		if !isInvisible(r) {
			clean.WriteRune(r)
		}
	}
	c := clean.String()
	if fold {
		c = strings.ToLower(c)
	}
	return appendSep(buf, strings.ToLower(tr39.Skeleton(c)))
}

// appendSep appends s with separators folded to '_'.
func appendSep(buf []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == '_' || unicode.IsSpace(r):
			// Blank space renders like the underscore it stands for. (A
			// hyphen or a dot does not: search_docs and search-docs on two
			// servers are two honest names.)
			if len(buf) == 0 || buf[len(buf)-1] != '_' {
				buf = append(buf, '_')
			}
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	return buf
}

// asciiSkeleton is the TR39 skeleton of each ASCII byte, lower-cased ("1"
// is "l", "m" is "rn", "0" is "o", "I" is "l"), taken from the confusables
// table once; asciiSkeletonFold the same of the byte lower-cased first.
var asciiSkeleton, asciiSkeletonFold = func() (t, f [128]string) {
	for b := 0; b < 128; b++ {
		t[b] = strings.ToLower(tr39.Skeleton(string(rune(b))))
		f[b] = strings.ToLower(tr39.Skeleton(strings.ToLower(string(rune(b)))))
	}
	return
}()

// Schemas that ask for too much: a parameter for a credential on a tool
// whose purpose does not need one. A weather tool has no use for an AWS
// secret key; a login tool has every use for a password.

// secretParamWords are the words of a parameter name that ask for a
// credential, or for what unlocks one.
var secretParamWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "secret": true, "apikey": true,
	"cookie": true, "cookies": true, "credential": true, "credentials": true, "kubeconfig": true, "mfa": true,
	"otp": true, "cvv": true, "privatekey": true, "pem": true, "totp": true,
}

// notTokenOwners make "token" something other than a credential: a page
// cursor ("page_token", "continuationToken"), a request's own marker
// ("idempotency_token", "progressToken") or a count of a model's tokens
// ("max_token"). Before any other word — a service's name, "access",
// "bot" — a token is a credential: who issued it is no rule's business.
var notTokenOwners = map[string]bool{
	"page": true, "next": true, "prev": true, "previous": true, "continuation": true, "cursor": true,
	"pagination": true, "sync": true, "resume": true, "start": true, "end": true, "progress": true,
	"idempotency": true, "client": true, "request": true, "cancel": true, "cancellation": true,
	"max": true, "min": true, "input": true, "output": true, "num": true, "count": true, "total": true,
	"sort": true, "search": true, "delta": true, "change": true, "changes": true, "watermark": true,
	"offset": true, "skip": true, "last": true, "first": true, "token": true, "design": true, "color": true,
	"style": true, "csrf": true, "nonce": true, "state": true, "lexer": true, "parse": true, "parser": true,
}

// referenceWords end a parameter name that names a credential rather than
// holding it: "private_key_uuid", "oauth_token_id", "secret_name".
var referenceWords = map[string]bool{
	"id": true, "ids": true, "uuid": true, "name": true, "names": true, "url": true, "type": true, "types": true,
	"arn": true, "ref": true, "alias": true, "label": true, "count": true, "length": true, "expiry": true,
	"expires": true, "expiration": true, "path": true, "version": true, "policy": true, "mode": true, "format": true,
}

// secretParamPairs are two-word parameter names that ask for one.
var secretParamPairs = [][2]string{
	{"api", "key"}, {"private", "key"}, {"secret", "key"}, {"access", "key"}, {"ssh", "key"}, {"session", "cookie"},
	{"session", "token"}, {"service", "account"}, {"card", "number"}, {"credit", "card"}, {"bank", "login"},
	{"env", "dump"}, {"auth", "token"}, {"id", "rsa"}, {"ssh", "id"}, {"seed", "phrase"}, {"recovery", "phrase"},
}

// secretPurposeWords anywhere in a tool's name, title or description mean
// the tool deals in credentials, accounts or connections: asking for one
// is its job, and the description says so to whoever reviews it.
var secretPurposeWords = []string{"login", "log in", "sign in", "signin", "auth", "token", "key", "secret", "credential", "password",
	"vault", "certificate", "cert", "tls", "ssl", "webhook", "connect", "database", "smtp", "account", "cookie", "session",
	"jwt", "redact", "config", "setting", "register", "rotate", "import", "user", "payment", "card", "checkout", "oauth",
	"identity", "signing", "encrypt", "decrypt", "hash", "ssh", "kube", "cluster", "git", "deploy", "integration",
	"registry", "psql", "postgres", "mysql", "gateway", "permission", "access", "github", "gitlab", "application", "client",
	"resource server", "api", "密码", "凭证", "密钥", "令牌", "認証", "パスワード", "비밀번호"}

// crawlsWithCookies reports a cookies parameter of a tool named to crawl
// or scrape pages ("spider_crawl(url, cookies)"): a crawler sends the
// cookies it is given with its requests, as a browser does. Only the
// cookies: a crawler has no use for a key or a password, and a tool that
// crawls only in its description ("gets the weather by scraping the
// forecast site") is not named for it.
func (ti *toolInfo) crawlsWithCookies(param string) bool {
	var buf [8]string
	cookies := false
	for _, w := range appendIdentWords(buf[:0], param) {
		switch w {
		case "cookies", "cookie":
			cookies = true
		case "return", "send", "request", "set", "use":
		default:
			return false // "cookie_or_password", "cookies_and_api_key"
		}
	}
	if !cookies || len(ti.nameWords) == 0 {
		return false // "cookies", "return_cookies"; never a key or a password
	}
	// The name's verb crawls: its first or its last word ("crawl_site",
	// "spider_crawl"); "get_crawl_stats" reads about a crawl.
	first, last := ti.nameWords[0], ti.nameWords[len(ti.nameWords)-1]
	for _, w := range [...]string{first, last} {
		switch w {
		case "crawl", "crawler", "scrape", "scraper":
			return true
		}
	}
	return false
}

// paramField reports whether a field is the name of a parameter, a
// property of the input schema's top level.
func paramField(f string) bool {
	const p = "inputSchema.properties."
	return strings.HasPrefix(f, p) && strings.IndexByte(f[len(p):], '.') < 0
}

// secretRequests reports parameters that ask for a credential on a tool
// whose name and summary are about something else.
func (ti *toolInfo) secretRequests(texts []Text) []Finding {
	if ti == nil || len(ti.params) == 0 {
		return nil
	}
	for _, t := range texts {
		if !paramField(t.Field) {
			continue
		}
		if asksForSecret(t.Value) && !keyForData(texts, t.Field) {
			ti.lower()
			for _, w := range secretPurposeWords {
				if purposeWord(ti.purpose, w) || purposeWord(ti.about, w) {
					return nil
				}
			}
			if desc := paramDescription(texts, t.Field); ti.setsOwnSecret(t.Value, desc) || publicToken(t.Value, desc) {
				continue // read only where the purpose did not already decide
			}
			if ti.crawlsWithCookies(t.Value) {
				continue
			}
			return []Finding{{Signal: SignalSecretRequest, Field: strings.Clone(visibleField(t.Field)), // see textCtx.finding
				Excerpt: clip.Runes(`parameter "`+escapeVisible(t.Value)+`" asks for a credential the tool's purpose does not need`, maxExcerptRunes)}}
		}
	}
	return nil
}

// purposeWord reports w in s as a word. An entry of four letters or more
// may begin a longer word ("credential" in "credentials", "auth" in
// "auth0"); a shorter one must be the word itself or its plural ("key",
// not "keyword"; "git", not "digit"). Entries of scripts without spaces,
// or with a space of their own, are matched as they are.
func purposeWord(s, w string) bool {
	if w == "" {
		return false
	}
	if w[0] >= 0x80 || strings.IndexByte(w, ' ') >= 0 {
		return strings.Contains(s, w)
	}
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		k += i
		start := k == 0 || !isWordByte(s[k-1])
		end := k + len(w)
		rest := end
		for rest < len(s) && isWordByte(s[rest]) {
			rest++
		}
		tail := s[end:rest]
		if start && (tail == "" || tail == "s" || tail == "es" || len(w) >= 4) {
			return true
		}
		i = k + 1
	}
}

// paramDescription returns the description of the parameter at field.
func paramDescription(texts []Text, field string) string {
	for _, t := range texts {
		if t.Field == field+".description" {
			return t.Value
		}
	}
	return ""
}

// setsOwnSecret reports a credential-named parameter that is not the
// user's credential, by what its description says:
//
//   - a session of the tool's own: "session" alone, described as something
//     other than a cookie, a token or a login ("Run in an existing
//     interactive session"). Described as nothing, or only by its name
//     ("Session value"), it is still taken for a credential.
//   - a password the tool sets on what it makes or changes, to protect
//     it: a tool whose name starts with create, edit, share, ... and a
//     password described as new, or as the password for the very thing
//     the name makes ("Access password for the Send", "New access
//     password", "Password to protect the archive"). A password of the
//     user, an account, a login or a machine is never that.
func (ti *toolInfo) setsOwnSecret(param, desc string) bool {
	low := strings.ToLower(desc)
	var buf [8]string
	words := appendIdentWords(buf[:0], param)
	if len(words) == 1 && words[0] == "session" {
		return ownSession(low)
	}
	if ti.ownedByWhatItMakes(words, low) {
		return true
	}
	if len(words) == 0 || words[len(words)-1] != "password" || len(ti.nameWords) < 2 || !makingVerbs[ti.nameWords[0]] {
		return false
	}
	var dbuf [64]string
	dwords := appendProseWords(dbuf[:0], low)
	if len(dwords) > 8 {
		return false // more than the thing made: where the value is to come from
	}
	for _, w := range dwords {
		if ownerWords[w] || strings.HasSuffix(w, "'s") {
			return false
		}
	}
	for i, w := range dwords {
		switch w {
		case "new", "protect", "protects", "protecting", "recipient", "recipients":
			return true
		case "for", "open", "access", "view", "download", "unlock":
			// "password for the Send": the thing the tool's name makes.
			for j := i + 1; j < min(len(dwords), i+4); j++ {
				for _, nw := range ti.nameWords[1:] {
					if dwords[j] == nw || dwords[j] == nw+"s" {
						return true
					}
				}
			}
		}
	}
	return false
}

// ownedByWhatItMakes reports a credential-named parameter whose short
// description gives it to the thing the tool's name makes or changes: "The
// request's authorization settings" on create_collection_request, "The
// response's cookie data" on create_collection_response. An API client
// saves requests with their auth and cookies, a mock server responses with
// theirs: the settings of the thing made, not a credential the model is
// asked for. Passwords, keys and codes keep their own rules (a password is
// the one a tool sets only when new or the thing's own, see above); a
// description that names a user, an account or a login as the owner is
// never this.
func (ti *toolInfo) ownedByWhatItMakes(param []string, low string) bool {
	if len(ti.nameWords) < 2 || !makingVerbs[ti.nameWords[0]] {
		return false
	}
	for _, w := range param {
		switch w {
		case "auth", "authorization", "cookie", "cookies":
		default:
			return false
		}
	}
	var dbuf [16]string
	dwords := appendProseWords(dbuf[:0], low)
	if len(dwords) == 0 || len(dwords) > 8 {
		return false
	}
	owned := false
	for _, w := range dwords {
		base, poss := strings.CutSuffix(w, "'s")
		if ownerWords[w] || ownerWords[base] {
			return false
		}
		if !poss {
			continue
		}
		if owned || !slices.Contains(ti.nameWords[1:], base) {
			return false // two owners, or one the name does not make
		}
		owned = true
	}
	return owned
}

// publicToken reports a token or key parameter described as a public one
// ("Mapbox public access token", "publishable key"): a public token is
// made to be exposed, in a browser's URLs or a page's source, and grants
// nothing a secret would. Every sentence that speaks of a secret, a private
// key or a password must refuse it ("Secret tokens cannot be used"): a
// description that also asks for one ("or, if missing, the secret key") is
// still a request for a credential.
func publicToken(param, desc string) bool {
	var buf [8]string
	words := appendIdentWords(buf[:0], param)
	if len(words) == 0 {
		return false
	}
	switch words[len(words)-1] {
	case "token", "key", "apikey":
	default:
		return false
	}
	for _, w := range words {
		switch w {
		case "secret", "private", "privatekey", "password", "session", "refresh":
			return false
		}
	}
	low := strings.ToLower(desc)
	public := false
	for len(low) > 0 {
		s := low
		if k := strings.Index(low, ". "); k >= 0 {
			s, low = low[:k], low[k+2:]
		} else {
			low = ""
		}
		var wbuf [48]string
		sw := appendProseWords(wbuf[:0], s)
		negated, secret, pub := false, false, false
		for i, w := range sw {
			switch w {
			case "not", "no", "never", "cannot", "can't", "don't", "mustn't", "isn't", "aren't", "won't", "without":
				negated = true
			case "secret", "secrets", "private", "password", "passwords", "passphrase", "sk":
				secret = true
			case "public", "publishable":
				if i+1 < len(sw) && (sw[i+1] == "token" || sw[i+1] == "key" || sw[i+1] == "access" || sw[i+1] == "api") {
					pub = true
				}
			}
		}
		if secret && (!negated || pub) {
			// A secret asked for, or named beside the public token where
			// which of the two is refused cannot be told.
			return false
		}
		if pub && negated {
			return false // "not a public token"
		}
		public = public || pub
	}
	return public
}

// makingVerbs start the name of a tool that makes, changes or shares
// something, and may set a password on it.
var makingVerbs = map[string]bool{
	"create": true, "new": true, "add": true, "make": true, "generate": true, "edit": true, "update": true, "modify": true,
	"set": true, "share": true, "upload": true, "publish": true, "export": true, "archive": true, "zip": true,
	"compress": true, "encrypt": true, "protect": true, "lock": true,
}

// ownerWords say whose password it is: the user's, an account's, a
// machine's, a login's. Such a password is asked for, not set.
var ownerWords = map[string]bool{
	"user": true, "users": true, "user's": true, "your": true, "my": true, "account": true, "accounts": true,
	"login": true, "email": true, "e-mail": true, "mail": true, "bank": true, "banking": true, "root": true, "admin": true,
	"machine": true, "server": true, "existing": true, "current": true, "browser": true, "wifi": true, "sign-in": true,
	"signin": true, "master": true, "vault": true, "owner": true, "their": true, "his": true, "her": true,
}

// ownSession reports a session parameter's description that says what
// the session is — a terminal, a shell, a conversation of the tool's own —
// without a word of credentials. Empty, or only the parameter's own name
// again, it says nothing.
func ownSession(low string) bool {
	var buf [64]string
	said := false
	for _, w := range appendProseWords(buf[:0], low) {
		switch w {
		case "cookie", "cookies", "token", "tokens", "credential", "credentials", "auth", "authentication", "login", "logged",
			"sign", "signed", "browser", "secret", "key", "password", "jwt", "sid", "user", "user's", "your", "account", "bank",
			"web", "website", "site", "header", "bearer", "oauth":
			return false
		case "terminal", "shell", "interactive", "stateful", "screen", "repl", "pty", "tty", "kernel", "notebook", "sandbox", "debugger", "debug", "console", "ssh":
			said = true
		}
	}
	return said
}

// appendProseWords appends the lower-case words of s (letters, digits,
// apostrophes and hyphens) to out, as many as fit its capacity.
func appendProseWords(out []string, s string) []string {
	for i := 0; i < len(s) && len(out) < cap(out); {
		for i < len(s) && !proseWordByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && proseWordByte(s[j]) {
			j++
		}
		if j > i {
			out = append(out, strings.Trim(s[i:j], "'-"))
		}
		i = j
	}
	return out
}

func proseWordByte(b byte) bool {
	return isWordByte(b) || b == '\'' || b == '-'
}

// keyForData reports a parameter whose description says it decrypts or
// encrypts what the tool handles: a key for the tool's data, not the
// user's credential.
func keyForData(texts []Text, field string) bool {
	for _, t := range texts {
		if t.Field == field+".description" {
			low := strings.ToLower(t.Value)
			for _, w := range []string{"decrypt", "encrypt", "解密", "加密", "復号", "暗号化"} {
				if strings.Contains(low, w) {
					return true
				}
			}
		}
	}
	return false
}

// asksForSecret reports a parameter name made of credential words.
func asksForSecret(name string) bool {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	if len(words) > 1 && referenceWords[words[len(words)-1]] {
		return false
	}
	for i, w := range words {
		if secretParamWords[w] {
			return true
		}
		if (w == "token" || w == "pat") && i > 0 && !notTokenOwners[words[i-1]] {
			return true // "github_pat": a personal access token
		}
		if i+1 < len(words) {
			for _, p := range secretParamPairs {
				if w == p[0] && words[i+1] == p[1] {
					return true
				}
			}
		}
	}
	// "auth" alone, as a whole name, is a credential too.
	return len(words) == 1 && (words[0] == "auth" || words[0] == "session")
}

// MisleadingAnnotations reports a tool that destroys while its
// annotations or its own words say it does not: readOnlyHint true,
// destructiveHint false, or "safe", "harmless", "read-only" in the
// description. readOnly and notDestructive are what the server declared
// (false when it declared nothing). The action is taken from the first
// verb of the name ("delete_repository", "helm_uninstall") and from verbs
// the description uses of the tool ("Purges every cached object"); a tool
// that lists what was deleted or explains what a drop would remove is a
// read.
func MisleadingAnnotations(name, description string, readOnly, notDestructive bool) []Finding {
	// Cheap tests first: most tools declare neither hint and vouch for
	// nothing.
	if !readOnly && !notDestructive && !mayVouch(description) {
		return nil
	}
	safe := mayVouch(description) && safeWording(strings.ToLower(description))
	if !readOnly && !notDestructive && !safe {
		return nil
	}
	if readOnly || safe {
		if verb := graveChangeName(name); verb != "" {
			claim := "declares readOnlyHint true"
			if !readOnly {
				claim = "calls itself safe"
			}
			return []Finding{{Signal: SignalMisleadingAnnotation, Field: "annotations",
				Excerpt: clip.Runes("the tool "+claim+" but its name says it "+verb, maxExcerptRunes)}}
		}
	}
	verb, decided := destructiveName(name)
	if !decided && !constructiveName(name) {
		// The description decides only when the name does not: a tool
		// named create_token that "revokes the previous token" creates.
		verb = destructiveDescription(description)
	}
	if verb == "" {
		return nil
	}
	// destructiveHint false is honest for a reversible removal (a label
	// taken off an issue, a member off a team); it lies about a delete, a
	// drop, a purge.
	if !readOnly && !safe && !strongDestroy(verb) {
		return nil
	}
	var claim string
	switch {
	case readOnly:
		claim = "declares readOnlyHint true"
	case notDestructive:
		claim = "declares destructiveHint false"
	default:
		claim = "calls itself safe"
	}
	return []Finding{{Signal: SignalMisleadingAnnotation, Field: "annotations",
		Excerpt: clip.Runes("the tool "+claim+" but "+verb, maxExcerptRunes)}}
}

var (
	// destroyVerbs are verbs whose action cannot be undone, in base form.
	destroyVerbs = map[string]bool{
		"delete": true, "remove": true, "purge": true, "terminate": true, "drop": true, "overwrite": true, "wipe": true,
		"erase": true, "destroy": true, "truncate": true, "kill": true, "uninstall": true, "revoke": true, "reset": true,
		"empty": true, "cleanup": true, "shred": true, "nuke": true, "flush": true, "rm": true, "del": true, "format": true,
	}
	// readVerbs are verbs that leave things as they are; a name that
	// starts with one reads ("list_deleted_items", "explain_drop_table").
	readNameVerbs = map[string]bool{
		"get": true, "list": true, "read": true, "show": true, "describe": true, "search": true, "find": true, "fetch": true,
		"query": true, "explain": true, "plan": true, "audit": true, "check": true, "preview": true, "view": true, "count": true,
		"inspect": true, "diff": true, "validate": true, "lint": true, "analyze": true, "analyse": true, "estimate": true,
		"dry": true, "simulate": true, "watch": true, "monitor": true, "summarize": true, "summarise": true, "export": true,
		"download": true, "print": true, "lookup": true, "test": true, "verify": true, "status": true, "info": true,
	}
)

// constructiveName reports a name whose first word is a verb that makes or
// changes rather than destroys.
func constructiveName(name string) bool {
	var buf [8]string
	for _, w := range appendIdentWords(buf[:0], name) {
		switch w {
		case "create", "add", "new", "make", "generate", "update", "set", "send", "post", "put", "start", "run", "insert", "upload", "write", "build", "deploy", "register", "invite", "assign", "enable", "open":
			return true
		}
		if readNameVerbs[w] || destroyVerbs[w] {
			return false
		}
	}
	return false
}

// strongDestroy reports a verb of irreversible loss in a finding's words.
func strongDestroy(verb string) bool {
	for _, v := range []string{"delete", "purge", "terminate", "drop", "overwrite", "wipe", "erase", "destroy", "truncate", "uninstall", "shred", "nuke", "format", "kill", "revoke"} {
		if strings.Contains(verb, v) {
			return true
		}
	}
	return false
}

// destructiveName returns what the first verb of the name says the tool
// destroys, and whether the name has a verb that decides: a reading verb
// decides that the tool reads.
func destructiveName(name string) (string, bool) {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	// "cleanup_preview", "delete_dry_run": a read word anywhere in the
	// name makes the destroying word its object.
	for _, w := range words {
		if readNameVerbs[w] {
			return "", true
		}
	}
	for _, w := range words {
		if destroyVerbs[w] && w != "format" && w != "empty" {
			return "its name says it " + w + "s", true
		}
	}
	return "", false
}

// destructiveDescription returns what the description says the tool
// destroys: a destroy verb in the third person ("deletes", "purges"), not
// "would delete" or "deleted". Words are lower-cased in a small buffer,
// as this runs on every tool that declares readOnlyHint.
func destructiveDescription(d string) string {
	var buf [16]byte
	for i := 0; i < len(d); {
		for i < len(d) && !isASCIILetter(rune(d[i])) {
			i++
		}
		j := i
		for j < len(d) && isASCIILetter(rune(d[j])) {
			j++
		}
		n := j - i
		if n >= 5 && n <= len(buf) && (d[j-1] == 's' || d[j-1] == 'S') {
			w := buf[:n]
			for k := 0; k < n; k++ {
				w[k] = asciiLower[d[i+k]]
			}
			if v := destroyVerbOf(string(w)); v != "" && !listedNoun(d, i, j) && !othersIntransitive(d, i, j) {
				return "its description says it " + v
			}
		}
		i = j
	}
	low := strings.ToLower(d)
	if strings.Contains(low, "empties") {
		return "its description says it empties"
	}
	if strings.Contains(low, "formats ") && formatsStorage(low) {
		return "its description says it formats"
	}
	// What cannot be taken back, whatever the verb: history rewritten, a
	// device reset, money sent, every key revoked. Most descriptions hold
	// none of the phrases, which one pass tells; one that holds any is
	// read phrase by phrase, each at its first place.
	if !irreversibleSet.Any(low) {
		return ""
	}
	for _, p := range irreversiblePhrases {
		if i := strings.Index(low, p); i >= 0 && !strings.Contains(low[max(0, i-12):i], "not ") && !strings.Contains(low[max(0, i-12):i], "never ") {
			return "its description says it " + strings.TrimSpace(p)
		}
	}
	return ""
}

// othersIntransitive reports "drops" said of a connection, a signal, a
// session or the like with no object after it ("when commands misbehave
// or the connection drops"): it loses its link, and the tool drops
// nothing. Only "drops" has that sense: a sync that "wipes", a handler
// that "purges" or a plugin that "deletes" still destroys whatever the
// subject is, and "the connection drops the table" has an object.
func othersIntransitive(d string, i, j int) bool {
	if !strings.EqualFold(d[i:j], "drops") {
		return false
	}
	// The next word, or the punctuation that ends the clause.
	k := j
	for k < len(d) && (d[k] == ' ' || d[k] == '\t') {
		k++
	}
	// Only the clause's end: "drops and recreates every table", "drops,
	// then recreates, the users table" and "drops unless …, along with all
	// temp tables" go on to what is dropped.
	if k < len(d) && strings.IndexByte(".;)!?", d[k]) < 0 {
		return false
	}
	words := strings.Fields(d[max(0, i-48):i])
	if len(words) == 0 {
		return false
	}
	switch strings.ToLower(strings.Trim(words[len(words)-1], ".,;:()\"'")) {
	case "connection", "connections", "signal", "session", "sessions", "network", "socket", "websocket",
		"packet", "packets", "price", "rate", "latency":
		return true
	}
	return false
}

// listedNoun reports a destroying word, d[i:j], that is an item of a
// list of nouns rather than a verb of the tool: it opens a clause or list
// item (nothing but punctuation before it), a comma follows it at once,
// and the next item starts as a noun phrase does ("Only core tools
// appear; deletes, test plans, milestones ... stay hidden until
// discovered"). A verb keeps its object or its adverbs after the comma
// ("deletes, without confirmation, every file") or goes on with verbs
// ("reads, updates, deletes, and archives records"), and a verb with a
// subject before it ("it deletes, ...") is a verb whatever follows.
func listedNoun(d string, i, j int) bool {
	if j >= len(d) || d[j] != ',' {
		return false
	}
	k := i - 1
	for k >= 0 && (d[k] == ' ' || d[k] == '\t') {
		k--
	}
	if k >= 0 && !strings.ContainsRune(";:,(\n", rune(d[k])) {
		return false
	}
	words := strings.Fields(d[j+1 : min(len(d), j+64)])
	if len(words) > 0 && (words[0] == "and" || words[0] == "or") {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	w := strings.ToLower(strings.TrimRight(words[0], ",;.:"))
	if w == "" || !isASCIILetter(rune(w[0])) || strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ly") || listVerbWords[w] {
		return false
	}
	return true
}

// listVerbWords start what follows a verb rather than a list of nouns:
// its adverbs, its object's determiner, a pronoun, a preposition.
var listVerbWords = map[string]bool{
	"without": true, "with": true, "then": true, "also": true, "all": true, "every": true, "any": true, "each": true,
	"the": true, "a": true, "an": true, "its": true, "their": true, "your": true, "my": true, "our": true, "this": true,
	"these": true, "those": true, "that": true, "it": true, "them": true, "everything": true, "anything": true, "now": true,
	"even": true, "if": true, "when": true, "once": true, "after": true, "before": true, "on": true, "in": true, "from": true,
	"for": true, "to": true, "at": true, "by": true, "no": true, "not": true, "never": true, "forever": true, "first": true,
	"again": true, "here": true, "there": true, "whatever": true, "whichever": true, "both": true, "so": true,
}

// irreversiblePhrases are effects no read-only or harmless tool has.
var irreversiblePhrases = []string{"force-push", "force push", "push --force", "push -f ", "rewriting remote history", "rewrites history",
	"rewriting history", "factory-reset", "factory reset", "erasing all", "erases all", "discarding", "wire transfer", "transfers the",
	"transfers funds", "transfers money", "sends money", "revokes every", "revokes all", "drop table", "drops the table", "deleting all",
	"deletes all", "wiping", "is final", "cannot be undone", "can't be undone", "permanently delet", "permanently remov", "irreversibl",
	"liquidat", "cancels every", "cancels all", "closes all positions", "sells all"}

var irreversibleSet = phrase.New(irreversiblePhrases...)

// formatsStorage reports "formats" with storage for its object, within
// the next four words ("formats the selected disk", "formats a USB
// drive"). Formatting output, text or dates ("returns markdown or other
// formats", "formats the results as JSON") destroys nothing; the word is
// far more often a noun, or a verb of presentation, than a wipe.
func formatsStorage(low string) bool {
	// "Formats it. The target is the boot disk.": a "formats" whose object
	// is a pronoun takes the storage the description names elsewhere.
	if bootOrDiskSet.Any(low) && (strings.Contains(low, "formats it") || strings.Contains(low, "formats them") ||
		strings.Contains(low, "formats the target") || strings.Contains(low, "formats the selected")) {
		return true
	}
	for i := 0; ; {
		k := strings.Index(low[i:], "formats ")
		if k < 0 {
			return false
		}
		i += k + len("formats ")
		rest := low[i:]
		for n := 0; n < 4 && rest != ""; n++ {
			w := rest
			if e := strings.IndexAny(rest, " \t\n.,;:()"); e >= 0 {
				w, rest = rest[:e], strings.TrimLeft(rest[e:], " \t")
				if rest != "" && rest[0] != ' ' && !isASCIILetter(rune(rest[0])) {
					rest = "" // the clause ends
				}
			} else {
				rest = ""
			}
			if storageNouns[w] || strings.HasPrefix(w, "/dev/") || strings.HasPrefix(w, "sd") && len(w) <= 5 || strings.HasPrefix(w, "nvme") || strings.HasPrefix(w, "mmcblk") || len(w) == 2 && w[1] == ':' {
				return true
			}
		}
	}
}

// bootOrDiskSet are storage a description may name apart from its verb.
var bootOrDiskSet = phrase.New("disk", "drive", "partition", "volume", "boot", "/dev/", "sd card", "filesystem")

// storageNouns are what formatting wipes.
var storageNouns = map[string]bool{
	"disk": true, "disks": true, "drive": true, "drives": true, "volume": true, "volumes": true, "partition": true,
	"partitions": true, "filesystem": true, "filesystems": true, "device": true, "devices": true, "card": true, "cards": true,
	"storage": true, "usb": true, "machine": true, "computer": true, "laptop": true, "phone": true, "server": true, "server's": true,
	"system": true, "root": true, "target": true, "everything": true, "home": true, "c": true, "d": true, "sda": true, "sdb": true,
	"memory": true, "database": true, "mount": true, "boot": true, "host": true, "node": true, "vm": true, "instance": true, "ssd": true, "hdd": true, "media": true, "medium": true, "flash": true, "nvme": true,
}

// destroyVerbOf returns w when it is the third person of a verb that
// destroys.
func destroyVerbOf(w string) string {
	base := strings.TrimSuffix(w, "s")
	if strings.HasSuffix(w, "es") && !destroyVerbs[base] {
		base = strings.TrimSuffix(w, "es")
	}
	// "Removes HTML tags" transforms text; a description's verb counts
	// when it destroys outright. "formats" does only with storage for its
	// object, which formatsStorage reads.
	if destroyVerbs[base] && strongDestroy(base) && base != "format" {
		return w
	}
	return ""
}

// mayVouch is a quick test for the words safeWording looks for.
func mayVouch(d string) bool {
	return vouchStems.Any(d)
}

var vouchStems = phrase.New("afe", "AFE", "armless", "ARMLESS", "ead-only", "EAD-ONLY", "ide effect", "on-destructive")

// safeWording reports a description that vouches for itself.
func safeWording(low string) bool {
	for _, p := range []string{"safe,", "safe:", "safe and", "safe to call", "completely safe", "totally safe", "harmless", "read-only helper", "no side effects", "non-destructive"} {
		if k := strings.Index(low, p); k >= 0 && !strings.HasSuffix(strings.TrimSpace(low[max(0, k-5):k]), "not") {
			return true
		}
	}
	return false
}

// graveChangeVerbs change the world in ways no read does: money moved, a
// message sent, something published, granted or approved, a
// schema migrated. A tool named by one is never read-only, whatever it
// declares; honest servers mark makers and starters read-only often
// enough (a generated locator, a started trace) that those are left to the
// destroy rules.
var graveChangeVerbs = map[string]string{"transfer": "moves money", "pay": "moves money", "charge": "moves money",
	"refund": "moves money", "payout": "moves money", "withdraw": "moves money", "send": "sends", "publish": "publishes",
	"migrate": "migrates a schema", "approve": "approves", "grant": "grants access"}

// graveChangeName is what a grave change verb in a name says the tool does,
// "" when the name has none or starts with a read verb
// ("get_transfer_status").
func graveChangeName(name string) string {
	var buf [8]string
	words := appendIdentWords(buf[:0], name)
	if len(words) == 0 || readNameVerbs[words[0]] {
		return ""
	}
	for _, w := range words {
		if v := graveChangeVerbs[w]; v != "" {
			return v
		}
	}
	return ""
}
