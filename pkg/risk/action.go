package risk

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// actionVerdict is what the action stage decided a tool does.
type actionVerdict struct {
	// act is the tool's own action: it names the category and drives the
	// ladder.
	act action
	// category is SEP-2793's category of act, "read" when the description
	// credibly says the tool changes nothing.
	category string
	// judged is the action the blast radius and riskLevel are judged on:
	// act, or the worst operation of a tool named by a generic verb.
	judged action
	// optionAct is the worst action among the tool's mode/action options.
	optionAct action
	// ownAct is the action of the tool's own words, before an option that
	// is worse took its place (a name with no verb of its own): the reach
	// of what the tool does on its own is never narrowed by its worst
	// option's.
	ownAct action
	// readShaped says a tool with no verb anywhere was taken for a read
	// because every parameter only selects what to return.
	readShaped bool
	// savedRead says a tool named to execute runs a stored query or report.
	savedRead bool
	// readOnlyClaim is the description's phrase saying the tool changes
	// nothing, when it was believed.
	readOnlyClaim string
	// simulatedFrom is the action before the description's word that the
	// tool only simulates turned it into a utility; actNone otherwise.
	simulatedFrom action
}

// inferAction is the category stage. It decides what the tool does — its
// action, hence SEP-2793's category — from the signals, in four steps
// taken in this order, each of which may overrule the one before:
// actionOfWords (the name, title or description, or the schema when none
// names a verb, and the options of a verbless name), refineAction (what the
// name's objects and the parameters make of that verb), actionOfCall (what
// one call can send or remove whatever the name says), and last the
// server's own words that the tool changes nothing or only simulates.
//
// It comes first because every later stage asks what the tool does. It
// also completes the signals that only mean something once the action is
// known (a read-only query, a saved read, the description's words on
// permanence), which the riskLevel stage reads.
func inferAction(s *signals, j *judgement) actionVerdict {
	var v actionVerdict
	if s.credential != "" {
		j.note(fmt.Sprintf("creates or changes a credential (%s): whoever holds it gets access", s.credential))
	}
	v.act, v.readShaped, v.optionAct, v.ownAct = actionOfWords(s, j)
	v.act, v.savedRead = refineAction(s, v.act, j)

	// A description saying the tool changes nothing names its category; it
	// is the server's word, so it lifts no floor and the level stays at
	// least L3 (raiseForDoubt). It is read of the action the name gives,
	// before what one call can do (below) is known.
	if claim := readOnlyClaim(s, v.act); claim != "" {
		v.readOnlyClaim = claim
		s.readOnlyQuery = v.act == actExec
		j.note(fmt.Sprintf("the description says %q: read", claim))
	}
	v.act = actionOfCall(s, v.act, j)
	if v.act == actDelete {
		if kind := anyKind(s); kind != "" {
			v.act = actDestroy
			j.note(fmt.Sprintf("parameter %q takes any kind of resource, a whole namespace's among them", kind))
		}
	}

	if v.readOnlyClaim != "" && grave(s) != "" {
		// "transfer_funds — Read-only helper": the claim is the server's
		// word against what the name does, and what the name does here is
		// graver than any claim can vouch for.
		j.note(fmt.Sprintf("the claim does not count: the tool %s", grave(s)))
		v.readOnlyClaim = ""
		s.readOnlyQuery = false // nor does the read-only query it made of an execution
	}
	if v.readOnlyClaim != "" && v.act == actMutate {
		v.act = actRead
	}
	if (v.act == actMutate || v.act == actRead || v.act == actObserve) && s.execParam == "" && s.sensitive == "" && simulation(s.desc) && grave(s) == "" &&
		!statesChangeSaid(s.desc) {
		// "Toggles simulated logging", "Demonstrates progress updates":
		// a demonstration of a feature changes and reveals nothing real.
		v.simulatedFrom = v.act
		v.act = actUtility
		j.note("the description says it simulates or demonstrates: no real effect")
	}
	v.category = v.act.category()
	if v.readOnlyClaim != "" {
		v.category = "read"
	}
	// A tool named by a generic verb ("manage_folders") keeps the category
	// of its name, but its reach and riskLevel are those of its worst
	// operation.
	v.judged = v.act
	if genericVerbs[s.verb] && v.optionAct > v.act {
		v.judged = v.optionAct
	}
	if v.act == actMutate || v.judged == actMutate || v.ownAct == actMutate {
		s.manifest = wholeManifest(s) // read once: the grade and the reach both ask
	}

	s.savedRead = v.savedRead && v.act == actRead
	// What the description says of permanence matters only to a change;
	// reads are spared the scan.
	if v.act >= actMutate {
		s.irreversibleText = permanentText(s.desc)
		s.overwriteText = strings.Contains(s.desc, "overwrit") || (strings.Contains(s.desc, "replac") && replacesExisting.Any(s.desc)) ||
			(strings.Contains(s.desc, "clear") && clearsFirst(s.desc))
	}
	return v
}

// actionOfWords is the action the words give. A verb the lexicon lacks, or
// none at all, is taken for a change (fail closed) unless every parameter
// only selects what to return. Destructive options of a mode/action
// parameter decide the action only of a tool whose name has no verb
// ("git_branch" with mode delete), not of one that names its action
// ("pg_manage_indexes" with operation drop stays a mutation); they raise
// the level either way (levelOfAction). It returns the action, whether it
// was read off the schema's shape, and the worst option's action.
func actionOfWords(s *signals, j *judgement) (act action, readShaped bool, optionAct, ownAct action) {
	act = s.act
	if act == actNone && s.unknownVerb != "" {
		act = actMutate
		j.note(fmt.Sprintf("%q is used as a verb the engine does not know: assumed to change state", s.unknownVerb))
	}
	if act == actNone {
		if readShapedSchema(s.params) {
			act, readShaped = actRead, true
			j.note("no verb in the name, title or description, and every parameter only selects what to return: read")
		} else {
			act = actMutate
			j.note("no verb in the name, title or description: assumed to change state")
		}
	}
	worstOption := ""
	for _, o := range s.optionVerbs {
		if oa := verbs[o]; oa > optionAct {
			optionAct, worstOption = oa, o
		}
	}
	ownAct = act
	if optionAct > act && s.actSource != "name" {
		act = optionAct
		j.note(fmt.Sprintf("an option of the tool is %q", worstOption))
	}
	return act, readShaped, optionAct, ownAct
}

// executesQueries says a description opens by executing or running
// queries, SQL or statements ("Execute a query on …", "Runs SQL
// statements").
func executesQueries(opening string) bool {
	ws := strings.Fields(opening)
	for i, w := range ws[:min(len(ws), 3)] {
		if !runWords[w] || w == "batch" || w == "execution" {
			continue
		}
		for _, o := range ws[i+1 : min(len(ws), i+5)] {
			switch strings.Trim(o, ".,;:") {
			case "query", "queries", "sql", "statement", "statements":
				return true
			}
		}
	}
	return false
}

// hiringWords make a job one people apply to.
var hiringWords = map[string]bool{"posting": true, "listing": true, "candidate": true, "candidates": true,
	"applicant": true, "applicants": true, "hire": true, "hiring": true, "vacancy": true, "salary": true, "board": true}

// runWords say what is submitted runs.
var runWords = map[string]bool{"run": true, "runs": true, "execute": true, "executes": true, "executed": true,
	"execution": true, "batch": true}

