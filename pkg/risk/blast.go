package risk

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
)

// systemScopes are words naming a kind of system whose every state change
// reaches the scope given: a node's action reaches the cluster, a
// version-control or database action the repository or database. They
// name kinds of system, never a product: a product's name says nothing a
// rule could not say of every system of its kind, and a rule keyed on one
// fails on the next server built on another.
var systemScopes = map[string]string{
	"node": "cluster",
	"git":  "namespace", "sql": "namespace", "db": "namespace", "database": "namespace",
}

// wholeAccount says a change whose head is an account or a tenant changes
// the account the server's resources live in. Making a plain one (create,
// add, open, select: "create_tenant", "accounts-create") adds an item
// beside the others; and where a word before the account in the name makes
// it a ledger's or a customer's record (recordAccounts:
// "update_manual_account", "create_bank_account"), making or editing it
// makes or edits that record. Any other word keeps the account whole — a
// service, a root, a master, a default or an organization's account is one
// everything runs as, made or edited — and so do disabling, closing,
// linking or connecting one.
func wholeAccount(s signals) bool {
	making, editing := accountMakingVerbs[s.verb], accountEditVerbs[s.verb]
	if !making && !editing {
		return true
	}
	for i, tok := range s.tokens {
		switch singular(tok) {
		case "account", "subaccount", "tenant":
			if i == 0 {
				return !making
			}
			prev := s.tokens[i-1]
			if recordAccounts[prev] {
				return false
			}
			_, verb := verbs[prev]
			return !(verb && making)
		}
	}
	return true
}

// recordAccounts, before "account" in a name, make it one record of a
// ledger's or a customer's many.
var recordAccounts = map[string]bool{"manual": true, "test": true, "bank": true, "customer": true, "credit": true,
	"credits": true, "ledger": true, "expense": true, "savings": true, "deleted": true, "linked": true,
	"external": true, "financial": true, "payment": true}

// accountMakingVerbs add an account or a tenant beside the others, or
// choose one.
var accountMakingVerbs = map[string]bool{"create": true, "new": true, "add": true, "open": true, "register": true,
	"select": true, "upsert": true}

// accountEditVerbs edit what an account holds.
var accountEditVerbs = map[string]bool{"update": true, "edit": true, "modify": true, "set": true, "rename": true,
	"patch": true, "save": true, "change": true}

// documentNode says a tool's "node" is one of a document's — a scene's, a
// canvas's, a graph's, a tree's, a workflow's: its words speak of one, and
// none of a cluster's machines. What changes such a node reaches that
// item; a node named with nothing to say whose it is stays a machine of a
// cluster.
func documentNode(s signals) bool {
	doc := false
	check := func(w string) bool {
		if clusterNodeWords[w] {
			return false
		}
		doc = doc || documentNodeWords[w]
		return true
	}
	for _, tok := range s.tokens {
		if !check(tok) {
			return false
		}
	}
	for _, w := range words(opening(s.desc, 300), 300) {
		if !check(w) {
			return false
		}
	}
	return doc
}

// clusterNodeWords speak of the machines of a cluster.
var clusterNodeWords = map[string]bool{"cluster": true, "clusters": true, "pool": true, "pools": true, "worker": true,
	"workers": true, "cordon": true, "uncordon": true, "drain": true, "draining": true, "taint": true,
	"taints": true, "compute": true, "machine": true, "machines": true, "host": true, "hosts": true, "server": true,
	"servers": true, "vm": true, "instance": true, "instances": true}

// documentNodeWords speak of the nodes of a document: a scene, a canvas, a
// graph, a tree, a workflow, a diagram.
var documentNodeWords = map[string]bool{"scene": true, "canvas": true, "graph": true, "tree": true,
	"workflow": true, "layer": true, "layers": true, "frame": true, "frames": true, "design": true, "diagram": true,
	"flow": true, "document": true, "editor": true, "component": true, "dom": true, "ast": true, "xml": true,
	"html": true, "board": true, "parent": true, "child": true, "children": true, "hierarchy": true, "position": true,
	"page": true, "file": true, "selection": true}

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

// blastRadius is the reach stage: it decides the widest scope one call can
// reach — item, namespace, cluster, organization or global — and why, from
// the parameters (namespace, cluster, org, all-namespaces flags), the
// system the name's words name and what the judged action does to its
// objects. The rules are tried in order; the first that applies decides.
// What it decides can only widen later: a declared blast radius or the
// server's own identity (applyDeclarations, Reach.widen) never narrow it.
func blastRadius(s signals, act action) (string, string) {
	blast, why := blastOfCall(s, act)
	// A change that may name any kind of resource reaches what the
	// cluster holds, whatever else is said of it; asked last, it never
	// narrows a reach found wider.
	if blastOrder[blast] < blastOrder["cluster"] {
		if act == actMutate && s.manifest != "" {
			return "cluster", fmt.Sprintf("parameter %q applies a manifest of any kind, cluster-wide ones among them", s.manifest)
		}
		if act == actDestroy && anyKind(&s) != "" {
			return "cluster", fmt.Sprintf("parameter %q takes any kind of resource: namespaces and nodes among them", anyKind(&s))
		}
	}
	return blast, why
}

