package risk

// action is what a word says a tool does, ordered from harmless to worst so
// that the most dangerous action named anywhere wins.
type action int

const (
	actNone action = iota
	actUtility
	actRead
	actObserve
	actMutate
	actSend    // externally visible, cannot be recalled
	actExec    // runs arbitrary code, commands or queries
	actDelete  // removes named items
	actDestroy // removes broad scopes
)

func (a action) category() string {
	switch a {
	case actUtility:
		return "utility"
	case actRead:
		return "read"
	case actObserve:
		return "observe"
	case actDelete:
		return "delete"
	case actDestroy:
		return "destroy"
	case actNone:
		return ""
	}
	return "mutate"
}

// clientRequests are the requests an MCP server makes of its own client:
// sampling asks the client's model for a completion, elicitation asks its
// user for input. A tool that only triggers one reaches nothing beyond the
// conversation it is called from.
var clientRequests = map[string]bool{"sampling": true, "elicitation": true}

// requestingVerbs make a request: the verbs under which a tool naming one
// of the client requests only asks.
var requestingVerbs = map[string]bool{"trigger": true, "request": true, "create": true, "send": true, "start": true}

// verbs maps words found in tool names, enum options and the opening of
// descriptions to the action they denote.
var verbs = map[string]action{
	// utility: pure computation and local helpers.
	"think": actUtility, "thinking": actUtility, "calculate": actUtility,
	"compute": actUtility, "format": actUtility, "echo": actUtility, "convert": actUtility, "parse": actUtility,
	"validate": actUtility, "encode": actUtility, "decode": actUtility, "hash": actUtility, "sum": actUtility,
	"ping": actUtility, "sleep": actUtility, "wait": actUtility, "uuid": actUtility, "random": actUtility,
	"translate": actUtility, "summarize": actUtility, "summarise": actUtility, "render": actUtility,
	"toggle": actMutate, "simulate": actUtility, "disconnect": actUtility, "reconnect": actUtility,
	"rerank": actUtility,

	// read: fetch or search data.
	"get": actRead, "list": actRead, "read": actRead, "fetch": actRead, "search": actRead, "find": actRead,
	"describe": actRead, "show": actRead, "view": actRead, "lookup": actRead, "retrieve": actRead,
	"browse": actRead, "explore": actRead, "count": actRead, "download": actRead, "diff": actRead,
	"blame": actRead, "explain": actRead, "geocode": actRead, "directions": actRead, "open": actRead,
	"query": actRead, "resolve": actRead, "inspect": actRead, "discover": actRead, "load": actRead,
	"lookups": actRead, "tree": actRead, "info": actRead, "details": actRead, "status": actObserve,
	"check": actRead, "verify": actObserve, "analyze": actObserve, "analyse": actObserve, "compare": actRead,
	"reflog": actRead, "changelog": actRead, "cat": actRead, "head": actRead, "ls": actRead, "whoami": actRead,
	"extract": actRead, "scan": actRead, "crawl": actRead, "scrape": actRead, "research": actRead,
	"preview": actRead, "plan": actRead, "estimate": actRead, "audit": actObserve, "dryrun": actRead,
	"dismiss": actMutate, "unassign": actMutate, "reorder": actMutate, "rerun": actMutate,
	"unarchive": actMutate, "unapprove": actMutate, "unpin": actMutate, "pin": actMutate, "unfollow": actMutate,
	"follow": actMutate, "unstar": actMutate, "star": actMutate, "unmute": actMutate, "mute": actMutate,
	"unblock": actMutate, "block": actMutate, "unwatch": actMutate, "unshare": actMutate, "share": actMutate,
	"leave": actMutate, "join": actMutate, "favorite": actMutate, "unfavorite": actMutate, "logout": actMutate,
	"signout": actMutate, "refresh": actMutate, "rescan": actMutate, "reindex": actMutate, "reload": actMutate,
	"fix": actMutate, "autofix": actMutate, "guide": actRead,

	// observe: telemetry and state inspection.
	"log": actObserve, "logs": actObserve, "events": actObserve, "metrics": actObserve, "trace": actObserve,
	"tracing": actObserve, "health": actObserve, "watch": actObserve, "monitor": actObserve,
	"diagnose": actObserve, "debug": actObserve, "screenshot": actObserve, "snapshot": actObserve,
	"console": actObserve, "top": actObserve, "tail": actObserve, "stats": actObserve, "locks": actObserve,
	"outliers": actObserve, "alerts": actObserve, "recording": actObserve, "video": actObserve,
	"annotate": actObserve, "highlight": actMutate, "usage": actObserve,

	// mutate: create or change state.
	"create": actMutate, "add": actMutate, "update": actMutate, "set": actMutate, "put": actMutate,
	"patch": actMutate, "apply": actMutate, "edit": actMutate, "write": actMutate, "modify": actMutate,
	"replace": actMutate, "rename": actMutate, "move": actMutate, "copy": actMutate, "scale": actMutate,
	"restart": actMutate, "rollout": actMutate, "deploy": actMutate, "install": actMutate,
	"upgrade": actMutate, "enable": actMutate, "disable": actMutate, "start": actMutate, "stop": actMutate,
	"approve": actMutate, "assign": actMutate, "close": actMutate, "reopen": actMutate, "click": actMutate,
	"type": actMutate, "fill": actMutate, "navigate": actMutate, "press": actMutate, "hover": actMutate,
	"drag": actMutate, "drop": actDestroy, "select": actMutate, "upsert": actMutate, "insert": actMutate,
	"import": actMutate, "attach": actMutate, "detach": actMutate, "fork": actMutate, "tag": actMutate,
	"label": actMutate, "schedule": actMutate, "pause": actMutate, "resume": actMutate, "archive": actMutate, "overwrite": actMutate,
	"restore": actMutate, "sync": actMutate, "save": actMutate, "store": actMutate, "mark": actMutate,
	"merge": actMutate, "commit": actMutate, "checkout": actMutate, "rebase": actMutate, "pull": actMutate,
	"clone": actMutate, "init": actMutate,
	"promote": actMutate, "connect": actMutate, "upload": actMutate, "export": actMutate,
	"generate": actUtility, "resize": actMutate, "emulate": actMutate, "route": actMutate, "unroute": actMutate,
	"handle": actMutate, "transition": actMutate, "unlock": actMutate, "lock": actMutate, "link": actMutate,
	"manage": actMutate, "configure": actMutate, "register": actMutate, "submit": actMutate, "build": actMutate,
	"trigger": actMutate, "finalize": actMutate, "unresolve": actMutate, "grant": actMutate, "invite": actMutate,
	"transfer": actMutate, "refund": actMutate, "payout": actMutate, "charge": actMutate, "pay": actMutate, "buy": actMutate,
	"forward": actMutate, "mouse": actMutate, "tabs": actMutate, "dialog": actMutate,
	"feedback": actMutate, "interact": actMutate, "terminate": actMutate, "kill": actMutate, "abort": actMutate,
	"cancel": actMutate, "backup": actMutate, "reset": actMutate, "rollback": actMutate, "revert": actMutate,
	"aggregate": actRead, "cherry": actMutate, "login": actMutate, "auth": actMutate, "callback": actMutate,
	"change": actMutate, "alter": actMutate, "adjust": actMutate, "make": actMutate, "switch": actMutate,
	"suspend": actMutate, "unsuspend": actMutate, "reject": actMutate, "deny": actMutate, "reinvite": actMutate, "resend": actMutate,
	"replay": actMutate, "redeliver": actMutate, "retry": actMutate, "sign": actMutate,
	"downgrade": actMutate, "migrate": actMutate, "untag": actMutate, "reboot": actMutate, "topup": actMutate,
	"shutdown": actMutate, "drain": actMutate, "cordon": actMutate, "uncordon": actMutate, "rotate": actMutate,
	"renew": actMutate, "vote": actMutate, "reserve": actMutate, "subscribe": actMutate, "chmod": actMutate,
	"chown": actMutate, "mkdir": actMutate, "stage": actMutate, "unstage": actMutate, "provision": actMutate,
	"launch": actMutate, "expire": actMutate, "invalidate": actMutate, "deactivate": actMutate,
	"activate": actMutate, "confirm": actMutate, "accept": actMutate, "decline": actMutate,
	"escalate": actMutate, "append": actMutate, "reconfigure": actMutate, "enroll": actMutate,
	"unenroll": actMutate, "impersonate": actMutate, "elevate": actMutate, "assume": actMutate,
	"ban": actMutate, "kick": actMutate, "evict": actMutate, "purchase": actMutate, "withdraw": actMutate,
	"disarm": actMutate,

	// send: externally visible and not recallable.
	"send": actSend, "post": actSend, "publish": actSend, "reply": actSend, "comment": actMutate,
	"email": actSend, "notify": actSend, "message": actSend, "tweet": actSend, "broadcast": actSend,
	"push": actSend, "release": actSend, "announce": actSend, "react": actSend, "reaction": actSend,

	// exec: arbitrary execution.
	"exec": actExec, "execute": actExec, "run": actExec, "eval": actExec, "evaluate": actExec,
	"shell": actExec, "bash": actExec, "sh": actExec, "script": actExec, "invoke": actExec, "call": actExec,
	"spawn": actExec, "process": actExec, "cmd": actExec, "command": actExec, "sql": actExec,
	"generic": actExec, "unsafe": actExec,

	// delete: removes named items.
	"delete": actDelete, "del": actDelete, "remove": actDelete, "rm": actDelete, "unlink": actDelete,
	"revoke": actDelete, "unpublish": actDelete, "deregister": actDelete, "unregister": actDelete,
	"unsubscribe": actDelete, "unset": actDelete, "discard": actDelete,

	// destroy: removes broad scopes.
	"destroy": actDestroy, "purge": actDestroy, "wipe": actDestroy, "truncate": actDestroy,
	"nuke": actDestroy, "obliterate": actDestroy, "teardown": actDestroy, "uninstall": actDestroy,
	"erase": actDestroy, "cleanup": actDestroy, "clean": actDestroy, "clear": actDestroy, "prune": actDestroy,
	"flush": actDestroy, "deprovision": actDestroy, "decommission": actDestroy,
}

