package risk

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// signals is everything the inference read off one definition.
type signals struct {
	act               action
	actSource         string // where the action was read: name, description, schema
	verb              string
	objects           []string // name tokens that are not verbs
	execParam         string
	flags             []string
	optionVerbs       []string // destructive or executing options of mode/action enums
	scope             string
	scopeWhy          string
	sensitive         string
	privilege         string
	money             string
	bulk              bool
	irreversibleText  bool
	requiredContainer bool
	containerScope    string // widest scope among required container parameters
	tokens            []string
	desc              string // lower-cased opening of the description
	propCount         int
	privateContent    string   // a word saying a read returns private content
	hardFlags         []string // flags that make a change hard to undo
	overwriteText     bool     // the description says the change overwrites
	apiCall           string   // the HTTP method of a pass-through API tool
	wipes             bool     // replaces a whole container's contents
	optionPrivilege   string   // an option of the tool changes who may do what
	filterParam       string   // a free-form filter or query over records
	optionList        bool     // an option of the tool lists or searches
	revealFlag        string   // a flag that makes a read return secret values
	anyRequest        bool     // the description says any request or command goes
	execReadOnly      string   // the execution parameter's own description says it takes only reads
	readOnlyQuery     bool     // an execution whose read-only claim counts: it runs only reads
	optionContainer   string   // a container an operation of the tool removes
	savedRead         bool     // runs a stored query or report: a read of what it covers
	requiredItem      bool     // a required parameter identifies one item that is not a container
	optionMutations   []string // the distinct mutating verbs among a tool's operations
	unknownVerb       string   // a word of the name the description uses as a verb the lexicon lacks
	public            string   // why a change is visible to anyone: public DNS, a public link or visibility
	params            []param  // the input schema's parameters, read once for every rule that asks
}

var blastOrder = map[string]int{"item": 0, "namespace": 1, "cluster": 2, "organization": 3, "global": 4}

func widerBlast(a, b string) string {
	if blastOrder[b] > blastOrder[a] {
		return b
	}
	return a
}

// httpMethods lead generated names such as "API-post-search", where the verb
// that follows says what the tool does.
var httpMethods = map[string]bool{"post": true, "put": true}

// readSignals reads a definition's words and schema.
func readSignals(t *tooldef.Tool) signals {
	var s signals
	tokens := Tokenize(t.Name)
	s.tokens = tokens

	// The first verb of the name is its action; a deleting or irreversible
	// verb anywhere in the name counts too, so k8s_delete_pod and
	// pods_delete read as deletes.
	primary := -1
	for i, tok := range tokens {
		a, ok := verbs[tok]
		if tok == "issue" && i+1 < len(tokens) && (certificateNouns[singular(tokens[i+1])] || tokens[i+1] == "token" || tokens[i+1] == "credential") {
			a, ok = actMutate, true // "issue_certificate" issues; "issue" is otherwise a noun
		}
		if !ok || nounUse(tokens, i) {
			continue
		}
		if primary < 0 {
			primary = i
			s.act, s.verb, s.actSource = a, tok, "name"
			continue
		}
		if (httpMethods[s.verb] || s.verb == "start" || s.verb == "stop") && i == primary+1 && a <= actObserve {
			// "API-post-search", "start_search": the second verb says
			// what the tool does.
			s.act, s.verb = a, tok
			continue
		}
		if httpMethods[s.verb] && i == primary+1 {
			s.act, s.verb = a, tok
			continue
		}
		if a >= actDelete && a > s.act && (irreversibleVerbs[tok] || a == actDelete) {
			s.act, s.verb = a, tok
		}
	}
	// "browser_route_list": a read verb that ends the name names the
	// action; the earlier word was a noun.
	if last := len(tokens) - 1; primary >= 0 && last > primary && s.act == actMutate {
		if a, ok := verbs[tokens[last]]; ok && a == actRead && !strongMutations[s.verb] && !precedenceVerbs[s.verb] {
			s.act, s.verb = a, tokens[last]
		}
	}
	// "issues_get_and_mark", "list_or_create": a verb that changes state
	// anywhere in the name outranks a read word.
	if s.act == actRead || s.act == actObserve || s.act == actUtility {
		for i, tok := range tokens {
			if i != primary && precedenceVerbs[tok] && !nounUse(tokens, i) && !(tok == "resolve" && resolvesName(tokens, i)) {
				s.act, s.verb = verbs[tok], tok
				break
			}
		}
	}
	if s.verb == "terminate" && s.act == actMutate && primary >= 0 {
		// "terminate_instance": terminating a machine removes it, as a
		// delete does; terminating a process or a session stops it.
		for _, tok := range tokens[primary+1:] {
			if infraNouns[singular(tok)] {
				s.act = actDelete
			}
		}
	}
	if s.verb == "resolve" && primary >= 0 && !resolvesName(tokens, primary) {
		s.act = actMutate // resolving an issue or a comment changes it
	}
	s.objects = make([]string, 0, len(tokens)) // at most every token but the verb
	for i, tok := range tokens {
		if i != primary {
			if _, isVerb := verbs[tok]; !isVerb || i > primary {
				s.objects = append(s.objects, singular(tok))
			}
		}
	}
	if s.act == actNone && t.Title != "" {
		for _, tok := range Tokenize(t.Title) {
			if a, ok := verbs[tok]; ok {
				s.act, s.verb, s.actSource = a, tok, "title"
				break
			}
		}
	}
	if s.act == actNone {
		opening := words(t.Description, 200)
		for _, w := range opening[:min(12, len(opening))] {
			if a, base, ok := conjugatedVerb(w); ok {
				s.act, s.verb, s.actSource = a, base, "description"
				break
			}
		}
		if s.act == actNone {
			s.unknownVerb = unknownVerb(tokens, opening)
		}
	}

	// Nouns of the name.
	for _, o := range s.objects {
		if privilegeNouns[o] || privilegeNouns[o+"s"] {
			s.privilege = o
		}
		if moneyNouns[o] && (s.money == "" || movesMoney[o]) {
			s.money = o // a word that moves money outranks one that bills
		}
		if o == "many" || o == "all" || o == "bulk" || o == "everything" {
			s.bulk = true
		}
	}

	// Sensitivity is judged on the head noun: "get_token_permissions"
	// reads permissions, "browser_cookie_get" reads cookies.
	if head := headNoun(s.objects); sensitiveNouns[head] || sensitiveNouns[head+"s"] {
		s.sensitive = head
		// "env" is an environment as often as its variables.
		if head == "env" && !containsAny(tokens, "var", "vars", "variable", "variables") && !strings.Contains(strings.ToLower(t.Description[:min(len(t.Description), 4096)]), "variable") {
			s.sensitive = ""
		}
	}
	if head := headNoun(s.objects); telemetryNouns[head] && (s.act == actRead) {
		s.act = actObserve
	}
	if s.act == actRead && executionRecord(s.objects) {
		s.act = actObserve // the runs of a pipeline are its state, not its data
	}
	if (s.verb == "start" || s.verb == "stop") && recordingNouns[headNoun(s.objects)] {
		s.act = actObserve // starting a recording observes; starting a process does not
	}

	// Cut before lower-casing: only the opening is read, and lower-casing
	// a description of megabytes would cost more than the whole judgement.
	desc := t.Description
	if len(desc) > 4096 {
		desc = desc[:4096]
	}
	desc = lowerText(desc)
	s.desc = desc
	for _, phrase := range []string{"removes all", "deletes all", "delete all", "remove all", "all managed", "every ", "entire ", "bulk "} {
		if s.act >= actDelete && strings.Contains(desc, phrase) {
			s.bulk = true
		}
	}

	if movesMoney[s.verb] {
		s.money = s.verb // transfer_funds, refund_payment
	}
	if cred, secret := credentialObject(s.objects, desc); cred != "" {
		if s.privilege == "" {
			s.privilege = cred
		}
		if secret && s.sensitive == "" && (s.act == actRead || s.act == actObserve) {
			s.sensitive = cred // reading a credential back is a secret read
		}
	}
	s.apiCall = arbitraryCall(t, tokens)
	// The phrase lists below are read only where they can matter, and
	// behind one cheaper test: the description is scanned once per list
	// at most, which keeps the pipeline fast on long descriptions.
	if head := opening(desc, claimWindow); (s.act == actNone || s.act >= actMutate) && (strings.Contains(head, "any ") || strings.Contains(head, "arbitrary ") || strings.Contains(head, "raw ")) {
		for _, p := range anyRequestPhrases {
			if strings.Contains(head, p) {
				s.anyRequest = true
			}
		}
	}
	if s.verb == "replace" || s.verb == "overwrite" || s.verb == "reset" || s.verb == "restore" {
		for _, p := range []string{"replace all", "replaces all", "overwrite all", "overwrites all", "all data", "all rows", "all records", "entire contents", "replacing its current", "replacing the current", "replaces its current", "replaces the current"} {
			if strings.Contains(desc, p) {
				s.wipes = true
			}
		}
	}
	if s.act >= actMutate && s.act <= actDelete {
		s.public = publicEffect(s.tokens, opening(desc, claimWindow))
	}
	readSchema(&s, t.InputSchema)
	for _, f := range s.flags {
		switch f {
		case "force", "hard", "overwrite", "truncate", "wipe", "purge", "cascade", "drop", "delete", "destroy":
			s.hardFlags = append(s.hardFlags, f)
		}
	}
	readsPrivate(&s)
	return s
}

