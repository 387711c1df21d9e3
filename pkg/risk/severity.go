package risk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
)

// severity is SEP-2793's riskLevel judged from what the tool does, the way
// the labelling rubric grades it: reads of public data and local helpers
// low; reversible, limited changes and reads of private data medium;
// deleting items, externally visible or irreversible effects, driving a
// logged-in session and reading secrets high; credentials and access,
// money, arbitrary execution and broad destruction critical.
//
// It is kept apart from the gating level on purpose. The level's floors
// fail closed (any delete verb, any declared destructive hint, any unknown
// tool is L5) so that the gate withholds what it cannot vouch for; copying
// that level into riskLevel would tell a reader that deleting one comment
// is as grave as dropping a database. The level is still raised to the
// band of the severity (Assess), so the two never disagree in the
// direction that would expose a tool.
func severity(s signals, act action, blast string) (string, string) {
	head := headNoun(s.objects)
	if s.optionPrivilege != "" && act >= actMutate {
		return "critical", fmt.Sprintf("an option changes %s: who may do what", s.optionPrivilege)
	}
	switch act {
	case actExec:
		if s.readOnlyQuery {
			return "medium", "runs only read queries: any record the database holds, none changed"
		}
		if s.execParam == "" && s.apiCall == "" && !s.anyRequest && containsAnyMap(s.objects, automationNouns) {
			if s.privilege != "" || accessInDescription(s.desc) {
				return "critical", "runs a stored pipeline, workflow or job that changes who may do what"
			}
			return "high", "runs a stored pipeline, workflow or job; the caller writes no code"
		}
		return "critical", "runs arbitrary code, commands or queries"
	case actDestroy:
		if containsAnyMap(s.tokens, ephemeralNouns) || containsAnyMap(s.objects, ephemeralNouns) {
			return "high", "clears session or working state that can be rebuilt"
		}
		return "critical", "removes a broad scope"
	case actDelete:
		if ephemeralNouns[head] || containsAnyMap(s.tokens, ephemeralNouns) {
			return "medium", "removes session state that can be rebuilt"
		}
		if (keepsOut[s.privilege] || containsAnyMap(s.objects, keepsOut)) && singular(head) != "rule" {
			// A firewall, a blocklist or a ban keeps someone out: removing
			// it, or a machine from its guard, is the granting direction,
			// whatever the verb. A firewall's rules most often allow, and
			// removing one closes.
			return "critical", "removes " + s.privilege + ": what it kept out can now get in"
		}
		if s.privilege != "" && s.actSource == "name" && s.optionPrivilege == "" {
			// Revoking is the safe direction of an access change: one
			// credential, role or rule is withdrawn and whoever used it is
			// locked out; nothing is granted.
			return "high", "removes " + s.privilege + ": access is withdrawn, not granted"
		}
		if s.privilege != "" {
			return "critical", "removes " + s.privilege + ": who may do what"
		}
		if s.optionContainer != "" {
			return "critical", "an operation removes a whole " + s.optionContainer + " with everything in it"
		}
		return "high", "deletes named items"
	case actUtility:
		return "low", "local computation"
	case actRead, actObserve:
		switch {
		case s.sensitive != "":
			return "high", "reads " + s.sensitive + ", which may hold secrets"
		case s.saysSecrets():
			return "high", "the description says it returns secrets or credentials"
		case s.revealFlag != "":
			return "high", fmt.Sprintf("flag %q reveals secret values", s.revealFlag)
		case s.apiCall != "":
			return "medium", "reads any path of the service's API"
		case recordNouns[head] && len(s.tokens) > 0 && s.tokens[len(s.tokens)-1] != head:
			// "get_dataset_items", "query_rows": any records of a
			// collection, whatever they hold.
			return "medium", "reads any records of a collection"
		case s.savedRead:
			return "medium", "returns what a stored query or report selects from the records it covers"
		case s.privateContent != "":
			return "medium", "reads " + s.privateContent + ", which may be private"
		case s.filterParam != "" && !containsAnyMap(s.objects, metadataWords) && !explainsPlan(&s) && namesDataStore(s):
			return "medium", fmt.Sprintf("parameter %q selects any of a collection's records", s.filterParam)
		}
		return "low", "reads data that is not secret"
	}
	// Mutations and sends.
	switch {
	case accessLink(s.credential) && !(shellLink(s.credential) && s.privilege != "" && s.privilege != s.credential):
		// Publishing, not granting a role: the rubric's externally
		// visible effect. It opens one thing, to anyone with the link.
		return "high", "mints " + s.credential + " that opens it for whoever holds it"
	case injectsSiteScript(&s):
		return "critical", "adds a script that runs in the browser of everyone who visits the site"
	case act == actMutate && programParam(&s) != "":
		return "critical", fmt.Sprintf("parameter %q names a script or a program the tool starts: it runs", programParam(&s))
	case act == actMutate && deploysCode(&s) != "":
		return "critical", fmt.Sprintf("parameter %q holds code the service will run: a class, trigger or function saved there runs with the service's rights", deploysCode(&s))
	case act == actMutate && s.manifest != "":
		return "critical", fmt.Sprintf("parameter %q applies a whole manifest of any kind: it can bind roles and grant access", s.manifest)
	case s.privilege != "" && notAccess(s) != "":
		return "medium", notAccess(s)
	case s.privilege != "":
		return "critical", fmt.Sprintf("changes %s: who may do what", s.privilege)
	case standingForward(&s):
		return "critical", "forwards every message that arrives from now on to an address the call names"
	case accessPolicy(s) != "":
		return "critical", accessPolicy(s) + ": who may do what"
	case accessInDescription(s.desc):
		return "critical", "the description says it grants or revokes access: who may do what"
	case (containsAnyMap(s.objects, securityControls) && disablingVerbs[s.verb]) || s.verb == "disarm":
		return "critical", fmt.Sprintf("%q turns off a security control", s.verb)
	case s.verb == "sign" && containsAny(s.objects, "transaction", "tx", "transfer", "payment"):
		return "critical", "signs a transaction that moves funds"
	case s.money != "" && movesMoneyAs(s.money):
		return "critical", movingMoney(s.money)
	case act == actSend:
		return "high", fmt.Sprintf("%q is visible outside the system and cannot be recalled", s.verb)
	case (s.verb == "unlock" || s.verb == "open") && containsAnyMap(s.objects, physicalLocks):
		return "high", "opens a physical lock"
	case s.public != "":
		return "high", "externally visible: " + s.public
	case postsToForum(&s):
		return "high", "posts in a forum: everyone who reads the forum sees it, and nobody can unsee it"
	case invitesAttendees(&s) != "":
		return "high", fmt.Sprintf("parameter %q invites whoever the call lists: the invitation or update is mailed to them", invitesAttendees(&s))
	case startsDeployment(&s):
		return "high", fmt.Sprintf("%q starts a deployment: what it ships goes in front of everyone the service answers", s.verb)
	case act == actMutate && runsWorkload(&s) != "":
		return "high", fmt.Sprintf("parameter %q names what the workload runs (an image, a build or start command): code of the caller's choosing runs in the account's infrastructure", runsWorkload(&s))
	case act == actMutate && buildsFromSource(&s) != "":
		return "high", fmt.Sprintf("parameter %q names the repository the workload is built from: its next build runs whatever that repository holds", buildsFromSource(&s))
	case runsStoredPipeline(&s):
		// Running a stored pipeline again runs what its owner wrote, its
		// deploy steps with the rest, as the first run did.
		return "high", fmt.Sprintf("%q runs a stored pipeline, workflow or job again", s.verb)
	case highImpactVerbs[s.verb]:
		return "high", fmt.Sprintf("%q changes a running service or shared history", s.verb)
	case s.envVariables:
		return "high", "changes a service's environment variables, where its keys and connection strings live"
	case sendsLocalFile(&s) != "":
		return "high", fmt.Sprintf("parameter %q takes a path on the server's machine and the call sends the file away: whatever file it names, keys among them, leaves the machine", sendsLocalFile(&s))
	case copiesSecrets(&s):
		return "high", fmt.Sprintf("%q writes out what the description says holds secrets: whoever reads the copy can use them", s.verb)
	case endsAnyProcess(&s):
		return "high", "ends a process by its id: whatever it was doing, for whoever it served, is lost"
	case endsSessions(&s):
		return "high", "signs sessions out: whoever used them loses access until they sign in again"
	case entersMaintenance(&s):
		return "high", "puts a service into maintenance: its users are turned away until it is lifted"
	case serviceOperation(s) != "":
		return "high", fmt.Sprintf("%q changes a running service as a whole", serviceOperation(s))
	case routesTraffic(&s) != "":
		return "high", "changes " + routesTraffic(&s) + ": what reaches a service from outside, and where it goes"
	case mailIdentity(&s) != "":
		return "high", "changes " + mailIdentity(&s) + ": every recipient of the account's mail sees it"
	case s.verb == "alter" && containsAny(s.objects, "table", "tables", "column", "columns", "schema") &&
		(containsAny(s.objects, "column", "columns", "schema") || schemaWords.Any(opening(s.desc, claimWindow))):
		return "high", "alters a table's structure: every query and application that reads it meets the change"
	case stopsServing(&s) != "":
		return "high", "stops " + stopsServing(&s) + " that serves others: whoever relies on it is turned away until it is started again"
	case s.money == "subscription":
		return "high", "changes what a customer is charged again and again"
	case s.money != "":
		return "medium", "prepares a charge without moving money (" + s.money + ")"
	case controlsDesktop(&s):
		return "critical", "types and clicks anywhere on a computer's desktop: whatever its user could do there, in a terminal or a signed-in application, it can"
	case containsAnyMap(s.tokens, sessionActions) && !containsAnyMap(s.tokens, pointerOnly):
		return "high", "acts in a possibly logged-in browser session"
	case containsAnyMap(s.tokens, pointerOnly) || lightVerbs[s.verb]:
		return "low", "moves the pointer or the view; commits nothing"
	case overwrites(s):
		return "high", "overwrites content with no undo of its own"
	case len(s.hardFlags) > 0 && !addsByForce(&s):
		// Adding by force takes in what a safeguard would have refused
		// (an ignored file, a duplicate) and is undone by removing it;
		// a create by force may replace what exists, so it is not spared.
		return "high", fmt.Sprintf("flag %q makes the change hard to undo", s.hardFlags[0])
	case blast == "cluster":
		return "high", "a change whose reach is " + blast
	case (s.bulk || containsAny(s.objects, "many", "all", "bulk", "multiple")) && !additiveVerbs[s.verb]:
		return "high", "changes many items at once"
	case selector(s) != "" && s.verb != "create" && s.verb != "insert":
		return "high", fmt.Sprintf("parameter %q changes every record it matches", selector(s))
	case s.filterParam != "" && s.verb != "create":
		// A created view or saved search stores its filter; it changes
		// nothing it matches.
		return "high", fmt.Sprintf("parameter %q changes every record it matches", s.filterParam)
	case containsAnyMap(s.objects, certificateNouns):
		return "high", "mints or changes a certificate, a credential others will trust"
	case refreshVerbs[s.verb] && containsAnyMap(s.objects, metadataWords):
		return "low", fmt.Sprintf("%q refreshes cached metadata", s.verb)
	case s.irreversibleText || s.overwriteText:
		return "high", "the description says the change overwrites or cannot be undone"
	case act == actMutate && containsAnyMap(s.objects, unattendedNouns) && changeVerbs[s.verb]:
		// A new automation runs nothing until someone relies on it; an
		// edited one changes what already runs.
		return "high", "changes an automation that already runs on its own, unattended"
	case act == actMutate && subscribesWebhook(&s):
		// "create_webhook(url)": unlike an automation that runs nothing
		// until someone relies on it, a new webhook sends every event it
		// subscribes to, from now on, to an address the call names.
		return "high", "sends the service's events from now on to an address the call names"
	case s.endsBilling:
		// Last: it only ever replaces the grade below.
		return "high", fmt.Sprintf("%q ends or pauses a billed membership: what a customer pays for again and again", s.verb)
	}
	return "medium", "a reversible change of limited scope"
}