// blastOfCall is the blast radius of one call from what the tool says of
// its object, its parameters and its action.
func blastOfCall(s signals, act action) (string, string) {
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
	case act >= actMutate && actsOnCluster(s):
		return "cluster", "changes what runs in a whole cluster"
	case act == actExec:
		if containsAny(append(s.objects, strings.ToLower(s.execParam), s.verb), "command", "cmd", "shell", "process", "unsafe", "exec", "bash", "terminal", "generic") {
			return "cluster", "runs commands on the host"
		}
		return "namespace", "runs code or queries in one system"
	case act == actMutate && (strings.HasSuffix(s.privilege, "(an authentication client)") || s.privilege == "grant"):
		return "organization", "changes how everyone signs in to a tenant"
	case accessLink(s.credential):
		return "global", "a link that opens it for whoever holds it, from anywhere"
	case s.privilege != "" && act == actMutate && privilegeReach(s):
		return "cluster", "changes who may do what"
	}
	if act >= actMutate {
		for _, tok := range s.tokens {
			if sc, ok := systemScopes[tok]; ok && (tok != "node" || !documentNode(s)) {
				return sc, fmt.Sprintf("a %s action reaches the whole %s", tok, map[string]string{"cluster": "cluster", "namespace": "repository or database"}[sc])
			}
		}
	}
	if c := idList(s); c != "" && act >= actMutate {
		return "organization", fmt.Sprintf("parameter %q lists any number of containers", c)
	}
	if h := singular(head); act >= actMutate && containsAny(s.tokens, "all") && !s.requiredContainer && s.containerScope == "" && (orgContainers[h] || infraNouns[h]) {
		// "stop_all_apps" with nothing to bound "all": every one of a
		// kind the account holds side by side — its infrastructure
		// (cluster), or its organization's containers, repositories or
		// channels (organization). All the tables of a database stay
		// inside the database.
		if infraNouns[h] || h == "app" {
			return "cluster", "acts on all of the account's infrastructure of a kind, bounded by no container"
		}
		return "organization", "acts on all of an organization's containers of a kind, bounded by no container"
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
			if wholeAccount(s) {
				return "cluster", "changes a whole account"
			}
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
		if (s.verb == "search" || s.verb == "list") && !strings.Contains(s.desc, "private") && !containsAny(s.tokens, "private") {
			if mentionsPublicService(s.desc) {
				return "global", "searches a public service as a whole"
			}
			if s.verb == "search" && publicCatalogue(s, rawHead) {
				return "global", "searches what a service hosts for everyone, naming no owner"
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
			case s.containerScope == "organization" && narrowest(s) != "":
				return "namespace", fmt.Sprintf("enumerates one %s, the narrowest container it must name", narrowest(s))
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
		if s.filterParam != "" && s.verb != "get" && !explainsPlan(&s) {
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
		if db := inspectedDatabase(s); db != "" {
			return "namespace", fmt.Sprintf("parameter %q names the database it inspects, and nothing narrower", db)
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
		if injectsSiteScript(&s) {
			return "global", "a site's script runs for everyone who visits it"
		}
		if (s.verb == "push" || s.verb == "publish" || s.verb == "release") && containsAnyMap(s.objects, registryNouns) {
			return "global", "a registry serves it to everyone who pulls it"
		}
		if act == actSend && anyAddressRequest(&s) {
			return "global", "sends to any address on the network"
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
			// "update_org_settings": the settings of an organisation or an
			// account reach everything it holds.
			for _, o := range s.objects {
				if sc := scopeWords[o]; sc == "organization" || sc == "cluster" {
					return sc, "the configuration of a whole " + o
				}
			}
			return "namespace", "configuration reaches everything in its container"
		}
		if p := selector(s); p != "" && s.verb != "create" && s.verb != "insert" {
			return "namespace", fmt.Sprintf("parameter %q selects any records of a collection", p)
		}
	case actDestroy:
		if s.public != "" {
			return "global", s.public // what was public goes for everyone who saw it
		}
		return "namespace", "removes a whole collection"
	}
	// What is left would be one item. Two changes reach a collection
	// whatever they name; asked last, they never narrow what a rule above
	// found wider (a public balancer is global, an organisation's
	// pipeline settings organization-wide).
	if act == actMutate && runsStoredPipeline(&s) {
		return "namespace", "a stored pipeline acts on the whole project it belongs to"
	}
	if act >= actMutate && act <= actDelete && routesTraffic(&s) != "" && containsAny(s.objects, "balancer", "lb", "loadbalancer") {
		return "namespace", "a load balancer fronts every machine behind it"
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
	"service": true, "region": true, "volume": true, "domain": true, "deployment": true,
	"function": true, "site": true, "environment": true, "machine": true, "vm": true, "container": true,
	"pod": true, "resource": true, "index": true, "queue": true, "key": true, "mcp": false}

// workNouns are what the people of a workspace write and share: listing
// them without naming a container enumerates the workspace.
var workNouns = map[string]bool{"issue": true, "channel": true, "message": true, "page": true, "document": true,
	"file": true, "comment": true, "ticket": true, "task": true, "conversation": true, "label": true, "cycle": true,
	"board": true, "workflow": true, "dashboard": true, "card": true, "question": true}

// narrowest is a required parameter that names a container narrower than
// an organisation ("workspace_name" beside "org_name"): containers nest,
// so a call that must name both reaches only the narrower one.
func narrowest(s signals) string {
	var buf [8]string
	for _, p := range s.params {
		if !p.required || p.nested {
			continue
		}
		for _, tok := range appendTokens(buf[:0], p.name) {
			if scopeWords[tok] == "namespace" {
				return tok
			}
		}
	}
	return ""
}

// idList finds a top-level parameter of identifiers in the plural whose
// word before the id names a container an organization holds side by side
// ("workspace_ids", "project_ids"), an array or a list in a string: one call
// reaches every container it lists. Tables, schemas, collections and
// folders sit inside one database or tree, so a list of them does not.
func idList(s signals) string {
	var buf [8]string
	for _, p := range s.params {
		// The flattened name is tested first: few parameters end in "ids",
		// and only those are split into words.
		if p.nested || !strings.HasSuffix(p.flat, "ids") {
			continue
		}
		if p.typ != "array" && p.typ != "string" {
			continue
		}
		toks := appendTokens(buf[:0], p.name)
		if len(toks) < 2 || (toks[len(toks)-1] != "ids" && toks[len(toks)-1] != "uuids") {
			continue
		}
		if orgContainers[toks[len(toks)-2]] {
			return p.name
		}
	}
	return ""
}

// orgContainers are the containers an organization holds side by side.
var orgContainers = map[string]bool{"project": true, "repo": true, "repository": true, "workspace": true,
	"app": true, "bucket": true, "database": true, "namespace": true, "space": true, "stack": true, "channel": true}

// inspectedDatabase names a read's database parameter when the read takes
// nothing narrower: no table, record or other required argument. What
// such a read reports — its status, locks, running queries — is about the
// database as a whole, whatever the server calls it.
func inspectedDatabase(s signals) string {
	db := ""
	for _, p := range s.params {
		if p.nested {
			continue
		}
		switch p.flat {
		case "database", "db", "databasename", "dbname":
			db = p.name
		case "app", "appname", "project", "projectid":
			// the containers a database is found in
		default:
			if p.required {
				return ""
			}
		}
	}
	return db
}

// clusterPhrases say a change is made to a running cluster as a whole:
// what it applies can land anywhere in it. "Creates a cluster" makes one
// new thing and says none of them.
var clusterPhrases = phrase.New("to the cluster", "in the cluster", "on the cluster", "against the cluster",
	"across the cluster", "whole cluster", "entire cluster", "cluster-wide", "clusterwide")

func actsOnCluster(s signals) bool {
	// Most descriptions never say "cluster": one substring search spares
	// them the phrase scan.
	return (strings.Contains(s.desc, "cluster") && clusterPhrases.Any(s.desc)) || containsAny(s.tokens, "clusterwide")
}

// publicCatalogueNouns are what services host in the open for anyone to
// find: code and what is built from it. A search of them that names no
// owner, organization or project searches everything the service hosts.
var publicCatalogueNouns = map[string]bool{"repositories": true, "repos": true, "packages": true, "images": true,
	"models": true, "datasets": true, "libraries": true, "modules": true, "providers": true, "code": true}

func publicCatalogue(s signals, rawHead string) bool {
	if !publicCatalogueNouns[rawHead] || s.requiredContainer || accountWide(s.desc) || workspaceWide(s.desc) {
		return false
	}
	for _, p := range s.params {
		// "owner", "owner_id", "org_name": the parameter names whose
		// catalogue is searched.
		if ownerWords[p.flat] || ownerWords[strings.TrimSuffix(p.flat, "id")] || ownerWords[strings.TrimSuffix(p.flat, "name")] {
			return false
		}
	}
	return true
}

// ownerWords name who holds what a search covers.
var ownerWords = map[string]bool{"owner": true, "org": true, "organization": true, "project": true, "workspace": true,
	"namespace": true, "team": true, "user": true, "account": true}