// conjugatedVerb recognises a verb in prose ("gets", "deletes", "lists")
// and returns it in its base form, so later rules that test the verb see
// "list" whether the name or the description said it.
func conjugatedVerb(w string) (action, string, bool) {
	if nameOnlyVerbs[w] || nameOnlyVerbs[strings.TrimSuffix(w, "s")] {
		return actNone, "", false
	}
	if a, ok := verbs[w]; ok {
		return a, w, true
	}
	for _, suffix := range []string{"es", "s"} {
		if base, found := strings.CutSuffix(w, suffix); found {
			if a, ok := verbs[base]; ok {
				return a, base, true
			}
		}
	}
	switch w {
	case "returns", "return", "provides", "shows", "displays":
		return actRead, "get", true
	}
	return actNone, "", false
}

// unknownVerb finds a verb the lexicon does not know: the description opens
// with a word in the third person ("Bans a member", "Evicts the pod",
// "Shuts down a server") that a word of the name begins with. Such a tool
// does something nobody listed; it must not pass for a read because its
// parameters only name things.
func unknownVerb(nameTokens, opening []string) string {
	if len(opening) < 2 {
		return ""
	}
	w, next := opening[0], opening[1]
	if !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || len(w) < 4 {
		return ""
	}
	switch next {
	case "a", "an", "the", "one", "all", "every", "each", "any", "down", "up", "off", "out", "your", "their", "its", "this", "that", "them", "it":
	default:
		return ""
	}
	stem := strings.TrimSuffix(w, "s")
	if strings.HasSuffix(stem, "e") && len(stem) > 3 {
		stem = strings.TrimSuffix(stem, "e") // "pushes" -> "push", "closes" -> "clos"
	}
	for _, tok := range nameTokens {
		if len(stem) >= 3 && strings.HasPrefix(tok, stem) {
			return tok
		}
	}
	return ""
}

// nameOnlyVerbs are verbs only in a name: prose says "call this tool when
// ..." of tools that run nothing.
var nameOnlyVerbs = map[string]bool{"call": true}

// separators are dropped from parameter names before they are compared
// with the lists: allNamespaces, all_namespaces and all-namespaces match.
var separators = strings.NewReplacer("_", "", "-", "", ".", "")

var actionParamWords = map[string]bool{"mode": true, "action": true, "operation": true, "op": true, "command": true,
	"subcommand": true, "method": true, "task": true, "verb": true, "type": true, "run": true}

// readSchema reads parameters: free-form execution, risky flags,
// destructive options, scope and sensitivity.
func readSchema(s *signals, schema any) {
	params := schemaParams(schema)
	s.params = params
	for _, prm := range params {
		if !prm.nested {
			s.propCount++
		}
	}
	for _, prm := range params {
		name, p, flat := prm.name, prm.schema, prm.flat
		typ, _ := p["type"].(string)
		// The words of the name matter only to flags, options and
		// required containers; most parameters are none of these.
		var toks []string
		if typ == "boolean" || prm.required || endsWithActionWord(flat) {
			toks = Tokenize(name)
		}

		if execParams[flat] && (typ == "" || typ == "string" || typ == "array" || typ == "object") && !hasOptions(p) &&
			(!describedExecParams[flat] || describedAsExecuted(p, s.desc)) {
			s.execParam = name
			s.execReadOnly = paramReadOnly(p)
		}
		if flat == "query" && typ == "string" {
			d, _ := p["description"].(string)
			d = strings.ToLower(d)
			if strings.Contains(d, "sql") || strings.Contains(d, "cypher") || strings.Contains(d, "query language") {
				s.execParam = name
				s.execReadOnly = paramReadOnly(p)
			}
		}
		if typ == "boolean" && s.revealFlag == "" && revealsSecrets(toks) {
			s.revealFlag = name
		}
		if typ == "boolean" {
			if flag, ok := riskyFlags[flat]; ok && flag != "" {
				s.flags = append(s.flags, flag)
			} else {
				// "truncateFirst", "forceDelete": a risky word inside
				// a flag's name counts too.
				for _, tok := range toks {
					if flag, ok := riskyFlags[tok]; ok && flag != "" && tok != "all" {
						s.flags = append(s.flags, flag)
						break
					}
				}
			}
		}
		if len(toks) > 0 && actionParamWords[toks[len(toks)-1]] {
			for _, opt := range optionValues(p) {
				readOption(s, opt)
			}
		}
		// A container parameter (project, repo, bucket) says where the
		// object lives, not how far the call reaches: only flags that
		// widen the reach set the scope.
		if filterParams[flat] && !hasOptions(p) {
			s.filterParam = name
		}
		if flat == "allnamespaces" || flat == "clusterwide" || flat == "allclusters" {
			s.scope, s.scopeWhy = widerBlast(s.scope, "cluster"), "parameter "+name
		}
		if prm.required {
			for _, tok := range toks {
				if sc, ok := scopeWords[tok]; ok {
					s.requiredContainer = true
					s.containerScope = widerBlast(s.containerScope, sc)
				}
				switch tok {
				case "path", "owner", "repo", "dir", "directory", "namespace", "project", "workspace", "database", "collection", "channel", "bucket", "table", "app", "mount":
					s.requiredContainer = true
				}
			}
			if namesOneItem(toks) {
				s.requiredItem = true
			}
		}
	}
	sort.Strings(s.flags)
}