// irreversibleVerbs name actions whose effect cannot be undone; one of them
// anywhere in a tool's name pins the tool to L5 (a floor).
var irreversibleVerbs = map[string]bool{
	"delete": true, "del": true, "drop": true, "purge": true, "wipe": true, "destroy": true, "truncate": true,
	"erase": true, "nuke": true, "obliterate": true, "teardown": true, "uninstall": true, "deprovision": true,
	"decommission": true,
}

// broadNouns are objects whose deletion destroys a broad scope.
var broadNouns = map[string]bool{
	"namespace": true, "cluster": true, "project": true, "database": true, "db": true, "repository": true,
	"repo": true, "bucket": true, "table": true, "collection": true, "workspace": true, "organization": true,
	"org": true, "account": true, "all": true, "many": true, "bulk": true, "everything": true, "schema": true,
	"volume": true, "disk": true, "environment": true, "stack": true, "release": true, "chart": true,
	"deployment": true, "tenant": true, "site": true, "domain": true, "zone": true, "app": true,
	"application": true, "service": true, "index": false,
}

// execParams are parameter names that accept arbitrary code, commands or
// queries: whatever the tool's name says, it can do anything.
var execParams = map[string]bool{
	"command": true, "cmd": true, "commands": true, "script": true, "code": true, "sql": true,
	"shell": true, "expression": true, "javascript": true, "js": true, "python": true, "bash": true,
	"statement": true, "statements": true, "function": true, "program": true, "args": false,
	"manifest": true, "yaml": true, "query": false, "pipeline": false, "input": false,
}