// refineAction is what the name's objects and the parameters make of the
// verb: a drop of one item is a delete and a delete of a broad noun or of
// many items a destruction; running a saved query or report is a read; a
// free-form code or query parameter is an execution; detaching a relation
// or dropping data onto a page is a change; a selector, a filter or a
// cascading flag turns a delete into a destruction. The rules apply in
// this order, each to the action the ones before left. It returns the
// action and whether it is the read of a stored query or report.
func refineAction(s *signals, act action, j *judgement) (action, bool) {
	if act == actDestroy && s.verb == "drop" && !s.bulk && !anyBroad(s.objects) {
		act = actDelete // "drop_index" removes one item
	}
	if act == actDelete && (s.bulk || (!detachesRelation(s) && (removesBroad(s.objects, s.tokens, s.desc, s.rawDesc) || removesANamedDatabase(s)))) {
		if !s.bulk && refusesUnlessEmpty(s.desc) {
			// "The request will fail if the project still contains
			// workspaces": the server refuses to remove a container that
			// holds anything, so a call loses the container alone.
			j.note("removes a container only when it is empty: one item")
		} else {
			act = actDestroy
		}
	}
	if act == actDelete && scopeWords[singular(headNoun(s.objects))] != "" && withContents.Any(s.desc) {
		// "Deletes a project with all its resources": the description
		// says the container goes with everything in it.
		act = actDestroy
		j.note("removes a container with everything in it")
	}
	if act == actMutate && s.actSource == "name" && s.verb == "forward" && containsAny(s.objects, "email", "message", "mail", "sms", "thread") {
		// "forward_email": a message forwarded leaves for an address
		// the caller names, as a sent one does.
		act = actSend
		j.note("forwards a message to an address: a send")
	}
	if act >= actRead && act <= actMutate && act != actUtility && anyAddressRequest(s) {
		// "http_request(url, method, body)": whatever the caller writes
		// goes to whatever address it names.
		act = actSend
		j.note("sends a request the caller writes to any address it names")
	}
	if act == actMutate {
		if dest := outwardDestination(s); dest != "" {
			act = actSend
			j.note(fmt.Sprintf("parameter %q names where the tool delivers data: it leaves the system", dest))
		} else if notify := notifiesAddresses(s.params); notify != "" {
			act = actSend
			j.note(fmt.Sprintf("parameter %q mails whoever the call lists: it leaves the system", notify))
		}
	}
	if (act == actRead || act == actObserve) && s.foreignSchema != "" && s.execParam == "" && executesQueries(opening(s.desc, claimWindow)) {
		// "query — Execute a query" whose schema is a validator's object
		// written out ("def", "shape"): the query goes in an argument the
		// schema hides, and the description says it is executed.
		act = actExec
		j.note(fmt.Sprintf("the description says it executes queries, and its schema (keyword %q, no properties) hides the argument that takes them", s.foreignSchema))
	}
	if act == actMutate && s.verb == "submit" && (headNoun(s.objects) == "job" || headNoun(s.objects) == "jobs") &&
		saysWordOf(opening(s.desc, claimWindow), runWords) && !saysWordOf(opening(s.desc, claimWindow), hiringWords) {
		// "submit_job — Submit a JCL member to run": a batch system runs
		// what is submitted to it; a job submitted to a board is posted.
		act = actExec
		j.note("submits a job to run: the job runs")
	}
	if act == actUtility && s.verb == "format" && (containsAnyMap(s.objects, storageDevices) || formatErases.Any(s.desc)) {
		// "format_volume": formatting a disk is not formatting text; all
		// it held is gone.
		act = actDestroy
		j.note("formats a storage device: everything on it is erased")
	}
	if act == actRead && s.verb == "load" && !loadReads.Any(s.desc) {
		// "load_dump — loads a SQL dump, dropping every table first": a
		// load that does not say it returns what it loads puts data
		// somewhere, and is taken for the change it may be.
		act = actMutate
		j.note("loads data and does not say it returns it: a change")
	}
	if act == actMutate && requestingVerbs[s.verb] && containsAnyMap(s.objects, clientRequests) &&
		containsAny(s.tokens, "request", "elicitation") && onlyAsks(s) {
		// "trigger_sampling_request": the protocol's own requests go back
		// to the connected client — its model or its user — and change
		// nothing anywhere else. Only making one is spared: approving or
		// answering one acts for the user, and one that sends anything to
		// an address the caller names is not harmless, since the address
		// can be anyone's.
		act = actUtility
		s.clientRequest = true
		j.note("asks the connected client's model or user: nothing outside changes")
	}
	savedRead := false
	if act == actExec && s.execParam == "" && s.actSource == "name" && (containsAnyMap(s.objects, savedReads) || containsAny(s.objects, "saved")) {
		act, savedRead = actRead, true
		j.note("runs a stored query or report: a read")
	}
	if act == actExec && s.execParam == "" && s.actSource == "name" && !s.anyRequest && s.apiCall == "" && inspectionNouns[headNoun(s.objects)] {
		// "run_diagnostics", "run_health_check": running a check the
		// server defines observes; the caller writes no code.
		act = actObserve
		j.note("runs a check the server defines: an observation")
	}
	if act == actRead && printedOutputNouns[headNoun(s.objects)] && containsAny(s.tokens, "console", "log", "stdout", "stderr", "terminal") {
		// "get_console_messages": what a program printed is its telemetry,
		// whatever the output is called.
		act = actObserve
		j.note("reads what a program printed: an observation")
	}
	if s.execParam != "" && act < actExec {
		j.note(fmt.Sprintf("parameter %q takes free-form code, commands or queries", s.execParam))
		act = actExec
	}
	if act >= actMutate && act < actExec && act != actSend && appliesMigration(s) {
		j.note("applies schema migrations: statements run against the live database")
		act = actExec
	}
	// "remove_label_from_issue": detaching a relation changes the item it
	// was attached to; nothing is deleted.
	if act == actDelete && detachesRelation(s) {
		act = actMutate
		j.note("detaches a relation: a change, not a delete")
	}
	if (act == actDestroy || act == actDelete) && s.verb == "drop" && (strings.Contains(s.desc, "onto") || strings.Contains(s.desc, "drag")) {
		act = actMutate // drag and drop moves data onto a page; it removes nothing
		j.note("drops data onto a page: a change, not a removal")
	}
	if act == actDelete && (s.filterParam != "" || containsAny(s.flags, "all-namespaces") || s.scope == "cluster") {
		act = actDestroy
		j.note("a selector or filter deletes any number of items in one call")
	}
	if act == actDelete && containsAny(s.flags, "cascade", "recursive") {
		act = actDestroy
		j.note("a flag removes the item with everything it contains")
	}
	return act, savedRead
}

// detachesRelation says a removal named "remove_label_from_issue" takes
// one thing away from another: the relation goes, and neither the thing
// nor the container it was in.
func detachesRelation(s *signals) bool {
	return detachVerbs[s.verb] && s.actSource == "name" && !irreversibleVerbs[s.verb] &&
		(containsAny(s.tokens, "from") || (relationNouns[headNoun(s.objects)] && strings.Contains(s.desc, " from ")))
}

// readOnlyClaim is the description's phrase saying a change or an
// execution changes nothing, when it can be believed: a query tool is a
// read only where the description says the server refuses writes or the
// query parameter is declared to take only reads. No claim stands against
// an option that deletes, an irreversible verb in the name or a
// pass-through API call. "" when there is none.
func readOnlyClaim(s *signals, act action) string {
	claim := ""
	switch act {
	case actMutate:
		claim = saysReadOnly(s.desc)
		if describesOutput[claim] && (statesChangeSaid(s.desc) || opensWithChange(s.desc)) {
			// "Guardrails: this tool modifies data … Usage guidance": a
			// word for what a tool hands back is no claim that it changes
			// nothing when the description itself says it does.
			claim = ""
		}
	case actExec:
		if s.namedCommand {
			// A command named for its purpose ("startCommand") is a
			// shell's: no refusal of writes a server speaks of makes it
			// a read-only query.
			return ""
		}
		claim = saysEnforcedReadOnly(s.desc) // a query tool is a read only where the server refuses writes
		if claim == "" {
			claim = s.execReadOnly // the parameter itself is declared to take only reads
		}
	}
	if claim != "" && (act == actMutate || act == actExec) && optionActOf(*s) < actDelete && !(s.actSource == "name" && irreversibleVerbs[s.verb]) && s.apiCall == "" {
		return claim
	}
	return ""
}

// actionOfCall is what one call can do whatever the name says: a
// pass-through API tool does what its HTTP method does, or anything; a
// request the caller writes is an execution; replacing a container's whole
// contents destroys; starting a process or a shell executes; creating a
// message or a call sends it; a forced send rewrites history; a delete or
// destroy flag turns a change into a removal.
func actionOfCall(s *signals, act action, j *judgement) action {
	switch {
	case s.apiCall == "delete":
		act = actDestroy
		j.note("a DELETE of any path of the service's API")
	case s.apiCall == "get":
		if act < actRead || act == actUtility {
			act = actRead
		}
		j.note("a GET of any path of the service's API")
	case s.apiCall != "" || (s.anyRequest && act >= actMutate && act < actExec):
		act = actExec
		j.note("sends any request the caller writes to the service's API")
	}
	if s.wipes && act < actDestroy {
		act = actDestroy
		j.note("replaces the whole contents of a container")
	}
	if act == actMutate && (s.verb == "start" || s.verb == "interact") && containsAny(s.objects, "process", "shell", "command", "script", "terminal") {
		act = actExec
	}

	// "create_call", "create_sms": creating a communication sends it.
	if act == actMutate && (s.verb == "create" || s.verb == "add" || s.verb == "start" || s.verb == "place" || s.verb == "make") && outwardNouns[headNoun(s.objects)] {
		act = actSend
		j.note("creating a " + headNoun(s.objects) + " sends it to someone outside the system")
	}
	if act == actSend && containsAny(s.flags, "force") {
		act = actDestroy // a forced push rewrites what others already have
		j.note("a forced send rewrites history")
	}
	for _, f := range s.flags {
		if (f == "delete" || f == "remove" || f == "drop") && act == actMutate {
			act = actDelete
			j.note(fmt.Sprintf("flag %q turns the tool into a delete", f))
		}
		if f == "destroy" && act < actDestroy {
			act = actDestroy
		}
	}
	return act
}

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

// outwardNouns are communications that reach a person when created.
var outwardNouns = map[string]bool{"call": true, "sms": true, "mms": true, "fax": true, "email": true, "message": true,
	"notification": true, "voicemail": true, "invitation": true}

// simulation says a description calls the tool a demonstration or a
// simulation of a feature, not the real thing: it opens with "demonstrates"
// or "simulates", or speaks of something "simulated".
func simulation(desc string) bool {
	return strings.HasPrefix(desc, "demonstrates") || strings.HasPrefix(desc, "simulates") || strings.Contains(desc, "simulated")
}

// permanentText says a description calls the effect permanent.
func permanentText(desc string) bool {
	return permanentPhrases.Any(desc)
}

var permanentPhrases = phrase.New("cannot be undone", "irreversibl", "permanently", "can't be undone", "not be recovered", "unrecoverable")

// inspectionNouns are checks a server runs on what it watches: running one
// reports a state and changes nothing.
var inspectionNouns = map[string]bool{"diagnostics": true, "diagnostic": true, "healthcheck": true,
	"probe": true, "ping": true, "doctor": true}

// printedOutputNouns are what a console or a log holds line by line.
var printedOutputNouns = map[string]bool{"messages": true, "message": true, "output": true, "entries": true,
	"lines": true}