// namesOneItem says a parameter's words identify one item that is not a
// container ("pull_number", "runId", "issue_key", a bare "id"): what a call
// lists under it are that item's parts.
func namesOneItem(toks []string) bool {
	if len(toks) == 0 || !idWords[toks[len(toks)-1]] {
		return false
	}
	if len(toks) == 1 {
		return toks[0] == "id" || toks[0] == "uuid" // the id of the thing the tool is named for
	}
	for _, tok := range toks[:len(toks)-1] {
		if _, container := scopeWords[tok]; container || notItems[tok] {
			return false
		}
	}
	return true
}

// idWords end a parameter that identifies one thing.
var idWords = map[string]bool{"id": true, "number": true, "key": true, "identifier": true, "uuid": true,
	"iid": true, "num": true, "ts": true}

// notItems identify a handle, a principal or a parent rather than an item
// whose parts a tool lists: a connection, a session, an owner, a client.
var notItems = map[string]bool{"owner": true, "user": true, "org": true, "account": true, "parent": true,
	"api": true, "access": true, "secret": true, "client": true, "customer": true, "connection": true,
	"conn": true, "session": true, "context": true, "cursor": true, "page": true, "instance": true,
	"server": true, "cluster": true}

// endsWithActionWord is a cheap test that a flattened parameter name may
// end in an action word; the name's words decide.
func endsWithActionWord(flat string) bool {
	for _, w := range [...]string{"mode", "action", "operation", "op", "command", "subcommand", "method", "task", "verb", "type", "run"} {
		if strings.HasSuffix(flat, w) {
			return true
		}
	}
	return false
}

// hasOptions says a parameter takes one of fixed values, not free text.
func hasOptions(p map[string]any) bool {
	_, enum := p["enum"]
	_, c := p["const"]
	return enum || c
}

// readOption reads one value of a mode/action parameter: its executing,
// deleting or destroying verb, and whether it changes who may do what.
func readOption(s *signals, opt string) {
	toks := Tokenize(opt)
	mutates, removes := false, false
	if len(toks) > 0 && (toks[0] == "list" || toks[0] == "search") {
		s.optionList = true
	}
	for _, tok := range toks {
		a, ok := verbs[tok]
		if !ok {
			continue
		}
		if a >= actExec {
			s.optionVerbs = append(s.optionVerbs, tok)
		}
		if a >= actMutate {
			mutates = true
			if !containsAny(s.optionMutations, tok) {
				s.optionMutations = append(s.optionMutations, tok)
			}
		}
		if a >= actDelete {
			removes = true
		}
	}
	if removes && s.optionContainer == "" {
		// "deleteTable", "destroyMySQL": an operation that removes a
		// container takes everything in it.
		for _, tok := range toks {
			if sc := scopeWords[tok]; sc != "" {
				s.optionContainer = tok
			} else if sc := systemScopes[tok]; sc != "" {
				s.optionContainer = tok
			}
		}
	}
	if mutates && s.optionPrivilege == "" {
		for _, tok := range toks {
			if privilegeNouns[tok] || privilegeNouns[tok+"s"] {
				s.optionPrivilege = tok
			}
		}
	}
}

