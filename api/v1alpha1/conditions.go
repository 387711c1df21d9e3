package v1alpha1

// Condition types of the kinds of this package. Every kind has Ready; the
// others say which part of Ready's verdict failed.
const (
	// ConditionReady summarises whether the object is doing its job: an
	// MCPServer whose catalogue is judged and pinned, a ToolPin whose tool
	// may be exposed, a ToolPolicy whose configuration reaches its gates.
	ConditionReady = "Ready"
	// ConditionReachable says whether the last probe of an MCPServer
	// returned a valid catalogue.
	ConditionReachable = "Reachable"
	// ConditionAccepted says whether a ToolPolicy's spec and the servers it
	// references can be used.
	ConditionAccepted = "Accepted"
	// ConditionGateBypassable says whether an agent could call an MCPServer
	// without going through its gate: an agent shares its gate's network
	// namespace, so only credentials the gate alone holds (or a
	// NetworkPolicy) keep it from calling the server directly. On a
	// ToolPolicy it is True when any server the policy references is. It
	// never affects Ready: the gate still enforces what passes through it.
	ConditionGateBypassable = "GateBypassable"
	// ConditionArgumentRules says whether every argument rule of a
	// ToolPolicy can be evaluated for every tool it names (True, reason
	// RulesAccepted, also when there is none) or not (False,
	// RulesInvalid, with status.argumentRules listing why).
	ConditionArgumentRules = "ArgumentRules"
)

// Reasons of an MCPServer's GateBypassable condition; a ToolPolicy's uses
// ReasonCredentialsRequired and its own below.
const (
	// ReasonNoCredentials (True): spec.auth gives the gate no credentials,
	// so nothing the gate holds keeps agents from calling the server.
	ReasonNoCredentials = "NoCredentials"
	// ReasonReachableWithoutCredentials (True): the server answered MCP
	// initialize to a probe that sent none of the credentials.
	ReasonReachableWithoutCredentials = "ReachableWithoutCredentials"
	// ReasonCredentialsReadableByAgents (True): the credentials' Secret is
	// in the server's namespace, where agents run behind the gate, and its
	// users may read what the gate holds.
	ReasonCredentialsReadableByAgents = "CredentialsReadableByAgents"
	// ReasonCredentialsRequired (False): the server refused a probe without
	// the credentials with HTTP 401 or 403.
	ReasonCredentialsRequired = "CredentialsRequired"
	// ReasonBypassCheckFailed (Unknown): the probe without credentials got
	// no answer that tells (the network, a timeout, an answer that is not
	// MCP); it is made again at the next probe.
	ReasonBypassCheckFailed = "CheckFailed"
	// ReasonBypassNotChecked (Unknown): the server's configuration could
	// not be resolved, so there was nothing to check with.
	ReasonBypassNotChecked = "NotChecked"
)

// Reasons of a ToolPolicy's GateBypassable condition besides
// ReasonCredentialsRequired (False: every referenced server refuses
// without the gate's credentials).
const (
	// ReasonServersBypassable (True): some referenced server is
	// GateBypassable; the message names them and why.
	ReasonServersBypassable = "ServersBypassable"
	// ReasonBypassUnknown (Unknown): no referenced server is known to be
	// bypassable, but some has not been, or could not be, checked.
	ReasonBypassUnknown = "BypassUnknown"
)

// Reasons of conditions that have nothing more to say than that a
// controller has not done its work yet: honest placeholders, Unknown and
// never True.
const (
	// ReasonAwaitingProbe: the server, or the tool, has not been probed yet.
	ReasonAwaitingProbe = "AwaitingProbe"
	// ReasonAwaitingEvaluation: the policy has not been evaluated yet.
	ReasonAwaitingEvaluation = "AwaitingEvaluation"
)

// Reasons of an MCPServer's Ready and Reachable conditions.
const (
	// ReasonProbed: the last probe returned a valid catalogue.
	ReasonProbed = "Probed"

	// ReasonSecretNotFound: a referenced Secret does not exist or is not
	// labelled for toolgate.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonInvalidSecret: a referenced Secret lacks its key or holds
	// something that cannot be sent as a header.
	ReasonInvalidSecret = "InvalidSecret"
	// ReasonCANotFound: the referenced CA bundle does not exist.
	ReasonCANotFound = "CANotFound"
	// ReasonInvalidCA: the referenced CA bundle holds no certificate.
	ReasonInvalidCA = "InvalidCA"
	// ReasonInvalidEndpoint: spec.endpoint cannot be turned into a URL, or
	// it is (or resolves to) an address probes may not reach.
	ReasonInvalidEndpoint = "InvalidEndpoint"

	// ReasonUnreachable: no connection could be made to the server.
	ReasonUnreachable = "Unreachable"
	// ReasonUnauthorized: the server refused the credentials.
	ReasonUnauthorized = "Unauthorized"
	// ReasonTimeout: the server did not finish answering within the probe
	// timeout.
	ReasonTimeout = "Timeout"
	// ReasonInvalidResponse: the server answered something that is not a
	// valid MCP catalogue.
	ReasonInvalidResponse = "InvalidResponse"
	// ReasonTooLarge: the server's answer is over one of the probe's limits.
	ReasonTooLarge = "TooLarge"

	// ReasonPinWriteFailed: the catalogue was judged, but the pins of some
	// tools could not be written; until they are, the server is not Ready
	// and the gate withholds its tools.
	ReasonPinWriteFailed = "PinWriteFailed"
)