// automationNouns are stored automations: running one runs what its
// owner wrote, not code the caller supplies.
var automationNouns = map[string]bool{"pipeline": true, "workflow": true, "job": true, "build": true,
	"actor": true, "task": true, "evaluation": true, "test": true, "suite": true}

// securityControls are what keeps an account or a place safe: turning one
// off opens everything it guards.
var securityControls = map[string]bool{"audit": true, "logging": true, "mfa": true, "2fa": true, "firewall": true,
	"protection": true, "encryption": true, "antivirus": true, "guardrail": true}

// disablingVerbs turn something off; "disarm" needs no object to say so.
var disablingVerbs = map[string]bool{"disable": true, "deactivate": true, "turn": true, "suspend": true, "bypass": true}

// physicalLocks keep a place or a vehicle shut.
var physicalLocks = map[string]bool{"door": true, "lock": true, "gate": true, "garage": true, "vehicle": true, "car": true,
	"safe": true}

// accessInDescription says the description's opening grants or revokes
// access, whatever the name calls the tool ("Terminates an employee's
// contract and revokes their access").
func accessInDescription(desc string) bool {
	head := desc[:min(len(desc), 300)]
	if !strings.Contains(head, "revoke") && !strings.Contains(head, "grant") {
		return false
	}
	return strings.Contains(head, "access") || strings.Contains(head, "permission") || strings.Contains(head, " role") || strings.Contains(head, "privilege")
}

// unattendedNouns are automations that run later on their own — on a
// schedule, an event or a trigger: changing one changes what will run
// with nobody watching.
var unattendedNouns = map[string]bool{"workflow": true, "pipeline": true, "schedule": true, "cron": true,
	"webhook": true, "hook": true, "trigger": true, "automation": true}

// subscribesWebhook says a change makes a webhook (its head noun a webhook
// or a hook, its verb one that makes, adds, registers or subscribes) and a
// parameter, at any depth, is named for the address it delivers to.
func subscribesWebhook(s *signals) bool {
	if head := headNoun(s.objects); head != "webhook" && head != "hook" {
		return false
	}
	if !makingVerbs[s.verb] && s.verb != "add" && s.verb != "register" && s.verb != "subscribe" {
		return false
	}
	for _, p := range s.params {
		if deliveryAddresses[p.flat] {
			return true
		}
	}
	return false
}

// deliveryAddresses name the address a webhook delivers to; an avatar's,
// an icon's, a template's or a repository's URL is none.
var deliveryAddresses = map[string]bool{"url": true, "uri": true, "endpoint": true, "endpointurl": true,
	"webhookurl": true, "hookurl": true, "targeturl": true, "destinationurl": true, "deliveryurl": true,
	"payloadurl": true, "notificationurl": true, "receiverurl": true, "callbackurl": true}

// changeVerbs edit something that exists, rather than make something new.
var changeVerbs = map[string]bool{"update": true, "edit": true, "modify": true, "replace": true, "set": true,
	"patch": true, "change": true}

// certificateNouns are credentials others trust: minting one is granting.
var certificateNouns = map[string]bool{"certificate": true, "cert": true, "issuer": true, "keypair": true,
	"csr": true}

// refreshVerbs re-read what a system already holds.
var refreshVerbs = map[string]bool{"sync": true, "refresh": true, "rescan": true, "reindex": true, "reload": true}

// severityRank orders riskLevel values.
var severityRank = map[string]int{"low": 0, "medium": 1, "high": 2, "critical": 3}

// ephemeralNouns name session and working state whose loss is recovered by
// signing in again or rebuilding it: clearing it is not a broad destruction.
var ephemeralNouns = map[string]bool{
	"cookie": true, "cookies": true, "localstorage": true, "sessionstorage": true, "storage": true, "cache": true,
	"stash": true, "highlight": true, "route": true, "mock": true, "untracked": true,
}

// highImpactVerbs change a running service or history others share: one
// call can take a service down or put unreviewed work in front of users.
var highImpactVerbs = map[string]bool{
	"deploy": true, "promote": true, "upgrade": true, "scale": true, "rollout": true,
	"merge": true, "maintenance": true, "rollback": true, "reset": true,
	"finalize": true, "checkout": true, "handle": true, "import": true, "approve": true,
	"install": true,
}

// explainsPlan says a read returns how a query would run — the plan its
// optimiser chose and what executing it cost — rather than the records it
// selects: its filter names records it does not return. Only the name's
// verb says so; a description that also offers a plan may return records.
func explainsPlan(s *signals) bool {
	return s.actSource == "name" && s.verb == "explain"
}

// copiesOut are the verbs of a change that writes a copy of what it reads
// somewhere else: a file, a backup, an export.
var copiesOut = map[string]bool{"save": true, "export": true, "dump": true, "backup": true, "copy": true, "persist": true}

// copiedSecrets name secrets in the sense a copy of them can be used:
// not "headers" (a table's or a page's) but cookies, keys, tokens and
// passwords.
var copiedSecrets = []string{"cookies", "api key", "access token", "private key", "password", "credentials",
	"secret value", "secrets"}

var copiedSecretSet = phrase.New(copiedSecrets...)

// negations are the words that take back what follows them: "contains no
// password", "without secrets", "never clears".
var negations = map[string]bool{"no": true, "not": true, "never": true, "without": true, "excluding": true,
	"except": true, "doesn't": true, "isn't": true, "nor": true}

// statedNotNegated says one of the phrases occurs in the text and is not
// taken back there: no negation among the three words before it within
// the same clause ("no password or secret value"), and no "redacted" or
// "redacts" just after it. A negation elsewhere in the description ("No
// confirmation is asked", "Without a prompt, clears existing cookies")
// takes nothing back.
func statedNotNegated(text string, phrases []string) bool {
	return anyPhraseWhere(text, phrases, func(start, end int) bool { return !negatedAt(text, start, end) })
}