// Assess judges one tool.
func Assess(in Input) Assessment {
	t := in.Tool
	s := readSignals(t)
	var a Assessment
	// Nearly every judgement gives three or four reasons (the blast radius
	// and riskLevel always among them): made once, the slice is not grown
	// three times.
	a.Reasons = make([]string, 0, 4)
	level := L0
	raise := func(l Level, why string) {
		if l > level {
			level = l
		}
		a.Reasons = append(a.Reasons, l.String()+": "+why)
	}
	floor := func(why string) {
		a.Floors = append(a.Floors, why)
		level = L5
	}
	sideEffects := map[string]bool{}

	act := s.act
	readShaped := false
	if act == actNone && s.unknownVerb != "" {
		act = actMutate
		a.Reasons = append(a.Reasons, fmt.Sprintf("%q is used as a verb the engine does not know: assumed to change state", s.unknownVerb))
	}
	if act == actNone {
		if readShapedSchema(s.params) {
			act, readShaped = actRead, true
			a.Reasons = append(a.Reasons, "no verb in the name, title or description, and every parameter only selects what to return: read")
		} else {
			act = actMutate
			a.Reasons = append(a.Reasons, "no verb in the name, title or description: assumed to change state")
		}
	}
	// Destructive options of a mode/action parameter raise the level; they
	// decide the category only of a tool whose name has no verb
	// ("git_branch" with mode delete), not of one that names its action
	// ("pg_manage_indexes" with operation drop stays a mutation).
	optionAct, worstOption := actNone, ""
	for _, v := range s.optionVerbs {
		if va := verbs[v]; va > optionAct {
			optionAct, worstOption = va, v
		}
	}
	if optionAct > act && s.actSource != "name" {
		act = optionAct
		a.Reasons = append(a.Reasons, fmt.Sprintf("an option of the tool is %q", worstOption))
	}
	if act == actDestroy && s.verb == "drop" && !s.bulk && !anyBroad(s.objects) {
		act = actDelete // "drop_index" removes one item
	}
	if act == actDelete && (s.bulk || anyBroadStrict(s.objects)) {
		act = actDestroy
	}
	savedRead := false
	if act == actExec && s.execParam == "" && s.actSource == "name" && (containsAnyMap(s.objects, savedReads) || containsAny(s.objects, "saved")) {
		act, savedRead = actRead, true
		a.Reasons = append(a.Reasons, "runs a stored query or report: a read")
	}
	if s.execParam != "" && act < actExec {
		a.Reasons = append(a.Reasons, fmt.Sprintf("parameter %q takes free-form code, commands or queries", s.execParam))
		act = actExec
	}
	// "remove_label_from_issue": detaching a relation changes the item it
	// was attached to; nothing is deleted.
	if act == actDelete && detachVerbs[s.verb] && s.actSource == "name" && !irreversibleVerbs[s.verb] &&
		(containsAny(s.tokens, "from") || (relationNouns[headNoun(s.objects)] && strings.Contains(s.desc, " from "))) {
		act = actMutate
		a.Reasons = append(a.Reasons, "detaches a relation: a change, not a delete")
	}
	if (act == actDestroy || act == actDelete) && s.verb == "drop" && (strings.Contains(s.desc, "onto") || strings.Contains(s.desc, "drag")) {
		act = actMutate // drag and drop moves data onto a page; it removes nothing
		a.Reasons = append(a.Reasons, "drops data onto a page: a change, not a removal")
	}
	if act == actDelete && (s.filterParam != "" || containsAny(s.flags, "all-namespaces") || s.scope == "cluster") {
		act = actDestroy
		a.Reasons = append(a.Reasons, "a selector or filter deletes any number of items in one call")
	}
	if act == actDelete && containsAny(s.flags, "cascade", "recursive") {
		act = actDestroy
		a.Reasons = append(a.Reasons, "a flag removes the item with everything it contains")
	}
	// A description saying the tool changes nothing names its category; it
	// is the server's word, so it lifts no floor and the level stays at
	// least L3 (below).
	readOnlyClaim := ""
	phrase := ""
	switch act {
	case actMutate:
		phrase = saysReadOnly(s.desc)
	case actExec:
		phrase = saysEnforcedReadOnly(s.desc) // a query tool is a read only where the server refuses writes
		if phrase == "" {
			phrase = s.execReadOnly // the parameter itself is declared to take only reads
		}
	}
	if phrase != "" && (act == actMutate || act == actExec) && optionActOf(s) < actDelete && !(s.actSource == "name" && irreversibleVerbs[s.verb]) && s.apiCall == "" {
		readOnlyClaim = phrase
		s.readOnlyQuery = act == actExec
		a.Reasons = append(a.Reasons, fmt.Sprintf("the description says %q: read", phrase))
	}
	switch {
	case s.apiCall == "delete":
		act = actDestroy
		a.Reasons = append(a.Reasons, "a DELETE of any path of the service's API")
	case s.apiCall == "get":
		if act < actRead || act == actUtility {
			act = actRead
		}
		a.Reasons = append(a.Reasons, "a GET of any path of the service's API")
	case s.apiCall != "" || (s.anyRequest && act >= actMutate && act < actExec):
		act = actExec
		a.Reasons = append(a.Reasons, "sends any request the caller writes to the service's API")
	}
	if s.wipes && act < actDestroy {
		act = actDestroy
		a.Reasons = append(a.Reasons, "replaces the whole contents of a container")
	}
	if act == actMutate && (s.verb == "start" || s.verb == "interact") && containsAny(s.objects, "process", "shell", "command", "script", "terminal") {
		act = actExec
	}
	// "create_call", "create_sms": creating a communication sends it.
	if act == actMutate && (s.verb == "create" || s.verb == "add" || s.verb == "start" || s.verb == "place" || s.verb == "make") && outwardNouns[headNoun(s.objects)] {
		act = actSend
		a.Reasons = append(a.Reasons, "creating a "+headNoun(s.objects)+" sends it to someone outside the system")
	}
	if act == actSend && containsAny(s.flags, "force") {
		act = actDestroy // a forced push rewrites what others already have
		a.Reasons = append(a.Reasons, "a forced send rewrites history")
	}

	for _, f := range s.flags {
		if (f == "delete" || f == "remove" || f == "drop") && act == actMutate {
			act = actDelete
			a.Reasons = append(a.Reasons, fmt.Sprintf("flag %q turns the tool into a delete", f))
		}
		if f == "destroy" && act < actDestroy {
			act = actDestroy
		}
	}

	if readOnlyClaim != "" && act == actMutate {
		act = actRead
	}
	simulatedFrom := actNone
	if (act == actMutate || act == actRead || act == actObserve) && s.execParam == "" && s.sensitive == "" && s.privilege == "" && simulation(s.desc) {
		// "Toggles simulated logging", "Demonstrates progress updates":
		// a demonstration of a feature changes and reveals nothing real.
		simulatedFrom = act
		act = actUtility
		a.Reasons = append(a.Reasons, "the description says it simulates or demonstrates: no real effect")
	}
	category := act.category()
	if readOnlyClaim != "" {
		category = "read"
	}
	// A tool named by a generic verb ("manage_folders") keeps the category
	// of its name, but its reach and riskLevel are those of its worst
	// operation.
	judged := act
	if genericVerbs[s.verb] && optionAct > act {
		judged = optionAct
	}
	blast, blastWhy := blastRadius(s, judged)
	a.Reasons = append(a.Reasons, "blast radius "+blast+": "+blastWhy)
	reversibility := "auto"

	switch act {
	case actUtility:
		raise(L1, "local computation")
	case actRead, actObserve:
		// A read is L2 on its own word; only a trusted catalogue makes it
		// L1 (below). A declared readOnlyHint does not: declarations never
		// lower a judgement.
		raise(L2, category+" only")
		if s.sensitive != "" {
			raise(L4, fmt.Sprintf("reads %s, which may hold secrets", s.sensitive))
			sideEffects["data_exfiltration"] = true
		}
		if s.revealFlag != "" {
			raise(L4, fmt.Sprintf("flag %q reveals secret values", s.revealFlag))
			sideEffects["data_exfiltration"] = true
		}
	case actMutate, actSend:
		reversibility = "manual"
		raise(L3, "changes state")
		if act == actSend {
			raise(L4, fmt.Sprintf("%q has effects outside the system that cannot be recalled", s.verb))
			reversibility = "none"
			sideEffects["external_notification"] = true
		}
		switch s.verb {
		case "deploy", "install", "upgrade", "promote", "scale", "restart", "rollout", "merge", "maintenance", "apply", "reset", "rollback":
			raise(L4, fmt.Sprintf("%q can take a service down", s.verb))
			sideEffects["downtime"] = true
		}
		if s.privilege != "" {
			raise(L5, fmt.Sprintf("changes %s: who may do what", s.privilege))
			sideEffects["privilege_change"] = true
		}
		if s.optionPrivilege != "" {
			raise(L5, fmt.Sprintf("an option changes %s: who may do what", s.optionPrivilege))
			sideEffects["privilege_change"] = true
		}
		if s.money != "" {
			switch {
			case movesMoney[s.money]:
				raise(L5, fmt.Sprintf("moves money (%s)", s.money))
			default:
				raise(L4, fmt.Sprintf("touches billing (%s)", s.money))
			}
			sideEffects["cost"] = true
		}
	case actExec:
		reversibility = "none"
		floor("runs arbitrary code, commands or queries")
		sideEffects["state_loss"] = true
	case actDelete:
		reversibility = "none"
		raise(L4, "deletes "+strings.Join(s.objects, " "))
		sideEffects["state_loss"] = true
	case actDestroy:
		reversibility = "none"
		floor("removes a broad scope: " + strings.TrimSpace(s.verb+" "+strings.Join(s.objects, " ")))
		sideEffects["state_loss"] = true
	}
	switch {
	case optionAct >= actDestroy:
		raise(L5, "an option of the tool removes a broad scope")
	case optionAct >= actDelete:
		raise(L4, "an option of the tool deletes")
	case optionAct == actExec:
		raise(L5, "an option of the tool executes")
	}
	if s.actSource == "name" && irreversibleVerbs[s.verb] {
		floor(fmt.Sprintf("irreversible verb %q in the name", s.verb))
	}
	for _, f := range s.flags {
		switch f {
		case "force", "recursive", "cascade", "prune", "purge", "hard", "overwrite", "all", "wipe", "truncate", "dangerous", "unsafe", "auto-approve", "auto-confirm", "skip-verification", "insecure":
			if act >= actMutate {
				raise(min(level+1, L5), fmt.Sprintf("flag %q widens what one call can do", f))
				reversibility = "none"
				sideEffects["state_loss"] = true
			}
		}
	}
	// What the description says of permanence matters only to a change;
	// reads are spared the scan.
	if act >= actMutate {
		s.irreversibleText = permanentText(s.desc)
		s.overwriteText = strings.Contains(s.desc, "overwrit")
	}
	if s.irreversibleText && act >= actMutate {
		reversibility = "none"
		raise(min(level+1, L5), "the description says the effect is permanent")
	}

	// Declared hints and SEP-2793 fields raise, never lower.
	declared := declaredSEP(t)
	// The seed floors a tool declared destructive unless it is also declared
	// idempotent; here no declaration can lift a floor, so a declared
	// destructive state change is floored whatever else it declares.
	if t.Declared["destructiveHint"] && t.Hint("destructiveHint") && act >= actMutate {
		floor("declared destructive")
	}
	if t.Declared["destructiveHint"] && t.Hint("destructiveHint") && act < actMutate {
		raise(L3, "the server declares the tool destructive")
		a.Disagreements = append(a.Disagreements, fmt.Sprintf("declared destructiveHint true, but the tool reads as %s", category))
	}
	if t.Hint("readOnlyHint") && act >= actMutate {
		a.Disagreements = append(a.Disagreements, fmt.Sprintf("declared readOnlyHint true, but the tool reads as %s: ignored", category))
	}
	if r, ok := levelOfRisk(declared.RiskLevel); ok && r > level {
		raise(r, "the server declares riskLevel "+declared.RiskLevel)
	}
	disagree := func(field, declaredValue, inferred string) {
		a.Disagreements = append(a.Disagreements, fmt.Sprintf("declared %s %s, inferred %s: the higher stands", field, declaredValue, inferred))
	}
	if rank, known := categoryRank[declared.Category]; known {
		switch {
		case rank > categoryRank[category]:
			a.Reasons = append(a.Reasons, "the server declares category "+declared.Category)
			category = declared.Category
		case rank < categoryRank[category]:
			disagree("category", declared.Category, category)
		}
	}
	if rank, known := blastOrder[declared.BlastRadius]; known {
		if rank < blastOrder[blast] {
			disagree("blastRadius", declared.BlastRadius, blast)
		}
		blast = widerBlast(blast, declared.BlastRadius)
	}
	if rank, known := reversibilityRank[declared.Reversibility]; known {
		switch {
		case rank > reversibilityRank[reversibility]:
			reversibility = declared.Reversibility
		case rank < reversibilityRank[reversibility]:
			disagree("reversibility", declared.Reversibility, reversibility)
		}
	}
	for _, e := range declared.SideEffects {
		sideEffects[e] = true
	}

	// A tool reaches as far as its server's identity may.
	blast, reachWhy := in.Server.Reach.widen(act, blast, sideEffects)
	a.Reasons = append(a.Reasons, reachWhy...)

	// Missing or vague metadata raises.
	if utf8.RuneCountInString(strings.TrimSpace(t.Description)) < 20 {
		raise(min(level+1, L5), "the description is missing or too short to review")
	}
	switch {
	case s.act == actNone && readShaped:
		raise(L3, "only its schema says what the tool does")
	case s.act == actNone:
		raise(L4, "nothing says what the tool does")
	}
	if readOnlyClaim != "" {
		raise(L3, "only the description says it changes nothing")
	}
	// A simulation is the server's word too: the level stays where the
	// name's action puts it.
	switch simulatedFrom {
	case actMutate:
		raise(L3, "only the description says it is a simulation")
	case actRead, actObserve:
		raise(L2, "only the description says it is a simulation")
	}
	s.savedRead = savedRead && act == actRead
	if savedRead && act == actRead {
		raise(L3, "the name says it executes; only its object says it reads")
	}
	if blast == "cluster" || blast == "organization" || blast == "global" {
		if act >= actMutate && act < actDestroy {
			raise(L4, "a mutation whose reach is "+blast)
		}
	}

	// Poisoning.
	if len(in.Findings) > 0 {
		a.Findings = in.Findings
		raisedForPath := false
		for _, f := range in.Findings {
			if f.Signal == "sensitive-path" {
				// One level however many fields name one: the signal says
				// the definition mentions such a file, not how often.
				if !raisedForPath {
					raise(min(level+1, L5), "the definition names a sensitive path")
					raisedForPath = true
				}
				continue
			}
			floor(fmt.Sprintf("poisoning: %s in %s", f.Signal, f.Field))
			break
		}
	}

	// The server's posture.
	if in.Server.Floor != "" {
		floor("server: " + in.Server.Floor)
	} else if in.Server.Level >= L4 && act >= actMutate {
		raise(min(level+1, L5), "a state-changing tool on a server whose posture is "+in.Server.Level.String())
	}
	if level == L2 && (act == actRead || act == actObserve) && in.Server.Level <= L1 && len(in.Server.Reasons) > 0 && len(a.Floors) == 0 {
		level = L1
		a.Reasons = append(a.Reasons, "L1: a read of a catalogue trusted as Vendor or Internal")
	}

	if declared.MinTrustLevel > 0 && declared.MinTrustLevel > trustFor(level) {
		a.Reasons = append(a.Reasons, fmt.Sprintf("the server declares minTrustLevel %d", declared.MinTrustLevel))
	}
	// Declarations below the final judgement are reported, never applied.
	if r, ok := levelOfRisk(declared.RiskLevel); ok && r < level && RiskLevelOf(level) != declared.RiskLevel {
		disagree("riskLevel", declared.RiskLevel, RiskLevelOf(level))
	}
	if declared.MinTrustLevel > 0 && declared.MinTrustLevel < trustFor(level) {
		disagree("minTrustLevel", fmt.Sprint(declared.MinTrustLevel), fmt.Sprint(trustFor(level)))
	}
	approval := approvalFor(level)
	if rank, known := approvalRank[declared.ApprovalRecommendation]; known {
		switch {
		case rank > approvalRank[approval]:
			approval = declared.ApprovalRecommendation
		case rank < approvalRank[approval]:
			disagree("approvalRecommendation", declared.ApprovalRecommendation, approval)
		}
	}
	// riskLevel says what the tool does (severity); the level keeps its
	// fail-closed floors and is raised to the band of a high or critical
	// severity, so a tool judged grave is never shown as if it were not.
	sev, sevWhy := severity(s, judged, blast)
	if judged != act && (judged == actDelete || judged == actDestroy) && sev == "critical" && s.optionPrivilege == "" && s.optionContainer == "" {
		// An operation that deletes what the call names is the delete of
		// items; one that removes a whole container (a table, a database)
		// is broad destruction and stays critical.
		sev, sevWhy = "high", "one of its operations removes what it names"
	}
	if judged != act {
		// The worst operation never hides what the tool does on its own:
		// an execution stays critical whatever its options remove.
		if own, ownWhy := severity(s, act, blast); severityRank[own] > severityRank[sev] {
			sev, sevWhy = own, ownWhy
		}
	}
	if r, ok := levelOfRisk(declared.RiskLevel); ok && severityRank[declared.RiskLevel] > severityRank[sev] {
		sev, sevWhy, _ = declared.RiskLevel, "the server declares riskLevel "+declared.RiskLevel, r
	}
	a.Reasons = append(a.Reasons, "riskLevel "+sev+": "+sevWhy)
	if r, _ := levelOfRisk(sev); r >= L4 && r > level {
		raise(r, "riskLevel "+sev+": "+sevWhy)
	}
	a.Level = level
	a.EffectiveLevel = level
	if in.ApprovalGated && len(in.Findings) == 0 && level > L0 {
		a.EffectiveLevel = level - 1
	}
	a.SEP = SEP{
		RiskLevel:              sev,
		Category:               category,
		BlastRadius:            blast,
		Reversibility:          reversibility,
		SideEffects:            tooldef.SortedKeys(sideEffects),
		ApprovalRecommendation: approval,
		MinTrustLevel:          max(trustFor(level), declared.MinTrustLevel),
	}
	if a.SEP.MinTrustLevel > 5 {
		a.SEP.MinTrustLevel = 5
	}
	return a
}