// riskyFlags are boolean parameters that widen or harden an action.
var riskyFlags = map[string]string{
	"force": "force", "forced": "force", "recursive": "recursive", "cascade": "cascade", "prune": "prune",
	"purge": "purge", "hard": "hard", "overwrite": "overwrite", "allnamespaces": "all-namespaces",
	"all": "all", "dangerous": "dangerous", "allowdangerous": "dangerous", "unsafe": "unsafe",
	"skipverify": "skip-verification", "noverify": "skip-verification", "insecure": "insecure",
	"delete": "delete", "remove": "remove", "destroy": "destroy", "isdestroy": "destroy", "drop": "drop",
	"truncate": "truncate", "wipe": "wipe", "autoapprove": "auto-approve", "yes": "auto-confirm",
	"confirm": "", "confirmed": "", "forcewithlease": "force",
}

// telemetryNouns turn a read of them into observation.
var telemetryNouns = map[string]bool{
	"log": true, "logs": true, "status": true, "alert": true, "event": true, "metric": true, "stat": true,
	"trace": true, "tracing": true, "health": true, "process": true, "ps": true, "session": true,
	"performance": true, "advisor": true, "usage": true, "size": true, "lock": true, "info": true,
	"recording": true, "video": true, "console": true, "network": true, "call": true, "search": false,
	"incident": true,
}

// executionNouns are the runs of a stored automation: reading one
// inspects what the automation did, its state, as a log or a status does.
var executionNouns = map[string]bool{"run": true, "build": true, "step": true, "execution": true,
	"result": true}

// executionRecord says a name reads the runs of a stored automation: an
// automation noun and, as another word, one of its executions.
func executionRecord(objects []string) bool {
	auto := ""
	for _, o := range objects {
		if automationNouns[o] {
			auto = o
			break
		}
	}
	if auto == "" {
		return false
	}
	for _, o := range objects {
		if o != auto && executionNouns[o] {
			return true
		}
	}
	return false
}

