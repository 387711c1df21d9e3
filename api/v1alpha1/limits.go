package v1alpha1

// Bounds of the API, as named constants. Each mirrors a kubebuilder marker
// on the field named beside it (markers cannot refer to constants), and
// TestLimitsMatchTheCRDs checks every one against the generated CRDs, so a
// writer that keeps within these constants is never refused at admission.
const (
	// MaxToolNameLength bounds ToolPin spec.toolName and MCPServer
	// status.tools[].name: a tool with a longer name cannot be pinned.
	MaxToolNameLength = 128

	// MaxDefinitionLength bounds ToolPin status.observedDefinition and
	// status.pinned.definition, in bytes.
	MaxDefinitionLength = 262144

	// MaxConditionMessageLength is toolgate's cap on the message of a
	// condition it writes; metav1.Condition allows more, but a message is
	// read by a person in kubectl describe.
	MaxConditionMessageLength = 1024

	// MaxSideEffects and MaxSideEffectLength bound ToolRisk sideEffects.
	MaxSideEffects      = 16
	MaxSideEffectLength = 64
	// MaxFloors and MaxFloorLength bound ToolRisk floors.
	MaxFloors      = 16
	MaxFloorLength = 256
	// MaxToolReasons and MaxReasonLength bound ToolRisk reasons.
	MaxToolReasons  = 32
	MaxReasonLength = 512
	// MaxToolFindings bounds ToolRisk findings.
	MaxToolFindings = 32

	// MaxSignalLength, MaxFieldPathLength and MaxExcerptLength bound a
	// Finding's signal, field and excerpt.
	MaxSignalLength    = 64
	MaxFieldPathLength = 512
	MaxExcerptLength   = 256

	// MaxServerReasons and MaxServerFindings bound MCPServer
	// status.risk.reasons (each MaxReasonLength) and status.risk.findings.
	MaxServerReasons  = 16
	MaxServerFindings = 16
	// MaxToolSummaries bounds MCPServer status.tools.
	MaxToolSummaries = 100
	// MaxReachFindings and MaxReachFindingLength bound MCPServer
	// status.reach.
	MaxReachFindings      = 16
	MaxReachFindingLength = 256
	// MaxAddresses bounds MCPServer status.addresses, each at most
	// MaxAddressLength (the longest textual IPv6 address).
	MaxAddresses     = 16
	MaxAddressLength = 45
	// MaxServerNameLength, MaxServerVersionLength and
	// MaxProtocolVersionLength bound MCPServer status.serverInfo.
	MaxServerNameLength      = 256
	MaxServerVersionLength   = 128
	MaxProtocolVersionLength = 32

	// MaxApprovers and MaxIdentityLength bound ToolPin
	// status.pinned.approvers; MaxIdentityLength also bounds a decision's
	// user, uid, credentialID and each of its groups, and
	// spec.override.setBy.
	MaxApprovers      = 16
	MaxIdentityLength = 256
	// MaxDecisionGroups bounds a decision's groups.
	MaxDecisionGroups = 64
	// MaxDecisions bounds ToolPin status.decisions.
	MaxDecisions = 256
	// MaxPendingCalls bounds ToolPin status.pendingCalls.
	MaxPendingCalls = 64
	// MaxCallHistory bounds ToolPin status.callHistory, and
	// MaxCallRecordDecisions the decisions of one record.
	MaxCallHistory         = 32
	MaxCallRecordDecisions = 8
	// MaxCallPreviewLength bounds ToolPin status.pendingCalls[].arguments.
	MaxCallPreviewLength = 2048
	// MaxCallReasonLength bounds ToolPin status.pendingCalls[].reason.
	MaxCallReasonLength = 512
	// MaxArgumentRules bounds ToolPolicy spec.argumentRules, and
	// MaxArgumentRuleProblems status.argumentRules.
	MaxArgumentRules        = 64
	MaxArgumentRuleProblems = 64
	// MaxHeldResultFindings bounds ToolPin status.pendingCalls[].findings.
	MaxHeldResultFindings = 8
	// MaxResultScanOverrides bounds ToolPolicy spec.resultScan.overrides.
	MaxResultScanOverrides = 64
	// MaxChangeDetails and MaxChangeDetailLength bound ToolPin
	// status.change.details.
	MaxChangeDetails      = 64
	MaxChangeDetailLength = 512
	// MaxOriginLength bounds ToolPin status.observedOrigin and
	// status.pinned.origin.
	MaxOriginLength = 2048
	// MaxChangeParts and MaxChangePartLength bound ToolPin
	// status.change.parts.
	MaxChangeParts      = 16
	MaxChangePartLength = 64

	// MaxPolicyTools bounds ToolPolicy status.tools: a policy over large
	// catalogues lists the withheld tools first and counts the rest.
	MaxPolicyTools = 200
	// MaxPolicyReasonLength bounds ToolPolicy status.tools[].reason.
	MaxPolicyReasonLength = 256
)

// Bounds the approval webhooks enforce on top of the schema: no marker
// mirrors them, so they are documented in docs/lifecycle.md instead.
const (
	// MaxDecisionsPerIdentity bounds the decisions one identity may append
	// on one fingerprint (for a call, on one call). Only the latest counts,
	// so a few leave room to change one's mind; more would only fill the
	// log.
	MaxDecisionsPerIdentity = 4

	// DecisionReserve is the room in status.decisions kept for decisions
	// on a definition: a decision on a pending call is refused once fewer
	// than DecisionReserve places remain, so that calls, up to
	// MaxPendingCalls at a time and each decided on by several people,
	// can never take the room a review of the observed definition needs.
	DecisionReserve = MaxDecisions / 2

	// MaxCommentBytes bounds the comments of a decision log together, as
	// written to the API server (JSON escapes some characters as six
	// bytes): without it, approvers could grow a pin towards the API
	// server's object size limit with long comments, until no observation
	// of the tool could be recorded. A decision without a comment is never
	// refused by it.
	MaxCommentBytes = 64 << 10

	// MaxPendingCallsPerPod and MaxPendingCallsPerNamespace are the shares
	// of one pin's MaxPendingCalls that one agent pod, and all the agent
	// pods of one namespace, may hold at once. A pin is shared by every
	// namespace whose policies admit its server, so without a share one
	// agent could hold every slot and block the tool for all of them. A
	// namespace gets half the slots, so one namespace alone never fills a
	// pin; a pod gets 8, room for the parallel calls of a model's turn
	// (a person decides them one by one anyway) while four busy pods still
	// fit in their namespace's share.
	MaxPendingCallsPerPod       = 8
	MaxPendingCallsPerNamespace = MaxPendingCalls / 2
)