var categoryRank = map[string]int{"read": 1, "observe": 1, "utility": 1, "mutate": 2, "delete": 3, "destroy": 4}
var reversibilityRank = map[string]int{"auto": 0, "manual": 1, "none": 2}
var approvalRank = map[string]int{"none": 0, "single": 1, "multi": 2}

func approvalFor(l Level) string {
	switch {
	case l >= L5:
		return "multi"
	case l >= L3:
		return "single"
	}
	return "none"
}

func trustFor(l Level) int {
	switch {
	case l <= L1:
		return 1
	case l == L2:
		return 2
	}
	return int(l)
}

// systemScopes are words naming a system whose every state change reaches
// the scope given: a kubectl or helm action reaches the cluster, a git or
// database action the repository or database.
var systemScopes = map[string]string{
	"kubectl": "cluster", "k8s": "cluster", "kubernetes": "cluster", "helm": "cluster", "node": "cluster",
	"git": "namespace", "pg": "namespace", "postgres": "namespace", "postgresql": "namespace", "mysql": "namespace",
	"sql": "namespace", "mongo": "namespace", "mongodb": "namespace", "redis": "namespace", "db": "namespace",
	"database": "namespace", "sqlite": "namespace",
}

// sessionVerbs act inside a logged-in browser session, which they reach as
// a whole: what one click does depends on every page the session can open.
var sessionVerbs = map[string]bool{"click": true, "type": true, "press": true, "navigate": true, "drag": true,
	"drop": true, "upload": true, "dialog": true, "tabs": true, "route": true, "unroute": true, "resume": true, "storage": true}

