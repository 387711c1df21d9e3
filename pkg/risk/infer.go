package risk

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/toolgate/toolgate/pkg/phrase"
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
	quotedOptions     bool     // some options were read from an action parameter's quoted examples
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
	rawDesc           string // the same opening as written, for what only case says
	propCount         int
	foreignSchema     string   // a keyword outside JSON Schema in an input schema with no properties
	paramRoles        uint8    // the roles (paramRole) some parameter's name has: most tools have none
	privateContent    string   // a word saying a read returns private content
	endsBilling       bool     // a change that ends or pauses a billed membership
	hardFlags         []string // flags that make a change hard to undo
	overwriteText     bool     // the description says the change overwrites
	readOrChange      bool     // the description offers to read or to change (choiceOfActs)
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
	credential        string   // the credential the tool mints or changes: who may do what, whatever the verb
	runsAs            bool     // credential is one an automation acts with, not one the tool mints
	clientRequest     bool     // only makes one of the protocol's requests of its client
	secretsSaid       int8     // 0 not yet read, 1 no, 2 yes: the description says it returns secrets
	params            []param  // the input schema's parameters, read once for every rule that asks
	envVariables      bool     // a change of a service's environment variables
	manifest          string   // a parameter that takes a whole manifest, for a change to apply
	selectStatements  bool     // the description speaks of SELECT statements: a query picks records
	slashOptions      bool     // the options were read from a list of operations in the description
	namedCommand      bool     // execParam is a command parameter named for its purpose (it claims no read-only)
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

// readSignals is the first stage: it reads what a definition's words and
// schema say, once, into the signals every later stage asks about — the
// action a verb of the name, title or description names and where it was
// read, the name's objects and the sensitive, privileged, monetary or
// broad ones among them, the opening of the description, and what the
// parameters take (free-form code, risky flags, destructive options,
// containers, filters). It judges nothing: it only reads, so that each
// rule later is a test of a field, and the description and schema are
// walked once however many rules ask.
func readSignals(t *tooldef.Tool) signals {
	return readSignalsOf(t, false)
}

