package risk

import (
	"slices"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// precedenceVerbs change state and outrank a read word anywhere in a name:
// "get_or_create" creates, "issue_mark_read" marks.
var precedenceVerbs = map[string]bool{
	"create": true, "update": true, "set": true, "add": true, "mark": true, "dismiss": true, "publish": true,
	"resolve": true, "assign": true, "unassign": true, "archive": true, "approve": true, "merge": true,
	"rename": true, "write": true, "insert": true, "upsert": true, "enable": true, "disable": true,
	"cancel": true, "submit": true, "invite": true, "grant": true, "transition": true, "unresolve": true,
	"reopen": true, "edit": true, "modify": true, "replace": true, "send": true, "reorder": true,
	// money, access and removal verbs are never nouns a later read word qualifies
	"buy": true, "purchase": true, "pay": true, "refund": true, "charge": true, "transfer": true,
	"revoke": true, "ban": true, "kick": true, "impersonate": true, "overwrite": true, "terminate": true,
}

// nounModifiers precede an action word used as a noun: a pipeline run, a
// build job, a workflow execution.
var nounModifiers = map[string]bool{"pipeline": true, "workflow": true, "job": true, "build": true, "test": true,
	"actor": true, "task": true, "flow": true, "step": true, "deployment": true, "agent": true, "cron": true,
	"scheduled": true, "last": true, "recent": true}

// nounHeads follow an action word used as a noun: an SQL server, a command
// history, a pull request, a run id.
var nounHeads = map[string]bool{"server": true, "instance": true, "history": true, "request": true, "requests": true, "id": true,
	"ids": true, "log": true, "logs": true, "status": true, "result": true, "results": true, "output": true,
	"template": true, "templates": true, "detail": true, "details": true, "info": true, "list": true,
	"database": true, "schema": true, "queue": true, "artifact": true, "artifacts": true}

// nounUse says whether the action word at tokens[i] is used as a noun. Only
// words that name both an action and a thing are reconsidered: a run, a
// command, a script, a process, a pull, SQL.
func nounUse(tokens []string, i int) bool {
	// "auth_get_user": a word that names both a domain and an action,
	// followed by a verb, is the domain.
	if domainWords[tokens[i]] && i+1 < len(tokens) {
		if _, ok := verbs[tokens[i+1]]; ok {
			return true
		}
	}
	switch tokens[i] {
	case "run", "runs", "command", "commands", "script", "scripts", "process", "sql", "pull", "merge", "exec",
		"execution", "shell", "build", "release", "push", "comment", "message", "schedule", "log", "process_":
	default:
		return false
	}
	if tokens[i] == "merge" && !holdsReadVerb(tokens) {
		// "merge_request_accept" merges; "get_merge_request" reads one.
		return false
	}
	if i > 0 && (nounModifiers[tokens[i-1]] || nounModifiers[singular(tokens[i-1])]) {
		return true
	}
	if i+1 < len(tokens) && nounHeads[tokens[i+1]] {
		return true
	}
	return false
}

// holdsReadVerb says a name's first verb other than "merge" reads and
// nothing joins a second action to it ("get_merge_request",
// "merge_request-get", not "check_and_merge_requests").
func holdsReadVerb(tokens []string) bool {
	if containsAny(tokens, "and", "then", "or") {
		return false
	}
	for _, t := range tokens {
		if a, ok := verbs[t]; ok && t != "merge" {
			return a == actRead || a == actObserve
		}
	}
	return false
}

// resolvesName says "resolve" looks something up (resolve_library_id,
// resolve_path) rather than settles it (resolve_comment).
func resolvesName(tokens []string, i int) bool {
	for _, t := range tokens[i+1:] {
		switch t {
		case "id", "ids", "name", "names", "path", "url", "uri", "reference", "ref", "library", "host",
			"address", "dns", "alias", "symbol":
			return true
		}
	}
	return false
}

// readOnlyPhrases in a description say the tool changes nothing, whatever
// its action word suggests.
var readOnlyPhrases = []string{"read-only", "readonly", "read only", "dry run", "dry-run", "preview only",
	"returns instructions", "does not modify", "without making changes", "no changes are made",
	"without modifying", "never modifies", "only select", "select-only", "select queries only",
	"only read", "doesn't modify", "does not execute", "without executing", "without applying", "只读",
	"guidance", "provides instructions", "provide instructions", "next-step",
	// A tool that says it advises returns words for someone else to act on.
	"only provides", "provides feedback", "returns recommendations", "return recommendations",
	"fix recommendations", "recommendations for"}

var readOnlySet = phrase.New(readOnlyPhrases...)

// enforcedReadOnly are phrases saying the server itself refuses writes, the
// only kind of read-only claim that makes a query tool a read.
var enforcedReadOnly = []string{"only select", "select-only", "select queries only", "only allows select",
	"are rejected", "is rejected", "not allowed", "enforced", "read-only transaction", "read-only mode",
	"only read-only", "read-only queries only"}

// paramReadOnly reports the read-only phrase of an execution parameter's
// own description ("read-only SQL to run"): the interface of the tool says
// the parameter takes only reads, which is a statement about what the
// server accepts, not about what the caller should send.
func paramReadOnly(p *tooldef.Object) string {
	d := p.GetString("description")
	if d == "" {
		return ""
	}
	d = strings.ToLower(opening(d, claimWindow))
	if i := paramReadOnlySet.First(d); i >= 0 {
		return paramReadOnlyPhrases[i]
	}
	return ""
}

// paramReadOnlyPhrases in the description of a query parameter say it takes
// only reads.
var paramReadOnlyPhrases = []string{"read-only", "readonly", "read only", "只读", "select-only", "only select"}

var paramReadOnlySet = phrase.New(paramReadOnlyPhrases...)

// saysEnforcedReadOnly reports the enforcement phrase of a description.
func saysEnforcedReadOnly(desc string) string {
	if i := enforcedReadOnlySet.First(opening(desc, claimWindow)); i >= 0 {
		return enforcedReadOnly[i]
	}
	return ""
}

var enforcedReadOnlySet = phrase.New(enforcedReadOnly...)

// claimWindow is how much of a description a read-only claim is looked for
// in: a description says what its tool is at its opening, and a claim
// buried deep in a long text is as likely to be about something else.
const claimWindow = 1024

func opening(desc string, n int) string {
	if len(desc) > n {
		return desc[:n]
	}
	return desc
}

// saysReadOnly reports the read-only phrase of a description, if any. A
// phrase that says what the tool makes of its object ("archives a
// repository, making it read-only") is the change's result, not a claim
// that the tool changes nothing.
func saysReadOnly(desc string) string {
	if i := readOnlySet.First(opening(desc, claimWindow)); i >= 0 {
		p := readOnlyPhrases[i]
		if at := strings.Index(desc, p); at >= 0 && madeSo(desc[max(0, at-16):at]) {
			return ""
		}
		return p
	}
	return ""
}

// readParamWords make a parameter one that only selects what to return:
// identifiers, filters, pagination, sorting and output shape.
var readParamWords = map[string]bool{"id": true, "ids": true, "uuid": true, "sid": true, "identifier": true,
	"ref": true, "handle": true, "name": true, "key": true, "slug": true, "query": true,
	"q": true, "filter": true, "search": true, "limit": true, "offset": true, "page": true, "cursor": true,
	"size": true, "sort": true, "order": true, "fields": true, "format": true, "since": true, "until": true,
	"start": true, "end": true, "from": true, "to": true, "after": true, "before": true, "top": true, "skip": true,
	"include": true, "expand": true, "depth": true, "max": true, "count": true, "type": true, "kind": true,
	"status": true, "state": true, "namespace": true, "project": true, "workspace": true, "org": true,
	"owner": true, "repo": true, "region": true, "context": true, "version": true, "date": true, "time": true,
	"path": true, "url": true, "level": true, "verbose": true, "detail": true, "mode": true, "output": true}

// readShapedSchema says every parameter of a schema (schemaParams) only
// selects what to read: a tool named by a noun with such a schema reads. A
// schema with no parameters says nothing and is not read-shaped.
func readShapedSchema(params []param) bool {
	if len(params) == 0 {
		return false
	}
	var buf [8]string
	for _, p := range params {
		toks := appendTokens(buf[:0], p.name)
		if len(toks) == 0 || !readParamWords[singular(toks[len(toks)-1])] && !readParamWords[toks[len(toks)-1]] {
			return false
		}
		if p.typ == "object" {
			return false
		}
	}
	return true
}

// describedExecParams are parameter names that hold code only sometimes (an
// OAuth "code", a "function" name, a "manifest" to read): they count as
// free-form execution only when described as executed.
var describedExecParams = map[string]bool{"code": true, "function": true, "program": true, "expression": true,
	"js": true, "yaml": true, "manifest": true}

// executedWords say a text is run, not stored or looked up.
var executedWords = []string{"execut", "evaluat", "to run", "runs ", "run in", "eval", "interpret", "applied to the cluster", "apply"}

func describedAsExecuted(flat string, p *tooldef.Object, toolDesc string) bool {
	d := p.GetString("description")
	d = strings.ToLower(d)
	if executedSet.Any(d) {
		return true
	}
	if flat == "code" && typedCodeSet.Any(d) {
		// The parameter's own words are the nearer statement: "Unique
		// code that customers can use to redeem this discount" is a code
		// people type, whatever the tool "applies"; a tool that says it
		// executes, evaluates or runs what it is given still does.
		return strongExecutedSet.Any(toolDesc)
	}
	return executedSet.Any(toolDesc)
}

// strongExecutedSet are the executed words that say nothing but running:
// "apply" applies discounts as often as manifests.
var strongExecutedSet = phrase.New(slices.DeleteFunc(slices.Clone(executedWords), func(w string) bool {
	return w == "apply" || w == "applied to the cluster"
})...)

// typedCodes are the words of a "code" parameter's description for a code
// people type to get a price or a place, not a program.
var typedCodes = []string{"redeem", "coupon", "promo code", "promotional", "discount", "voucher", "referral",
	"invite code", "invitation code", "gift card"}

var typedCodeSet = phrase.New(typedCodes...)

var executedSet = phrase.New(executedWords...)

// domainWords name an area of a service as often as an action on it.
var domainWords = map[string]bool{"auth": true, "login": true, "build": true, "release": true, "message": true,
	"comment": true, "schedule": true, "log": true, "run": true, "process": true, "script": true, "sql": true}

// savedReads are stored queries and reports: executing one runs a read
// someone wrote before, not arbitrary code.
var savedReads = map[string]bool{"card": true, "report": true, "question": true, "dashboard": true,
	"saved": true, "view": true, "search": false}

// genericVerbs name no action of their own ("manage_folders"): the tool's
// operations say what it does, and its worst one decides.
var genericVerbs = map[string]bool{"manage": true, "handle": true, "configure": false, "admin": true,
	"operate": true, "crud": true}

// describesListing says a read's description opens by enumerating.
func describesListing(desc string) bool {
	return listingPhrases.Any(opening(desc, 80))
}

var listingPhrases = phrase.New("list of all", "list all", "lists all", "get all", "overview of all", "across all")

// mentionsPublicService says a description speaks of a public service as
// a whole, not of a public API through which private data is read.
func mentionsPublicService(desc string) bool {
	if publicServiceWords.Any(desc) {
		return true
	}
	if i := strings.Index(desc, "public"); i >= 0 {
		rest := desc[i:min(len(desc), i+30)]
		return !strings.Contains(rest, "api")
	}
	return false
}

var publicServiceWords = phrase.New("registry", "internet")

// accountWide says a read covers everything an account owns.
func accountWide(desc string) bool { return accountWidePhrases.Any(desc) }

var accountWidePhrases = phrase.New("authenticated user", "your account", "the account", "all resources", "owned by the user")

// workspaceWide says a read covers a whole workspace or organization.
func workspaceWide(desc string) bool { return workspaceWidePhrases.Any(desc) }

var workspaceWidePhrases = phrase.New("across all", "across the workspace", "in the workspace", "whole workspace",
	"entire workspace", "in the organization", "across the organization")

// browserWords put a tool in a browser, where a click or a key press acts
// in whatever session the browser holds.
var browserWords = map[string]bool{"browser": true, "page": true, "tab": true, "tabs": true, "element": true,
	"mouse": true, "keyboard": true, "dom": true, "selector": true}

func inBrowser(s signals) bool {
	return containsAnyMap(s.tokens, browserWords) || strings.Contains(s.desc, "browser") || strings.Contains(s.desc, "page") ||
		strings.Contains(s.desc, "element")
}

// runNouns are single executions whose log is one item.
var runNouns = map[string]bool{"apply": true, "plan": true, "run": true, "build": true, "job": true, "pod": true,
	"step": true, "task": true, "execution": true, "request": true, "entry": true, "container": true}

// webSearch says a search is of the public web or of public places.
func webSearch(desc string) bool { return webSearchPhrases.Any(desc) }

var webSearchPhrases = phrase.New("web search", "search the web", "searches the web", "internet search", "search engine",
	"local businesses", "places")

// revealsSecrets says a boolean parameter's words ask for secret values in
// the clear: reveal, unmask, decrypt, or include/show with a secret word.
func revealsSecrets(toks []string) bool {
	asks, secret := false, false
	for _, t := range toks {
		switch t {
		case "reveal", "unmask", "decrypt", "plaintext", "unredacted":
			return true
		case "include", "show", "with", "return", "expose":
			asks = true
		case "secret", "secrets", "password", "passwords", "credential", "credentials", "token", "tokens", "env",
			"key", "keys":
			secret = true
		}
	}
	return asks && secret
}

// statementLanguages write as well as read: SQL, Cypher, Gremlin and
// SPARQL each have verbs that insert, change and drop, and a parameter
// that takes their text takes those verbs too.
var statementLanguages = []string{"sql", "cypher", "gremlin", "sparql", "ddl"}

// namesStatementLanguage says a parameter's flattened name holds one of
// the statement languages. Every string parameter is asked, so the test
// looks for a letter each name needs before it looks for the names.
func namesStatementLanguage(flat string) bool {
	if strings.IndexByte(flat, 'q') >= 0 && (strings.Contains(flat, "sql") || strings.Contains(flat, "sparql")) {
		return true
	}
	if strings.IndexByte(flat, 'y') >= 0 && strings.Contains(flat, "cypher") {
		return true
	}
	return strings.HasPrefix(flat, "gremlin") || strings.HasPrefix(flat, "ddl") || strings.HasSuffix(flat, "ddl")
}

// mayNameStatementLanguage is a quick test that a parameter's description
// may name a statement language, in any case: SQL and SPARQL hold a q,
// Cypher a y, and the rest are looked for as they are spelled.
func mayNameStatementLanguage(d string) bool {
	return strings.IndexByte(d, 'q') >= 0 || strings.IndexByte(d, 'Q') >= 0 || strings.Contains(d, "ypher") ||
		strings.Contains(d, "YPHER") || strings.Contains(d, "remlin") || strings.Contains(d, "ddl") ||
		strings.Contains(d, "DDL")
}

// statementLanguageCased finds those languages' names as prose spells them,
// before a description is lower-cased.
var statementLanguageCased = phrase.New("sql", "SQL", "Sql", "cypher", "Cypher", "CYPHER", "gremlin", "Gremlin",
	"sparql", "SPARQL", "Sparql", "ddl", "DDL")

// statementPhrases in a tool's description say its query parameter takes
// statements of such a language, not search words.
var statementPhrases = []string{"sql query", "sql queries", "sql statement", "sql command", "raw sql",
	"arbitrary sql", "any sql", "cypher query", "cypher queries", "cypher statement", "gremlin query",
	"gremlin traversal", "sparql query", "sparql update", "insert, update", "insert/update", "update, or delete",
	"update or delete quer", "dml statement", "ddl statement"}

var statementPhraseSet = phrase.New(statementPhrases...)

// paramWindow is how much of a parameter's description is read for what
// it holds: a parameter's description names its content first.
const paramWindow = 120

// statementToSet are a language's text named as what a parameter holds
// to be run ("the SQL to apply").
var statementToPhrases = []string{"sql to ", "ddl to ", "cypher to ", "sparql to ", "gremlin to "}

var statementToSet = phrase.New(statementToPhrases...)

// takesStatements says a free-text parameter carries statements of a
// language that can write: named for one ("sql", "cypherQuery",
// "rawSql", "ddl"), or a query whose own description names one, or, for a
// tool that is not a listing or a search, whose tool's description says
// it runs such statements ("Execute a SQL query against the database"). A
// statement parameter runs whatever the caller writes, so the tool is an
// execution unless the server refuses writes (readOnlyClaim).
func takesStatements(prm param, s *signals) bool {
	flat := prm.flat
	if namesStatementLanguage(flat) && !strings.Contains(flat, "nosql") {
		for _, l := range statementLanguages {
			if strings.HasSuffix(flat, l) {
				return true
			}
		}
		if strings.HasSuffix(flat, "query") || strings.HasSuffix(flat, "statement") ||
			strings.HasSuffix(flat, "statements") || strings.HasSuffix(flat, "script") {
			return true
		}
	}
	if flat != "query" && flat != "statement" {
		// Any other free text described as statements it runs: "The SQL
		// to apply", "Cypher statement to execute". Such a parameter is
		// what the call is for, so it is required; an identifier, a name
		// or a limit holds none.
		if !prm.required || readParamWords[flat] {
			return false
		}
		d := prm.schema.GetString("description")
		d = opening(d, paramWindow)
		if !mayNameStatementLanguage(d) || !statementLanguageCased.Any(d) {
			return false // most descriptions name no language: no need to lower-case them
		}
		d = strings.ToLower(d)
		return (statementPhraseSet.Any(d) || statementToSet.Any(d)) && executedSet.Any(d)
	}
	d := prm.schema.GetString("description")
	d = strings.ToLower(d)
	for _, l := range statementLanguages {
		if strings.Contains(d, l) && !strings.Contains(d, "nosql") {
			return true
		}
	}
	if strings.Contains(d, "query language") {
		return true
	}
	switch s.verb {
	case "search", "find", "list", "lookup", "filter":
		return false
	}
	return statementPhraseSet.Any(opening(s.desc, claimWindow))
}

// migrationVerbs apply or run a migration rather than write or list one;
// completing, finalising or committing one applies what was prepared.
var migrationVerbs = map[string]bool{"apply": true, "run": true, "execute": true, "migrate": true, "push": true,
	"deploy": true, "up": true, "exec": true, "complete": true, "finalize": true, "finalise": true, "commit": true}

// databaseWords put a migration in a database rather than a repository or
// a mailbox being moved elsewhere.
var databaseWords = map[string]bool{"database": true, "db": true, "schema": true, "sql": true, "table": true,
	"ddl": true}

// appliesMigration says a tool applies schema migrations to a database: a
// migration named with a verb that applies or runs it, in a tool whose
// words speak of a database. A migration is statements the server runs
// against the live database — it alters and drops tables like any other
// statement — so the tool is an execution. Creating, listing or reading a
// migration changes no database.
func appliesMigration(s *signals) bool {
	if s.act < actMutate || s.act >= actDelete || s.act == actSend {
		return false
	}
	migration := false
	for _, tok := range s.tokens {
		switch tok {
		case "migration", "migrations", "migrate":
			migration = true
		}
	}
	if !migration {
		return false // most names say nothing of a migration
	}
	verb := migrationVerbs[s.verb]
	for _, tok := range s.tokens {
		if migrationVerbs[tok] && tok != "migrate" || tok == "migrate" && s.tokens[0] == tok {
			verb = true
		}
	}
	if !verb {
		return false
	}
	if containsAnyMap(s.tokens, databaseWords) {
		return true
	}
	for _, w := range words(s.desc, 300) {
		if databaseWords[singular(w)] {
			return true
		}
	}
	return false
}

// saysBulk says a removal's description makes it one of many things at
// once. "The entire secret will be deleted" speaks of the one item the
// tool names, whole: "entire" before the tool's own object is no bulk.
func saysBulk(desc, head string) bool {
	if !bulkPhrases.Any(desc) {
		return false
	}
	if head == "" || !strings.Contains(desc, "entire "+head) {
		return true
	}
	return bulkPhrases.Any(strings.ReplaceAll(desc, "entire "+head, head))
}

// madeSo says the words before a phrase make it the state a change leaves
// its object in.
func madeSo(before string) bool {
	for _, w := range []string{"making it ", "makes it ", "make it ", "making them ", "makes them ", "set it to ",
		"mark it as ", "marks it as ", "marking it as ", "sets it to ", "setting it to ", "becomes ", "to be "} {
		if strings.HasSuffix(before, w) {
			return true
		}
	}
	return false
}