// anyPhraseWhere says some occurrence of one of phrases in text, each
// found after the end of the one before, is one ok accepts, given where it
// starts and ends.
func anyPhraseWhere(text string, phrases []string, ok func(start, end int) bool) bool {
	for _, p := range phrases {
		for at := 0; ; {
			i := strings.Index(text[at:], p)
			if i < 0 {
				break
			}
			i += at
			if ok(i, i+len(p)) {
				return true
			}
			at = i + len(p)
		}
	}
	return false
}

// negatedAt says the words before text[start:end] in its clause hold a
// negation, or the word after it says it is redacted.
func negatedAt(text string, start, end int) bool {
	clause := text[:start]
	if k := strings.LastIndexAny(clause, ".,;:!?()"); k >= 0 {
		clause = clause[k+1:]
	}
	before := strings.Fields(clause)
	for k := len(before) - 1; k >= 0 && k >= len(before)-3; k-- {
		if negations[before[k]] {
			return true
		}
	}
	after := strings.Fields(text[end:min(len(text), end+24)])
	for k := 0; k < len(after) && k < 2; k++ {
		w := strings.Trim(after[k], ".,;:!?()")
		if w == "redacted" || w == "redacts" || w == "redaction" {
			return true
		}
	}
	return false
}

// copiesSecrets says a change writes out a copy of what its description
// says holds secrets, and does not say they are left out.
func copiesSecrets(s *signals) bool {
	return copiesOut[s.verb] && copiedSecretSet.Any(s.desc) && statedNotNegated(s.desc, copiedSecrets)
}

// maintenanceModeWords say a service is put into maintenance as a whole.
var maintenanceModeWords = phrase.New("maintenance mode", "maintenance page", "users see", "visitors see")

// endsAnyProcess says a change ends a process named by its operating-
// system id: kill, terminate or stop with a pid parameter, any process of
// the machine. One that ends a session or a command the server started
// itself ("terminal session", "started by this server") stays ordinary.
func endsAnyProcess(s *signals) bool {
	if s.verb != "kill" && s.verb != "terminate" && s.verb != "stop" {
		return false
	}
	pid := false
	for _, p := range s.params {
		if p.flat == "pid" || p.flat == "processid" {
			pid = true
		}
	}
	return pid && !(selfStartedSet.Any(s.desc) && statedNotNegated(s.desc, selfStarted))
}

// selfStarted says a description speaks of what the server itself
// started: a terminal session it opened, a command it launched.
var selfStarted = []string{"terminal session", "started by this", "this server started", "the server started",
	"this tool started", "started with start_"}

var selfStartedSet = phrase.New(selfStarted...)

// endsSessions says a change signs sign-in sessions out: access is
// withdrawn from whoever holds them, the safe direction of an access
// change, but felt at once by every person signed out. Signing the tool's
// own browser out of a site is not that: the sessions ended must be
// several ("sessions", all, other, every) or revoked by id.
func endsSessions(s *signals) bool {
	switch s.verb {
	case "logout", "signout", "revoke":
		return containsAny(s.objects, "session") &&
			(s.verb == "revoke" || containsAny(s.tokens, "sessions", "all", "other", "every") || strings.Contains(s.desc, "revoke"))
	}
	return false
}

// entersMaintenance says a change puts a running service into maintenance
// mode ("maintenance_on", "enable maintenance mode"): until someone lifts
// it the service answers its users with a maintenance page. Lifting it
// restores what was there and is an ordinary change.
func entersMaintenance(s *signals) bool {
	if !containsAny(s.objects, "maintenance") || containsAny(s.tokens, "off", "disable", "end", "exit", "stop", "cancel", "window", "windows",
		"notification", "notifications", "reminder", "reminders", "alert", "alerts", "task", "tasks", "schedule", "email") {
		return false
	}
	if !containsAny(s.tokens, "mode", "on") && !maintenanceModeWords.Any(s.desc) {
		return false // maintenance of something else, not a mode the service is put in
	}
	return s.verb == "enable" || s.verb == "start" || s.verb == "activate" || s.verb == "enter" || s.verb == "set" || containsAny(s.tokens, "on", "enable")
}

// addsByForce says a change adds by force and nothing more: an add or a
// stage whose one hard flag is force, where neither the description nor the
// flag's own description says anything is overwritten, replaced, deleted
// or removed. It takes in what a safeguard refused (an ignored file) and
// is undone by removing it.
func addsByForce(s *signals) bool {
	if (s.verb != "add" && s.verb != "stage") || len(s.hardFlags) != 1 || s.hardFlags[0] != "force" || s.overwriteText {
		return false
	}
	for _, p := range s.params {
		if p.flat != "force" {
			continue
		}
		d := p.schema.GetString("description")
		d = strings.ToLower(d)
		for _, w := range []string{"overwrit", "replac", "delet", "remov", "discard", "clobber"} {
			if strings.Contains(d, w) {
				return false
			}
		}
	}
	for _, w := range []string{"delet", "remov", "discard"} {
		if strings.Contains(s.desc, w) {
			return false
		}
	}
	return true
}

// sessionActions drive a browser that may be signed in: a click or a key
// press can submit whatever form the page shows.
var sessionActions = map[string]bool{
	"click": true, "type": true, "press": true, "navigate": true, "drag": true, "drop": true,
	"upload": true, "dialog": true, "tabs": true, "down": true, "up": true,
}

// desktopSaid says what a tool acts on is a whole computer: its desktop,
// its operating system.
var (
	desktopPhrases = []string{"desktop", "computer", "operating system"}
	desktopSaid    = phrase.New(desktopPhrases...)
)

// browserPagePhrases say it is a browser's page instead.
var browserPagePhrases = []string{"browser", "web page", "webpage", "tab ", "website"}

// keyboardInputs and pointerClicks are the words of typing and of clicking,
// in a tool's name or in the actions its action parameter offers.
var (
	keyboardInputs = map[string]bool{"type": true, "key": true, "keys": true, "keypress": true, "press": true,
		"hotkey": true, "typing": true}
	pointerClicks = map[string]bool{"click": true, "clicks": true, "tap": true}
)

// controlVerbs are the verbs of a name that names the control itself
// ("use_computer", "control_desktop"); a tool named by any other verb
// records, configures or files what it takes.
var controlVerbs = map[string]bool{"use": true, "control": true, "operate": true, "interact": true, "automate": true,
	"drive": true}

// desktopActionParams pick the input a desktop tool sends: its action, not
// a kind, a mode or a category.
var desktopActionParams = map[string]bool{"action": true, "actions": true, "operation": true, "command": true}

// controlsDesktop says a tool types and clicks on a computer's desktop
// ("computer(action: key | type | left_click …) — Use a mouse and keyboard
// to interact with a computer"): its first sentence is about a computer
// before any browser's page, no verb but one of control names it, and one
// parameter that picks its action offers both a key press or typed text
// and a click. Whoever types on a desktop can open a terminal and type a
// command into it, or act in any application signed in there: as grave
// as running the command. A tool that records, tracks, configures or
// files clicks and keys (a UI test recorder, an analytics event, a
// shortcut, a ticket's category) names another verb or offers them as no
// action.
func controlsDesktop(s *signals) bool {
	first := firstSentence(s.desc)
	if !desktopSaid.Any(first) {
		return false // nearly every tool: one pass, no position sought
	}
	if b := earliest(first, browserPagePhrases); b >= 0 && b < earliest(first, desktopPhrases) {
		return false
	}
	if s.actSource == "name" && !controlVerbs[s.verb] {
		return false // "track_event", "add_tutorial_step": another verb names the tool
	}
	// Both actions from one parameter's options ("press_release" with a
	// kind "click" types nothing).
	var buf [4]string
	for _, p := range s.params {
		if p.nested || !desktopActionParams[p.flat] {
			continue
		}
		typing, clicking := false, false
		for _, v := range optionValues(p.schema) {
			for _, w := range appendTokens(buf[:0], v) {
				typing = typing || keyboardInputs[w]
				clicking = clicking || pointerClicks[w]
			}
		}
		if typing && clicking {
			return true
		}
	}
	return false
}