// movesMoney are the money words whose action moves money rather than
// bills for it.
var movesMoney = map[string]bool{"refund": true, "refunds": true, "payout": true, "payouts": true,
	"transfer": true, "transfers": true, "charge": true, "charges": true, "pay": true, "buy": true,
	"purchase": true, "withdraw": true, "withdrawal": true, "topup": true}

// paymentProvider is the money a change moves by setting the keys of the
// provider a business takes payments with: every later payment.
const paymentProvider = "payment provider"

// disputeConceded is the money a change moves by conceding a card
// payment's dispute: the disputed sum goes back to the cardholder.
const disputeConceded = "dispute conceded"

// movesMoneyAs says a tool's money word moves money: a word of movesMoney,
// a deposit with a sum to move (readSignals), the keys of a payment
// provider set, or a dispute conceded.
func movesMoneyAs(money string) bool {
	return movesMoney[money] || money == "deposit" || money == paymentProvider || money == disputeConceded
}

// movingMoney is the reason a tool that moves money gives.
func movingMoney(money string) string {
	switch money {
	case paymentProvider:
		return "decides whose account payments reach (" + money + ")"
	case disputeConceded:
		return "concedes a payment's dispute: the disputed sum is returned to the cardholder, for good"
	}
	return "moves money (" + money + ")"
}

// disputeNouns are a card payment's contested charge; concedingVerbs
// give it up.
var (
	disputeNouns   = map[string]bool{"dispute": true, "disputes": true, "chargeback": true, "chargebacks": true}
	concedingVerbs = map[string]bool{"accept": true, "concede": true, "forfeit": true}
)

// recordingNouns are what a start or stop only observes.
var recordingNouns = map[string]bool{"recording": true, "tracing": true, "trace": true, "video": true,
	"logging": true, "log": true, "profiling": true, "profile": true, "capture": true}

// scope words found in parameter names and tool names, and the blast radius
// they imply.
var scopeWords = map[string]string{
	"allnamespaces": "cluster", "clusterwide": "cluster", "cluster": "cluster", "clusters": "cluster",
	"account": "cluster", "node": "cluster", "nodes": "cluster", "region": "cluster",
	"org": "organization", "orgs": "organization", "organization": "organization",
	"organizations": "organization", "organisation": "organization", "team": "organization",
	"teams": "organization", "tenant": "organization", "enterprise": "organization",
	"namespace": "namespace", "project": "namespace", "repo": "namespace", "repository": "namespace",
	"database": "namespace", "bucket": "namespace", "channel": "namespace", "directory": "namespace",
	"folder": "namespace", "collection": "namespace", "workspace": "namespace", "space": "namespace",
	"schema": "namespace", "table": "namespace", "app": "namespace", "stack": "namespace", "mailbox": "namespace",
}

// sensitiveNouns mark data whose disclosure is a leak: secrets, credentials,
// session state, environment.
var sensitiveNouns = map[string]bool{
	"secret": true, "secrets": true, "credential": true, "credentials": true, "password": true,
	"passwords": true, "token": true, "tokens": true, "apikey": true, "key": false, "env": true,
	"environment": false, "cookie": true, "cookies": true, "localstorage": true, "sessionstorage": true,
	"storage": false, "session": false, "private": false, "ssh": true, "cert": false,
	"variable": true, "variables": true, "vars": true, "config": false,
}

// privilegeNouns mark changes to who may do what.
var privilegeNouns = map[string]bool{
	"user": true, "users": true, "role": true, "roles": true, "permission": true, "permissions": true,
	"access": true, "iam": true, "rbac": true, "rls": true, "acl": true, "acls": true, "policy": false,
	"collaborator": true, "collaborators": true, "member": true, "members": true, "grant": true,
	"apikey": true, "sshkey": true, "credential": true, "credentials": true, "token": true, "tokens": true,
	"password": true, "secret": true, "secrets": true, "config": true, "configuration": true,
	"settings": true, "auth": true, "mfa": true, "2fa": true, "otp": true, "sso": true, "saml": true,
	"visibility": true, "sharing": true, "owner": true, "ownership": true, "protection": true,
	"admin": true, "admins": true, "administrator": true, "administrators": true, "superuser": true, "sudo": true,
	"privilege": true, "privileges": true, "realm": true, "realms": true,
}

// moneyNouns mark tools that move money.
var moneyNouns = map[string]bool{
	"refund": true, "refunds": true, "payment": true, "payments": true, "payout": true, "payouts": true,
	"charge": true, "charges": true, "transfer": true, "transfers": true, "invoice": true, "subscription": true,
	"balance": false, "price": false, "coupon": false,
}