// managerOperations is how many distinct kinds of change a tool's
// operations must offer for it to manage a collection rather than edit one
// item: "create, update, rename, delete" is a manager; "add, update" of a
// comment is an editor.
const managerOperations = 4

// serviceVerbs change a running service as a whole.
var serviceVerbs = map[string]bool{"deploy": true, "scale": true, "restart": true, "promote": true,
	"maintenance": true, "upgrade": true}

// memberNouns are the people and groups of an organisation.
var memberNouns = map[string]bool{"users": true, "members": true, "teams": true, "orgs": true,
	"organizations": true, "projects": true, "workspaces": true}

// blastRadius decides the widest scope one call can reach, and why. The
// rules are tried in order; the first that applies decides.
func blastRadius(s signals, act action) (string, string) {
	head := headNoun(s.objects)
	rawHead := ""
	for i := len(s.tokens) - 1; i >= 0; i-- {
		if _, isVerb := verbs[s.tokens[i]]; !isVerb {
			rawHead = s.tokens[i]
			break
		}
	}
	switch {
	case s.apiCall != "" || (s.anyRequest && act == actExec):
		return "organization", "an arbitrary API call reaches everything the account can"
	case containsAny(s.flags, "all-namespaces") || s.scope == "cluster":
		return "cluster", "a parameter reaches every namespace"
	case act == actExec && containsAny(s.tokens, "kubectl", "k8s", "kubernetes", "helm"):
		return "cluster", "runs arbitrary changes against a cluster"
	case act == actExec:
		if containsAny(append(s.objects, strings.ToLower(s.execParam), s.verb), "command", "cmd", "shell", "process", "unsafe", "exec", "bash", "terminal", "generic") {
			return "cluster", "runs commands on the host"
		}
		return "namespace", "runs code or queries in one system"
	case act == actMutate && (strings.HasSuffix(s.privilege, "(an authentication client)") || s.privilege == "grant"):
		return "organization", "changes how everyone signs in to a tenant"
	case s.privilege != "" && act == actMutate && privilegeReach(s):
		return "cluster", "changes who may do what"
	}
	if act >= actMutate {
		for _, tok := range s.tokens {
			if sc, ok := systemScopes[tok]; ok {
				return sc, fmt.Sprintf("a %s action reaches the whole %s", tok, map[string]string{"cluster": "cluster", "namespace": "repository or database"}[sc])
			}
		}
	}
	if containsAny(s.tokens, "many", "multiple", "bulk", "batch", "all") {
		return "namespace", "acts on many items at once"
	}
	if act != actUtility && recordNouns[singular(rawHead)] && rawHead != singular(rawHead) {
		return "namespace", "reads or writes any records of a collection"
	}
	if act >= actMutate && act <= actDelete {
		switch head {
		case "cluster":
			if !containsAny(s.tokens, "free") {
				return "cluster", "acts on a whole cluster"
			}
		case "workspace", "repository", "repo", "project", "app", "collection", "dataset":
			return "namespace", "acts on a whole " + head
		case "account", "subaccount", "tenant":
			return "cluster", "changes a whole account"
		}
	}
	switch act {
	case actRead, actObserve:
		if stateHeads[head] {
			return "item", "reports the state of one thing"
		}
		if scopeWords[head] == "namespace" && rawHead == head && !recordVerbs[s.verb] && s.verb != "" && s.verb != "list" && s.verb != "search" {
			// "analyze_repo", "scan_project": a read of a whole container,
			// not of its record.
			return "namespace", fmt.Sprintf("%q reads a whole %s", s.verb, head)
		}
		if memberNouns[rawHead] && namesContainer(s.objects, head) {
			return "namespace", "lists the " + rawHead + " of one container"
		}
		if memberNouns[rawHead] {
			return "organization", "lists the " + rawHead + " of an organization"
		}
		switch head {
		case "documentation", "doc", "knowledge", "tool":
			return "item", "searches documentation"
		}
		if s.verb == "search" && webSearch(s.desc) {
			return "item", "a public web search exposes nothing of the caller's"
		}
		if (s.verb == "search" || s.verb == "list") && !strings.Contains(s.desc, "private") {
			if mentionsPublicService(s.desc) {
				return "global", "searches a public service as a whole"
			}
		}
		listVerb := s.verb == "list" || s.verb == "search" || s.verb == "find" || s.verb == "tree" || (len(s.tokens) > 1 && s.tokens[len(s.tokens)-1] == "list" && s.verb == "get") ||
			// "get_initiatives: Get a list of all initiatives": the prose
			// says the read enumerates.
			describesListing(s.desc) ||
			// "getPullRequests(repo)": a fetch of a plural in a named
			// container is a listing of it.
			(recordVerbs[s.verb] && pluralNoun(rawHead) && s.requiredContainer)
		if !listVerb && s.optionList && s.containerScope != "organization" && head != "log" && !s.requiredItem {
			return "namespace", "one of its operations lists what a container holds"
		}
		if listVerb {
			switch {
			case s.requiredItem && pluralNoun(rawHead) && !infraNouns[head] && scopeWords[head] == "":
				return "item", "lists the parts of one item"
			case !s.requiredContainer && infraNouns[head]:
				return "cluster", "lists account-wide infrastructure"
			case !s.requiredContainer && accountWide(s.desc):
				return "cluster", "lists what the whole account owns"
			case !s.requiredContainer && workspaceWide(s.desc):
				return "organization", "reads across a whole workspace"
			case !s.requiredContainer && s.containerScope == "" && (workNouns[head] || workNouns[rawHead]):
				return "organization", "lists what a whole workspace holds"
			case s.containerScope == "organization":
				return "organization", "enumerates an organization"
			case s.containerScope == "cluster":
				return "cluster", "enumerates a whole account or cluster"
			case s.requiredContainer:
				return "namespace", "enumerates one container"
			case s.propCount > 0:
				return "organization", "enumerates without naming a container"
			}
			return "namespace", "enumerates what the server holds"
		}
		if (head == "log" || head == "history") && (containsAnyMap(s.objects, runNouns) || s.requiredItem) {
			return "item", "reads the log of one run"
		}
		if head == "log" || head == "history" {
			return "namespace", "reads the logs of a whole service"
		}
		if s.filterParam != "" && s.verb != "get" {
			return "namespace", fmt.Sprintf("parameter %q selects any records of a collection", s.filterParam)
		}
		for _, tok := range s.tokens {
			if sc, ok := systemScopes[tok]; ok && sc == "namespace" {
				if act == actRead && tok == s.tokens[len(s.tokens)-1] && s.actSource == "name" && len(s.tokens) > 1 && recordVerbs[s.verb] {
					// "get_database": the record of the database, not
					// what it holds.
					return "item", "reads the record of one " + tok
				}
				return sc, "inspects a whole repository or database"
			}
		}
	case actMutate, actSend, actDelete:
		if len(s.optionMutations) >= managerOperations {
			return "namespace", "its operations create, change and remove what a collection holds"
		}
		if serviceVerbs[s.verb] {
			return "namespace", fmt.Sprintf("%q changes a whole service", s.verb)
		}
		if s.verb == "move" {
			return "namespace", "moves an item within a tree"
		}
		if wholeCopyVerbs[s.verb] {
			return "namespace", fmt.Sprintf("%q copies a whole container", s.verb)
		}
		for _, tok := range s.tokens {
			if sessionVerbs[tok] && inBrowser(s) {
				return "namespace", "acts in a logged-in session"
			}
		}
		if s.public != "" {
			return "global", s.public
		}
		if (s.verb == "push" || s.verb == "publish" || s.verb == "release") && containsAnyMap(s.objects, registryNouns) {
			return "global", "a registry serves it to everyone who pulls it"
		}
		if act == actSend && containsAnyMap(s.objects, publicNetworkNouns) {
			return "global", "reaches a person anywhere, outside the service"
		}
		if act == actSend && s.verb == "publish" {
			return "global", "publishing makes it visible to everyone"
		}
		if act == actSend {
			return "namespace", "reaches everyone who can see the destination"
		}
		if act == actDelete && s.optionContainer != "" {
			return "namespace", "an operation removes a whole " + s.optionContainer
		}
		if act == actDelete && rawHead != head && singular(rawHead) == head {
			return "namespace", "deletes several " + rawHead
		}
		if s.verb == "merge" {
			return "namespace", "a merge changes the shared history of its container"
		}
		if containsAnyMap(s.objects, settingNouns) {
			return "namespace", "configuration reaches everything in its container"
		}
	case actDestroy:
		return "namespace", "removes a whole collection"
	}
	return "item", "acts on one item"
}