// withContents say a removal takes a container's contents with it.
// refusesUnlessEmpty says a removal's description says the server removes
// only an empty container: only an empty one may go ("must be empty",
// "only if it is empty", "only if it is not managing any resources"), or
// a failure or a refusal is followed, in the same sentence, by what the
// container still holds ("will fail if the project still contains
// workspaces"). Words that take it back — no check is made, even if,
// regardless, contents lost or taken along — keep the destruction.
func refusesUnlessEmpty(desc string) bool {
	if emptinessUnchecked.Any(desc) || withContents.Any(desc) {
		return false
	}
	if onlyEmpty.Any(desc) {
		return true
	}
	for _, refusal := range []string{"fail if", "fails if", "refuse", "refuses", "error if"} {
		for at := 0; ; {
			i := strings.Index(desc[at:], refusal)
			if i < 0 {
				break
			}
			i += at
			end := min(len(desc), i+120)
			if k := strings.IndexAny(desc[i:end], ".;\n"); k >= 0 {
				end = i + k
			}
			if stillHolds.Any(desc[i:end]) {
				return true
			}
			at = i + len(refusal)
		}
	}
	return false
}

// onlyEmpty say only an empty container may be removed.
var onlyEmpty = phrase.New("must be empty", "must first be emptied", "only if it is empty", "only when it is empty",
	"only if empty", "only an empty", "only if it is not managing any")

// stillHolds, after a refusal, name what the container still holds.
var stillHolds = phrase.New("still contains", "still contain", "still has", "still holds", "is not empty",
	"isn't empty", "contains any", "has any")

// emptinessUnchecked take the refusal back: "no check is made whether it
// still contains", "even if it is not empty", contents "lost".
var emptinessUnchecked = phrase.New("no check", "not checked", "even if", "regardless", "whether or not", "lost",
	"including its", "along with")

var withContents = phrase.New("with all its", "and all its", "all of its", "everything in it", "with everything",
	"and everything", "with all of its", "including all")

// destinationParams name an address outside the system that a tool's data
// is delivered to: a webhook's URL, an export's destination.
var destinationParams = map[string]bool{"webhookurl": true, "callbackurl": true, "destinationurl": true,
	"targeturl": true, "hookurl": true, "notifyurl": true, "notificationurl": true,
	"destination": true, "deliveryurl": true, "payloadurl": true}

// plainAddressParams are a destination only on a tool whose object is a
// delivery (a webhook, a subscription, a sink): elsewhere they are as
// often where the data comes from ("upload_from_url").
var plainAddressParams = map[string]bool{"url": true, "endpoint": true, "callback": true, "uri": true}

// deliveryNouns are what exists to deliver data somewhere else.
var deliveryNouns = map[string]bool{"webhook": true, "webhooks": true, "hook": true, "hooks": true, "callback": true,
	"subscription": true, "sink": true, "notification": true, "destination": true, "forwarding": true}

// deliveryPhrases say a tool sends its data on to that address.
var deliveryPhrases = phrase.New("post", "send", "deliver", "forward", "export", "push", "upload", "notif", "webhook",
	"stream")

// outwardDestination names the parameter through which a change sends the
// system's data to an address the caller chooses — a webhook created for
// the project's events, an export to a URL — and "" for any other change:
// whoever sets the address receives what the system holds, from then on.
func outwardDestination(s *signals) string {
	// The parameters first: few tools have one, and the description's
	// scan is then spared for every other change.
	delivery := containsAnyMap(s.objects, deliveryNouns)
	for _, p := range s.params {
		if !p.nested && (destinationParams[p.flat] || delivery && plainAddressParams[p.flat]) {
			if (p.typ == "string" || p.typ == "") && deliveryPhrases.Any(s.desc) {
				return p.name
			}
		}
	}
	return ""
}

// replacesExisting say a change puts something in place of what was there,
// which is then gone: "restores a volume from a snapshot, replacing its
// data".
var replacesExisting = phrase.New("replacing its data", "replaces its data", "replacing the data", "replaces the data",
	"replacing existing", "replaces existing", "replacing the existing", "replaces the existing", "replacing any existing",
	"replaces any existing", "replacing its contents", "replaces its contents", "replace an existing", "replaces an existing",
	"full replacement", "document replacement", "will be replaced")

// clearsExisting and clearsFirst: a description that says the change
// first clears what exists ("clears existing cookies before restoring")
// says it overwrites; one that says it never does, or clears a selection
// as it goes, does not.
var clearsExisting = []string{"clears existing", "clearing existing", "clears the existing", "clearing the existing",
	"clears any existing", "clearing any existing", "clears all existing", "clearing all existing"}

var clearsExistingSet = phrase.New(clearsExisting...)

var clearsBeforeWords = phrase.New("before", "first", "prior to")

func clearsFirst(desc string) bool {
	return clearsExistingSet.Any(desc) && clearsBeforeWords.Any(desc) && statedNotNegated(desc, clearsExisting)
}

// grave says what makes a change too grave for the server's own word to
// lower it — a read-only claim or a description that calls the tool a
// simulation: it moves money, mints or changes a credential, or its name's
// own verb changes who may do what. "" when
// none does. (A name with no verb of its own, "user_services_reader",
// leaves the description to say whether it changes the users it names.)
func grave(s *signals) string {
	switch {
	case s.money != "" && movesMoneyAs(s.money):
		return movingMoney(s.money)
	case s.money != "" && !(s.actSource == "name" && verbs[s.verb] <= actObserve):
		return "changes a payment or a charge (" + s.money + ")"
	case s.credential != "":
		return "changes " + s.credential
	case s.actSource == "name" && ((s.privilege != "" && notAccess(*s) == "") || s.optionPrivilege != ""):
		return "changes who may do what"
	case s.public != "" || accessPolicy(*s) != "" || accessInDescription(s.desc):
		return "changes who may see or do what"
	}
	return ""
}

// storageDevices hold data a format erases.
var storageDevices = map[string]bool{"volume": true, "disk": true, "drive": true, "partition": true, "filesystem": true,
	"ssd": true, "hdd": true, "usb": true, "sd": true, "nvme": true, "lun": true}

// formatErases are the words of a format that erases what a device holds,
// whatever the name calls the device ("format_card … erasing all data").
var formatErases = phrase.New("eras", "filesystem", "file system", "all data", "wipe", "block device", "partition")

// loadReads are the words of a load that reads: it returns, shows or
// lists what it loads, or loads it into memory to do so.
var loadReads = phrase.New("return", "read", "show", "list", "fetch", "display", "view", "into memory", "retriev", "get ")

// onlyAsks says a tool that makes one of the client requests does nothing
// else: it names no money, privilege or credential, takes no flag, offers
// no operations, takes only what a request is made of (a prompt, a
// message, a schema, limits of the answer), and its description speaks of
// no change, payment, execution or delivery beside the request.
func onlyAsks(s *signals) bool {
	if s.execParam != "" || s.privilege != "" || s.credential != "" || s.money != "" || len(s.flags) > 0 || len(s.optionMutations) > 0 {
		return false
	}
	for _, p := range s.params {
		if !requestParams[p.flat] {
			return false
		}
	}
	if beyondAsking.Any(s.desc) {
		return false
	}
	// Every verb the description uses must be one of asking: a verb the
	// lists above do not name ("drops the production database") still
	// says the tool does more.
	for _, w := range words(s.desc, 400) {
		if a, base, ok := conjugatedVerb(w); ok && a >= actMutate && !askingVerbs[base] {
			return false
		}
	}
	return true
}

// askingVerbs are the verbs a description of a request that only asks may
// use.
var askingVerbs = map[string]bool{"trigger": true, "request": true, "create": true, "send": true, "start": true,
	"ask": true, "prompt": true, "wait": true, "poll": true, "demonstrate": true, "simulate": true, "handle": true}

// requestParams are what a sampling or elicitation request is made of.
var requestParams = map[string]bool{"prompt": true, "message": true, "messages": true, "question": true, "schema": true,
	"requestedschema": true, "title": true, "maxtokens": true, "systemprompt": true, "temperature": true,
	"includecontext": true, "timeout": true}

// beyondAsking are words of a description that say the tool does more than
// ask: it changes, pays, runs, sends or stores something with the answer.
var beyondAsking = phrase.New("delet", "remov", "replac", "overwrit", "writ", "updat", "insert", "charg", "pay", "transfer",
	"refund", "run", "execut", "shell", "command", "post", "send", "email", "forward", "publish", "upload", "store", "save",
	"deploy", "grant", "invit")

// anyAddressRequest says a tool sends a request of the caller's making to
// an address of the caller's choosing: a URL parameter with a method or a
// body beside it. A URL alone is fetched; with a body it is written to.
func anyAddressRequest(s *signals) bool {
	address, request := false, false
	for _, p := range s.params {
		if p.nested {
			continue
		}
		switch p.flat {
		case "url", "uri", "endpoint", "address":
			address = true
		case "method", "httpmethod", "verb", "body", "data", "payload", "requestbody", "json":
			request = true
		}
	}
	return address && request
}

// describesOutput are the read-only phrases that say what a tool returns
// (guidance, instructions, recommendations) rather than that it changes
// nothing: they settle a tool whose name states no change, never one whose
// name does.
var describesOutput = map[string]bool{"guidance": true, "provides instructions": true, "provide instructions": true,
	"next-step": true, "only provides": true, "provides feedback": true, "returns recommendations": true,
	"return recommendations": true, "fix recommendations": true, "recommendations for": true, "returns instructions": true}

// statesChange are a description's own statements that the tool changes
// something, which neither a word for its output nor a word for a
// simulation ("resends a simulated event") outweighs.
var statesChangePhrases = []string{"modifies", "data modification", "creates new", "creates a ", "updates an ",
	"updates the ", "sends ", "resend", "deliver", "posts to ", "writes to ", "deletes "}