// earliest is where in text the first of phrases to appear begins, or -1.
func earliest(text string, phrases []string) int {
	at := -1
	for _, p := range phrases {
		if i := strings.Index(text, p); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// pointerOnly words move a pointer or a view and commit nothing.
var pointerOnly = map[string]bool{"hover": true, "move": false, "wheel": true, "scroll": true, "back": true,
	"resize": true}

// contentNouns hold what a write replaces wholesale.
var contentNouns = map[string]bool{"file": true, "content": true, "block": true, "markdown": true, "document": true,
	"value": true, "text": true, "pdf": true}

// overwrites says a write replaces content in place: writing or editing a
// file, setting a value, creating-or-updating. A write that says it never
// overwrites does not.
func overwrites(s signals) bool {
	if s.actSource != "name" {
		return false // a verb read from prose ("a set of documents") is too weak
	}
	upsert := containsAny(s.tokens, "create") && containsAny(s.tokens, "update")
	replaces := (upsert && containsAnyMap(s.objects, contentNouns)) ||
		((s.verb == "write" || s.verb == "edit" || s.verb == "set" || s.verb == "replace") && (containsAnyMap(s.objects, contentNouns) || len(s.objects) == 0)) ||
		s.verb == "overwrite" || // whatever it names, it says it replaces what is there
		// "kv_put", "r2_put_object", "putCollection": a put stores the
		// whole thing under its key, replacing what was there.
		(s.verb == "put" && len(s.objects) > 0 && !putParticles[s.objects[0]] && !containsAny(s.objects, "option", "options"))
	if !replaces {
		return false
	}
	return !strings.Contains(s.desc, "no-overwrite") && !strings.Contains(s.desc, "not overwrite") && !strings.Contains(s.desc, "fails if")
}

// putParticles make a put a phrase of its own ("put_on_hold", "put_away"),
// not a store under a key.
var putParticles = map[string]bool{"on": true, "in": true, "into": true, "to": true, "away": true, "back": true,
	"up": true, "off": true, "out": true}

// lightVerbs change only transient, local presentation state.
var lightVerbs = map[string]bool{
	"hover": true, "resize": true, "highlight": true, "emulate": true, "toggle": true,
}

// privateContentNouns name what people write or records about people and
// money: reading them is reading data that is sensitive but not secret.
var privateContentNouns = map[string]bool{
	"diff": true, "blame": true, "commit": true, "user": true,
	"log": true, "issue": true, "ticket": true, "pull": true, "comment": true, "review": true, "message": true,
	"thread": true, "reply": true, "conversation": true, "history": true, "email": true, "mail": true,
	"profile": true, "customer": true, "contact": true, "invoice": true, "payment": true, "subscription": true,
	"dispute": true, "balance": true, "transaction": true, "order": true, "page": true, "block": true,
	"document": true, "note": true, "record": true, "row": true, "event": true, "replay": true, "output": true,
	"chat": true, "dm": true, "attachment": true, "recording": true, "submission": true, "task": true,
	"tasks": true, "address": true, "addresses": true, "business": true, "businesses": true, "collaborator": true, "collaborators": true,
	// A business's books and its people's records: what the rubric calls
	// customer records, held by accounting and HR systems.
	"bill": true, "expense": true, "journal": true, "ledger": true, "deposit": true, "receipt": true, "payroll": true,
	"timesheet": true, "employee": true, "attendance": true, "salary": true, "payslip": true, "profit": true,
	// Records about people held by clinics, schools and recruiters.
	"patient": true, "diagnosis": true, "prescription": true, "medication": true, "student": true,
	"applicant": true, "candidate": true,
}

// privateHeads are private content only as what a read returns, the head
// of its name, and only where no word beside them gives them another
// sense (headSenses): mail found by who sent or received it, or not yet
// sent, is what people write, as a message is; a sales pipeline's leads,
// opportunities and quotations are records about customers; a tracker's
// stories and subtasks, a person's reminders and a chat's dialogs are
// what people write about their work; a shop's checkouts and deliveries
// hold its customers' carts and addresses, and an account's billing, its
// affiliates and their commissions are records about people and money.
// "get_lead_time" reads a time,
// "get_draft_picks" picks.
var privateHeads = map[string]bool{
	"draft": true, "inbox": true, "sender": true, "recipient": true, "mention": true,
	"lead": true, "opportunity": true, "quotation": true,
	"story": true, "subtask": true, "reminder": true, "dialog": true,
	"checkout": true, "billing": true, "affiliate": true, "commission": true, "delivery": true,
}

// headSenses give a private head another sense: a public or technical
// one ("get_internet_draft", "get_building_stories", "get_browser_dialogs",
// "get_savings_opportunities", "get_stock_quotation", "get_brand_mentions"),
// in the name or in the description's opening ("Gets a Hacker News story").
var headSenses = map[string]bool{"internet": true, "ietf": true, "rfc": true, "building": true, "floor": true,
	"component": true, "news": true,
	"browser": true, "page": true, "alert": true, "confirm": true, "modal": true, "savings": true, "optimization": true,
	"seo": true, "arbitrage": true, "stock": true, "fx": true, "brand": true, "social": true,
	"beer": true, "tournament": true,
	"git": true, "branch": true, "worktree": true, "sparse": true, "library": true, "book": true, "books": true,
	"webhook": true, "cdn": true, "continuous": true, "art": true, "artwork": true,
	"artist": true, "european": true, "securities": true, "pricing": true}

// saysWordOf says a lower-cased text holds one of the words as a word of
// its own.
func saysWordOf(text string, words map[string]bool) bool {
	for i := 0; i < len(text); {
		for i < len(text) && !isASCIILetterByte(text[i]) {
			i++
		}
		j := i
		for j < len(text) && isASCIILetterByte(text[j]) {
			j++
		}
		if j > i && words[text[i:j]] {
			return true
		}
		i = j
	}
	return false
}

// peopleContainers hold people: their members are people with names and
// addresses, records about people as users are. A group's, a project's or
// a resource's members are as often accounts or machines.
var peopleContainers = map[string]bool{"workspace": true, "org": true, "organization": true, "organisation": true,
	"team": true, "board": true, "room": true, "channel": true, "segment": true, "community": true, "space": true,
	"tenant": true}

// machineAddressWords make an address a machine's or a ledger's rather
// than a person's or a customer's.
var machineAddressWords = map[string]bool{"ip": true, "ips": true, "mac": true, "wallet": true, "contract": true,
	"server": true, "host": true, "node": true, "network": true, "reserved": true, "floating": true, "static": true,
	"public": true, "private": true, "memory": true, "socket": true, "endpoint": true}

// taskOwners make a task a stored automation's unit of work rather than a
// person's to-do, which is what a tracker's task is: written by people,
// about their work, as an issue or a ticket is.
var taskOwners = map[string]bool{"actor": true, "pipeline": true, "workflow": true, "job": true, "cron": true,
	"scheduled": true, "build": true, "agent": true, "queue": true}

// fileContentNouns hold content only when they are read, not listed or
// searched by name: a listing shows names, a read shows what is inside.
var fileContentNouns = map[string]bool{"file": true, "content": true, "source": true, "code": true, "object": true,
	"blob": true}

// metadataWords say a read returns facts about an object, not the object.
var metadataWords = map[string]bool{"metadata": true, "info": true, "status": true, "size": true, "schema": true,
	"location": true, "stat": true, "name": true}

// aggregateHeads are what a read returns about records rather than the
// records: "get_project_task_counts", "get_tags_for_task".
var aggregateHeads = map[string]bool{"count": true, "total": true, "statistic": true, "stat": true, "tag": true,
	"label": true, "summary": false}

// beforeQualifier is a name's objects before "for", "by", "of", "in" or
// "from": "get_tags_for_task" returns tags, "get_tasks_for_tag" tasks.
func beforeQualifier(objects []string) []string {
	for i, o := range objects {
		switch o {
		case "for", "by", "of", "in", "from":
			if i > 0 {
				return objects[:i]
			}
		}
	}
	return objects
}

// definitionNouns name how something is defined rather than what it
// holds: "describe_code_analyzer_rule" reads a rule about code, not code.
var definitionNouns = map[string]bool{"rule": true, "type": true, "definition": true, "template": true,
	"guide": true, "doc": true, "docs": true, "documentation": true, "spec": true,
	"specification": true, "format": true}

// definesOnly says a read returns how something is defined: the head of
// its name — before any "by", "from", "of" or "for" that only qualifies it
// ("list_messages_by_type" reads messages) — is a definition noun, and the
// description does not say it returns contents, bodies or text.
func definesOnly(s *signals) bool {
	objects := s.objects
	for i, o := range objects {
		if (o == "by" || o == "from" || o == "of" || o == "for") && i > 0 {
			objects = objects[:i]
			break
		}
	}
	if !definitionNouns[headNoun(objects)] {
		return false
	}
	return !strings.Contains(s.desc, "content") && !strings.Contains(s.desc, "bodies") && !strings.Contains(s.desc, "body") &&
		!strings.Contains(s.desc, "text")
}

// secretPhrases in a read's description say it returns secret values.
var secretPhrases = []string{"secret value", "password", "api key", "access token", "private key",
	"environment variable", "cookies", "headers", "process environment", "process's environment", "connection string"}

var secretPhraseSet = phrase.New(secretPhrases...)

func containsAnyMap(list []string, m map[string]bool) bool {
	for _, l := range list {
		if m[l] {
			return true
		}
	}
	return false
}

// readsPrivate finds the private-content word a read names, in its name or,
// for a read named by its verb alone (git_diff), in the verb.
func readsPrivate(s *signals) {
	if containsAnyMap(s.objects, metadataWords) || aggregateHeads[singular(headNoun(beforeQualifier(s.objects)))] {
		return
	}
	defines := definesOnly(s)
	listing := s.verb == "list" || s.verb == "search" || s.verb == "find" || s.verb == "tree"
	printed := containsAny(s.tokens, "console", "stdout", "stderr", "terminal")
	for _, o := range s.objects {
		if printed && printedOutputNouns[o] {
			continue // what a program printed, not what a person wrote
		}
		if o == "task" || o == "tasks" {
			if containsAnyMap(s.objects, taskOwners) {
				continue // "get_actor_task": a stored automation's settings, not a person's to-do
			}
		}
		if (o == "address" || o == "addresses") && containsAnyMap(s.objects, machineAddressWords) {
			continue // "get_public_ip_address": a machine's address, not where a person lives
		}
		if !defines && (privateContentNouns[o] || (fileContentNouns[o] && !(listing && o != "code" && o != "content"))) {
			s.privateContent = o
			return
		}
	}
	if v := singular(s.verb); privateContentNouns[v] && !defines {
		s.privateContent = v
		return
	}
	for _, head := range [2]string{singular(headNoun(beforeQualifier(s.objects))), singular(headNoun(s.objects))} {
		// The head before a qualifier, or the name's last word
		// ("search_unread_from_sender" finds mail by its sender).
		if !defines && privateHeads[head] && !containsAnyMap(s.objects, headSenses) && !saysWordOf(opening(s.desc, claimWindow), headSenses) {
			s.privateContent = head
			return
		}
	}
	if head := headNoun(beforeQualifier(s.objects)); (head == "member" || head == "members") && containsAnyMap(s.objects, peopleContainers) {
		s.privateContent = "a " + head + " of a workspace, team or room"
		return
	}
	// "get_private_module_details": the name itself says what it reads
	// is private, whatever the object is. A listing of private things
	// shows their names, not what they hold.
	if !listing && containsAny(s.tokens, "private") && len(s.objects) > 1 {
		s.privateContent = "a private " + headNoun(s.objects)
	}
}

// namesDataStore says a read's name or the opening of its description
// speaks of a data store's records — a database, a collection, its
// documents, rows or entities — where a filter may select anyone's
// records (the rubric's customer records, medium). A filter over an
// application's own objects ("list_projects(filter)", "search_issues(query)")
// narrows a listing and exposes nothing a plain list would not: reviewers
// of servers the rules were not written from graded such reads low three
// times in four.
func namesDataStore(s signals) bool {
	if containsAnyMap(s.objects, dataStoreWords) {
		return true
	}
	for _, w := range words(s.desc, 300) {
		if dataStoreWords[w] {
			return true
		}
	}
	return false
}

// dataStoreWords name a data store or the records it holds.
var dataStoreWords = map[string]bool{"database": true, "databases": true, "db": true, "collection": true,
	"collections": true, "document": true, "documents": true, "row": true, "rows": true, "record": true,
	"records": true, "table": true, "tables": true, "sql": true, "dataset": true, "datasets": true, "entity": true,
	"entities": true, "index": true}

// saysSecrets is returnsSecrets of the tool's description, read once: the
// effects stage and the grade both ask.
func (s *signals) saysSecrets() bool {
	if s.secretsSaid == 0 {
		s.secretsSaid = 1
		if returnsSecrets(s.desc) {
			s.secretsSaid = 2
		}
	}
	return s.secretsSaid == 2
}

// returnsSecrets says a read's description says it returns secret values.
func returnsSecrets(desc string) bool {
	d := opening(desc, claimWindow)
	if !secretPhraseSet.Any(d) {
		return false
	}
	// "headers" are secrets where they are a request's (they carry its
	// tokens and cookies); a table's column headers, a page's or a
	// document's headers and footers are not.
	return secretPhraseSetBesideHeaders.Any(d) || requestHeaders(d)
}

var secretPhrasesBesideHeaders = slices.DeleteFunc(slices.Clone(secretPhrases), func(p string) bool { return p == "headers" })

var secretPhraseSetBesideHeaders = phrase.New(secretPhrasesBesideHeaders...)

// benignHeaderWords, as whole words near "headers", make them a table's,
// a page's, a document's or a mail's.
var benignHeaderWords = map[string]bool{"column": true, "columns": true, "table": true, "csv": true, "sheet": true,
	"spreadsheet": true, "section": true, "page": true, "markdown": true, "row": true, "document": true, "docx": true,
	"pdf": true, "footers": true, "footer": true, "email": true, "mail": true, "heading": true, "headings": true}

// httpHeaderWords make headers a request's whatever else is near.
var httpHeaderWords = phrase.New("request headers", "response headers", "http", "network request", "headers and body",
	"headers and cookies", "authorization", "bearer", "api call")

// requestHeaders says the headers a description mentions are, or may be,
// a request's: it speaks of HTTP, or some mention of "headers" has no
// table, page, document or mail word among the three words before it or
// the four after it, and no negation takes it back.
func requestHeaders(d string) bool {
	if !strings.Contains(d, "header") {
		return false
	}
	if httpHeaderWords.Any(d) {
		return true
	}
	for at := 0; ; {
		i := strings.Index(d[at:], "headers")
		if i < 0 {
			return false
		}
		i += at
		end := i + len("headers")
		at = end
		if negatedAt(d, i, end) || (i > 0 && d[i-1] >= 'a' && d[i-1] <= 'z') {
			continue // "preheaders" are an e-mail's
		}
		before := strings.Fields(d[max(0, i-40):i])
		after := strings.Fields(d[end:min(len(d), end+40)])
		benign := false
		for k := len(before) - 1; k >= 0 && k >= len(before)-3; k-- {
			benign = benign || benignHeaderWords[strings.Trim(before[k], ".,;:!?()/")]
		}
		for k := 0; k < len(after) && k < 4; k++ {
			benign = benign || benignHeaderWords[strings.Trim(after[k], ".,;:!?()/")]
		}
		if !benign {
			return true
		}
	}
}

// additiveVerbs add new things and change nothing that exists: adding
// many at once is undone by removing them.
var additiveVerbs = map[string]bool{"create": true, "insert": true, "add": true}

// selectorParams choose the records a change applies to by a condition, not
// by naming one: whatever matches is changed. A filter is left to the
// filter rule, which knows a saved view stores its filter and changes
// nothing it matches.
var selectorParams = map[string]bool{"conditions": true, "condition": true, "criteria": true, "selector": true,
	"match": true, "where": true}

// selector finds a top-level parameter that selects records by a condition.
func selector(s signals) string {
	for _, p := range s.params {
		if !p.nested && selectorParams[p.flat] {
			if p.typ == "object" || p.typ == "" {
				return p.name
			}
		}
	}
	return ""
}

// stoppingVerbs stop what runs: one call takes a service down until
// someone starts it again. A restart brings it back by itself.
var stoppingVerbs = map[string]bool{"stop": true, "shutdown": true}

// stopsServing names what a stop takes down when the tool's own verb
// stops or pauses something that serves others — an application, a
// database, a server, a queue its workers take jobs from — by the name's
// head noun or, when the name's nouns say nothing the lexicon knows
// (a product's name), by the object the description's opening gives the
// verb ("Stops a MySQL database"). Downtime is the rubric's externally
// visible effect: everyone the service answers sees it at once. What
// stops only the tool's own work (a search, a recording, a watch, a port
// forwarded to the caller) or one run of an automation serves nobody else
// and is not matched: its nouns are not running services.
func stopsServing(s *signals) string {
	if !haltingVerbs[s.verb] {
		return ""
	}
	head := headNoun(s.objects)
	if runningNouns[head] {
		return "a running " + head
	}
	if obj := directObject(s.desc, s.verb); runningNouns[obj] {
		return "a running " + obj
	}
	return ""
}

// directObject is the head of the noun phrase that follows the verb in
// the description's first sentence ("Stops a MySQL database in …" gives
// "database"), "" when the verb is not there or nothing follows it.
func directObject(desc, verb string) string {
	first := opening(desc, claimWindow)
	if i := strings.IndexAny(first, ".\n"); i >= 0 {
		first = first[:i]
	}
	words := strings.FieldsFunc(first, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	for i, w := range words {
		if w != verb && w != verb+"s" && w != verb+"es" {
			continue
		}
		head := ""
		for _, n := range words[i+1 : min(len(words), i+5)] {
			if nounPhraseEnds[n] || n == "and" || n == "or" {
				break
			}
			if !determiners[n] {
				head = n
			}
		}
		return singular(head)
	}
	return ""
}

// determiners open a noun phrase and are not its head.
var determiners = map[string]bool{"a": true, "an": true, "the": true, "this": true, "that": true, "your": true,
	"its": true, "their": true, "any": true, "all": true, "specified": true, "given": true, "running": true}

// routesTraffic names what a change of the way traffic reaches a service
// touches — a load balancer, its forwarding rules, a proxy, a listener, an
// ingress or a port a service answers on from outside — "" when the
// change touches none. Every client of the service meets the result at
// once: the rubric's externally visible effect. Removing one is judged as
// a delete, and a port forwarded to the caller alone is not outside
// traffic. A domain is not read here: it is a service's address on one
// server and a DNS zone on another.
func routesTraffic(s *signals) string {
	if s.act != actMutate || containsAny(s.tokens, "forward") && !containsAny(s.tokens, "forwarding") {
		return ""
	}
	for i, o := range s.objects {
		switch o {
		case "balancer", "loadbalancer", "ingress":
			return "a " + o
		case "lb", "proxy", "listener":
			// Words with other senses (a weight in pounds, a proxy vote,
			// an event listener): the description must speak of traffic.
			if trafficWords.Any(opening(s.desc, claimWindow)) {
				return "a " + o
			}
		case "port":
			if i > 0 && (s.objects[i-1] == "external" || s.objects[i-1] == "public") {
				return "a port a service answers on from outside"
			}
		case "rule", "rules":
			if i > 0 && s.objects[i-1] == "forwarding" {
				return "forwarding rules"
			}
		}
	}
	return ""
}

// mailIdentity names what a change of how mail leaves an account touches
// — an address it sends as, an automatic reply, the certificate its mail
// is signed with — "" when none. Everyone who receives the account's
// mail, or writes to it, meets the result: the rubric's externally
// visible effect. (Forwarding every message from now on is graver still,
// and judged before this; registering an address to forward to is a step
// that forwards nothing, and is not matched.)
func mailIdentity(s *signals) string {
	if s.act != actMutate || !settingVerbs[s.verb] {
		return ""
	}
	mail := containsAny(s.tokens, "mail", "email", "inbox", "mailbox") || mailWords.Any(opening(s.desc, claimWindow))
	// An automatic reply named so that takes a reply's text answers whoever
	// writes, whatever service carries it; a vacation setting does where it
	// takes a message's subject and body, or says it is an out-of-office
	// reply (a thermostat's or a leave request's vacation takes neither).
	subject, body := repliesWithText(s.params)
	said := autoReplySaid.Any(firstSentence(s.desc)) || replyParamSaysAutoReply(s.params)
	reply := mail || subject || body || said
	vacation := mail || (subject && body) || (body && said) || outOfOffice.Any(opening(s.desc, claimWindow))
	if strings.Contains(firstSentence(s.desc), "send-as") || strings.Contains(firstSentence(s.desc), "send as address") {
		return "an address the account sends as"
	}
	for i, t := range s.tokens {
		switch {
		case t == "send" && i+1 < len(s.tokens) && s.tokens[i+1] == "as", t == "sendas":
			return "an address the account sends as"
		case t == "vacation" && vacation && vacationIsTheSetting(s.tokens, i), (t == "autoreply" || t == "autoresponder") && reply,
			t == "auto" && i+1 < len(s.tokens) && s.tokens[i+1] == "reply" && reply:
			return "an automatic reply to whoever writes"
		case t == "smime":
			return "the certificate its mail is signed with"
		}
	}
	if said && (mail || body) {
		// "Configure out of office (text)": the description names the
		// automatic reply the name does not.
		return "an automatic reply to whoever writes"
	}
	return ""
}

// replyParamSaysAutoReply says a reply's text parameter calls itself an
// automatic reply's ("Auto-reply text").
func replyParamSaysAutoReply(params []param) bool {
	for _, p := range params {
		if !replyTextParams[p.flat] {
			continue
		}
		if d := p.schema.GetString("description"); d != "" && autoReplySaid.Any(strings.ToLower(d)) {
			return true
		}
	}
	return false
}

// autoReplySaidPhrases name an automatic reply in a description's words.
var autoReplySaidPhrases = []string{"automatic repl", "auto-repl", "auto repl", "autorepl", "away message",
	"vacation setting",
	"out of office", "out-of-office", "vacation responder", "vacation repl", "while you're away",
	"while you are away", "autoresponder", "auto-responder"}

var autoReplySaid = phrase.New(autoReplySaidPhrases...)

// repliesWithText says a setting takes the text of a reply: its subject,
// and its body or message.
func repliesWithText(params []param) (subject, body bool) {
	see := func(flat string) {
		if !replyTextParams[flat] {
			return
		}
		if strings.Contains(flat, "subject") {
			subject = true
		} else {
			body = true
		}
	}
	for _, p := range params {
		switch p.typ {
		case "string", "":
			see(p.flat)
		case "object":
			// "vacationSettings: {responseSubject, responseBodyPlainText}":
			// a settings object is read as one value by the schema walk;
			// its own fields say what it sets.
			for _, m := range p.schema.GetObject("properties").Members() {
				see(flatten(m.Key))
			}
		}
	}
	return subject, body
}

// vacationIsTheSetting says the vacation a name speaks of is the setting
// changed — the last word, or one of its settings, responder or reply —
// not a rental, a package or a request named for one.
func vacationIsTheSetting(tokens []string, i int) bool {
	for _, t := range tokens[i+1:] {
		if !vacationSettingWords[t] && !settingVerbs[t] {
			return false // "update_vacation_rental"; not "vacation_update"
		}
	}
	return true
}

var vacationSettingWords = map[string]bool{"settings": true, "setting": true, "responder": true, "reply": true,
	"response": true, "cmd": true, "command": true, "tool": true, "api": true,
	"replies": true, "mode": true, "message": true, "status": true, "on": true, "off": true}

// outOfOfficePhrases say a setting is an out-of-office reply.
var outOfOfficePhrases = []string{"out-of-office", "out of office", "out of the office"}

var outOfOffice = phrase.New(outOfOfficePhrases...)

// replyTextParams hold the text an automatic reply sends.
var replyTextParams = map[string]bool{"subject": true, "body": true, "message": true, "reply": true,
	"replytext": true, "replymessage": true, "responsesubject": true, "responsebody": true,
	"responsebodyplaintext": true, "responsebodyhtml": true, "autoreplymessage": true, "textbody": true,
	"htmlbody": true, "bodytext": true, "bodyhtml": true, "messagebody": true, "replybody": true, "text": true,
	"plaintext": true, "responsetext": true, "awaymessage": true, "autoreplytext": true, "autoreply": true,
	"autoreplymessagehtml": true, "internalreplymessage": true, "externalreplymessage": true,
	"responsebodyhtmltext": true, "html": true, "content": true}

// mailWords say a description speaks of mail: a vacation or an automatic
// reply is a mailbox's only where mail is spoken of (a thermostat has a
// vacation mode too).
var mailWords = phrase.New("mail", "inbox", "mailbox", "responder", "sender", "messages")

// settingVerbs make or change a setting.
var settingVerbs = map[string]bool{"create": true, "add": true, "insert": true, "update": true, "patch": true,
	"set": true, "change": true, "edit": true, "modify": true, "enable": true, "configure": true}

// startsDeployment says a change starts, or starts again, a deployment
// ("deployment_trigger", "retry_deploy_machine", "resume_deploy_order"):
// whatever the deployment ships reaches the service's users when it
// lands, the rubric's deploying. Stopping, skipping or cancelling one is
// not matched: it ships nothing.
func startsDeployment(s *signals) bool {
	if s.act != actMutate || !startingVerbs[s.verb] {
		return false
	}
	if notShipping[headNoun(s.objects)] {
		return false // "start_deployment_checklist": a document about one
	}
	return containsAny(s.tokens, "deployment", "deploy", "deployments", "deploys")
}

// notShipping are what a deployment's name may head without shipping
// anything: a document or a plan about it.
var notShipping = map[string]bool{"report": true, "checklist": true, "diagram": true, "estimate": true,
	"template": true, "note": true, "doc": true, "document": true, "plan": true, "summary": true}

// startingVerbs start, or start again, what was prepared.
var startingVerbs = map[string]bool{"trigger": true, "start": true, "retry": true, "resume": true,
	"rerun": true, "run": true, "queue": true, "kick": true}

// injectsSiteScript says a change adds or changes a script a site or a
// page serves ("add_inline_site_script", "upsert_page_scripts"): the
// caller's code runs in the browser of every visitor, with whatever the
// visitor is signed in to — the rubric's arbitrary code, and seen by
// everyone. Removing one is the delete rules' business.
func injectsSiteScript(s *signals) bool {
	if s.act != actMutate || !containsAny(s.objects, "script", "scripts") {
		return false
	}
	if containsAny(s.tokens, "site", "sites", "website", "websites") {
		return true
	}
	// A page's script may be a narration's or a slide's: code only where
	// the description says so.
	return containsAny(s.tokens, "page", "pages") && codeWords.Any(opening(s.desc, claimWindow))
}

// runsStoredPipeline says a change runs a stored pipeline, workflow, job or
// build again (rerun, retry) or on demand (trigger). A trigger's object
// must be the automation itself: "trigger_task_reminder" and
// "trigger_test_notification" send a notice about a task or a test.
func runsStoredPipeline(s *signals) bool {
	switch s.verb {
	case "rerun", "retry":
		return containsAnyMap(s.objects, automationNouns)
	case "trigger":
		head := headNoun(s.objects)
		return automationNouns[head] && head != "task" && head != "test"
	}
	return false
}

// trafficWords say a description speaks of network traffic.
var trafficWords = phrase.New("load balancer", "traffic", "port", "tcp", "http", "udp", "backend", "requests",
	"forwarding", "upstream")

// codeWords say a description speaks of code a browser runs.
var codeWords = phrase.New("javascript", "js ", "source code", "html", "inline script", "<script")

// schemaWords say a table is a database's: a word-processing document has
// tables too.
var schemaWords = phrase.New("column", "schema", "sql", "database")

// haltingVerbs stop or pause what runs until someone starts it again.
var haltingVerbs = map[string]bool{"stop": true, "shutdown": true, "pause": true, "suspend": true}

// runningNouns serve others while they run: stopping one is downtime for
// whoever relies on it.
var runningNouns = map[string]bool{"app": true, "application": true, "service": true, "server": true,
	"database": true, "db": true, "instance": true, "vm": true, "machine": true,
	"cluster": true, "node": true, "queue": true, "worker": true, "site": true, "website": true,
	"deployment": true, "host": true, "gateway": true, "stack": true, "environment": true}

// serviceOperation finds a word of the name that stops what runs, or an
// operation of the tool that changes a running service as a whole (an
// action "restart" or "deploy"): the tool's own verb may be milder than
// what it can do.
func serviceOperation(s signals) string {
	for _, tok := range s.tokens {
		if tok != s.verb && stoppingVerbs[tok] {
			return tok
		}
	}
	for _, op := range s.optionMutations {
		// A restart brings the service back by itself; the other changes
		// of a whole service leave it as the call left it.
		if (serviceVerbs[op] && op != "restart") || stoppingVerbs[op] {
			return op
		}
	}
	return ""
}

// personalNouns are what a person's record holds beside their access: a
// profile, a display name, preferences. Changing them grants nothing.
var personalNouns = map[string]bool{"profile": true, "preference": true, "preferences": true, "avatar": true,
	"name": true, "status": true, "presence": true, "notification": true, "nickname": true, "bio": true}

// notAccess says why a change the name ties to a person, a configuration
// or an access noun does not change who may do what, "" when it does: it
// changes only a person's profile ("update_user_profile"), a configuration
// whose description speaks of no safeguard, or who works on a project or
// a team.
func notAccess(s signals) string {
	if s.privilege == accessLevel || s.privilege == wirelessNetwork || s.privilege == clientRedirects {
		return "" // a parameter says who may do what, whatever the thing is
	}
	if personalNouns[headNoun(s.objects)] {
		return "changes a person's " + headNoun(s.objects) + ": grants nothing"
	}
	if s.privilege == "config" || s.privilege == "configuration" || s.privilege == "setting" {
		// Configuration is access when it says what may be done: allowed
		// directories, blocked commands, security, authentication.
		if !guardPhrases.Any(opening(s.desc, claimWindow)) {
			return "changes a configuration that governs no access: reversible, limited in scope"
		}
		return ""
	}
	if s.privilege == "member" {
		for _, o := range s.objects {
			if workGroups[o] {
				return "changes who works on a " + o + ": a member works with the permissions the account already gives"
			}
		}
	}
	return ""
}

// workGroups gather people around work — a project, a team, a channel, a
// cycle: a member of one sees and edits its work, with the permissions
// the account already grants.
var workGroups = map[string]bool{"project": true, "team": true, "channel": true, "cycle": true, "board": true,
	"issue": true, "conversation": true, "initiative": true}

// guardPhrases in a configuration tool's description say the settings it
// changes decide what may be done.
var guardPhrases = phrase.New("security", "allowed", "blocked", "permission", "access", "auth", "password",
	"token", "secret", "credential")

// moneyContext says a transfer moves money: a money word among its
// objects, or an amount or a currency among its parameters.
func moneyContext(s signals) bool {
	for _, o := range s.objects {
		if moneyNouns[o] || o == "fund" || o == "funds" || o == "money" || o == "balance" || o == "credit" || o == "credits" ||
			o == "token" || o == "tokens" || o == "coin" || o == "coins" || o == "asset" || o == "assets" {
			return true
		}
	}
	for _, p := range s.params {
		if p.flat == "amount" || p.flat == "currency" || p.flat == "value" {
			return true
		}
	}
	return false
}

// movedRecords are what a transfer moves from one place to another: a
// conversation to another agent, an issue to another project.
var movedRecords = map[string]bool{"issue": true, "ticket": true, "call": true, "conversation": true, "chat": true,
	"file": true, "task": true, "card": true}

// ownableNouns are things one owner holds and can hand to another,
// besides the containers of scopeWords.
var ownableNouns = map[string]bool{"domain": true, "ownership": true, "app": true, "site": true, "account": true}

// policyNouns hold the rules of who may do what to something.
var policyNouns = map[string]bool{"policy": true, "policies": true, "acl": true, "acls": true, "permission": true,
	"permissions": true, "sharing": true, "iam": true}

// principalParams name a person or group a change is about.
var principalParams = map[string]bool{"email": true, "user": true, "username": true, "userid": true, "member": true,
	"group": true, "principal": true, "grantee": true, "emailaddress": true, "recipient": true}

// accessPolicy says why a change is one of access, whatever its verb: it
// sets the access policy, ACL or permissions of something, or it shares
// something with a person or a group, who can then open it.
func accessPolicy(s signals) string {
	if s.actSource != "name" {
		return ""
	}
	if changeVerbs[s.verb] || s.verb == "put" || s.verb == "attach" {
		for _, o := range s.objects {
			if policyNouns[o] && (o != "policy" && o != "policies" || strings.Contains(s.desc, "access") || strings.Contains(s.desc, "permission")) {
				return "changes an access policy"
			}
		}
	}
	if s.verb == "share" {
		for _, p := range s.params {
			if principalParams[p.flat] || strings.HasSuffix(p.flat, "email") || strings.HasSuffix(p.flat, "emails") {
				return "shares with a person or a group, who can then open it"
			}
		}
	}
	return ""
}

// paysSomeone says a money tool's parameters name both who receives money
// and how much.
func paysSomeone(s signals) bool {
	payee, amount := false, false
	for _, p := range s.params {
		switch p.flat {
		case "payee", "payeeid", "recipient", "recipientid", "beneficiary", "beneficiaryid", "iban", "destinationaccount",
			"toaccount", "creditor", "vendorid", "payto":
			payee = true
		case "amount", "sum", "value", "quantity":
			amount = true
		}
	}
	return payee && amount
}

// keepsOut are the access controls that deny rather than grant: removing
// one opens what it guarded.
var keepsOut = map[string]bool{"firewall": true, "blocklist": true, "ban": true, "denylist": true, "blacklist": true}

// codeHolders are what a service runs when they are saved: a class, a
// trigger or a function deployed to it.
var codeHolders = map[string]bool{"class": true, "classes": true, "trigger": true, "triggers": true,
	"function": true, "functions": true, "procedure": true, "procedures": true}

// routineHolders are the codeHolders that are routines a program calls: a
// function's or a procedure's language is the one its body is written in,
// where a class may be a course taught in one and a trigger a chatbot's.
var routineHolders = map[string]bool{"function": true, "functions": true,
	"procedure": true, "procedures": true}

// codeLanguageParams name the language a body is written in.
var codeLanguageParams = map[string]bool{"language": true, "lang": true, "runtime": true}

// programmingLanguages are languages a routine's body is written in, as
// words: a parameter that offers or describes one of them names a
// program's language, not a reader's.
var programmingLanguages = map[string]bool{"sql": true, "plpgsql": true, "plpython": true, "plpythonu": true,
	"plperl": true, "pltcl": true, "plv8": true, "python": true, "javascript": true,
	"typescript": true, "java": true, "ruby": true, "golang": true, "rust": true, "bash": true,
	"lua": true, "php": true, "perl": true, "csharp": true, "kotlin": true, "scala": true}

// codeHolderSaid finds a class, a trigger or a function the description's
// opening says the change saves ("Create or update Apex classes").
var codeHolderSaid = phrase.New(" class ", " classes", " trigger ", " triggers", " function ", " functions")

// codeBodyParams hold the text of what a change saves.
var codeBodyParams = map[string]bool{"body": true, "code": true, "source": true, "sourcecode": true, "content": true}

// deploysCode is the parameter of a change that saves a class, a trigger
// or a function with the code it holds ("salesforce_write_apex(className,
// body)", "The body must be valid Apex code"): once saved, the service
// runs it — on every record saved, for a trigger — with the rights the
// service gives it, so the change is as grave as running the code. ""
// when the tool saves none or its text is not said to be code.
func deploysCode(s *signals) string {
	first := -1
	for i, p := range s.params {
		if !p.nested && p.required && codeBodyParams[p.flat] && (p.typ == "string" || p.typ == "") {
			first = i
			break
		}
	}
	if first < 0 {
		return "" // most changes take no body at all: nothing more to read
	}
	head := opening(s.desc, claimWindow)
	if !containsAnyMap(s.objects, codeHolders) && !codeHolderSaid.Any(head) {
		return ""
	}
	// "createFunction(name, language, body)": a routine's body given with
	// the language it is written in is a program in that language,
	// whether or not a description says so.
	toolSaysCode := saysCode(head)
	if !toolSaysCode && routineHolders[headNoun(s.objects)] {
		named, inDatabase := languageNamed(s.params)
		toolSaysCode = named && ((inDatabase && !keptInALibrary.Any(head)) || routineOfAService(s, head)) &&
			!saysNotRunText(head)
	}
	for _, p := range s.params[first:] {
		if p.nested || !p.required || !codeBodyParams[p.flat] || (p.typ != "string" && p.typ != "") {
			continue
		}
		if p.flat == "code" || p.flat == "sourcecode" || toolSaysCode {
			return p.name
		}
		if d := p.schema.GetString("description"); saysCode(strings.ToLower(d)) {
			return p.name
		}
	}
	return ""
}

// signatureParams declare what a routine returns or takes: a routine a
// program calls, not a snippet kept or documented.
var signatureParams = map[string]bool{"returns": true, "returntype": true, "return": true, "parameters": true,
	"arguments": true, "args": true, "signature": true, "handler": true}

// keptInALibraryPhrases say a routine is kept for someone to read or copy, not
// saved where a database runs it: "Save a function snippet to your
// personal snippet library".
var keptInALibraryPhrases = []string{"snippet", "library"}

var keptInALibrary = phrase.New(keptInALibraryPhrases...)

// routineOfAService says the routine a change saves is one a service will
// call: the change declares its signature, or its description's opening
// says it is saved in a database. (A routine in a database's own language
// is one wherever it is said to be saved: languageNamed.)
func routineOfAService(s *signals, opening string) bool {
	for _, p := range s.params {
		if !p.nested && (signatureParams[p.flat] || databaseParams[p.flat]) {
			return true // what it returns or takes; the database it is saved in
		}
	}
	return saysWordOf(opening, routineStores) || saysWordOf(opening, databaseLanguages) ||
		routineInAService.Any(opening) || savedInANamedService(firstSentence(s.rawDesc))
}

// routineInAServicePhrases say a routine is one a server keeps and runs.
var routineInAServicePhrases = []string{"create or replace", "server-side", "trigger function"}

var routineInAService = phrase.New(routineInAServicePhrases...)

// savedInANamedService says a first sentence saves a routine in or to a
// service it names, with a capital ("Creates a function in PostgreSQL",
// "Save a function to MongoDB"): a named service runs what is saved in
// it, where "in the team wiki" names a page.
func savedInANamedService(first string) bool {
	ws := strings.Fields(first)
	for i := 0; i+1 < len(ws); i++ {
		if n := ws[i+1]; n[0] < 'A' || n[0] > 'Z' {
			continue
		}
		switch {
		case ws[i] == "in" || ws[i] == "to" || ws[i] == "into":
			return true
		case i+2 < len(ws) && i > 0 && routineHolders[strings.ToLower(strings.Trim(ws[i+2], ",.;:"))] &&
			!programmingLanguages[strings.ToLower(ws[i+1])]:
			return true // "Create a PostgreSQL function"; not "a Python function"
		}
	}
	return false
}

// routineStores are where a saved routine is called from, in a
// description's words: a stored procedure, one in a database's instance
// or schema.
var routineStores = map[string]bool{"database": true, "databases": true, "db": true, "sql": true,
	"stored": true, "instance": true, "schema": true}

// languageNamed says a top-level parameter names the programming language
// of what the call saves: a language parameter whose options, default or
// description name one ("plpgsql, sql, etc."). A locale ("en, de") is a
// reader's language. inDatabase says a language named is one only a
// database runs (its procedural languages: PL/pgSQL, PL/SQL, T-SQL): a
// routine written in one is saved in the database that runs it. SQL is
// not: a function page of a data dictionary is written in it too.
func languageNamed(params []param) (named, inDatabase bool) {
	var buf [8]string
	for _, p := range params {
		if p.nested || !codeLanguageParams[p.flat] || (p.typ != "string" && p.typ != "") {
			continue
		}
		words := optionValues(p.schema)
		if d, ok := p.schema.Get("default").(string); ok {
			words = append(words, d)
		}
		if d, ok := p.schema.Get("description").(string); ok {
			words = append(words, d)
		}
		onlyDatabase, sawOne := true, false
		for _, w := range words {
			for _, t := range appendTokens(buf[:0], strings.ToLower(w)) {
				if programmingLanguages[t] {
					named, sawOne = true, true
					onlyDatabase = onlyDatabase && (databaseLanguages[t] || t == "sql")
				}
			}
		}
		// "plpgsql, sql": a database's languages alone; "sql, plpgsql,
		// python" is an editor's list of any; "Procedural language, e.g.
		// JavaScript (plv8)" is a database's word for the language of its
		// routines.
		inDatabase = inDatabase || (sawOne && onlyDatabase && languageIsADatabases(words))
		if d := p.schema.GetString("description"); strings.Contains(strings.ToLower(d), "procedural language") {
			inDatabase = true
		}
	}
	return named, inDatabase
}

// languageIsADatabases says a language parameter's words name a language
// only a database runs, not SQL alone.
func languageIsADatabases(words []string) bool {
	var buf [8]string
	for _, w := range words {
		for _, t := range appendTokens(buf[:0], strings.ToLower(w)) {
			if databaseLanguages[t] {
				return true
			}
		}
	}
	return false
}

// saysNotRunText says a description denies that what it saves is run
// ("a draft for peer review; nothing is run").
func saysNotRunText(d string) bool {
	return anyPhraseWhere(d, notRunPhrases, func(start, end int) bool {
		return (start == 0 || !isASCIILetterByte(d[start-1])) && (end == len(d) || !isASCIILetterByte(d[end]))
	}) || strings.Contains(d, "nothing is run") || strings.Contains(d, "draft")
}

// databaseLanguages are the programming languages a database runs its
// routines in.
var databaseLanguages = map[string]bool{"plpgsql": true, "plpython": true, "plpythonu": true,
	"plperl": true, "pltcl": true, "plv8": true}

// saysCode says a lower-cased text speaks of code as a program: "code" as
// a word, not a class's, a room's, a discount's or a dress code.
func saysCode(text string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], "code")
		if k < 0 {
			return false
		}
		k += i
		end := k + len("code")
		if (k == 0 || !isASCIILetterByte(text[k-1])) && (end == len(text) || !isASCIILetterByte(text[end])) {
			before := strings.TrimRight(text[max(0, k-12):k], " ")
			if w := before[strings.LastIndexByte(before, ' ')+1:]; !codeQualifiers[w] {
				return true
			}
		}
		i = end
	}
}