// Reasons of a ToolPolicy's Accepted condition. A policy that is not
// Accepted still fails closed: what it cannot use is withheld.
const (
	// ReasonAccepted: the pod selector is valid and every referenced
	// MCPServer exists and admits the policy's namespace.
	ReasonAccepted = "Accepted"
	// ReasonInvalidPodSelector: spec.podSelector cannot be parsed; the
	// policy selects no pod.
	ReasonInvalidPodSelector = "InvalidPodSelector"
	// ReasonServerNotFound: a referenced MCPServer does not exist.
	ReasonServerNotFound = "ServerNotFound"
	// ReasonServerNotAdmitted: a referenced MCPServer's spec.consumers does
	// not admit the policy's namespace; its tools are withheld.
	ReasonServerNotAdmitted = "ServerNotAdmitted"
)

// Reasons of a ToolPolicy's Ready condition besides ReasonAwaitingEvaluation.
const (
	// ReasonEvaluated: the policy is accepted and every server it uses is
	// ready; the message counts what it exposes.
	ReasonEvaluated = "Evaluated"
	// ReasonNotAccepted: the policy is not Accepted (see that condition).
	ReasonNotAccepted = "NotAccepted"
	// ReasonServersNotReady: some referenced MCPServer is not Ready (or is
	// being deleted); its tools are withheld until it is.
	ReasonServersNotReady = "ServersNotReady"
	// ReasonInjectionNotEnabled: the policy's namespace is not labelled
	// toolgate.dev/injection=enabled, so no pod there gets a gate and the
	// operator serves no gate there: the policy enforces nothing yet.
	ReasonInjectionNotEnabled = "InjectionNotEnabled"
)

// Reasons of a ToolPin's Ready condition besides the pin states, which
// stand as their own reasons (AwaitingReview, Rejected, Removed).
const (
	// ReasonTrusted: the observed definition is the pinned one.
	ReasonTrusted = "Trusted"
)

// Reasons of the Events that mark a ToolPin's transitions. The last
// transition's message is also the message of the pin's Ready condition.
const (
	// ReasonPinnedOnFirstUse: a new tool was trusted on first use.
	ReasonPinnedOnFirstUse = "PinnedOnFirstUse"
	// ReasonAwaitingFirstReview: a new tool waits for its first review.
	ReasonAwaitingFirstReview = "AwaitingFirstReview"
	// ReasonRenamedFromUntrusted: a new tool's definition is that of a tool
	// awaiting review or rejected, or a near copy of it, under another name.
	ReasonRenamedFromUntrusted = "RenamedFromUntrusted"
	// ReasonReplacesRemovedTool: a new tool appeared in the probe in which
	// another disappeared; a rename is reviewed, not trusted on first use.
	ReasonReplacesRemovedTool = "ReplacesRemovedTool"
	// ReasonPoisonedOnFirstUse: a new tool's definition trips the poisoning
	// scan; it is reviewed, not trusted on first use.
	ReasonPoisonedOnFirstUse = "PoisonedOnFirstUse"
	// ReasonDefinitionChanged: the observed definition is no longer the
	// pinned one (a rug pull, until a human says otherwise).
	ReasonDefinitionChanged = "DefinitionChanged"
	// ReasonOriginChanged: the server's endpoint moved to another origin;
	// its definitions are reviewed again.
	ReasonOriginChanged = "OriginChanged"
	// ReasonApproved: enough humans approved the observed definition.
	ReasonApproved = "Approved"
	// ReasonRejected: a human rejected the observed definition.
	ReasonRejected = "Rejected"
	// ReasonRemoved: the tool is gone from the server's catalogue.
	ReasonRemoved = "Removed"
	// ReasonRestored: the server offers the pinned definition again.
	ReasonRestored = "Restored"
	// ReasonOverrideLowersLevel: a human override sets a level below the
	// computed one.
	ReasonOverrideLowersLevel = "OverrideLowersLevel"
)

// Reasons of the Events that mark a held call's life on its ToolPin.
const (
	// ReasonCallPending: a gate holds a call of the tool until people
	// decide; the Event carries the command that approves it.
	ReasonCallPending = "CallPending"
	// ReasonCallResolved: a held call ended Approved, Rejected or Expired
	// (a Warning unless Approved), by its gate server's hand or, when that
	// replica is gone, by the next write of the pin past the call's expiry
	// and grace.
	ReasonCallResolved = "CallResolved"
	// ReasonCallWithdrawn: the gate gave up on a held call before anyone
	// decided; it is never forwarded, whatever is decided later.
	ReasonCallWithdrawn = "CallWithdrawn"
	// ReasonResultHeld: a gate holds a tool's result, in which its scan
	// found something, until people release or drop it; the Event names
	// the signals and carries the command that releases it.
	ReasonResultHeld = "ResultHeld"
	// ReasonResultFinding: a gate's scan found something in a server's
	// answer and recorded, redacted or withheld it as the policy says (a
	// Warning on the tool's ToolPin, or on the MCPServer for what is not
	// one tool's result).
	ReasonResultFinding = "ResultFinding"
)

// Reasons of a ToolPolicy's ArgumentRules condition.
const (
	// ReasonRulesAccepted (True): every rule compiles, is within the cost
	// budget and fits the pinned inputSchema of each tool it names.
	ReasonRulesAccepted = "RulesAccepted"
	// ReasonRulesInvalid (False): some rule does not; the gate refuses the
	// calls of the tools it names.
	ReasonRulesInvalid = "RulesInvalid"
)