// namesContainer says a name names a container narrower than an
// organisation ("project_members", "repo_collaborators"): the members it
// lists are that container's.
func namesContainer(objects []string, head string) bool {
	for _, o := range objects {
		if o != head && scopeWords[o] == "namespace" {
			return true
		}
	}
	return false
}

// pluralNoun says a name's last word names several things ("pullrequests",
// "subscriptions"), not a word that only ends in s ("status", "settings").
func pluralNoun(w string) bool {
	return singular(w) != w && !notPlural[w]
}

// notPlural end in s without naming several things.
var notPlural = map[string]bool{"status": true, "settings": true, "details": true, "analytics": true,
	"access": true, "contents": true, "stats": true, "metrics": true, "news": true, "series": true,
	"address": true, "process": true, "alias": true, "canvas": true, "insights": true,
	"permissions": true, "credentials": true}

// stateHeads are what a health or status check answers with: a state,
// not the data of what it checks.
var stateHeads = map[string]bool{"health": true, "status": true, "ping": true, "healthcheck": true, "uptime": true}

// recordVerbs fetch one object's record, not what it holds.
var recordVerbs = map[string]bool{"get": true, "retrieve": true, "describe": true, "fetch": true, "show": true,
	"view": true}

// infraNouns are account-level infrastructure: listing them without
// naming a container enumerates everything the account runs.
var infraNouns = map[string]bool{"namespace": true, "node": true, "cluster": true, "server": true, "instance": true,
	"database": true, "bucket": true, "dataset": true, "store": true, "mount": true,
	"service": true, "region": true, "droplet": true, "volume": true, "domain": true, "deployment": true,
	"function": true, "site": true, "environment": true, "machine": true, "vm": true, "container": true,
	"pod": true, "resource": true, "index": true, "queue": true, "key": true, "mcp": false}

// workNouns are what the people of a workspace write and share: listing
// them without naming a container enumerates the workspace.
var workNouns = map[string]bool{"issue": true, "channel": true, "message": true, "page": true, "document": true,
	"file": true, "comment": true, "ticket": true, "task": true, "conversation": true, "label": true, "cycle": true,
	"board": true, "workflow": true, "dashboard": true, "card": true, "question": true}