var statesChange = phrase.New(statesChangePhrases...)

// statesChangeSaid says the description states a change of its own tool: a
// phrase of statesChange not denied just before it ("without sending
// anything", "never modifies").
func statesChangeSaid(desc string) bool {
	if !statesChange.Any(desc) {
		return false
	}
	return anyPhraseWhere(desc, statesChangePhrases, func(i, _ int) bool {
		return !negatedBefore(desc, i) && !strings.Contains(desc[max(0, i-16):i], "without ")
	})
}

// opensWithChange says a description opens with a verb of change, in the
// imperative or the third person ("Send feedback for a job", "Charges the
// saved card"), the way most say what a tool does.
func opensWithChange(desc string) bool {
	desc = strings.TrimLeft(desc, " \n\t#*")
	end := strings.IndexAny(desc, " \n\t")
	if end < 0 {
		return false
	}
	a := verbs[desc[:end]]
	return a >= actMutate || changeVerbForm(desc[:end])
}

// removesBroad says what a delete removes is broad: a broad word is the
// head noun ("delete_org", "drop_table"), or a word of quantity is
// anywhere ("delete_all_issues"), or a plural head under a container
// ("delete_namespace_pods"). A container word before a singular head only
// says where the item lives: "remove_org_member" removes a member.
func removesBroad(objects, tokens []string, desc, rawDesc string) bool {
	if len(objects) == 0 {
		return false
	}
	if containsAny(objects, "all", "many", "bulk", "everything") {
		return true
	}
	head := removedNoun(objects)
	if pluralInName(head, tokens) && anyBroadStrict(objects) {
		return true // "delete_namespace_pods": every pod of the namespace
	}
	return anyBroadStrict([]string{head}) || broadHead(head, objects, desc, rawDesc)
}

// broadHead says the head noun of a removal is a container only as the
// thing removed: a database the name calls by its kind's own name, which
// the description then calls a database ("mysql-remove — Removes a MySQL
// database", "pg_drop — Drops a Postgres instance along with its data"),
// and a channel or a room, a conversation's place, which holds every
// message said in it — the rubric's collection, as a bucket is. Beside a
// word that makes the channel a sales, notification or release channel,
// or the room a hotel's or a house's, in the name or in the description's
// opening ("Deletes a sales channel of the shop"), it is one item; and a
// plural head under them ("delete_channel_messages") removes the items
// named, not the place. (A key-value store's name heads the removal of one
// key or one cache as often as of the store.)
func broadHead(head string, objects []string, desc, rawDesc string) bool {
	switch {
	case namesAStore(head, rawDesc) || (!knownNoun(head) && !referenceNouns[head] && removesAStoreSaid(rawDesc)):
		return true
	case head == "channel" || head == "room":
		return !containsAnyMap(objects, otherChannels) && !saysWordOf(opening(desc, claimWindow), otherChannels)
	}
	return false
}

// namesAStore says the description calls what a name's word names a data
// store: the word qualifies "database", "schema" or "store" and the store
// heads what is removed ("a MySQL database", "the Mongo store"), or
// qualifies an instance, a server or a cluster that the description says
// goes with its data ("a Postgres instance along with its data", "the
// server and every database on it"). The name's word is then the store's
// kind, whatever the kind is called. A word said only after "from" or
// "in" names where something else is removed from ("Removes a key from a
// state store"); a word in -ed is a state of the store, not its kind (a
// pinned database); a store the description says is kept is not removed.
func namesAStore(head, desc string) bool {
	if referenceNouns[head] || strings.HasSuffix(head, "ed") || !writtenAsAName(head, firstSentence(desc)) {
		return false // "delete_favorite — Deletes a favorite database from the sidebar"
	}
	lower := strings.ToLower(desc) // the phrases are lower-case; few tools get this far
	if storeKept.Any(lower) {
		return false
	}
	n, ends := qualifiedNoun(head, desc)
	return (storeNouns[n] && ends) || (storeHosts[n] && (withContents.Any(lower) || storeGoesWithData.Any(lower)))
}

// storeKeptPhrases say a removal leaves the store or its data where it is.
var storeKeptPhrases = []string{"untouched", "not touched", "not deleted", "not removed", "is kept", "are kept",
	"left intact", "preserved", "remains", "only the saved", "itself is not", "is left", "are left", "stays",
	"stay ", "keeps running", "keep running", "not affected", "no data", "entry"}

var storeKept = phrase.New(storeKeptPhrases...)