// codeQualifiers make a "code" an identifier, not a program.
var codeQualifiers = map[string]bool{"class": true, "course": true, "room": true, "level": true, "discount": true,
	"promo": true, "promotion": true, "coupon": true, "dress": true, "colour": true, "color": true, "cost": true,
	"postal": true, "zip": true, "country": true, "area": true, "access": true, "verification": true, "error": true,
	"status": true, "qr": true, "bar": true, "currency": true, "language": true, "airport": true, "no": true,
	"product": true, "gift": true, "invite": true, "invitation": true, "referral": true}

// forumWords name a place where a community reads what is posted.
var forumWords = map[string]bool{"forum": true, "forums": true, "community": true, "communities": true}

// forumHeads are what is posted there.
var forumHeads = map[string]bool{"post": true, "topic": true, "thread": true, "reply": true}

// forumVerbs put something there or change what is there.
var forumVerbs = map[string]bool{"create": true, "add": true, "new": true, "publish": true, "reply": true,
	"post": true, "update": true, "edit": true, "submit": true}

// inATopic places a post in a forum's topic.
var inATopicPhrases = []string{"in a topic", "in the topic", "to a topic", "to the topic"}

var inATopic = phrase.New(inATopicPhrases...)

// postsToForum says a change posts (or edits a post) in a forum: a post, a
// topic, a thread or a reply as the name's head, and a forum, a community
// or a subreddit in the name or the description's opening
// ("discord_create_forum_post"), or a post or a reply "in a topic" ("Create
// a post in a topic"). Every member who reads the forum sees it — the
// rubric's public message — where a comment on an issue or a task stays
// inside a tracker. A topic alone is as often a mailing list's or a
// message queue's.
func postsToForum(s *signals) bool {
	if s.act != actMutate || !forumVerbs[s.verb] {
		return false
	}
	head := singular(headNoun(s.objects))
	if !forumHeads[head] {
		return false
	}
	open := opening(s.desc, claimWindow)
	return containsAnyMap(s.tokens, forumWords) || saysWordOf(open, forumWords) ||
		((head == "post" || head == "reply") && inATopic.Any(open))
}

// shellLink says an access link opens a command line (a terminal's, a
// console's or a shell's): where the name also changes who may do what
// ("create_console_access"), that change is the one graded.
func shellLink(credential string) bool {
	return strings.HasPrefix(credential, "terminal ") || strings.HasPrefix(credential, "console ") || strings.HasPrefix(credential, "shell ")
}