// detachVerbs remove a relation when they take something "from" another.
var detachVerbs = map[string]bool{"remove": true, "unlink": true, "detach": true, "unassign": true, "rm": true}

// relationNouns are links between items: removing one from an item
// changes the item.
var relationNouns = map[string]bool{"label": true, "tag": true, "assignee": true, "reviewer": true, "member": true,
	"user": true, "relation": true, "link": true, "reaction": true, "watcher": true, "subscriber": true,
	"dependency": true, "parent": true, "group": true, "role": true, "collaborator": true, "participant": true}

// optionActOf is the worst action among a tool's options.
func optionActOf(s signals) action {
	worst := actNone
	for _, v := range s.optionVerbs {
		if verbs[v] > worst {
			worst = verbs[v]
		}
	}
	return worst
}

// recordNouns are the rows of a table or collection: a tool on several of
// them reaches the collection.
var recordNouns = map[string]bool{"record": true, "row": true, "document": false, "entry": false, "vector": true,
	"point": true, "item": true}

// outwardNouns are communications that reach a person when created.
var outwardNouns = map[string]bool{"call": true, "sms": true, "mms": true, "fax": true, "email": true, "message": true,
	"notification": true, "voicemail": true, "invitation": true}

// publicNetworkNouns are communications carried by a public network (the
// telephone network, email) to anyone with a number or an address, not
// inside one workspace.
var publicNetworkNouns = map[string]bool{"call": true, "sms": true, "mms": true, "fax": true, "email": true,
	"voicemail": true}

// publicEffect says why a change is seen by anyone on the internet: a DNS
// record is public by nature; a name or an opening that makes something
// public, or shares it with anyone who has the link, exposes it.
func publicEffect(nameTokens []string, opening string) string {
	for _, tok := range nameTokens {
		switch tok {
		case "dns", "nameserver", "nameservers":
			return "public DNS reaches everyone who resolves the name"
		case "public", "publicly":
			return "it makes something public"
		}
	}
	for _, p := range []string{"anyone with the link", "anyone who has the link", "to public", "publicly accessible", "publicly visible", "make it public", "makes it public", "public link", "public url"} {
		if i := strings.Index(opening, p); i >= 0 && !negatedBefore(opening, i) {
			return "it makes something reachable by anyone: " + p
		}
	}
	return ""
}

// negatedBefore says a phrase at i is denied by the words just before it
// ("does not make it public", "never shared with anyone with the link").
func negatedBefore(text string, i int) bool {
	before := text[max(0, i-12):i]
	return strings.Contains(before, "not ") || strings.Contains(before, "never ") || strings.Contains(before, "n't ") || strings.Contains(before, "no ")
}

// registryNouns are artifacts a registry distributes: pushing one makes it
// available to everyone who pulls from that registry.
var registryNouns = map[string]bool{"image": true, "package": true, "chart": true, "crate": true, "gem": true}

// wholeCopyVerbs copy a container with everything in it.
var wholeCopyVerbs = map[string]bool{"clone": true, "export": true, "backup": true, "restore": true, "import": true}

// simulation says a description calls the tool a demonstration or a
// simulation of a feature, not the real thing: it opens with "demonstrates"
// or "simulates", or speaks of something "simulated".
func simulation(desc string) bool {
	return strings.HasPrefix(desc, "demonstrates") || strings.HasPrefix(desc, "simulates") || strings.Contains(desc, "simulated")
}

// permanentText says a description calls the effect permanent. Each phrase
// holds one of four stems, which are looked for first.
func permanentText(desc string) bool {
	if !strings.Contains(desc, "undone") && !strings.Contains(desc, "recover") && !strings.Contains(desc, "irreversibl") && !strings.Contains(desc, "permanently") {
		return false
	}
	for _, phrase := range []string{"cannot be undone", "irreversibl", "permanently", "can't be undone", "not be recovered", "unrecoverable"} {
		if strings.Contains(desc, phrase) {
			return true
		}
	}
	return false
}

// settingNouns are configuration whose change reaches everything in the
// container it configures: a variable, a schedule, an index, a setting.
var settingNouns = map[string]bool{"variable": true, "var": true, "env": true, "config": true,
	"configuration": true, "setting": true, "settings": true, "schedule": true, "maintenance": true}

// filterParams take a free-form filter or query that selects records.
var filterParams = map[string]bool{"filter": true, "filters": true, "where": true,
	"labelselector": true, "jql": true, "cql": true, "soql": true}

// strongMutations are verbs that stay the action even when a read verb ends
// the name ("create_access_list" creates).
var strongMutations = map[string]bool{"create": true, "add": true, "update": true, "set": true, "put": true,
	"patch": true, "apply": true, "edit": true, "write": true, "insert": true, "upsert": true, "modify": true}

// headNoun is the last noun of a name, skipping words that only qualify
// what is returned.
func headNoun(objects []string) string {
	// "list_directory_with_sizes": what follows "with" qualifies the head.
	for i, o := range objects {
		if (o == "with" || o == "using" || o == "via") && i > 0 {
			objects = objects[:i]
			break
		}
	}
	for i := len(objects) - 1; i >= 0; i-- {
		switch objects[i] {
		case "detail", "details", "info", "list", "value", "content", "contents", "data", "by", "id", "with", "for", "from", "to", "a", "an", "the", "of", "all", "multiple":
			continue
		}
		return objects[i]
	}
	return ""
}

func containsAny(list []string, want ...string) bool {
	for _, l := range list {
		for _, w := range want {
			if l == w {
				return true
			}
		}
	}
	return false
}

func anyBroad(objects []string) bool {
	for _, o := range objects {
		if broadNouns[o] {
			return true
		}
	}
	return false
}

// anyBroadStrict is anyBroad without the nouns whose deletion reviewers
// still count as removing one item (a project, a workspace, an app).
func anyBroadStrict(objects []string) bool {
	for _, o := range objects {
		switch o {
		case "namespace", "cluster", "database", "db", "repository", "repo", "bucket", "table", "collection", "organization", "org", "account", "all", "many", "bulk", "everything", "tenant":
			return true
		}
	}
	return false
}

// declaredSEP reads SEP-2793 fields a server put in its annotations.
func declaredSEP(t *tooldef.Tool) SEP {
	var d SEP
	str := func(k string) string { v, _ := t.Annotations[k].(string); return v }
	d.RiskLevel, d.Category, d.BlastRadius, d.Reversibility, d.ApprovalRecommendation =
		str("riskLevel"), str("category"), str("blastRadius"), str("reversibility"), str("approvalRecommendation")
	if se, ok := t.Annotations["sideEffects"].([]any); ok {
		for _, e := range se {
			if s, ok := e.(string); ok && len(s) <= 64 {
				d.SideEffects = append(d.SideEffects, s)
			}
		}
	}
	if n, ok := t.Annotations["minTrustLevel"].(json.Number); ok {
		if i, err := n.Int64(); err == nil && i >= 1 && i <= 5 {
			d.MinTrustLevel = int(i)
		}
	}
	return d
}