// readSignalsOf reads what a tool says. asRead takes a description that
// offers to read or to change (choiceOfActs) at its first verb, the read;
// without it the change is taken. Assess judges such a tool both ways.
func readSignalsOf(t *tooldef.Tool, asRead bool) signals {
	var s signals
	tokens := Tokenize(t.Name)
	s.tokens = tokens

	// The first verb of the name is its action; a deleting or irreversible
	// verb anywhere in the name counts too, so k8s_delete_pod and
	// pods_delete read as deletes.
	primary := -1
	for i, tok := range tokens {
		a, ok := verbs[tok]
		if tok == "issue" && i+1 < len(tokens) && certificateNouns[singular(tokens[i+1])] {
			// "issue_certificate" issues; "issue" is otherwise a noun (an
			// issued token or credential is a credential change, below).
			a, ok = actMutate, true
		}
		if tok == "top" && i+1 < len(tokens) && tokens[i+1] == "up" {
			// "top_up_balance" adds funds; "top" alone is the process
			// monitor, and "top_up" is the one word "topup".
			a, ok, tok = actMutate, true, "topup"
		}
		if tok == "trash" && primary < 0 && trashes(tokens, i, t.Description) {
			// "trash_thread" trashes; "list_trash", "trash_list" and
			// "trash_pickup_schedule" read what a trash holds or when it
			// is collected, so "trash" is no verb of the lexicon.
			a, ok = actDelete, true
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
		// A destroying verb (or discard) after a read one counts only
		// where it ends the name ("query_cache_flush"); before a noun it
		// names a thing ("get_flush_interval", "list_discard_rules").
		if a >= actDelete && a > s.act && (irreversibleVerbs[tok] || (a == actDelete && tok != "discard") ||
			(s.act > actObserve || i == len(tokens)-1)) {
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
	skippedVerb := ""
	if (s.act == actRead || s.act == actObserve || s.act == actUtility) && hypotheticalVerbs[s.verb] && !containsAny(tokens, "and", "then", "or") {
		// "preview_subscription_charge": what follows works out what a
		// charge would be. Kept aside: a description that says the tool
		// goes on to do it makes it the action after all (below).
		for i, tok := range tokens {
			if i != primary && precedenceVerbs[tok] && !nounUse(tokens, i) {
				skippedVerb = tok
				break
			}
		}
	} else if s.act == actRead || s.act == actObserve || s.act == actUtility {
		for i, tok := range tokens {
			if i != primary && precedenceVerbs[tok] && !nounUse(tokens, i) && !(tok == "resolve" && resolvesName(tokens, i)) {
				s.act, s.verb = verbs[tok], tok
				break
			}
		}
	}
	if s.act == actMutate && primary >= 0 && (s.verb == "move" || s.verb == "put" || s.verb == "send" || s.verb == "mark") &&
		(containsAny(tokens[primary+1:], "trash", "recycle", "trashed") ||
			(containsAny(tokens[primary+1:], "bin") && strings.Contains(strings.ToLower(t.Description[:min(len(t.Description), 200)]), "recycl"))) {
		// "move_messages_to_trash", "mark_as_trash": a trash is where a
		// delete puts things, emptied on its own later. A bin is one only
		// where the description says it recycles: a warehouse's is not.
		s.act = actDelete
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
	if t.Title != "" && s.act < actDelete && !(s.actSource == "name" && s.act >= actUtility && s.act <= actObserve) &&
		holdsIrreversibleVerb(t.Title) {
		// "working_copy" titled "Delete working copy", a name with no verb
		// titled "View or delete snapshots": an irreversible verb in the
		// title counts as one anywhere in the name does, unless the name's
		// own verb reads ("get_job" titled "Delete job status").
		for _, tok := range Tokenize(t.Title) {
			if a, ok := verbs[tok]; ok && a >= actDelete && a <= actDestroy && irreversibleVerbs[tok] {
				s.act, s.verb, s.actSource = a, tok, "title"
				break
			}
		}
	}
	if s.act == actNone {
		opening := words(t.Description, 200)
		for j, w := range opening[:min(12, len(opening))] {
			if a, base, ok := conjugatedVerb(w); ok {
				if base == "top" && j+1 < len(opening) && opening[j+1] == "up" {
					a, base = actMutate, "topup" // "Top up credits by paying …"
				}
				s.act, s.verb, s.actSource = a, base, "description"
				if j == 0 && (a == actRead || a == actObserve) {
					if a2, base2, ok := choiceOfActs(t.Description); ok {
						s.readOrChange = true
						if !asRead {
							s.act, s.verb = a2, base2
						}
					}
				}
				break
			}
		}
		if s.act == actNone {
			s.unknownVerb = unknownVerb(tokens, opening)
		}
	}

	// Cut before lower-casing: only the opening is read, and lower-casing
	// a description of megabytes would cost more than the whole judgement.
	desc := t.Description
	if len(desc) > 4096 {
		desc = desc[:4096]
	}
	s.rawDesc = desc
	desc = lowerText(desc)
	s.desc = desc

	// A tool that mints or changes a credential grants access whatever
	// verb it uses: "generate" is no computation when a service now
	// accepts what was generated, and "get_registration_token" described
	// as creating one makes one. Removing a credential is the delete
	// rules' business.
	if s.act <= actSend {
		if c, verb := credentialChange(tokens, desc, s.act); c != "" {
			s.credential = c
			if s.act == actNone && verb != "" {
				// "regenerate_secret", "issue_token": a verb the lexicon
				// lacks names the action.
				s.verb, s.actSource = verb, "name"
			}
			if s.act < actMutate {
				if s.actSource == "" {
					s.actSource = "description"
				}
				s.act = actMutate
			}
		}
	}

	// Nouns of the name.
	for i, o := range s.objects {
		if (privilegeNouns[o] || privilegeNouns[o+"s"]) && (o != "token" || credentialAt(s.objects, i, "") != "") {
			s.privilege = o // a page token or a model's token budget grants nothing
		}
		if (o == "membership" || o == "memberships") && s.privilege == "" && membershipOf(s.objects) {
			// "create_organization_membership": who belongs to an
			// organisation, a team or a project is who may act in it; a
			// gym's membership is a subscription.
			s.privilege = o
		}
		if moneyNouns[o] && (s.money == "" || movesMoney[o]) {
			s.money = o // a word that moves money outranks one that bills
		}
		if o == "many" || o == "all" || o == "bulk" || o == "everything" {
			s.bulk = true
		}
	}
	if !movesMoneyAs(s.money) && s.act >= actMutate && disputedHead(s.objects) && containsAnyMap(tokens, concedingVerbs) &&
		(containsAny(tokens, "payment", "payments", "card", "chargeback", "chargebacks") || paymentContextSaid.Any(opening(desc, claimWindow))) {
		// "disputes-accept — Accepts liability for a dispute" of a card
		// payment: conceding a chargeback gives the disputed sum back to
		// the cardholder, and it cannot be contested again. A mediator's
		// or a wiki's dispute, or a dispute's assignment, holds no money.
		s.money = disputeConceded
	}
	if s.privilege == "" && s.act == actMutate && endingVerbs[s.verb] && containsAny(s.objects, "membership", "memberships") &&
		billedSaid.Any(opening(desc, claimWindow)) {
		// "cancel_memberships — Cancels a membership either immediately or
		// at the end of the current billing period": a membership that is
		// billed is a subscription, and ending or pausing one ends what a
		// customer pays for and gets.
		s.endsBilling = true
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
	if head := headNoun(s.objects); s.act == actRead && (telemetryNouns[head] || (metadataOfTelemetry[singular(head)] && telemetryAmong(s.objects))) &&
		!appointment(head, desc) {
		// "list_metric_names": the names, labels or types of what a
		// system records about itself are part of that record.
		s.act = actObserve
	}
	if s.act == actRead && executionRecord(s.objects) {
		s.act = actObserve // the runs of a pipeline are its state, not its data
	}
	if (s.verb == "start" || s.verb == "stop") && recordingNouns[headNoun(s.objects)] {
		s.act = actObserve // starting a recording observes; starting a process does not
	}

	if s.act == actMutate && s.actSource == "name" && !strongMutations[s.verb] && opensRemovingAll(desc) {
		// "drain_queue — Remove all jobs from a queue": a name's mild
		// verb is what the description's opening says it is, and it
		// removes everything the tool reaches. Sessions and caches that
		// signing out or clearing ends are rebuilt, and stay changes.
		s.act = actDelete
	}
	if s.act == actMutate && s.actSource == "name" && s.verb == "archive" && s.privilege == "" &&
		trashSaid.Any(opening(desc, 200)) {
		// "products_archive — Move an Object identified by ID to the
		// recycling bin": what the server calls archiving is a delete it
		// can undo, as a trash is, and the item leaves every list.
		s.act = actDelete
	}
	if s.act >= actDelete && saysBulk(desc, headNoun(s.objects)) {
		s.bulk = true
	}

	if movesMoney[s.verb] {
		s.money = s.verb // transfer_funds, refund_payment
		if s.verb == "topup" && checkoutSaid.Any(opening(desc, claimWindow)) && !paysToo(tokens, desc) {
			// "top_up — Create a checkout session to top up credits":
			// the customer pays at the checkout, the call only opens it.
			// ("top_up_and_pay", "… or charges the stored card" still pay.)
			s.money = "checkout"
		}
	}
	if len(s.objects) == 0 && s.actSource == "name" && s.act == actMutate && s.privilege == "" {
		// "confirm — Confirm an invited organization member": a name that
		// is only a verb leaves its object to the description's first
		// sentence, and a change of a member, a role or a permission there
		// is a change of who may do what.
		s.privilege = accessObjectOpening(desc)
	}
	if s.credential != "" && s.privilege == "" {
		s.privilege = s.credential
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
	// The phrase lists below are read only where they can matter.
	// A change's opening is searched once for both lists: the offer of any
	// request and a public link are phrases of the same text.
	publicText := false
	if s.act == actNone || s.act >= actMutate {
		head := opening(desc, claimWindow)
		switch i := changeOpeningSet.First(head); {
		case i < 0:
		case i < len(anyRequestPhrases):
			s.anyRequest = true
			publicText = publicPhraseSet.Any(head)
		default:
			publicText = true
		}
	}
	if (s.verb == "replace" || s.verb == "overwrite" || s.verb == "reset" || s.verb == "restore") && wipePhrases.Any(desc) {
		s.wipes = true
	}
	if s.act >= actMutate && s.act <= actDelete {
		s.public = publicEffect(s.tokens, opening(desc, claimWindow), publicText)
	}
	// SQL's keyword in capitals, as statements are written: "Execute
	// SELECT queries", "Only SELECT statements are allowed". A lower-case
	// "select only the parts you need" is a word of the prose.
	if o := opening(t.Description, claimWindow); strings.Contains(o, "SELECT") {
		s.selectStatements = selectStatementSet.Any(o)
	}
	readSchema(&s, t.InputSchema)
	if s.actSource == "description" && len(s.params) == 0 && strings.IndexByte(opening(t.Description, claimWindow), '/') >= 0 {
		// "dataset — Dataset ops: list/get/create/update/delete", with no
		// parameter declared: a tool named for its object offers the
		// operations its description lists, as an action parameter's
		// options do, and with nothing declared the description is all
		// there is to say which — where the verb the description gave the
		// tool is the list's first, read from the list itself, so that no
		// verb of its own ("Runs pipelines. Ops: …") is lost to the list.
		if ops := slashOperations(opening(t.Description, claimWindow)); len(ops) > 0 && ops[0] == s.verb {
			s.slashOptions = true
			for _, op := range ops {
				readOption(&s, op, true)
			}
		}
	}
	if (s.act == actNone || s.act == actMutate) && (dispatchesAnyCall(s.params) ||
		(len(s.flags) == 0 && len(s.optionVerbs) == 0 && contractCall(s.params, s.desc, t.InputSchema))) {
		// "make_api_request" with a service, a method and a free-form
		// request: whatever the API can do, one call does.
		s.anyRequest = true
	}
	if skippedVerb != "" && previewDoes(&s, skippedVerb) {
		// "Previews the charge, then bills it": the preview is a step.
		s.act, s.verb = verbs[skippedVerb], skippedVerb
		if movesMoney[skippedVerb] {
			s.money = skippedVerb
		}
		if s.verb == "terminate" && containsAnyMap(s.objects, infraNouns) {
			s.act = actDelete
		}
		if s.public == "" && s.act >= actMutate && s.act <= actDelete {
			head := opening(desc, claimWindow)
			s.public = publicEffect(s.tokens, head, publicPhraseSet.Any(head))
		}
	}
	if s.privilege == "" && s.act == actMutate && grantingVerbs[s.verb] && containsAny(s.objects, "moderator", "moderators") {
		// "add_moderator": a moderator may remove and hide what others
		// write — a role. Reporting to moderators grants nothing.
		s.privilege = "moderator"
	}
	if s.privilege == "" && s.act == actMutate && joinsNetwork(&s) {
		// "attach_server_to_network": the machine reaches everything on
		// the network, and everything on it the machine — who may reach
		// what, as a peering is.
		s.privilege = "network membership"
	}
	if s.privilege == "" && s.act >= actMutate && containsAny(s.objects, "ip", "cidr") && !ipRouting(&s) {
		// "add_static_ip": only a verb that routes an address to a machine
		// (assign, attach, move, reserve, release ...) or a description of
		// its reverse name spares a reserved or static one; any other
		// change of an address is taken for an access rule's.
		s.privilege = "ip"
	}
	if s.privilege == "" && s.act >= actMutate && containsAny(s.objects, "ip", "cidr") && ipAccessParams(s.params) {
		// "create_sip_ip_address" with an access-control-list parameter
		// and "requests from this address will be allowed": the address
		// is an access rule's, whatever the name calls it.
		s.privilege = "ip"
	}
	if generatesRandomSecret(&s) {
		// "generate — Generate a secure password": a password made from
		// a length and a choice of characters, bound to no account and
		// stored nowhere, is a random string handed back; a service that
		// accepts it is changed only by the tool that sets it.
		if s.privilege == s.credential {
			s.privilege = ""
		}
		s.credential, s.act = "", actUtility
	}
	if s.act == actMutate && changeVerbs[s.verb] && s.privilege == "" && !containsAnyMap(s.objects, deliveryObjects) {
		// "edit_item" with a login's "password": editing what holds a
		// credential's value replaces the credential, whatever the item
		// is called; whoever relied on the old one is locked out and
		// whoever chose the new one is let in. A webhook's secret only
		// signs what the webhook sends.
		s.privilege = credentialValueParam(t.InputSchema)
	}
	if s.act == actMutate && providerVerbs[s.verb] && !movesMoneyAs(s.money) && paymentProviderSaid.Any(opening(desc, claimWindow)) && providerKeyParam(s.params) {
		// "Connect a custom payment provider to a location" with "API key
		// for the custom payment provider": whose keys a business takes
		// payments with decides whose account the money reaches. A key
		// that only signs the call in is not the provider's.
		s.money = paymentProvider
	}
	if (s.act == actMutate || s.act == actDelete) && s.privilege == "" && containsAny(s.objects, "delegate", "delegation") &&
		delegateOfAccount.Any(s.desc) {
		// "add_delegate — Adds a delegate to the specified account": a
		// delegate of an account, a mailbox or a calendar acts as its
		// owner. A conference's delegates and a delegated task do not.
		s.privilege = "delegate"
	}
	if s.act == actMutate && s.privilege == "" && (!makingVerbs[s.verb] || namesAMachine(s.params)) && installsLoginKeys(s.params) {
		// "enable_rescue" with "ssh_keys": keys installed on a machine
		// that exists let whoever holds them log in to it, and to what it
		// holds. A machine made with keys holds nothing yet.
		s.privilege = sshLoginKeys
	}
	if s.act == actMutate && s.privilege == "" && changeVerbs[s.verb] {
		// Who may reach something that exists is changed by editing the
		// list of those with access; a new thing's list opens only what
		// it holds, which is nothing yet.
		s.privilege = principalsWithAccess(s.params)
	}
	if s.act == actMutate && s.privilege == "" && s.actSource == "name" && (makingVerbs[s.verb] || changeVerbs[s.verb]) &&
		wirelessNetworks[headNoun(s.objects)] && setsWirelessSecurity(s.params) && !joinsANetwork.Any(opening(desc, claimWindow)) {
		// "create_wifi(securityConfiguration)", "update_ssid(passphrase)":
		// a wireless network's security and passphrase decide which
		// devices join the network behind it, and what joins reaches
		// everything on it — who may reach what, as a firewall's rule
		// decides. A device's own radio switched on, a network it joins
		// or a profile it keeps to join one, or a QR code for one made is
		// no such change.
		s.privilege = wirelessNetwork
	}
	if s.act == actMutate && s.privilege == "" && s.actSource == "name" && (changeVerbs[s.verb] || s.verb == "share") && accessPolicy(s) == "" {
		// "share_board(accessLevel: private|view|comment|edit)",
		// "update_board(sharingPolicy: …)": a parameter that sets what
		// others may do with something that exists — view it, comment,
		// edit — changes who may do what. A new thing's level opens only
		// what it holds, nothing yet; "public" or "private" alone is a
		// visibility, graded as a publication is. A share with a person
		// named is graded as such already (accessPolicy).
		s.privilege = accessLevelParam(s.params)
	}
	if s.act == actMutate && s.privilege == "" && registersRedirects(s.params) {
		// "create-client(redirectUris)", "update_oauth_app(redirectUris)":
		// the addresses an authorization server may send codes and tokens
		// to are what an OAuth client is registered with (RFC 7591's
		// redirect_uris). Adding one lets whoever holds it receive
		// sign-ins made to the client: who may act as whom, as a grant
		// decides. One redirect address of one sign-in flow
		// ("redirectUri") registers nothing.
		s.privilege = clientRedirects
	}
	if s.money != "" && !movesMoneyAs(s.money) && paysSomeone(s) {
		// "schedule_payment(payee, amount)": a payment with someone to
		// receive it and a sum moves money, whatever the verb.
		s.money = "pay"
	}
	if (s.money == "transfer" || s.money == "transfers") && !moneyContext(s) {
		// "transfer_repository": what changes hands is the thing itself,
		// and with it who may do what to it; "transfer_issue" moves a
		// record. Neither moves money. A transfer of anything else is
		// still taken for money: failing closed costs a review.
		switch head := singular(headNoun(s.objects)); {
		case scopeWords[head] != "" || ownableNouns[head]:
			s.money = ""
			if s.privilege == "" {
				s.privilege = "ownership"
			}
		case movedRecords[head]:
			s.money = ""
		}
	}
	if !movesMoneyAs(s.money) && s.actSource != "name" && s.actSource != "title" && containsAny(tokens, "deposit") && sumToMove(s) &&
		opensDepositing(desc) && s.sensitive == "" && s.revealFlag == "" && s.privilege == "" && s.credential == "" &&
		len(s.flags) == 0 && len(s.optionVerbs) == 0 {
		// "vault_deposit(amount)", "gnfd_deposit_to_payment — Deposit
		// funds … returns a preview": a deposit that names no other verb,
		// with a sum or funds to move, moves them. A deposit recorded
		// ("create_deposit") is its verb's, a dataset deposited in an
		// archive moves no money, and a deposit address is read by the
		// verb of its description. It adds money only where nothing else
		// the tool does (a secret read, a privilege, a flag, an option)
		// would be judged differently once the tool is a change: a
		// "delete" flag would make it a delete of something ephemeral.
		s.money = "deposit"
		if s.act < actMutate {
			// A graver action the description names stays the action:
			// the deposit only adds the money it moves.
			s.act, s.verb = actMutate, "deposit"
		}
	}
	for _, f := range s.flags {
		switch f {
		case "force", "hard", "overwrite", "truncate", "wipe", "purge", "cascade", "drop", "delete", "destroy":
			s.hardFlags = append(s.hardFlags, f)
		}
	}
	if s.credential == "" && s.act == actMutate && environmentVariables(&s) {
		// A service's environment variables are where it keeps its
		// connection strings, keys and tokens, and what it runs with:
		// changing them is graded high whatever the verb.
		s.envVariables = true
	}
	if s.credential == "" && s.act == actMutate && maskedVariable(&s) {
		// A variable that can be masked is one whose value must not show
		// in logs: a secret handed to runs.
		s.credential = "CI/CD variable"
		if s.privilege == "" {
			s.privilege = s.credential
		}
	}
	if s.credential == "" {
		if c := automationCredential(&s); c != "" {
			s.credential, s.runsAs = c, true
			if s.privilege == "" {
				s.privilege = c
			}
		}
	}
	if s.execParam == "" && s.public == "" && s.privilege == "" && s.money == "" {
		// "js_code: JavaScript code to execute": code in a named language
		// is code where its own words say it runs, and do not take it
		// back. Asked last, and only of a tool nothing graver was found
		// in, so that it adds to what the tool does and narrows no reach.
		// A command named for its shell is the compound command's
		// business: one to explain or translate runs nothing.
		for _, prm := range s.params {
			if (prm.typ == "" || prm.typ == "string") && languagePrefixed(prm.flat) && !hasOptions(prm.schema) && saidToRun(prm.schema) {
				s.execParam = prm.name
				s.execReadOnly = paramReadOnly(prm.schema)
				break
			}
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

// holdsIrreversibleVerb says a title holds an irreversible verb, as
// written in lower, title or upper case, in one pass and without
// allocating: most titles hold none, and only those that do are split
// into words.
func holdsIrreversibleVerb(title string) bool { return irreversibleInTitles.Any(title) }

var irreversibleInTitles = func() *phrase.Set {
	var forms []string
	for v := range irreversibleVerbs {
		forms = append(forms, v, strings.ToUpper(v[:1])+v[1:], strings.ToUpper(v))
	}
	return phrase.New(forms...)
}()

// codeContext says the tool's or the parameter's words put a command in a
// shell, a terminal, a console, a container or a language's runtime: a
// device's, a bot's or a player's "command" is a button, not code.
func codeContext(toolDesc, paramDesc string) bool {
	return codeContextSaid.Any(toolDesc) || codeContextSaid.Any(strings.ToLower(paramDesc))
}

var codeContextPhrases = []string{"shell", "terminal", "ssh", "bash", "zsh", "powershell", "console", "container",
	"javascript", "python", "sudo", "command line", "command-line", "cli "}

var codeContextSaid = phrase.New(codeContextPhrases...)

// writesCommandDown says a verb makes or changes something a command is
// written into (an alias, a task, a workflow, a setting): the command runs
// later, where whoever reviews that thing sees it, not in the call.
func writesCommandDown(verb string) bool {
	return makingVerbs[verb] || changeVerbs[verb] || verb == "add" || verb == "record" || verb == "save" || verb == "store" ||
		verb == "write" || verb == "generate" || verb == "register" || verb == "schedule"
}

// commandHeads are the last words of a parameter's name that make it a
// command or a script, whatever word before says what for.
var commandHeads = map[string]bool{"command": true, "commands": true, "cmd": true, "script": true, "scripts": true}

// compoundCommand says a parameter's name is more than one word and ends
// in a command or a script ("jumpCommand", "init_script"); the names made
// of that word alone are execParams'. ("transcript" ends in the letters
// of "script" and is one word.)
func compoundCommand(flat, name string) bool {
	if !(strings.HasSuffix(flat, "command") || strings.HasSuffix(flat, "commands") || strings.HasSuffix(flat, "cmd") ||
		strings.HasSuffix(flat, "script") || strings.HasSuffix(flat, "scripts")) || execParams[flat] {
		return false
	}
	var buf [8]string
	toks := appendTokens(buf[:0], name)
	// An example's or a sample's command shows how, and runs nowhere.
	return len(toks) > 1 && commandHeads[toks[len(toks)-1]] && toks[0] != "example" && toks[0] != "sample"
}

// keptAsText says a command is kept as text: stored, recorded or logged.
var keptAsTextPhrases = []string{"stored as", "as text", "as plain text", "recorded", "logged", "history", "saved", "save ",
	"written to", "added to"}

var keptAsText = phrase.New(keptAsTextPhrases...)

// runBySomeone are the words before a run that make it someone else's,
// past, or only possible: "the user executed", "was run", "you would run".
var runBySomeone = map[string]bool{"user": true, "you": true, "they": true, "we": true, "i": true, "someone": true,
	"was": true, "were": true, "been": true, "had": true, "would": true, "could": true, "should": true, "might": true}

// runForms are the words that say a command is run; notRun, those that
// take it back (as words splits them: "doesn't" is "doesn" and "t"). It
// is not severity's negations: those are whole words, and lack "nothing"
// and "cannot", which would change what a secret's denial means there.
var (
	runForms = map[string]bool{"execute": true, "executes": true, "executed": true, "executing": true, "run": true,
		"runs": true, "ran": true}
	notRun = map[string]bool{"no": true, "not": true, "never": true, "without": true, "nothing": true, "cannot": true,
		"doesn": true, "don": true, "isn": true, "won": true, "aren": true, "nor": true}
)

// commandRun says a command parameter named for its purpose is run: its
// own description says it is executed or run and denies nothing, or the
// tool's description runs it by name ("then execute a jump command" for
// jumpCommand), no negation just before. A command only stored, parsed,
// explained or generated is not run ("Explains a shell command without
// executing it").
func commandRun(name string, p *tooldef.Object, toolDesc string) bool {
	d := p.GetString("description")
	d = strings.ToLower(d)
	// What follows an example's cue is the example, not what the tool
	// does with it ("Build command, e.g. npm run build").
	for _, cue := range []string{"e.g", "for example", "such as", "例如"} {
		if i := strings.Index(d, cue); i >= 0 {
			d = d[:i]
		}
	}
	if keptAsText.Any(d) {
		return false // "Command to run to reproduce the bug (stored as text)"
	}
	own := words(d, 600)
	ran := false
	for i, w := range own {
		if notRun[w] {
			return false
		}
		// "The last command the user executed", "the command that was
		// run", "you would run": what someone ran or might run, not what
		// the tool runs.
		ran = ran || (runForms[w] && !(i > 0 && runBySomeone[own[i-1]]))
	}
	if ran {
		return true
	}
	var buf [8]string
	toks := appendTokens(buf[:0], name)
	if len(toks) < 2 {
		return false
	}
	qualifier, head := toks[len(toks)-2], toks[len(toks)-1]
	ws := words(toolDesc, 4096)
	for i, w := range ws {
		if !runForms[w] || (i > 0 && (notRun[ws[i-1]] || runBySomeone[ws[i-1]] || ws[i-1] == "to")) || (i > 1 && notRun[ws[i-2]]) {
			// "without executing the command", "how to run a test
			// command": the tool does not run it.
			continue
		}
		for j := i + 1; j+1 < len(ws) && j <= i+3; j++ {
			if ws[j] == qualifier && ws[j+1] == head {
				return true
			}
		}
	}
	return false
}

// namedToRun says the tool's name holds an execution verb (run, exec,
// execute, eval, evaluate), whatever the description makes its action:
// code it takes is code it runs.
// deletesExistingPhrases are a switch's words for removing what is there.
var deletesExistingPhrases = []string{"delete existing", "deletes existing", "deleting existing", "drop existing",
	"drops existing", "remove existing", "removes existing", "erase existing", "erases existing", "wipe existing",
	"wipes existing"}

// deletesExisting says a boolean parameter's description says, at the
// start of a clause of its opening, that it deletes what exists ("Reset
// database (delete existing)", "Drop existing tables before import"), and
// speaks of no exception: a switch that appends "without deleting existing
// rows", fails "instead of deleting", or "prevents" it, protects.
func deletesExisting(p *tooldef.Object) bool {
	d := p.GetString("description")
	d = opening(d, paramWindow)
	if !strings.Contains(d, "xisting") && !strings.Contains(d, "XISTING") {
		return false // most switches say nothing of what exists
	}
	d = strings.ToLower(d)
	if protectsExisting.Any(d) {
		return false
	}
	return anyPhraseWhere(d, deletesExistingPhrases, func(start, _ int) bool {
		before := strings.TrimRight(d[:start], " ")
		return before == "" || strings.HasSuffix(before, "(") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, ";") ||
			strings.HasSuffix(before, ",") || strings.HasSuffix(before, "—")
	})
}

// protectsExisting are the words of a switch that keeps what exists.
var protectsExisting = phrase.New("without", "instead", "prevent", "not ", "never", "no ", "skip", "fail", "avoid",
	"keep", "would", "only if", "n't")

// runSaidWords are the words, whole, that say a text is run.
var runSaidWords = map[string]bool{"execute": true, "executes": true, "executed": true, "executing": true, "evaluate": true,
	"evaluates": true, "evaluated": true, "run": true, "runs": true, "eval": true, "interpreted": true}

// notRunWords take running back ("never executed", "runs nothing"), or
// make the text a file's name ("Path to the Python script to read").
var notRunWords = map[string]bool{"not": true, "never": true, "without": true, "nothing": true, "no": true,
	"path": true, "file": true, "filename": true}

// saidToRun says a parameter's own description says, in whole words, that
// its text runs, and has no word that takes it back.
func saidToRun(p *tooldef.Object) bool {
	d := p.GetString("description")
	run := false
	for _, w := range words(d, paramWindow) {
		if notRunWords[w] {
			return false
		}
		run = run || runSaidWords[w]
	}
	return run
}

// codeLanguages name a language a parameter's code is written in, as the
// first part of its name: "js_code", "pythonScript". Names that are as
// often other words' beginnings are left out: a tree's "node_code", a
// time series' "ts_expression", "shellcode", "lua" and "sh".
var codeLanguages = []string{"javascript", "typescript", "python", "powershell", "bash", "ruby", "perl", "php", "js"}

// languagePrefixed says a parameter's flat name is a code language and an
// execution word after it ("jscode", "pythonscript"); a command is left
// out, and so is "cmd".
func languagePrefixed(flat string) bool {
	if flat == "" || !strings.ContainsRune("bjprt", rune(flat[0])) {
		return false // asked of every parameter: most begin with no language's letter
	}
	for _, l := range codeLanguages {
		if rest, ok := strings.CutPrefix(flat, l); ok && execParams[rest] && rest != "command" && rest != "commands" && rest != "cmd" {
			return true
		}
	}
	return false
}

func namedToRun(tokens []string) bool {
	for _, t := range tokens {
		switch t {
		case "run", "exec", "execute", "eval", "evaluate", "repl", "interpret", "interpreter":
			return true
		}
	}
	return false
}

// readSchema reads parameters: free-form execution, risky flags,
// destructive options, scope and sensitivity.
func readSchema(s *signals, schema any) {
	params := schemaParams(schema)
	s.params = params
	compound, compoundDesc := "", "" // a command parameter named for its purpose, said to run, and its words
	s.foreignSchema = foreignKeyword(schema)
	for _, prm := range params {
		if !prm.nested {
			s.propCount++
		}
	}
	for _, prm := range params {
		name, p, flat := prm.name, prm.schema, prm.flat
		typ := prm.typ
		s.paramRoles |= paramRole[flat]
		if qualifiedImage(flat) {
			s.paramRoles |= roleWorkload
		}
		// The words of the name matter only to flags, options and
		// required containers; most parameters are none of these.
		var toks []string
		var buf [8]string
		if typ == "boolean" || prm.required || endsWithActionWord(flat) {
			toks = appendTokens(buf[:0], name)
		}

		if execParams[flat] && (typ == "" || typ == "string" || typ == "array" || typ == "object") && !hasOptions(p) &&
			(!describedExecParams[flat] || describedAsExecuted(flat, p, s.desc) || namedToRun(s.tokens)) {
			s.execParam = name
			s.execReadOnly = paramReadOnly(p)
		}
		if compound == "" && compoundCommand(flat, name) && (typ == "" || typ == "string" || typ == "array") && !hasOptions(p) &&
			commandRun(name, p, s.desc) {
			compound = name
			compoundDesc = p.GetString("description")
		}
		// takesStatements answers no at once for most parameters; the
		// options are looked up only for those it takes.
		if s.execParam == "" && (typ == "string" || typ == "") && takesStatements(prm, s) && !hasOptions(p) {
			s.execParam = name
			s.execReadOnly = paramReadOnly(p)
		}
		if typ == "boolean" && s.revealFlag == "" && revealsSecrets(toks) {
			s.revealFlag = name
		}
		if typ == "boolean" {
			if flag, ok := riskyFlags[flat]; ok && flag != "" {
				s.flags = append(s.flags, flag)
			} else if deletesExisting(p) {
				// "reset: Reset database (delete existing)": a switch
				// its own words say removes what is there makes the
				// change hard to undo. It adds to what the tool does and
				// takes nothing's place: the action stays the tool's.
				s.hardFlags = append(s.hardFlags, name)
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
		if typ == "array" && !prm.nested && deletionLists[flat] && !containsAny(s.flags, "delete") && batchChange(s) && !listsRelations(p) {
			// "batch_update(create, update, delete)": a batch's list
			// named for removal takes the ids of whatever the call
			// deletes, whatever the tool is named. (A list of labels
			// to remove from one issue is no batch: it detaches.)
			s.flags = append(s.flags, "delete")
		}
		if s.public == "" && s.act == actMutate && publishOption(p) {
			s.public = fmt.Sprintf("parameter %q publishes what the call writes: anyone can read it", name)
		}
		if s.optionPrivilege == "" && s.act == actMutate && changeVerbs[s.verb] && (strings.Contains(flat, "acl") || strings.Contains(flat, "access")) && publicOption(p) {
			// "update_dataset(aclMode: private|public)": an access
			// control set to public opens the whole thing to anyone, as a
			// grant to everyone would. A new thing made public holds
			// nothing yet, and a "visibility" may be a calendar event's,
			// which opens nothing.
			s.optionPrivilege = "its access control (" + name + ")"
		}
		if len(toks) > 0 && actionParamWords[toks[len(toks)-1]] {
			operations := operationParams[flat]
			opts := optionValues(p)
			if len(opts) == 0 && (typ == "string" || typ == "") && (s.act >= actMutate && s.act < actExec || genericVerbs[s.verb]) &&
				name != s.execParam && !execParams[flat] && !filtersBy(p) &&
				toks[len(toks)-1] != "type" && toks[len(toks)-1] != "task" && toks[len(toks)-1] != "run" {
				// "action: Action to perform (e.g., 'create', 'list',
				// 'remove')": an action parameter that lists its values
				// in its description offers them as surely as an enum.
				// (A type's, a task's or a run's quoted values are kinds
				// of thing, not operations; a read's quoted methods are
				// what it describes, "get_type_info" of a method; a
				// tool with no verb of its own is judged on its own words;
				// a free-form command stays the command it is, never
				// narrowed to the examples its description quotes; and a
				// parameter that only filters what is shown takes the
				// actions it filters by, not those it performs.)
				opts = quotedOptions(p)
				s.quotedOptions = s.quotedOptions || len(opts) > 0
			}
			for _, opt := range opts {
				readOption(s, opt, operations)
			}
		}
		// A container parameter (project, repo, bucket) says where the
		// object lives, not how far the call reaches: only flags that
		// widen the reach set the scope.
		if (filterParams[flat] || queryLanguageName(flat) || (flat == "query" && s.selectStatements)) && !hasOptions(p) {
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
	if s.execParam == "" && compound != "" && (s.act == actNone || s.act == actMutate) && !writesCommandDown(s.verb) && len(s.flags) == 0 &&
		len(s.optionVerbs) == 0 && codeContext(s.desc, compoundDesc) {
		// "jumpCommand: Command to enter nested shell" on a tool that
		// "executes a jump command": a command named for its purpose is a
		// command all the same. It is taken last and only where it can
		// add, never take the place of, what the tool does: not beside a
		// parameter that takes code by its own name, a flag or an option
		// that makes the tool graver, or a verb that reads, computes or
		// already runs; and no read-only word of its own makes the tool a
		// read.
		s.execParam, s.namedCommand = compound, true
	}
	if s.execParam == "" {
		s.execParam = terminalInput(s)
	}
	if s.execParam == "" {
		s.execParam = stdioAddress(s)
	}
	sort.Strings(s.flags)
}

// schemaKeywords are the top-level keywords of JSON Schema and its common
// extensions an input schema may hold.
var schemaKeywords = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true,
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "definitions": true, "$comment": true, "description": true,
	"title": true, "anyOf": true, "oneOf": true, "allOf": true, "not": true, "if": true, "then": true, "else": true,
	"patternProperties": true, "propertyNames": true, "minProperties": true, "maxProperties": true,
	"dependencies": true, "dependentRequired": true, "dependentSchemas": true, "unevaluatedProperties": true,
	"default": true, "examples": true, "enum": true, "const": true, "nullable": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "format": true, "items": true}

// foreignKeyword is a top-level keyword JSON Schema does not define, in an
// input schema that declares no properties ("def" and "shape" of a
// validator's own object written out as if it were a schema). Such a
// schema says nothing of the arguments the tool takes, though the server
// meant it to: "" when the schema declares properties or holds only
// JSON Schema's keywords.
func foreignKeyword(schema any) string {
	root, ok := schema.(*tooldef.Object)
	if !ok {
		return ""
	}
	if root.Has("properties") {
		return ""
	}
	foreign := ""
	for _, m := range root.Members() {
		// The least in byte order, so that the reason names the same one
		// on every run: the members' order agrees with it only for names
		// in ASCII.
		if k := m.Key; !schemaKeywords[k] && !strings.HasPrefix(k, "x-") && (foreign == "" || k < foreign) {
			foreign = k
		}
	}
	return foreign
}

// stdioAddress is a string parameter whose description shows a stdio://
// address ("MCP server URL (e.g., stdio://command?args=…)"): connecting to
// a server over stdio starts the command the address names on the
// server's machine, so the address is a command line. "" when there is
// none.
func stdioAddress(s *signals) string {
	if s.paramRoles&roleAddress == 0 {
		return ""
	}
	for _, p := range s.params {
		if !addressParams[p.flat] || (p.typ != "string" && p.typ != "") {
			continue
		}
		if d := p.schema.GetString("description"); strings.Contains(d, "stdio://") || strings.Contains(strings.ToLower(d), "stdio://") {
			return p.name
		}
	}
	return ""
}

// Roles a parameter's name may have, looked up once per parameter while
// the schema is read so that the rules that want one look through the
// parameters again only when some parameter has it.
const (
	roleWorkload uint8 = 1 << iota
	roleLocalFile
	roleAddress
)

var paramRole = func() map[string]uint8 {
	m := map[string]uint8{}
	for w := range workloadParams {
		m[w] |= roleWorkload
	}
	for w := range localFileParams {
		m[w] |= roleLocalFile
	}
	for w := range addressParams {
		m[w] |= roleAddress
	}
	return m
}()

// addressParams name where a tool connects.
var addressParams = map[string]bool{"url": true, "uri": true, "address": true, "server": true, "serverurl": true,
	"endpoint": true, "target": true, "connection": true, "connectionstring": true, "transport": true}

// terminalNouns are where typed text runs as commands.
var terminalNouns = map[string]bool{"pty": true, "tty": true, "terminal": true}

// shellWords make a terminal a shell's.
var shellWords = map[string]bool{"shell": true, "command": true, "commands": true, "keystrokes": true, "pty": true,
	"tty": true, "bash": true, "console": true, "session": true}

// typingVerbs put text into what they name.
var typingVerbs = map[string]bool{"write": true, "send": true, "type": true, "input": true, "paste": true, "press": true}

// typedParams hold the text typed.
var typedParams = map[string]bool{"input": true, "text": true, "data": true, "keys": true, "keystrokes": true,
	"content": true, "line": true, "chars": true, "characters": true}

// terminalInput is the parameter whose text a tool types into a terminal
// ("pty_write(input)": "Send keystrokes, commands, or text"): a shell
// reads what is typed into it as commands, so the text is free-form
// execution whatever the parameter is called. "" when the tool types
// into no terminal.
func terminalInput(s *signals) string {
	if !typingVerbs[s.verb] || !containsAnyMap(s.tokens, terminalNouns) {
		return ""
	}
	if !containsAny(s.tokens, "pty", "tty") && !saysWordOf(opening(s.desc, claimWindow), shellWords) {
		return "" // a card reader's or an airport's terminal runs no commands
	}
	for _, p := range s.params {
		if !p.nested && typedParams[p.flat] && (p.typ == "string" || p.typ == "") {
			return p.name
		}
	}
	return ""
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
func hasOptions(p *tooldef.Object) bool {
	return p.Has("enum") || p.Has("const")
}

// readOption reads one value of a mode/action parameter: its executing,
// deleting or destroying verb, and whether it changes who may do what.
func readOption(s *signals, opt string, operation bool) {
	var buf [8]string
	toks := appendTokens(buf[:0], opt)
	if operation && s.act >= actMutate && s.act < actDelete {
		// "create_adjustment" with an action "refund": a change one of
		// whose operations moves money moves money, whatever it is named.
		for _, tok := range toks {
			if movesMoney[tok] && !movesMoneyAs(s.money) {
				s.money = tok
			}
		}
	}
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

// operationParams are the parameters whose options are what a call does,
// not what kind of thing it makes: a ticket of type "refund" refunds
// nothing.
var operationParams = map[string]bool{"action": true, "operation": true, "op": true, "mode": true,
	"actiontype": true, "operationtype": true, "command": true}

// recordNouns are the rows of a table or collection: a tool on several of
// them reaches the collection.
var recordNouns = map[string]bool{"record": true, "row": true, "document": false, "entry": false, "vector": true,
	"point": true, "item": true}

// publicNetworkNouns are communications carried by a public network (the
// telephone network, email) to anyone with a number or an address, not
// inside one workspace.
var publicNetworkNouns = map[string]bool{"call": true, "sms": true, "mms": true, "fax": true, "email": true,
	"voicemail": true}

// dnsRecordTypes name a DNS record's type, before "record" in a name. "A"
// is left to the description: "create_a_record" is as often a table's row.
var dnsRecordTypes = map[string]bool{"aaaa": true, "cname": true, "mx": true, "txt": true, "srv": true, "caa": true,
	"ptr": true, "ns": true}

// publicEffect says why a change is seen by anyone on the internet: a DNS
// record is public by nature; a name or an opening that makes something
// public, or shares it with anyone who has the link, exposes it.
func publicEffect(nameTokens []string, opening string, holdsPhrase bool) string {
	for _, tok := range nameTokens {
		switch tok {
		case "dns", "nameserver", "nameservers":
			return "public DNS reaches everyone who resolves the name"
		case "domain":
			if last := nameTokens[len(nameTokens)-1]; (last == "record" || last == "records") ||
				(len(nameTokens) > 1 && (nameTokens[len(nameTokens)-2] == "record" || nameTokens[len(nameTokens)-2] == "records") && verbs[last] >= actMutate) {
				return "a domain's records are public DNS: they reach everyone who resolves the name"
			}
		case "public", "publicly":
			return "it makes something public"
		}
	}
	for i, tok := range nameTokens[:max(len(nameTokens)-1, 0)] {
		if dnsRecordTypes[tok] && (nameTokens[i+1] == "record" || nameTokens[i+1] == "records") {
			// "create_cname_record": a record of one of DNS's own types.
			return "public DNS reaches everyone who resolves the name"
		}
	}
	if i := strings.Index(opening, "dns record"); i >= 0 && !negatedBefore(opening, i) &&
		!strings.Contains(opening[:i], ". ") {
		// "create_a_record — Create an A (IPv4) DNS record in the given
		// zone": the name's "a record" is as often an article's. Only
		// the first sentence says what the tool changes: "Returns DNS
		// records to configure" after it changes none.
		return "public DNS reaches everyone who resolves the name"
	}
	if containsAny(nameTokens, "ip", "ips", "address") && containsAny(nameTokens, "reserved", "floating", "static") &&
		containsAny(nameTokens, "assign", "unassign", "attach", "detach", "associate", "disassociate", "move", "release") {
		// "assign_reserved_ip": a public address re-pointed sends what
		// reached it somewhere else, for everyone who uses it.
		return "it re-points a public address: traffic that reached it goes elsewhere"
	}
	// The caller's one pass (holdsPhrase) tells most descriptions hold none
	// of the phrases; one that holds any is read phrase by phrase, each at
	// its first place.
	if !holdsPhrase {
		return ""
	}
	for _, p := range publicPhrases {
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

// settingNouns are configuration whose change reaches everything in the
// container it configures: a variable, a schedule, an index, a setting.
var settingNouns = map[string]bool{"variable": true, "var": true, "env": true, "config": true,
	"configuration": true, "setting": true, "settings": true, "schedule": true, "maintenance": true}

// selectStatementSet in a tool's description, SQL's keyword in capitals,
// say its "query" parameter takes SELECT statements: a query that picks
// any records of the database, not search words.
var selectStatementSet = phrase.New("SELECT quer", "SELECT statement", "SELECT-only", "SELECT only", "only SELECT")

// filterParams take a free-form filter or query that selects records.
var filterParams = map[string]bool{"filter": true, "filters": true, "where": true,
	"labelselector": true}

// queryLanguageName says a parameter is named for a query language, by the
// convention that names them "…QL" (a tracker's, a wiki's, an object
// store's): what it takes selects records. Every name ending in "sql" is
// of SQL's family, and the statement languages write as well as read: the
// statement rules judge those. GraphQL, longer, is not matched at all.
func queryLanguageName(flat string) bool {
	if len(flat) < 3 || len(flat) > 6 || !strings.HasSuffix(flat, "ql") || strings.HasSuffix(flat, "sql") {
		return false
	}
	for _, l := range statementLanguages {
		if flat == l {
			return false
		}
	}
	return true
}

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
// still count as removing one item (a workspace, an app). A project is
// the container of everything made in it, as a repository is, and a team
// of its members' projects: removing one removes its contents with it
// (the rubric names the project beside the namespace and the database).
func anyBroadStrict(objects []string) bool {
	for _, o := range objects {
		switch o {
		case "namespace", "cluster", "database", "db", "repository", "repo", "bucket", "table", "collection", "organization", "org", "account", "all", "many", "bulk", "everything", "tenant", "project", "team":
			return true
		}
	}
	return false
}

// bulkPhrases make a deletion one of many things at once.
var bulkPhrases = phrase.New("removes all", "deletes all", "delete all", "remove all", "all managed", "every ", "entire ", "bulk ")

// wipePhrases make a replacement one of everything there was.
var wipePhrases = phrase.New("replace all", "replaces all", "overwrite all", "overwrites all", "all data", "all rows", "all records",
	"entire contents", "replacing its current", "replacing the current", "replaces its current", "replaces the current")

// publicPhrases make what a tool changes reachable by anyone.
var publicPhrases = []string{"anyone with the link", "anyone who has the link", "to public", "publicly accessible", "publicly visible",
	"make it public", "makes it public", "public link", "public url", "to the live site", "on the live site",
	"onto the live site", "make them live", "makes them live"}

var publicPhraseSet = phrase.New(publicPhrases...)

// changeOpeningSet is the offer of any request and the public phrases in
// one list, in that order, for the one search of a change's opening.
var changeOpeningSet = phrase.New(append(append([]string{}, anyRequestPhrases...), publicPhrases...)...)

// accessObjects are the nouns of the description's first sentence that make
// a change one of who may do what. Users, settings and configuration are
// left out: a sentence about them is as often about something they own.
var accessObjects = map[string]bool{"member": true, "members": true, "role": true, "roles": true,
	"permission": true, "permissions": true, "access": true, "collaborator": true, "collaborators": true,
	"admin": true, "admins": true, "administrator": true, "privilege": true, "privileges": true}

// accessObjectOpening is the access noun a description's first sentence
// gives its verb as direct object ("Confirm an invited organization
// member"): among the first words after the verb, before any preposition
// or clause that makes the noun someone else's ("shown to members", "only
// admins can see"). "" when there is none.
func accessObjectOpening(desc string) string {
	first := desc[:min(len(desc), 160)]
	if end := strings.IndexAny(first, ".\n"); end >= 0 {
		first = first[:end]
	}
	words := strings.FieldsFunc(first, func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range words {
		if i == 0 {
			continue // the verb
		}
		if i > 6 || objectEnders[w] {
			return ""
		}
		if accessObjects[w] {
			return w
		}
	}
	return ""
}

// objectEnders end a verb's direct object: a preposition or a clause.
var objectEnders = map[string]bool{"to": true, "for": true, "of": true, "only": true, "with": true, "by": true,
	"from": true, "that": true, "who": true, "which": true, "shown": true, "can": true, "in": true, "on": true,
	"when": true, "if": true, "so": true, "as": true}

// credentialValueParams are parameters that carry a credential's value,
// and the credential each one is (a word privilegeReach knows reaches no
// further than the item that holds it).
var credentialValueParams = map[string]string{"password": "password", "newpassword": "password",
	"passphrase": "password", "secret": "secret", "secretvalue": "secret", "clientsecret": "secret",
	"totp": "secret", "apikey": "token", "privatekey": "credential", "accesstoken": "token"}

// credentialValueParam is the credential carried by a string property, at
// any depth of the schema's objects (a login inside an item, an array of
// fields, a variant, a local reference), up to maxSchemaDepth; "" when
// there is none. Of several, the property first in byte order at the
// shallowest depth answers; names are compared rather than the first
// member taken, because the members' order agrees with byte order only
// for names in ASCII.
func credentialValueParam(schema any) string {
	root, _ := schema.(*tooldef.Object)
	var seen map[string]bool
	var walk func(node *tooldef.Object, depth int) string
	walk = func(node *tooldef.Object, depth int) string {
		if node == nil || depth > maxSchemaDepth {
			return ""
		}
		if ref, ok := node.Get("$ref").(string); ok && !seen[ref] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[ref] = true
			if found := walk(resolveRef(root, ref), depth+1); found != "" {
				return found
			}
		}
		best, bestName := "", ""
		props := node.GetObject("properties")
		for _, p := range props.Members() {
			name := p.Key
			pm, _ := p.Value.(*tooldef.Object)
			if typ := pm.GetString("type"); (typ == "string" || typ == "") && mayNameCredential(name) {
				if cred := credentialValueParams[flatten(name)]; cred != "" && (bestName == "" || name < bestName) {
					best, bestName = cred, name
				}
			}
		}
		if best != "" {
			return best
		}
		for _, p := range props.Members() {
			pm, _ := p.Value.(*tooldef.Object)
			if found := walk(pm, depth+1); found != "" && (bestName == "" || p.Key < bestName) {
				best, bestName = found, p.Key
			}
		}
		if best != "" {
			return best
		}
		if items, ok := node.Get("items").(*tooldef.Object); ok {
			if found := walk(items, depth+1); found != "" {
				return found
			}
		}
		for _, key := range [...]string{"allOf", "anyOf", "oneOf"} {
			variants, _ := node.Get(key).([]any)
			for _, v := range variants {
				vm, _ := v.(*tooldef.Object)
				if found := walk(vm, depth+1); found != "" {
					return found
				}
			}
		}
		return ""
	}
	return walk(root, 0)
}

// mayNameCredential is a cheap first test, without allocating, that a
// property's name may be one of credentialValueParams.
func mayNameCredential(name string) bool {
	for _, part := range [...]string{"ass", "ecret", "otp", "key", "Key", "oken", "ASS", "ECRET", "OTP", "KEY", "OKEN"} {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// principalNames are parameters that list who: groups, users, members,
// teams.
var principalNames = map[string]bool{"group": true, "groups": true, "groupids": true, "user": true, "users": true,
	"userids": true, "member": true, "members": true, "memberids": true, "team": true, "teams": true,
	"teamids": true, "principal": true, "principals": true, "grantee": true, "grantees": true}

// accessSaid are a parameter description's words for the access its
// principals are given.
var accessSaidPhrases = []string{"with access", "have access", "has access", "access to this", "access level",
	"permission level", "permissions for", "can access"}

var accessSaid = phrase.New(accessSaidPhrases...)

// principalsWithAccess is "access" when a parameter lists principals and
// its description says what they may reach ("group IDs with access to this
// collection"): setting it decides who may do what. "" otherwise.
func principalsWithAccess(params []param) string {
	for _, prm := range params {
		if !principalNames[prm.flat] {
			continue
		}
		if d := prm.schema.GetString("description"); d != "" && accessSaid.Any(strings.ToLower(d)) {
			return "access"
		}
	}
	return ""
}

// wirelessNetworks name a wireless network devices join.
var wirelessNetworks = map[string]bool{"wifi": true, "ssid": true, "wlan": true}

// The privilege nouns of an access level set on one thing and of a
// wireless network's security.
const (
	accessLevel     = "access level"
	wirelessNetwork = "wireless network"
	clientRedirects = "client redirect URIs"
)

// registersRedirects says a parameter is the list of redirect URIs an
// OAuth client is registered with: "redirectUris", "redirect_uris".
func registersRedirects(params []param) bool {
	for _, p := range params {
		if p.flat == "redirecturis" {
			return true
		}
	}
	return false
}

// accessParamWords name a parameter about access; levelWords make it one
// that sets a level: "accessLevel", "sharingPolicy", "permission_role". A
// bare "permission" or "sharing" is as often an editor's view mode, an
// app's requested permissions or a clipboard shared with a VM.
var (
	accessParamWords = []string{"access", "sharing", "permission"}
	levelWords       = []string{"level", "role", "policy"}
)

// containsAnyOf says s holds one of the words.
func containsAnyOf(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// accessLevels are the values an access level offers: what a person let
// in may do. Read and write are left out: an "accessLevel" of read or
// write is as often a watchpoint's, a cache's, a buffer's or a device
// tag's.
var accessLevels = map[string]bool{"view": true, "viewer": true, "comment": true, "commenter": true, "edit": true,
	"editor": true, "reader": true, "writer": true, "owner": true, "contributor": true, "admin": true, "manage": true}

// accessLevelParam names the parameter that sets an access level: its name
// says the level of access, sharing or permission and its values offer
// what a person let in may do. "" when none does.
func accessLevelParam(params []param) string {
	for _, p := range params {
		// Read from the flat name, without splitting it into words: this
		// is asked of every parameter of every change.
		if !containsAnyOf(p.flat, accessParamWords) || !containsAnyOf(p.flat, levelWords) {
			continue
		}
		for _, v := range optionValues(p.schema) {
			if accessLevels[strings.ToLower(v)] {
				return accessLevel
			}
		}
	}
	return ""
}

// joinsANetwork are the words of a device joining a network rather than a
// network being made: "Configure the ESP32 to join a WiFi network".
var joinsANetwork = phrase.New("join", "connect", "connection profile", "saved network")

// wirelessSecurityWords name a parameter that sets how a wireless network
// admits devices.
var wirelessSecurityWords = map[string]bool{"security": true, "passphrase": true, "password": true, "psk": true,
	"wpa": true, "encryption": true}

// setsWirelessSecurity says a parameter sets a wireless network's security
// or passphrase.
func setsWirelessSecurity(params []param) bool {
	for _, p := range params {
		for _, w := range Tokenize(p.name) {
			if wirelessSecurityWords[w] {
				return true
			}
		}
	}
	return false
}

// choiceOfActs reads a description that opens with a choice between
// reading and changing — verbs separated by commas, the last after "or":
// "Get or set configuration options", "Read, write or delete a key" — and
// returns the gravest change offered, the last of equal ones. A change
// counts when it is a strong mutation, a change verb, or graver than a
// change (a send, an execution, a removal): "Read or navigate", "Get or
// refresh the index", "View or export" only choose, move about or copy. A
// list that breaks off before its "or" names things, not acts ("List
// scripts or commands"), and "and" joins steps of one act ("Retrieve and
// download").
func choiceOfActs(desc string) (action, string, bool) {
	desc = desc[:min(len(desc), 160)]
	change, changeVerb, sawOr, expectVerb := actNone, "", false, true
	for n, f := range strings.Fields(desc) {
		if n >= 10 {
			break
		}
		f = strings.ToLower(f)
		if f == "or" && n > 0 {
			sawOr, expectVerb = true, true
			continue
		}
		if !expectVerb {
			break // a verb followed by neither a comma nor "or" ends the list
		}
		w, comma := strings.CutSuffix(f, ",")
		a, base, ok := conjugatedVerb(w)
		if !ok {
			return actNone, "", false
		}
		if (a >= actSend || strongMutations[base] || changeVerbs[base]) && a >= change {
			change, changeVerb = a, base
		}
		if sawOr {
			break // the verb after "or" ends the list
		}
		expectVerb = comma
	}
	return change, changeVerb, sawOr && change != actNone
}

// hypotheticalVerbs lead a name whose rest is what they work out without
// doing it: "preview_subscription_charge" bills nothing, and a change verb
// after one names what is previewed, not what the tool does.
var hypotheticalVerbs = map[string]bool{"preview": true, "estimate": true, "dryrun": true}

// previewDoes says a previewing tool does what it previews after all: its
// description opens with a change ("Charges the saved card"), states one,
// says it goes on ("then", "and applies it"), or a switch makes it act (confirm, execute, commit, apply). A previewed
// verb that moves money, changes access or removes is taken back unless
// the description says outright that nothing happens ("without billing",
// "does not", "would").
func previewDoes(s *signals, verb string) bool {
	// Only the first sentence, where a tool says what it does, can say
	// that nothing happens: "Fees would not be returned" later on says
	// nothing of the refund.
	first := s.desc
	if end := strings.Index(first, ". "); end >= 0 {
		first = first[:end]
	}
	said := nothingHappensSet.Any(first)
	if opensWithChange(s.desc) || statesChangeSaid(s.desc) {
		return true
	}
	if !said && (strings.Contains(s.desc, "then ") || goesOnTo(s.desc)) {
		return true
	}
	for _, p := range s.params {
		if p.typ == "boolean" && (p.flat == "confirm" || p.flat == "execute" || p.flat == "commit" ||
			p.flat == "apply" || p.flat == "run" || p.flat == "dryrun" || p.flat == "live") {
			return true
		}
	}
	if a := verbs[verb]; movesMoney[verb] || a >= actSend || privilegeVerbs[verb] {
		return !said
	}
	return false
}

// privilegeVerbs change who may do what whatever they act on.
var privilegeVerbs = map[string]bool{"grant": true, "revoke": true, "ban": true, "unban": true, "invite": true,
	"impersonate": true, "elevate": true, "approve": true, "assign": true, "share": true, "publish": true, "merge": true}

// nothingHappensSet are a description's words saying a preview does not do
// what it shows.
var nothingHappensSet = phrase.New("without bill", "without charg", "without creat", "without mak", "without apply",
	"without chang", "without send", "without sav", "without commit", "without execut", "without affect", "does not",
	"doesn't", "no charge", "nothing is", "would ", "not be charged", "not charged", "is not billed", "not billed")

// shapeOptions are string parameters that only shape a generated value.
var shapeOptions = map[string]bool{"separator": true, "charset": true, "characters": true, "alphabet": true,
	"symbols": true, "exclude": true, "include": true}

// generatesRandomSecret says a tool generates a password or a passphrase
// and only hands it back: its description says so positively (random,
// secure, strong, returns, suggests) and says nothing of putting it to use
// (setting, saving, applying, replacing, sending it, a login, an account,
// a server), and every parameter only shapes the value: a number that
// identifies nothing, a boolean that chooses characters rather than an
// action, a shaping string.
func generatesRandomSecret(s *signals) bool {
	if s.verb != "generate" || (s.credential != "password" && s.credential != "passphrase") || len(s.params) == 0 {
		return false
	}
	for _, prm := range s.params {
		typ := prm.typ
		switch {
		case typ == "string" && shapeOptions[prm.flat]:
		case (typ == "number" || typ == "integer" || typ == "boolean") && !strings.HasSuffix(prm.flat, "id") &&
			!strings.HasSuffix(prm.flat, "ids") && !actionSwitches[prm.flat]:
		default:
			return false
		}
	}
	return handsBackSet.Any(s.desc) && !savesOrSets.Any(s.desc) && !goesOnTo(s.desc) && !statesChangeSaid(s.desc) &&
		!strings.Contains(s.desc, "then ")
}

// actionSwitches are booleans that put a generated value to use rather
// than shape it.
var actionSwitches = map[string]bool{"apply": true, "commit": true, "set": true, "save": true, "store": true,
	"confirm": true, "update": true, "replace": true, "reset": true, "rotate": true, "email": true, "send": true,
	"notify": true, "persist": true, "activate": true}

// handsBackSet are a description's words for a value made and handed back.
var handsBackSet = phrase.New("random", "secure", "strong", "returns", "suggest")

// savesOrSets are a description's words for a generated secret kept or
// put to use, or tied to something that will accept it.
var savesOrSetsPhrases = []string{"save", "store", "set ", "sets ", "assign", "account", "user", "reset", "rotate", "vault",
	"apply", "applies", "replace", "change", "update", "login", "log in", "root", "admin", "takes effect", "email",
	"mail", "credential", "old one", "current one", "encrypt", "database", "server", "instance", "regenerat",
	"new password", "new passphrase", "the password for", "the passphrase for", "send", "share", "configures ", "configure it",
	"push", "install", "deploy", "device", "router", "host"}

var savesOrSets = phrase.New(savesOrSetsPhrases...)

// deliveryObjects are what delivers data to an address: their secrets sign
// what is sent rather than let anyone in.
var deliveryObjects = map[string]bool{"webhook": true, "webhooks": true, "hook": true, "hooks": true,
	"callback": true, "subscription": true}

// metadataOfTelemetry are the words for what describes a record rather
// than holding it.
var metadataOfTelemetry = map[string]bool{"name": true, "metadata": true, "type": true, "value": true,
	"label": true, "key": true}

// appointment says an event is a calendar's: a meeting someone keeps, not
// a record of what a system did ("list-events — List events from one or
// more calendars").
func appointment(head, desc string) bool {
	return singular(head) == "event" && strings.Contains(desc, "calendar")
}

// telemetryAmong says a telemetry noun is among a name's objects.
func telemetryAmong(objects []string) bool {
	for _, o := range objects {
		if telemetryNouns[o] || telemetryNouns[singular(o)] {
			return true
		}
	}
	return false
}

// ipParamAccessSet are a parameter description's words for traffic from an
// address let in or kept out.
var ipParamAccessSet = phrase.New("allowed", "accept traffic", "permitted", "whitelist", "allowlist", "blocked", "denied",
	"access control")

// ipAccessParams says a parameter makes an address an access rule's: it
// names an access control list or an allowlist, or its description says
// traffic from the address is allowed, accepted or blocked.
func ipAccessParams(params []param) bool {
	for _, prm := range params {
		if strings.Contains(prm.flat, "accesscontrol") || strings.Contains(prm.flat, "allowlist") || strings.Contains(prm.flat, "whitelist") || strings.HasSuffix(prm.flat, "acl") {
			return true
		}
		if d := prm.schema.GetString("description"); d != "" && ipParamAccessSet.Any(strings.ToLower(d)) {
			return true
		}
	}
	return false
}

// goesOnTo says a description joins a second action of the tool's own to
// the first: "shows the change and applies it", "prices the order and
// places it". A plural noun after "and" ("fees and charges") reads the
// same; a preview withheld for it costs a review.
func goesOnTo(desc string) bool {
	for from := 0; ; {
		i := strings.Index(desc[from:], " and ")
		if i < 0 {
			return false
		}
		from += i + len(" and ")
		w := desc[from:]
		if end := strings.IndexAny(w, " ,.;:\n"); end >= 0 {
			w = w[:end]
		}
		if changeVerbForm(w) {
			return true
		}
	}
}

// changeVerbForm says w is the third person of a verb of change ("applies",
// "places", "pays").
func changeVerbForm(w string) bool {
	if len(w) < 4 || w[len(w)-1] != 's' {
		return false
	}
	for _, base := range [...]string{w[:len(w)-1], strings.TrimSuffix(w, "es"), strings.TrimSuffix(w, "ies") + "y"} {
		if a, ok := verbs[base]; ok && a >= actMutate {
			return true
		}
	}
	return false
}

// routingVerbs give an address to a machine, take it back or keep it.
var routingVerbs = map[string]bool{"assign": true, "unassign": true, "attach": true, "detach": true, "associate": true,
	"disassociate": true, "move": true, "release": true, "reserve": true, "allocate": true, "create": true,
	"get": true, "list": true, "delete": true}

// ipRouting says a change of an address routes traffic to a machine rather
// than decides who gets in: a routing verb, or a description of the
// address's reverse name.
func ipRouting(s *signals) bool {
	return routingVerbs[s.verb] || ipRoutingSet.Any(opening(s.desc, 160))
}

// environmentVariables says a change works on a service's environment
// variables: the name says env or environment with var, vars, variable or
// variables, or the description's opening says "environment variable".
func environmentVariables(s *signals) bool {
	if containsAny(s.tokens, "env", "environment") && containsAny(s.tokens, "var", "vars", "variable", "variables") {
		return true
	}
	head := opening(s.desc, 160)
	if strings.Contains(head, "environment variable") || strings.Contains(head, "env var") {
		return true
	}
	// "project-update" with "env: Environment variables for the project":
	// a parameter that sets them sets them, whatever the tool is named.
	for _, p := range s.params {
		if p.nested || !envParams[p.flat] {
			continue
		}
		d := p.schema.GetString("description")
		if strings.Contains(p.flat, "var") || strings.Contains(strings.ToLower(d), "variable") {
			return true
		}
	}
	return false
}

// envParams name a parameter that may set a service's environment.
var envParams = map[string]bool{"env": true, "envvars": true, "environment": true, "environmentvariables": true,
	"envvariables": true, "envvar": true}

// disputedHead says the head noun of a name is a dispute or a chargeback,
// or a dispute's claim or case ("accept_dispute_claim").
func disputedHead(objects []string) bool {
	h := headNoun(objects)
	if disputeNouns[h] {
		return true
	}
	return (h == "claim" || h == "claims" || h == "case" || h == "cases") && containsAnyMap(objects, disputeNouns)
}

// paymentContextPhrases say a dispute is a payment's.
var (
	paymentContextPhrases = []string{"payment", "chargeback", "card", "transaction", "refund", "funds"}
	paymentContextSaid    = phrase.New(paymentContextPhrases...)
)

// endingVerbs end or pause what a customer pays for.
var endingVerbs = map[string]bool{"cancel": true, "pause": true, "suspend": true, "terminate": true, "end": true,
	"stop": true, "expire": true}

// billedPhrases say what a description speaks of is paid for again and
// again.
var (
	billedPhrases = []string{"billing", "billed", "renewal", "renews", "recurring", "subscription", "purchase"}
	billedSaid    = phrase.New(billedPhrases...)
)

// membershipOf says a membership among a name's objects is of a scope that
// grants (an organisation, a team, a project, a workspace, a group).
func membershipOf(objects []string) bool {
	for _, o := range objects {
		if scopeWords[o] != "" || o == "group" || o == "groups" {
			return true
		}
	}
	return false
}

// trashes says a name that "trash" leads moves something to a trash: no
// verb follows in the name ("trash_list"), and the description says the
// move ("Move a thread to the trash", "Trashes the file").
func trashes(tokens []string, i int, description string) bool {
	for _, tok := range tokens[i+1:] {
		if _, ok := verbs[tok]; ok {
			return false
		}
	}
	opening := strings.ToLower(description[:min(len(description), 200)])
	return trashSaid.Any(opening)
}

// trashSaid are a description's words for moving something to a trash.
var trashPhrases = []string{"to the trash", "to trash", "into the trash", "in the trash", "to the bin", "to the recycle",
	"to the recycling", "trashes", "trash a", "trash the", "trash an", "trash one", "trash all", "trash every"}

var trashSaid = phrase.New(trashPhrases...)

// delegateOfAccount are a description's words that make a delegate one who
// acts as an account's owner.
var delegatePhrases = []string{"account", "mailbox", "inbox", "calendar", "on behalf", "access", "send as", "send mail",
	"read mail", "permission"}

var delegateOfAccount = phrase.New(delegatePhrases...)

// sshLoginKeys is the privilege of a tool that installs SSH keys on a
// machine: it reaches the machine, no further.
const sshLoginKeys = "the SSH keys that may log in"

// loginKeyParams name the public keys a machine lets log in.
var loginKeyParams = map[string]bool{"sshkeys": true, "sshkey": true, "sshkeyids": true, "sshkeyid": true,
	"sshkeynames": true, "sshkeyname": true, "sshpublickeys": true, "sshpublickey": true, "authorizedkeys": true}

// makingVerbs make a new thing, which holds nothing when it is made. Not
// "add", nor "provision": keys added or provisioned go to something that
// may exist.
var makingVerbs = map[string]bool{"create": true, "new": true, "launch": true, "deploy": true, "run": true, "spawn": true}

// machineIDParams name a machine that exists: a "create_rescue_session"
// taking one works on it, whatever its verb.
var machineIDParams = map[string]bool{"serverid": true, "instanceid": true, "machineid": true, "vmid": true, "hostid": true,
	"nodeid": true}

// installsLoginKeys says a parameter, at any depth, names SSH keys to
// install.
func installsLoginKeys(params []param) bool {
	for _, p := range params {
		if loginKeyParams[p.flat] {
			return true
		}
	}
	return false
}

// namesAMachine says a required top-level parameter names a machine that
// exists.
func namesAMachine(params []param) bool {
	for _, p := range params {
		if p.required && !p.nested && machineIDParams[p.flat] {
			return true
		}
	}
	return false
}

// opensRemovingAll says a description opens by removing everything of
// something: a verb that deletes, then "all" or "every" ("Remove all jobs
// from a queue", "Deletes every entry").
func opensRemovingAll(desc string) bool {
	verb, rest, ok := strings.Cut(opening(desc, 80), " ")
	if !ok {
		return false
	}
	if a, _, ok := conjugatedVerb(verb); !ok || a < actDelete {
		return false
	}
	rest, ok = strings.CutPrefix(rest, "all ")
	if !ok {
		if rest, ok = strings.CutPrefix(rest, "every "); !ok {
			return false
		}
	}
	rest = strings.TrimPrefix(rest, "other ")
	object, _, _ := strings.Cut(rest, " ")
	object = strings.Trim(object, ".,;:")
	// Sessions signed out and caches cleared are rebuilt: "Revoke all
	// sessions" ends logins, it removes nothing kept.
	return !ephemeralNouns[object] && !ephemeralNouns[singular(object)] && singular(object) != "session"
}

// dispatchesAnyCall says a schema routes a call to any operation of an
// API: a free-form operation (a method, an operation, an action named in a
// string with no list of values), a free-form service or resource, and a
// request whose members the caller writes.
func dispatchesAnyCall(params []param) bool {
	op, target, request := false, false, false
	for _, p := range params {
		if p.nested {
			continue
		}
		typ := p.typ
		enum := p.schema.Has("enum")
		switch {
		case dispatchOps[p.flat] && typ == "string" && !enum:
			op = true
		case dispatchTargets[p.flat] && typ == "string" && !enum:
			target = true
		case dispatchRequests[p.flat] && (typ == "object" || typ == "") && freeForm(p.schema):
			request = true
		}
	}
	return op && target && request
}

// contractCall says a schema calls any function of any smart contract
// with any arguments, signed: a function named in a string, a contract's
// address, arguments (an array of elements of any kind, or a free-form
// object) and a parameter for the key that signs. Such a call can do
// whatever the signing account can; one only built, not signed, or a view
// function read, cannot.
func contractCall(params []param, desc string, schema any) bool {
	op, target, args := false, false, false
	for _, p := range params {
		if p.nested {
			continue
		}
		enum := p.schema.Has("enum")
		switch {
		case contractOps[p.flat] && p.typ == "string" && !enum:
			op = true
		case (p.flat == "contract" || p.flat == "contractaddress") && p.typ == "string" && !enum:
			target = true
		case dispatchRequests[p.flat] && ((p.typ == "array" && anyItems(p.schema)) || ((p.typ == "object" || p.typ == "") && freeForm(p.schema))):
			args = true
		}
	}
	if !op || !target || !args {
		return false
	}
	if unsignedSaid.Any(desc) {
		return false // "Build an unsigned transaction … Does not sign."
	}
	return credentialValueParam(schema) == "credential"
}

// unsignedSaid says a call is only built or simulated, not signed.
var unsignedPhrases = []string{"unsigned", "not sign", "without signing", "simulat", "dry run", "dry-run", "estimate"}

var unsignedSaid = phrase.New(unsignedPhrases...)

// contractOps name the function a contract call invokes.
var contractOps = map[string]bool{"function": true, "functionname": true, "method": true, "methodname": true}

// anyItems says an array schema takes elements of any kind: no item
// schema, an empty one, or one whose variants admit an object or an
// array (any value can be written in them).
func anyItems(schema *tooldef.Object) bool {
	items, ok := schema.Get("items").(*tooldef.Object)
	if !ok {
		return !schema.Has("items")
	}
	if items.Len() == 0 {
		return true
	}
	variants := items.GetArray("anyOf")
	if v, ok := items.Get("oneOf").([]any); ok {
		variants = v
	}
	for _, v := range variants {
		if vm, ok := v.(*tooldef.Object); ok {
			if typ := vm.GetString("type"); typ == "object" || typ == "array" {
				return true
			}
		}
	}
	return false
}

// freeForm says an object schema lets the caller write any members: none
// declared, or any more allowed.
func freeForm(schema *tooldef.Object) bool {
	if schema.GetObject("properties").Len() == 0 {
		return true
	}
	extra, ok := schema.Get("additionalProperties").(bool)
	return ok && extra
}

// sumToMove says a deposit has funds to move: an amount among its
// parameters, or a money word among the name's objects. A currency alone
// may only choose what rates or limits to show, and a "value" is any
// field's.
func sumToMove(s signals) bool {
	for _, p := range s.params {
		if p.flat == "amount" {
			return true
		}
	}
	for _, o := range s.objects {
		if moneyNouns[o] || o == "fund" || o == "funds" || o == "money" {
			return true
		}
	}
	return false
}

// opensDepositing says a description opens by depositing something: its
// first word is deposit and the next a determiner, a preposition or funds
// ("Deposit funds into …", "Deposit the balance …"), not a noun it
// qualifies ("Deposit interest calculator", "Deposit insurance coverage").
func opensDepositing(desc string) bool {
	ws := words(desc, 60)
	return len(ws) > 1 && ws[0] == "deposit" && depositObjects[ws[1]]
}

// depositObjects may follow deposit the verb.
var depositObjects = map[string]bool{"funds": true, "fund": true, "money": true, "cash": true, "the": true, "a": true,
	"an": true, "your": true, "into": true, "to": true, "tokens": true, "coins": true, "assets": true}

// providerVerbs put a provider in place or change which one it is.
var providerVerbs = map[string]bool{"connect": true, "link": true, "attach": true, "configure": true, "set": true,
	"update": true, "replace": true, "add": true, "create": true, "switch": true, "change": true}

// providerKeyParam says a required parameter takes the value of a credential its
// own description gives to a provider, a processor, a gateway or a
// merchant account.
func providerKeyParam(params []param) bool {
	for _, p := range params {
		if !p.required || (credentialValueParams[p.flat] == "" && !strings.HasSuffix(p.flat, "key") && !strings.HasSuffix(p.flat, "secret")) {
			continue
		}
		if typ := p.typ; typ != "string" && typ != "" {
			continue
		}
		d := p.schema.GetString("description")
		d = strings.ToLower(d)
		if (strings.Contains(d, "provider") || strings.Contains(d, "processor") || strings.Contains(d, "gateway") || strings.Contains(d, "merchant")) &&
			!harmlessKeySaid.Any(d) {
			return true
		}
	}
	return false
}

// harmlessKeySaid names keys that take no payment: a test mode's, a
// sandbox's, one that reads reports, one that signs webhooks, or one
// published to every customer's browser.
var harmlessKeyPhrases = []string{"test mode", "test-mode", "sandbox", "read-only", "reporting", "webhook", "publishable"}

var harmlessKeySaid = phrase.New(harmlessKeyPhrases...)

// paymentProviderSaid names the service a business takes payments with.
var paymentProviderPhrases = []string{"payment provider", "payment processor", "payment gateway", "merchant account"}

var paymentProviderSaid = phrase.New(paymentProviderPhrases...)

// dispatchOps, dispatchTargets and dispatchRequests name the three
// parameters of a call routed to any operation of an API.
var (
	dispatchOps      = map[string]bool{"method": true, "operation": true, "action": true, "function": true, "operationid": true}
	dispatchTargets  = map[string]bool{"service": true, "resource": true, "api": true, "module": true, "category": true, "endpoint": true}
	dispatchRequests = map[string]bool{"request": true, "params": true, "parameters": true, "body": true, "payload": true,
		"args": true, "arguments": true, "data": true, "input": true}
)

// publishOption says a parameter's enumerated values offer to publish what
// the call writes (a post's or a page's status "publish"): one argument
// puts it in front of everyone, the rubric's externally visible effect.
func publishOption(p *tooldef.Object) bool {
	enum := p.GetArray("enum")
	for _, e := range enum {
		if o, ok := e.(string); ok && (strings.EqualFold(o, "publish") || strings.EqualFold(o, "published")) {
			return true
		}
	}
	return false
}

// paysToo reports a word that moves money beside a top-up's own, in the
// name ("top_up_and_pay") or in the description's opening ("… or charges
// the stored card directly", "refunds the previous top-up").
func paysToo(tokens []string, desc string) bool {
	for _, t := range tokens {
		if movesMoney[t] && t != "topup" {
			return true
		}
	}
	return saysWordOf(opening(desc, claimWindow), moneyVerbForms)
}

// moneyVerbForms are the forms a description moves money with.
var moneyVerbForms = map[string]bool{"pay": true, "pays": true, "paid": true, "charge": true, "charges": true,
	"charged": true, "refund": true, "refunds": true, "refunded": true, "transfer": true, "transfers": true,
	"withdraw": true, "withdraws": true, "buy": true, "buys": true, "purchase": true, "purchases": true, "debit": true,
	"debits": true, "payout": true, "payouts": true}

// checkoutSaid says a payment is prepared for someone to complete.
var checkoutSaidPhrases = []string{"checkout session", "checkout url", "checkout link", "payment link"}

var checkoutSaid = phrase.New(checkoutSaidPhrases...)

// publicOption says a parameter's enumerated values offer "public".
func publicOption(p *tooldef.Object) bool {
	enum := p.GetArray("enum")
	for _, e := range enum {
		if o, ok := e.(string); ok && strings.EqualFold(o, "public") {
			return true
		}
	}
	return false
}

// batchChange says a change is a batch of changes: batch or bulk in its
// name, or, beside its list of removals, a top-level list of creations or
// updates.
func batchChange(s *signals) bool {
	if containsAny(s.tokens, "batch", "bulk") {
		return true
	}
	for _, p := range s.params {
		if !p.nested && (p.flat == "create" || p.flat == "update" || p.flat == "insert" || p.flat == "upsert") {
			if p.typ == "array" {
				return true
			}
		}
	}
	return false
}

// listsRelations says a list holds labels or tags, which removing detaches
// from what they mark and keeps.
func listsRelations(p *tooldef.Object) bool {
	desc := p.GetString("description")
	d := strings.ToLower(desc[:min(len(desc), 200)])
	return strings.Contains(d, "label") || strings.Contains(d, "tag")
}

// deletionLists are the names of a top-level list of what a call
// removes.
var deletionLists = map[string]bool{"delete": true, "deletes": true, "deletions": true, "remove": true,
	"removals": true, "destroy": true, "deleteids": true, "removeids": true, "todelete": true, "toremove": true}

// joinsNetwork says a change puts a machine on a network: a joining verb
// (attach, connect, join, add, assign) with a machine and a network, a
// VPC or a subnet among the objects. Taking it off is the delete rules'
// business.
func joinsNetwork(s *signals) bool {
	switch s.verb {
	case "attach", "connect", "join", "add", "assign":
	default:
		return false
	}
	return containsAny(s.objects, "server", "servers", "instance", "instances", "vm", "vms", "machine", "machines",
		"node", "nodes", "container", "containers") && containsAny(s.objects, "network", "vpc", "subnet")
}

// quotedOptions are the values a parameter's description quotes (straight
// or curly quotes, or back-ticks), each a few words of letters, digits,
// "_" and "-" — "(e.g., 'create', 'list', 'remove')" — read through the
// first maxQuotedScan bytes, however many there are.
func quotedOptions(p *tooldef.Object) []string {
	desc := p.GetString("description")
	desc = desc[:min(len(desc), maxQuotedScan)]
	var out []string
	for i := 0; i < len(desc); {
		n := quoteAt(desc, i)
		if n == 0 || (desc[i] == '\'' && i > 0 && isASCIILetterByte(desc[i-1])) {
			// Not a quote, or an apostrophe inside a word ("Don't",
			// "user's"), which opens nothing.
			i++
			continue
		}
		j := i + n
		for j < len(desc) && j-i <= 40 && (isASCIILetterByte(desc[j]) || desc[j] >= '0' && desc[j] <= '9' || desc[j] == '_' || desc[j] == '-' || desc[j] == ' ') {
			j++
		}
		if m := quoteAt(desc, j); m > 0 && j > i+n {
			out = append(out, desc[i+n:j])
			i = j + m
			continue
		}
		i += n
	}
	return out
}

// slashOperations are the verbs, lower-cased, of the first list of words
// joined by slashes in a description's opening that follows a word
// naming operations ("Dataset ops: list/get/schema/create/update/delete",
// "Supported operations: …") and holds three verbs the lexicon knows or
// more, and more verbs than other words. A list in capitals names a
// protocol's methods ("GET/POST/PUT/DELETE"), and a path, a file mode or a
// list of kinds follows no such word: none of them offers an operation.
func slashOperations(opening string) []string {
	for i := 0; i < len(opening); i++ {
		if opening[i] != '/' {
			continue
		}
		start := i
		for start > 0 && isASCIILetterByte(opening[start-1]) {
			start--
		}
		cue := strings.ToLower(opening[max(0, start-24):start])
		end, others, capitals := start, 0, 0
		var words []string
		for {
			j := end
			for j < len(opening) && isASCIILetterByte(opening[j]) {
				j++
			}
			if j == end {
				break
			}
			w := opening[end:j]
			if strings.ToUpper(w) == w {
				capitals++
			}
			if lw := strings.ToLower(w); verbs[lw] != actNone {
				words = append(words, lw)
			} else {
				others++
			}
			if j >= len(opening) || opening[j] != '/' {
				break
			}
			end = j + 1
		}
		if len(words) >= 3 && len(words) > others && capitals == 0 && operationCue.Any(cue) {
			return words
		}
		for i < len(opening) && (opening[i] == '/' || isASCIILetterByte(opening[i])) {
			i++ // past this run: a run that is not a list of operations holds none
		}
	}
	return nil
}

// operationCue names what a list of verbs that follows it offers.
var operationCue = phrase.New("ops", "operations", "actions", "commands", "supports", "supported")

// maxQuotedScan bounds how much of a description quotedOptions reads: the
// values of an action are listed where it is described, and the bound
// keeps the scan linear whatever a server sends.
const maxQuotedScan = 4096

// quoteAt is the length of the quotation mark at desc[i] — a straight
// quote, a back-tick or a curly quote in UTF-8 — or 0.
func quoteAt(desc string, i int) int {
	if i >= len(desc) {
		return 0
	}
	switch desc[i] {
	case '\'', '"', '`':
		return 1
	case 0xe2:
		if i+2 < len(desc) && desc[i+1] == 0x80 && desc[i+2] >= 0x98 && desc[i+2] <= 0x9d {
			return 3
		}
	}
	return 0
}

func isASCIILetterByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// filtersBy says a parameter's description says it only selects what is
// shown ("Only show events of this action"): the actions it names are
// what it filters by.
func filtersBy(p *tooldef.Object) bool {
	desc := p.GetString("description")
	head := strings.ToLower(desc[:min(len(desc), 120)])
	return strings.Contains(head, "only") || strings.Contains(head, "filter") || strings.Contains(head, "show") ||
		strings.Contains(head, "of this action") || strings.Contains(head, "matching")
}

// grantingVerbs give someone a role.
var grantingVerbs = map[string]bool{"add": true, "assign": true, "grant": true, "promote": true, "appoint": true,
	"make": true, "set": true, "invite": true, "create": true, "update": true}