// writtenAsAName says a description writes a name's word as a name, with
// a capital ("a MySQL database", "the Mongo store"): the word names the
// kind of a store, where a word in lower case ("an event schema", "a game
// server") says what the store is for.
func writtenAsAName(head, text string) bool {
	if head == "" {
		return false
	}
	// Byte by byte, ASCII only: lower-casing the whole text may change its
	// length, and a name's capital is an ASCII letter.
	for k := 0; k+len(head) <= len(text); k++ {
		if text[k] < 'A' || text[k] > 'Z' || (k > 0 && isASCIILetterByte(text[k-1])) {
			continue
		}
		match := true
		for n := 0; n < len(head); n++ {
			c := text[k+n]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != head[n] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// referenceNouns are what a client keeps of a store, not the store: a
// favourite, a bookmark, a shortcut, a saved connection.
var referenceNouns = map[string]bool{"favorite": true, "favourite": true, "bookmark": true, "shortcut": true,
	"pin": true, "link": true, "alias": true, "connection": true, "recent": true, "star": true, "tab": true,
	"entry": true, "reference": true, "datasource": true, "source": true}

// qualifiedNoun is the word that follows the first mention of a name's
// word in a description's first sentence, before any word that says
// where something is removed from, past any word it also begins ("a
// PostgreSQL database" for "postgre", the singular the objects keep of
// "postgres"): the noun the name's word qualifies. ends says that noun
// ends the phrase — punctuation, the end, or a word that ends a removed
// store's phrase follows it ("a MySQL database record" does not end at
// the database). "" when the word is not mentioned there.
func qualifiedNoun(head, desc string) (noun string, ends bool) {
	if len(head) < 3 {
		return "", false
	}
	ws := wordsWithBreaks(firstSentence(desc))
	for i, w := range ws {
		if placeWords[w.word] {
			return "", false
		}
		if w.word != head && (len(head) < 4 || !strings.HasPrefix(w.word, head)) {
			continue
		}
		for k := i + 1; k < len(ws); k++ {
			n := ws[k]
			if n.word == head || strings.HasPrefix(n.word, head) {
				continue
			}
			ends := n.breaks || k+1 == len(ws) || storeEnders[ws[k+1].word] || placeWords[ws[k+1].word] ||
				storeHosts[ws[k+1].word] // "a MariaDB database instance", "a Postgres database cluster"
			return n.word, ends
		}
		return "", false
	}
	return "", false
}

// storeNoun says a name's word is a data store's kind by its description.
func storeNoun(head, desc string) bool {
	n, _ := qualifiedNoun(head, desc)
	return storeNouns[n]
}

// placeWords say where a thing is removed from or kept in.
var placeWords = map[string]bool{"from": true, "in": true, "within": true, "inside": true, "of": true, "at": true}

// wordBreak is a word of a text and whether punctuation follows it.
type wordBreak struct {
	word   string
	breaks bool
}

// wordsWithBreaks splits a text into lower-case words, each with whether
// punctuation (not only spaces) follows it.
func wordsWithBreaks(text string) []wordBreak {
	var out []wordBreak
	t := strings.ToLower(text)
	for i := 0; i < len(t); {
		for i < len(t) && !isWordByte(t[i]) {
			i++
		}
		j := i
		for j < len(t) && isWordByte(t[j]) {
			j++
		}
		if j == i {
			break
		}
		k := j
		for k < len(t) && t[k] == ' ' {
			k++
		}
		out = append(out, wordBreak{word: t[i:j], breaks: k < len(t) && !isWordByte(t[k])})
		i = k
	}
	return out
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b >= 0x80
}

// storeNouns are data stores whose removal takes what they hold.
var storeNouns = map[string]bool{"database": true, "databases": true, "db": true, "schema": true,
	"keyspace": true, "store": true, "datastore": true}

// storeHosts hold stores: removing one takes its data only where the
// description says so.
var storeHosts = map[string]bool{"instance": true, "server": true, "cluster": true, "service": true}

// storeGoesWithDataPhrases say a removal takes the data a host holds.
var storeGoesWithDataPhrases = []string{"its data", "every database", "all databases", "all its databases",
	"all of its databases", "all data"}

var storeGoesWithData = phrase.New(storeGoesWithDataPhrases...)

// removesAStoreSaid says a description's first sentence removes a data
// store: a verb of removal, at most three words, and a database or a
// keyspace that ends what is removed ("Drops the selected database from
// the current MySQL connection", "Deletes a database: all tables are
// lost", "Executes DROP DATABASE"). A store said with more words ("Deletes
// a database record"), taken from a place that is not a host of stores
// ("Removes a connected database from the dashboard", "… from
// monitoring"), or that the description says stays is not matched.
func removesAStoreSaid(raw string) bool {
	first := firstSentence(raw)
	d := strings.ToLower(first)
	if strings.Contains(d, "drop database") {
		return !storeKept.Any(d)
	}
	ws := wordsWithBreaks(first)
	for i, w := range ws {
		if !removalWords[w.word] {
			continue
		}
		for k := i + 1; k < len(ws) && k <= i+4; k++ {
			n := ws[k]
			if removedStoreNouns[n.word] {
				ends := n.breaks || k+1 == len(ws) || storeEnders[ws[k+1].word] || placeWords[ws[k+1].word] ||
					storeHosts[ws[k+1].word] || ws[k+1].word == "for"
				return ends && !storeKept.Any(d) && !fromAList(first)
			}
			if n.breaks {
				break
			}
		}
		return false
	}
	return false
}

// removesANamedDatabase says a removal whose name's word the lexicon does
// not know ("mysql_drop", "zorb_remove") takes a database by its name and
// nothing narrower: its parameters name a database and no item in it (no
// id, key, table or collection). What it removes is the database.
func removesANamedDatabase(s *signals) bool {
	head := removedNoun(s.objects)
	if head == "" || knownNoun(head) || referenceNouns[head] || storeKept.Any(s.desc) {
		return false
	}
	named := false
	for _, p := range s.params {
		if p.nested {
			continue
		}
		if databaseParams[p.flat] && (p.typ == "string" || p.typ == "") {
			named = true
			continue
		}
		for _, suffix := range itemParamSuffixes {
			if strings.HasSuffix(p.flat, suffix) {
				return false
			}
		}
	}
	return named
}

// databaseParams name a database.
var databaseParams = map[string]bool{"db": true, "database": true, "databasename": true, "dbname": true}

// itemParamSuffixes name something narrower than a database.
var itemParamSuffixes = []string{"id", "ids", "key", "keys", "table", "tables", "collection", "collections",
	"record", "records", "row", "rows", "document", "documents", "index", "user", "users", "role", "schema",
	"path", "file", "bucket", "branch", "snapshot", "backup", "query", "view", "function", "procedure",
	"trigger", "column", "field", "entry", "item", "items", "object", "objects", "namespace"}

// removalWords remove, in a description's words.
var removalWords = map[string]bool{"drop": true, "drops": true, "delete": true, "deletes": true, "remove": true,
	"removes": true, "destroy": true, "destroys": true, "erase": true, "erases": true, "purge": true, "purges": true}

// removedStoreNouns are the stores a description may say a removal takes.
var removedStoreNouns = map[string]bool{"database": true, "databases": true, "db": true, "keyspace": true,
	"keyspaces": true, "datastore": true}

// fromAList says a removal's first sentence takes what it removes from
// somewhere other than a host of stores: "from the sidebar", "from
// monitoring", "from your multiplayer list". "from the server", "from the
// current MySQL connection" and "from PostgreSQL" (a name, with a
// capital) are where a store lives, and removing it there removes it.
func fromAList(first string) bool {
	ws := strings.Fields(first)
	for i, w := range ws {
		if strings.ToLower(strings.Trim(w, ",.;:()")) != "from" {
			continue
		}
		last := ""
		for _, n := range ws[i+1:] {
			bare := strings.Trim(n, ",.;:()`'\"")
			lower := strings.ToLower(bare)
			if lower == "" || fromPhraseEnds[lower] {
				break
			}
			last = bare
			if bare != n && strings.ContainsAny(n[len(n)-1:], ",.;:)") {
				break
			}
		}
		l := strings.ToLower(last)
		named := last != "" && last[0] >= 'A' && last[0] <= 'Z'
		return !(named || storeHosts[l] || placesOfStores[l] || storeHosts[singular(l)])
	}
	return false
}

// fromPhraseEnds end the place a thing is removed from.
var fromPhraseEnds = map[string]bool{"and": true, "to": true, "that": true, "which": true, "if": true,
	"using": true, "with": true, "for": true, "by": true, "on": true, "in": true, "so": true, "but": true,
	"while": true, "without": true}

// placesOfStores are where a store is removed from when it is removed.
var placesOfStores = map[string]bool{"host": true, "account": true, "project": true, "disk": true,
	"machine": true, "system": true, "engine": true, "connection": true, "deployment": true}

// storeEnders end the noun phrase of a removed store.
var storeEnders = map[string]bool{"on": true, "in": true, "and": true, "if": true, "permanently": true,
	"including": true, "with": true, "along": true, "named": true, "called": true, "you": true, "by": true,
	"that": true, "which": true, "entirely": true, "completely": true, "together": true, "specified": true,
	"given": true, "identified": true, "selected": true, "whose": true, "matching": true, "using": true}

// knownNoun says the engine's lexicon knows a name's word as a scope, a
// record or private content: its own word then says what is removed.
func knownNoun(head string) bool {
	_, scope := scopeWords[head]
	_, record := recordNouns[head]
	return scope || record || privateContentNouns[head]
}

// otherChannels make a channel or a room something other than a
// conversation's place.
var otherChannels = map[string]bool{"sales": true, "notification": true, "alert": true, "release": true,
	"tv": true, "distribution": true, "update": true, "payment": true, "hotel": true, "conference": true,
	"home": true, "marketing": true, "delivery": true, "type": true}

// removedNoun is what a delete removes: the head noun, past the words
// that only say how ("delete_org_by_name", "delete_bucket_recursive",
// "delete_repository_v2", "delete_db_instance").
func removedNoun(objects []string) string {
	end := len(objects)
	for end > 0 {
		o := objects[end-1]
		if !howWords[o] && !(len(o) >= 2 && o[0] == 'v' && o[1] >= '0' && o[1] <= '9') {
			break
		}
		end--
	}
	for i := 0; i < end; i++ {
		if objects[i] == "by" || objects[i] == "from" {
			// "by_name": what follows names how the item is found;
			// "remove_issue_from_project": what follows is where the
			// removed thing was, not what is removed.
			end = i
			break
		}
	}
	return headNoun(objects[:end])
}

// howWords say how something is removed or found, not what.
var howWords = map[string]bool{"name": true, "names": true, "id": true, "ids": true, "force": true, "forced": true,
	"recursive": true, "recursively": true, "permanently": true, "permanent": true, "async": true, "now": true,
	"instance": true, "instances": true, "safely": true, "hard": true, "completely": true, "entirely": true}

// pluralInName says the name spells a noun in the plural: the objects are
// kept singular, the name's own words are not.
func pluralInName(noun string, tokens []string) bool {
	for _, t := range tokens {
		if t != noun && singular(t) == noun {
			return true
		}
	}
	return false
}

// notifyParams are a change's switch for mailing the people it lists.
var notifyParams = map[string]bool{"sendupdates": true, "sendnotifications": true, "sendnotification": true,
	"notify": true, "notifyattendees": true, "notifyguests": true, "sendinvites": true, "sendinvitations": true,
	"sendinvitation": true, "sendemail": true, "sendemails": true, "notifyusers": true, "notifyrecipients": true}

// recipientParams list people by their addresses.
var recipientParams = map[string]bool{"attendees": true, "invitees": true, "guests": true, "participants": true,
	"recipients": true, "emails": true, "to": true, "cc": true, "bcc": true}

// addressList says a "to" parameter lists addresses rather than naming
// where something moves ("the column to move the card to"): an array, or
// described as addresses.
func addressList(p *tooldef.Object) bool {
	if typ := p.GetString("type"); typ == "array" {
		return true
	}
	d := p.GetString("description")
	d = strings.ToLower(d)
	return strings.Contains(d, "email") || strings.Contains(d, "e-mail") || strings.Contains(d, "address") || strings.Contains(d, "recipient")
}

// anyKind is a parameter that names the kind of resource a change acts on
// as free text, in a tool that also takes a namespace: whatever the
// examples say, the kind may be a namespace, a node or a role binding, so
// one call reaches what the cluster holds ("resources_delete(kind, name,
// namespace)"). A kind offered as a list of options is only those. "" when
// the tool takes none.
func anyKind(s *signals) string {
	kind, namespaced := "", false
	for _, p := range s.params {
		if p.nested {
			continue
		}
		switch p.flat {
		case "kind", "resourcetype":
			if (p.typ == "string" || p.typ == "") && !hasOptions(p.schema) {
				kind = p.name
			}
		case "namespace":
			namespaced = true
		}
	}
	if !namespaced || !anyKindHeads[headNoun(s.objects)] {
		return ""
	}
	return kind
}

// anyKindHeads name whatever a cluster holds: "resources_delete" removes a
// resource of any kind, "delete_entity(kind, namespace)" an entity of a
// datastore's.
var anyKindHeads = map[string]bool{"resource": true, "object": true, "manifest": true}

// wholeManifest is a parameter that takes a whole resource as YAML, a
// manifest that names its apiVersion and its kind, for a change to
// apply: the manifest names its own kind, so one call may create a role
// binding or a cluster-wide policy as well as the deployment the examples
// show. A pipeline's YAML, an API's specification or a shipping manifest
// is not one. "" when there is none.
func wholeManifest(s *signals) string {
	for _, p := range s.params {
		if p.nested || !p.required || (p.typ != "string" && p.typ != "") {
			continue
		}
		d := p.schema.GetString("description")
		if !strings.Contains(d, "YAML") && !strings.Contains(d, "yaml") {
			continue // most descriptions name no manifest: lower-case only those that may
		}
		d = strings.ToLower(d)
		if strings.Contains(d, "apiversion") {
			return p.name // a manifest names its API version and its kind
		}
	}
	return ""
}

// workloadParams name what a workload runs: the image its container or
// machine starts from, the commands its build or its start runs, the file
// its build follows.
var workloadParams = map[string]bool{"image": true, "imagename": true, "containerimage": true, "dockerimage": true,
	"imageuri": true, "imageref": true, "buildcommand": true, "startcommand": true, "runcommand": true,
	"installcommand": true, "dockerfile": true, "containerfile": true, "dockerfilepath": true}

// imageParams name an image to start from.
var imageParams = map[string]bool{"image": true, "imagename": true, "containerimage": true, "dockerimage": true,
	"imageuri": true, "imageref": true}

// isWorkloadParam says a parameter's flattened name is a workload's:
// one of workloadParams, or an image qualified by another word
// ("baseImage", "portraitImage", an image named for the tool that runs
// it), which is read as a bare "image" is: a container's where its
// description or the tool says so, a picture otherwise. ("Dockerfile" is
// the name of the build file's format, as SQL is of a language.)
func isWorkloadParam(flat string) bool {
	return workloadParams[flat] || qualifiedImage(flat)
}

// qualifiedImage says a flattened name is an image qualified by a word.
func qualifiedImage(flat string) bool {
	q, ok := strings.CutSuffix(flat, "image")
	return ok && len(q) >= 2
}

// qualifiedForWorkload says an image qualified by a word the name also
// speaks of, on a tool whose name speaks of a workload, is what that
// workload runs from: "application-saveDockerProvider(dockerImage)" saves
// the provider an application's image comes from. A picture's qualifier
// ("update_app_qr(qrImage)", "update_app_og(ogImage)") is not.
func qualifiedForWorkload(objects []string, flat string) bool {
	q := strings.TrimSuffix(flat, "image")
	if pictureSaid.Any(q) || !containsAny(objects, q) || len(objects) == 0 || !sourceHeads[objects[len(objects)-1]] {
		return false
	}
	for w := range pictureQualifiers {
		if strings.HasSuffix(q, w) {
			return false
		}
	}
	for _, o := range objects {
		if workloadHeads[o] {
			return true
		}
	}
	return false
}

// sourceHeads are the setting of where a workload's code comes from: a
// provider, a source, a runtime.
var sourceHeads = map[string]bool{"provider": true, "source": true, "runtime": true, "settings": true,
	"config": true, "configuration": true}

// containerQualifiers make an image one a workload starts from, on a tool
// that changes a workload ("create_dev_environment(baseImage)").
var containerQualifiers = map[string]bool{"base": true, "container": true, "runtime": true, "os": true,
	"machine": true, "vm": true, "boot": true, "build": true, "runner": true, "server": true}

// pictureQualifiers make an image a picture.
var pictureQualifiers = map[string]bool{"qr": true, "og": true, "cover": true, "hero": true, "splash": true,
	"header": true, "background": true, "profile": true, "feature": true, "featured": true, "preview": true,
	"screenshot": true, "graphic": true, "share": true, "social": true, "product": true, "store": true,
	"lock": true, "idle": true, "portrait": true, "landscape": true}

// pictureSenseParams are the workload parameters that as often name a
// picture ("image" of a product, a category, an avatar).
var pictureSenseParams = map[string]bool{"image": true, "imagename": true, "imageuri": true, "imageref": true}

// workloadHeads are what runs an image or a build: the things a call
// creates or changes that then execute what the parameter names.
var workloadHeads = map[string]bool{"service": true, "server": true, "container": true, "app": true,
	"application": true, "pod": true, "instance": true, "machine": true, "vm": true,
	"endpoint": true, "function": true, "deployment": true, "worker": true, "pipeline": true,
	"sandbox": true, "runner": true, "job": true, "cron": true, "environment": true, "env": true, "executor": true,
	"vps": true}

// specNouns describe a workload that runs later, or one run of it
// ("task_definition", "job_template", "pod_spec", "kernel_session"): one
// under a workload's word runs its image as the workload does.
var specNouns = map[string]bool{"definition": true, "def": true, "spec": true, "template": true, "session": true}

// runsImage says the objects of a change name a workload, or the
// definition of one.
func runsImage(objects []string, head string) bool {
	head = strings.TrimRight(head, "0123456789") // "sandbox2"
	if workloadHeads[head] {
		return true
	}
	if !specNouns[head] {
		return false
	}
	for _, o := range objects {
		if workloadHeads[o] || o == "task" {
			return true
		}
	}
	return false
}

// madeFromAnImagePhrases say in a tool's first sentence that what it makes
// starts from the image it is given or runs code: a picture is shown, not
// started from.
var madeFromAnImagePhrases = []string{"from an image", "from the image", "from a given image", "with the given image",
	"from any image", "running code", "run code", "runs code", "execute code", "executes code", "spin up",
	"spins up", "isolated"}

var madeFromAnImage = phrase.New(madeFromAnImagePhrases...)

// runningPlaces, in a tool's first sentence, say where its image runs
// whatever the tool is named ("Add a step to the pipeline", "Create a
// preview deployment").
var runningPlaces = map[string]bool{"pipeline": true, "deployment": true, "runner": true, "executor": true,
	"vm": true, "container": true, "pod": true, "sandbox": true}

// launchesAMachine says a tool named to launch, start, run or spawn says
// in its first sentence that what it starts is a machine or a container
// ("multipass_launch — Launch an Ubuntu VM"): its image is what boots.
func launchesAMachine(s *signals) bool {
	if !machineStartVerbs[s.verb] {
		return false
	}
	for _, w := range words(firstSentence(s.desc), domainTextBytes) {
		if machineWords[w] {
			return true
		}
	}
	return false
}

var machineStartVerbs = map[string]bool{"launch": true, "start": true, "run": true, "spawn": true, "boot": true,
	"provision": true}

// machineWords are what boots from an image.
var machineWords = map[string]bool{"vm": true, "vms": true, "container": true, "containers": true,
	"sandbox": true, "pod": true, "microvm": true}

// moveOnlyVerbs handle an image without running it, when the image is
// what the tool acts on; imageVerbs do in any tool.
var moveOnlyVerbs = map[string]bool{"pull": true, "push": true, "publish": true, "tag": true, "untag": true,
	"export": true, "import": true, "copy": true, "download": true, "inspect": true, "scan": true, "save": true,
	"load": true, "prune": true, "remove": true, "delete": true}

var imageVerbs = map[string]bool{"pull": true, "push": true, "publish": true, "tag": true, "untag": true}

// containerSaid marks a parameter's description as one of a container or
// a machine's image, not a picture, by the words of what an image is run
// on or from: a container, an operating system, a registry, a tag.
var containerSaidPhrases = []string{"container", "docker image", "oci image", "operating system", "os image", "image tag",
	"image reference", ":latest", "registry", "-based image", "base image",
	"image to run", "image the job runs", "to run in the", "build image", "to boot", "boots from", "boot from",
	"to start from", "starts from", "start from", "to start the",
	"booted from", "for the kernel", "for the workspace", "workspace image", "the runner uses", "runner's"}

var containerSaid = phrase.New(containerSaidPhrases...)

// containerSaysWords do as containerSaid where they are whole words: an
// image to run, to boot or to execute, a base one, one a runner, a job,
// a kernel, a sandbox or a workspace uses.
var containerSaysWords = map[string]bool{"execute": true, "executes": true, "vm": true, "distro": true,
	"runtime": true, "hub": true}

// imageReference says a description shows an image's reference the way
// registries write one, a name and a version joined by a colon ("node:20",
// "python:3.12", "python:v145") or an operating system's release after a
// dash ("ubuntu-22.04"). A time ("10:30") has no name before its colon; an
// id ("asset:12345") has more than two digits and no dot; a size or a
// season's name ("size-10.5", "summer-2024.1") has no two-digit release.
func imageReference(d string) bool {
	for i := 1; i+1 < len(d); i++ {
		if !(d[i-1] >= 'a' && d[i-1] <= 'z') || (d[i] != ':' && d[i] != '-') {
			continue
		}
		j := i + 1
		if d[i] == ':' && j < len(d) && d[j] == 'v' {
			j++ // "python:v145"
		}
		start := j
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		major := j - start
		if major == 0 {
			continue
		}
		dotted := j+1 < len(d) && d[j] == '.' && d[j+1] >= '0' && d[j+1] <= '9'
		switch d[i] {
		case ':':
			if dotted || major <= 2 || d[start-1] == 'v' {
				return true
			}
		case '-':
			// "ubuntu-22.04": two digits, a dot, two digits.
			if major == 2 && dotted && j+2 < len(d) && d[j+2] >= '0' && d[j+2] <= '9' {
				return true
			}
		}
	}
	return false
}

// containerImageSaid says a parameter's lower-cased description makes its
// image a container's or a machine's.
func containerImageSaid(d string) bool {
	if pictureSaid.Any(d) {
		return false // "Base image to edit"
	}
	if containerSaid.Any(d) {
		return true
	}
	if imageReference(d) {
		return true
	}
	for _, w := range words(d, len(d)) {
		if containerSaysWords[w] { // whole words: "base64" is no base image
			return true
		}
	}
	return false
}

// imageOfTheKind says an image parameter's description or default names
// the kind of store the tool makes ("Docker image to use for MySQL",
// "mysql:8" for "mysql"): the engine's own image, in one of its versions.
func imageOfTheKind(schema *tooldef.Object, kind string) bool {
	if len(kind) < 3 {
		return false
	}
	d := schema.GetString("description")
	def := schema.GetString("default")
	d = strings.ToLower(d)
	if strings.Contains(d, "e.g") || strings.Contains(d, "example") || strings.Contains(d, "such as") {
		d = "" // "Docker image to run (e.g. neo4j:latest)": any image, one given as an example
	}
	return strings.Contains(d, kind) || strings.Contains(strings.ToLower(def), kind)
}

// besideARegistry says a parameter names a registry's address or
// credentials ("registryUrl", "registry_password"): an image beside one
// is a registry's, a container's. A gift registry's id is no registry's
// address.
func besideARegistry(params []param) bool {
	for _, p := range params {
		if rest, ok := strings.CutPrefix(p.flat, "registry"); ok && (rest == "" || registryAccess[rest]) {
			return true
		}
	}
	return false
}

// registryAccess complete "registry" into its address or credentials.
var registryAccess = map[string]bool{"url": true, "uri": true, "username": true, "user": true,
	"password": true, "auth": true, "server": true, "host": true, "token": true, "credentials": true,
	"secret": true}

// pictureSaid marks one as a picture.
var pictureSaidPhrases = []string{"picture", "photo", "logo", "icon", "avatar", "thumbnail", "banner", "png", "jpeg", "jpg", "gif", "svg",
	"to edit", "webp", "image of", "close-up", "shot of", "sticker", "wallpaper", "emoji", "illustration", "artwork",
	"base64", "shown ", "displayed"}

var pictureSaid = phrase.New(pictureSaidPhrases...)

// runsWorkload is a parameter of a change that names what the workload it
// creates or changes will run: the image a service, a server or a
// container starts from, a build or start command, a build file. The call
// then runs code of the caller's choosing inside the account's
// infrastructure ("service_create_from_image(image)", "update_service
// (buildCommand)"). "" when there is none. A picture's "image" is told
// apart by what the tool changes or what the parameter says it is.
func runsWorkload(s *signals) string {
	if s.paramRoles&roleWorkload == 0 {
		return ""
	}
	head := ""
	for _, p := range s.params {
		if !isWorkloadParam(p.flat) || (p.typ != "string" && p.typ != "") {
			continue
		}
		if head == "" {
			// Read only for a tool that has such a parameter: most have none.
			head = singular(headNoun(s.objects))
			if moveOnlyVerbs[s.verb] && (head == "image" || imageVerbs[s.verb]) {
				return "" // "save_image" writes a tar; "save_provider(dockerImage)" sets what runs
			}
		}
		if (imageParams[p.flat] || qualifiedImage(p.flat)) && !workloadHeads[head] &&
			(head == "database" || (storeNoun(head, s.desc) && imageOfTheKind(p.schema, head))) {
			// "create_mysql(dockerImage: "Docker image to use for MySQL",
			// default "mysql:8") — Creates a MySQL database": a database of
			// a kind runs that kind's engine, and the image the tool says
			// is the engine's picks its version. "Image to run; any
			// registry image is accepted" runs whatever it names.
			continue
		}
		if pictureSenseParams[p.flat] || (qualifiedImage(p.flat) && !workloadParams[p.flat]) {
			d := p.schema.GetString("description")
			d = strings.ToLower(d)
			// A bare image is a workload's on a tool that changes one; an
			// image qualified by another word ("coverImage") only where the
			// qualifier is the workload's own (qualifiedForWorkload).
			var runs bool
			if qualifiedImage(p.flat) && !pictureSenseParams[p.flat] {
				runs = qualifiedForWorkload(s.objects, p.flat) ||
					(containerQualifiers[strings.TrimSuffix(p.flat, "image")] && runsImage(s.objects, head))
			} else {
				runs = runsImage(s.objects, head) || launchesAMachine(s) || madeFromAnImage.Any(firstSentence(s.desc)) ||
					saysWordOf(firstSentence(s.desc), runningPlaces)
			}
			if pictureSaid.Any(head) || pictureSaid.Any(firstSentence(s.desc)) ||
				(!containerImageSaid(d) && !besideARegistry(s.params) && (!runs || pictureSaid.Any(d))) {
				continue // a product's image, a server's icon
			}
		}
		return p.name
	}
	return ""
}

// buildWords say a workload is built or deployed from what it is given.
var buildWords = map[string]bool{"build": true, "builds": true, "built": true, "deploy": true, "deploys": true,
	"deploying": true, "deployment": true, "deployments": true}

// buildsFromSource is the parameter of a change of a workload (an app, a
// service, a function) that names the repository it is built from, where
// the tool says the workload is built or deployed from it (a build path
// among the parameters, or build or deploy in the description's opening):
// "save_github_provider(repository, branch, buildPath)", "service_create_
// from_repo(repo)". The next build runs whatever that repository holds, so
// the call chooses the code the workload runs, as an image does. "" when
// there is none: a catalogue's service that links its repository builds
// nothing.
func buildsFromSource(s *signals) string {
	if !containsAnyMap(s.objects, workloadHeads) {
		return ""
	}
	repo, buildPath := "", false
	for _, p := range s.params {
		switch {
		case p.typ != "string" && p.typ != "":
		case repo == "" && (strings.HasSuffix(p.flat, "repository") || strings.HasSuffix(p.flat, "repo") ||
			strings.HasSuffix(p.flat, "giturl") || strings.HasSuffix(p.flat, "repourl") || strings.HasSuffix(p.flat, "repositoryurl")):
			repo = p.name
		case strings.HasSuffix(p.flat, "buildpath"):
			buildPath = true
		}
	}
	if repo != "" && (buildPath || saysWordOf(strings.ToLower(opening(s.desc, claimWindow)), buildWords)) {
		return repo
	}
	return ""
}

// localFileParams name a file by its path; only one described as on the
// server's own machine (localFileSaid: "Local files to upload", "path on
// the local filesystem", "absolute path") or named so (localpath,
// localfile) is one there: a repository's, a drive's or a bucket's file
// has a path too.
var localFileParams = map[string]bool{"filepath": true, "filepaths": true, "localpath": true, "localfile": true,
	"localfilepath": true, "localfiles": true, "sourcepath": true, "path": true, "paths": true, "file": true,
	"files": true, "attachment": true, "attachments": true}

var namedLocalFileParams = map[string]bool{"localpath": true, "localfile": true, "localfilepath": true, "localfiles": true}

var localFileSaid = map[string]bool{"local": true, "locally": true, "disk": true, "filesystem": true, "absolute": true}

// outwardFileVerbs send a file away from the machine: to a service, behind
// a link, into someone else's record.
var outwardFileVerbs = map[string]bool{"attach": true, "attaches": true, "upload": true, "uploads": true,
	"share": true, "shares": true, "sharing": true, "embed": true, "embeds": true, "send": true, "sends": true}

// sendsLocalFile is a parameter of a change that takes a path on the
// server's own machine and sends the file it names away — attached to a
// pull request, shared behind a link, uploaded into a record
// ("create_file_send(filePath)": "Path to the file to share"). Any file the
// server can read goes, its keys and configuration among them, so the
// change is an exfiltration as much as a send. "" when there is none.
func sendsLocalFile(s *signals) string {
	if s.paramRoles&roleLocalFile == 0 {
		return ""
	}
	said := -1 // whether the name or the description's opening sends it away, read once and only when asked
	for _, p := range s.params {
		if !localFileParams[p.flat] || (p.typ != "string" && p.typ != "array" && p.typ != "") {
			continue
		}
		d := p.schema.GetString("description")
		d = strings.ToLower(d)
		if !namedLocalFileParams[p.flat] && !saysWordOf(d, localFileSaid) && !strings.Contains(d, "file system") {
			continue
		}
		if said < 0 {
			said = 0
			if containsAnyMap(s.tokens, outwardFileVerbs) || saysWordOf(strings.ToLower(opening(s.desc, claimWindow)), outwardFileVerbs) {
				said = 1
			}
		}
		if said == 1 || saysWordOf(d, outwardFileVerbs) {
			return p.name
		}
	}
	return ""
}

// programParams name a script or a program to start by its file (a bare
// "program" or "binary" is as often a loyalty program or a yes/no answer).
var programParams = map[string]bool{"script": true, "scriptpath": true, "scriptfile": true,
	"programpath": true, "executable": true, "executablepath": true, "binarypath": true}

// executablePaths name the program a launcher starts in place of its
// own: its executable's path ("browserPath" is as often a route inside an
// app, and a path named for what is launched is read in launchPath).
var executablePaths = map[string]bool{"executable": true, "executablepath": true, "exepath": true}

// programParam is a parameter of a change named start or launch that
// names a script or a program to start ("start_debugging(scriptPath)"):
// starting it runs it, whatever the tool does beside. "" when there is
// none. A script or a program named by its file counts where the call
// must name one; the path of the executable the launcher starts counts
// even where it may be left out ("launch_browser(executablePath?)"),
// since whoever sets it chooses what the tool starts in place of its own
// program — unless the parameter offers a fixed choice, or its own
// description says what it names is not run ("Binary to disassemble; not
// executed") or is worked on ("Path of the binary to sign").
//
// What is launched is a program unless the name says it is a job done on
// one: a signing, a monitoring (a word in -ing), an analysis, a tour. A
// launcher named for a product ("launch_firefox", "start_puppeteer") is
// one, whatever the product is called.
func programParam(s *signals) string {
	if s.verb != "start" && s.verb != "launch" {
		return ""
	}
	h := strings.TrimRight(headNoun(s.objects), "0123456789")
	launcher := len(s.objects) == 0 || launchedNouns[h] || !launchedJob(h)
	browser := launcher && launchesABrowser(s)
	for _, p := range s.params {
		if p.nested || (p.typ != "string" && p.typ != "") {
			continue
		}
		if p.required && programParams[p.flat] {
			return p.name
		}
		if launcher && (executablePaths[p.flat] || launchPath(h, s.desc, p, browser)) && !hasOptions(p.schema) && !saysNotRun(p.schema) &&
			!saysWorkedOn(p.schema) {
			return p.name
		}
	}
	return ""
}

// launchedJob says a launcher's head names a job done on a program, not
// the program: a word in -ing ("start_code_signing") or in -ion
// ("start_notarization"), or a noun of work.
func launchedJob(head string) bool {
	return head != "" && (strings.HasSuffix(head, "ing") || strings.HasSuffix(head, "ion") || jobNouns[head])
}

// jobNouns are work a tool starts on something: what such a tool is given
// is the work's input, not a program to run.
var jobNouns = map[string]bool{"analysis": true, "scan": true, "review": true, "tour": true, "audit": true,
	"inspection": true, "check": true, "trace": true, "upload": true, "import": true, "export": true, "sync": true,
	"backup": true, "signature": true, "report": true, "index": true, "migration": true, "campaign": true,
	"survey": true, "quiz": true, "course": true, "lesson": true, "game": true, "timer": true, "meeting": true,
	"call": true, "conversation": true, "chat": true, "transfer": true, "download": true, "conversion": true,
	"render": true, "dump": true, "minidump": true, "sbom": true, "sign": true,
	"triage": true}

// launchPath says a parameter is the path of the program a launcher
// starts, by its name: the launched thing's own word before "path"
// ("launch_chrome(chromePath)"), or, on a launcher of a browser or an
// application, any path that is not one of a program's data, a page's
// route or a folder ("launch_browser(chromePath)").
func launchPath(head, desc string, p param, browser bool) bool {
	x, ok := strings.CutSuffix(p.flat, "path")
	if !ok || len(x) < 3 || dataPaths[x] {
		return false
	}
	if d := p.schema.GetString("description"); saysWordOf(strings.ToLower(d), notProgramPathWords) {
		return false // "Route inside the app to open, e.g. /settings"
	}
	d := p.schema.GetString("description")
	if x == head {
		// "launch_chrome(chromePath)": the launched thing's path, where the
		// tool or the parameter says it is a program.
		return browser || saysWordOf(strings.ToLower(d), programWords) || saysWordOf(strings.ToLower(firstSentence(desc)), launchedBrowserWords)
	}
	// "launch_browser(chromePath)": on a launcher of a browser or an
	// application, a path not named for data, said to be nothing else; on
	// one a headless flag or its first sentence makes a browser's, any
	// path not named for data ("CHROME_PATH: Path to Chrome").
	if dataPaths[strings.TrimSuffix(x, "s")] {
		return false
	}
	return (browser || appLaunchers[head]) && (d == "" || saysWordOf(strings.ToLower(d), programWords) || namesAProgram(d))
}

// namesAProgram says a path's description names what it leads to by a
// name with a capital: "Path to Chrome", "Chrome path", "Path to
// Chrome/Chromium". A description that opens with a capital only because
// it opens ("Saved auth state", "Hosts override file") names no program.
func namesAProgram(d string) bool {
	ws := strings.Fields(d)
	for i, w := range ws {
		if w == "" || w[0] < 'A' || w[0] > 'Z' || strings.ToUpper(w) == w {
			continue // "JSON", "URL": an acronym of a format, not a program
		}
		if i > 0 || (len(ws) == 2 && strings.EqualFold(ws[1], "path")) {
			return true
		}
	}
	return false
}

// launchesABrowser says a launcher starts a browser: it takes a headless
// flag, or its first sentence says browser or headless.
func launchesABrowser(s *signals) bool {
	for _, p := range s.params {
		if !p.nested && p.flat == "headless" {
			return true
		}
	}
	return saysWordOf(firstSentence(s.desc), launchedBrowserWords)
}

// programWords say in a path's description that it is a program's.
var programWords = map[string]bool{"browser": true, "executable": true, "binary": true, "exe": true}

// launchedBrowserWords say in a launcher's description that it starts a browser.
var launchedBrowserWords = map[string]bool{"browser": true, "headless": true, "devtools": true}

// appLaunchers launch a program whose path a launcher's parameter may set.
var appLaunchers = map[string]bool{"browser": true, "browsers": true, "app": true, "application": true}

// dataPaths are where a program keeps or writes its data: a path named so
// is no program.
var dataPaths = map[string]bool{"userdata": true, "userdatadir": true, "profile": true, "download": true,
	"downloads": true, "screenshot": true, "output": true, "log": true, "config": true, "cookie": true,
	"cookies": true, "extension": true, "extensions": true, "cert": true, "data": true, "file": true, "home": true,
	"work": true, "working": true, "cache": true, "temp": true, "tmp": true, "root": true, "base": true, "url": true,
	"route": true, "page": true, "start": true, "storage": true, "state": true, "trace": true, "har": true,
	"video": true, "record": true, "recording": true, "save": true, "project": true, "workspace": true,
	"upload": true, "pdf": true, "image": true, "css": true, "html": true, "socket": true, "pid": true,
	"session": true, "dir": true, "folder": true, "target": true, "source": true, "destination": true,
	"document": true, "theme": true, "locale": true, "font": true, "storagestate": true, "cookiefile": true,
	"certificate": true, "harfile": true, "media": true, "asset": true, "model": true, "audio": true,
	"manifest": true, "json": true, "craft": true}

// notProgramPathWords say a path parameter's description is of a page or
// a folder.
var notProgramPathWords = map[string]bool{"url": true, "route": true, "page": true, "directory": true,
	"folder": true, "dir": true, "website": true, "link": true}

// saysWorkedOn says a parameter's own description says what it names is
// the input of work done on it ("Path of the binary to sign", "Binary to
// watch for crash dumps").
func saysWorkedOn(schema *tooldef.Object) bool {
	d := schema.GetString("description")
	if d == "" {
		return false
	}
	ws := words(strings.ToLower(d), 200)
	for i, w := range ws {
		if workedOnWords[w] || (w == "to" && i+1 < len(ws) && workVerbs[ws[i+1]]) {
			return true
		}
	}
	return false
}

// workedOnWords say in a word that a program is worked on: signed,
// scanned, the program a crash dump came from.
var workedOnWords = map[string]bool{"signed": true, "scanned": true, "analyzed": true, "analysed": true,
	"notarized": true, "notarised": true, "decompiled": true, "disassembled": true, "inspected": true,
	"uploaded": true, "submitted": true, "symbolicated": true, "dump": true, "crashed": true,
	"symbols": true}

// workVerbs are done on a program without running it.
var workVerbs = map[string]bool{"sign": true, "watch": true, "scan": true, "analyze": true, "analyse": true,
	"disassemble": true, "decompile": true, "inspect": true, "upload": true, "monitor": true,
	"check": true, "verify": true, "hash": true, "index": true, "package": true, "notarize": true, "notarise": true,
	"compress": true, "copy": true, "archive": true, "checksum": true, "read": true}

// launchedNouns are what a launcher starts as a program: a browser, an
// application, an instance of one.
var launchedNouns = map[string]bool{"browser": true, "browsers": true, "app": true, "application": true,
	"program": true, "process": true, "instance": true, "session": true, "debugger": true, "emulator": true,
	"simulator": true, "editor": true, "ide": true, "executable": true, "binary": true}

// notRunPhrases say what a parameter names is not started; each is taken
// as whole words ("not running yet" is no denial).
var notRunPhrases = []string{"not executed", "never executed", "not launched", "never launched",
	"nothing is started", "is not run", "is never run", "without executing", "without running", "read-only"}

// saysNotRun says a parameter's own description says what it names is
// not run.
func saysNotRun(schema *tooldef.Object) bool {
	d := schema.GetString("description")
	if d == "" {
		return false
	}
	d = strings.ToLower(d)
	return anyPhraseWhere(d, notRunPhrases, func(start, end int) bool {
		return (start == 0 || !isASCIILetterByte(d[start-1])) && (end == len(d) || !isASCIILetterByte(d[end]))
	})
}

// meetingNouns are what a calendar invites people to.
var meetingNouns = map[string]bool{"event": true, "events": true, "meeting": true, "meetings": true,
	"appointment": true, "appointments": true, "invite": true, "invitation": true, "invitations": true}

// calendarSaid makes an event a calendar's.
var calendarSaid = phrase.New("calendar", "meeting", "invit")

// inviteeParams list the people an event is held with.
var inviteeParams = map[string]bool{"attendees": true, "invitees": true, "guests": true, "participants": true,
	"requiredattendees": true, "optionalattendees": true, "addattendees": true}

// invitesAttendees is the parameter of an event's change that lists the
// people it is held with, at any depth the schema walk reads
// ("create_events" of a batch whose events each list attendees): a
// calendar service mails each of them an invitation or an update as it
// saves the event, with no switch to ask, so the change reaches people
// outside the system as a sent message does. "" when the tool changes no
// event or names nobody.
func invitesAttendees(s *signals) string {
	head := headNoun(s.objects)
	if !meetingNouns[head] || s.verb == "export" || s.verb == "copy" || s.verb == "download" {
		return "" // "save_meeting_notes" saves notes; an exported event goes to a file
	}
	if (head == "event" || head == "events") && !containsAny(s.tokens, "calendar") && !calendarSaid.Any(opening(s.desc, claimWindow)) {
		return "" // a tournament's or an analytics event holds no one's calendar
	}
	for _, p := range s.params {
		if inviteeParams[p.flat] && p.typ == "array" {
			return p.name // a list of people; a number of guests is a head count
		}
	}
	return ""
}

// notifiesAddresses is the switch of a change that can mail whoever it
// lists ("create_event" with attendees and sendUpdates): whatever addresses
// the call names receive the message, inside the system or not. "" when
// there is none.
func notifiesAddresses(params []param) string {
	notify, recipients := "", false
	for _, p := range params {
		if p.nested {
			continue
		}
		if notifyParams[p.flat] {
			notify = p.name
		}
		if recipientParams[p.flat] && (p.flat != "to" || addressList(p.schema)) {
			recipients = true
		}
	}
	if recipients {
		return notify
	}
	return ""
}
