package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PinState is where a tool stands in review.
// +kubebuilder:validation:Enum=Trusted;AwaitingReview;Rejected;Removed
type PinState string

// Pin states. Only Trusted tools may ever be exposed to an agent.
const (
	// PinTrusted: the observed definition matches the pinned one.
	PinTrusted PinState = "Trusted"
	// PinAwaitingReview: new under Review mode, or changed since it was
	// pinned; withheld until a human approves the observed fingerprint.
	PinAwaitingReview PinState = "AwaitingReview"
	// PinRejected: a human rejected the observed definition.
	PinRejected PinState = "Rejected"
	// PinRemoved: the tool is gone from the server's catalogue.
	PinRemoved PinState = "Removed"
)

// PinSource says how a fingerprint came to be pinned.
// +kubebuilder:validation:Enum=TrustOnFirstUse;Approval
type PinSource string

// Pin sources.
const (
	PinnedOnFirstUse PinSource = "TrustOnFirstUse"
	PinnedByApproval PinSource = "Approval"
)

// DecisionAction is what a human decided.
// +kubebuilder:validation:Enum=Approve;Reject
type DecisionAction string

// Decision actions.
const (
	DecisionApprove DecisionAction = "Approve"
	DecisionReject  DecisionAction = "Reject"
)

// ChangeKind classifies a change between two definitions of a tool, or of
// where the definition comes from (OriginChanged).
// +kubebuilder:validation:Enum=Cosmetic;DescriptionChanged;SchemaWidened;SchemaNarrowed;SchemaChanged;AnnotationsLoweredRisk;AnnotationsRaisedRisk;AnnotationsChanged;NewInstructions;OutputSchemaChanged;MetaChanged;TitleChanged;OriginChanged
type ChangeKind string

// ChangeOriginChanged says the server's endpoint now has another origin
// (scheme, host or port); the same definitions from another server are
// reviewed again.
const ChangeOriginChanged ChangeKind = "OriginChanged"

// ToolPinSpec names the tool a pin is about and carries an optional human
// classification. Everything else is status.
type ToolPinSpec struct {
	// serverRef names the MCPServer, in this namespace, that offers the tool.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="serverRef is immutable: a pin belongs to one server for life"
	ServerRef LocalObjectReference `json:"serverRef"`

	// toolName is the tool's exact name as the server sends it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="toolName is immutable: a pin is about one tool for life"
	ToolName string `json:"toolName"`

	// override is a human classification that replaces toolgate's own for
	// the fields it sets. SEP-2793 keeps a tool at its most restrictive
	// default "until an operator explicitly classifies that tool": this is
	// that classification. An override that lowers a level is reported.
	// +optional
	Override *ClassificationOverride `json:"override,omitempty"`
}

// ClassificationOverride is a human's classification of a tool. The
// requester types level, category, blastRadius and reason; toolgate's
// admission webhook fills setBy and setTime from the API request.
// +kubebuilder:validation:XValidation:rule="has(self.level) || has(self.category) || has(self.blastRadius)",message="override must set at least one of level, category and blastRadius"
type ClassificationOverride struct {
	// level replaces the computed level.
	// +optional
	Level Level `json:"level,omitempty"`

	// category replaces the inferred category.
	// +optional
	Category Category `json:"category,omitempty"`

	// blastRadius replaces the inferred blast radius.
	// +optional
	BlastRadius BlastRadius `json:"blastRadius,omitempty"`

	// reason says why, for the audit trail.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`

	// setBy is the user name of whoever set the override as it stands,
	// from the API request. toolgate's admission webhook writes it,
	// overwriting anything typed; an edit that leaves level, category,
	// blastRadius and reason as they are keeps it.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	SetBy string `json:"setBy,omitempty"`

	// setTime is when the override as it stands was set, from the API
	// server's clock, written with setBy.
	// +optional
	SetTime *metav1.Time `json:"setTime,omitempty"`
}

// ToolPinStatus is the review record of one tool.
type ToolPinStatus struct {
	// conditions are the pin's state: Ready summarises; the gate exposes
	// nothing that is not Trusted.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// state of review: Trusted, AwaitingReview, Rejected or Removed. Empty
	// until the first probe; an empty state is never trusted.
	// +optional
	State PinState `json:"state,omitempty"`

	// pinned is the definition that was last trusted.
	// +optional
	Pinned *PinnedDefinition `json:"pinned,omitempty"`

	// observedFingerprint is the fingerprint the server sent last.
	// +optional
	ObservedFingerprint Fingerprint `json:"observedFingerprint,omitempty"`

	// observedDefinition is the canonical JSON (RFC 8785) of the definition
	// the server sent last, kept so a decision can be applied, and a later
	// change explained, without probing the server again. It is left out
	// while the server sends the pinned definition (observedFingerprint is
	// pinned.fingerprint): it is then pinned.definition.
	// +optional
	// +kubebuilder:validation:MaxLength=262144
	ObservedDefinition string `json:"observedDefinition,omitempty"`

	// change describes what differs between the pinned and the observed
	// definition, when they differ.
	// +optional
	Change *DefinitionChange `json:"change,omitempty"`

	// risk is the tool's risk as it applies: the computed judgement, with a
	// human override laid over it when spec.override is set.
	// +optional
	Risk *ToolRisk `json:"risk,omitempty"`

	// computedRisk is toolgate's own judgement, before any override: it
	// rises at once and falls only when a human approves a definition, and
	// it decides how many approvals a change needs whatever an override
	// says. It is left out while no override applies (risk.overridden is
	// false): it is then risk.
	// +optional
	ComputedRisk *ToolRisk `json:"computedRisk,omitempty"`

	// observedBodyFingerprint is the fingerprint of the observed definition
	// without its name, so a renamed copy of an untrusted definition is
	// recognised, however large it is.
	// +optional
	ObservedBodyFingerprint Fingerprint `json:"observedBodyFingerprint,omitempty"`

	// observedOrigin is the origin (scheme://host:port) of the endpoint the
	// definition was last observed at.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	ObservedOrigin string `json:"observedOrigin,omitempty"`

	// firstSeenTime is when the tool was first seen on the server.
	// +optional
	FirstSeenTime *metav1.Time `json:"firstSeenTime,omitempty"`

	// lastSeenTime is when the tool was last seen on the server.
	// +optional
	LastSeenTime *metav1.Time `json:"lastSeenTime,omitempty"`

	// decisions is the append-only record of human decisions on this tool:
	// on its definition, or on one pending call when callID is set. Humans
	// append with a JSON patch on the status subresource:
	//
	//   kubectl patch toolpin NAME --subresource=status --type=json \
	//     -p '[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":"sha256:…"}}]'
	//
	// toolgate keeps this list present (empty rather than absent) so that
	// the "/-" append always has a list to add to.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Decisions []Decision `json:"decisions"`

	// pendingCalls are calls to this tool held by a gate until a human
	// approves or rejects them, or they time out.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=64
	PendingCalls []PendingCall `json:"pendingCalls,omitempty"`

	// callHistory records the calls resolved most recently, newest last,
	// with the decisions taken on each. A call's decisions move here from
	// status.decisions when it is resolved, so that a busy tool never
	// crowds the decisions on its definition out of status.decisions; the
	// oldest record goes once there are MaxCallHistory. Only the operator
	// writes it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	CallHistory []CallRecord `json:"callHistory,omitempty"`
}

// CallVerdict is how a pending call ended.
// +kubebuilder:validation:Enum=Approved;Rejected;Expired;Withdrawn
type CallVerdict string

// Call verdicts.
const (
	// CallApproved: the approvals it needed came; the gate forwarded it.
	CallApproved CallVerdict = "Approved"
	// CallRejected: a person rejected it; the gate refused it.
	CallRejected CallVerdict = "Rejected"
	// CallExpired: nobody decided before its expiry; the gate refused it.
	CallExpired CallVerdict = "Expired"
	// CallWithdrawn: the gate (the agent) gave up waiting first; it was
	// never forwarded, and can no longer be approved.
	CallWithdrawn CallVerdict = "Withdrawn"
)

// CallKind says what a pending call holds: a call before it is forwarded,
// or a call's result before it reaches the agent.
// +kubebuilder:validation:Enum=Call;Result
type CallKind string

// Call kinds.
const (
	// CallKindCall: a call to an approval-gated tool, held before it is
	// forwarded. An omitted kind is a call.
	CallKindCall CallKind = "Call"
	// CallKindResult: a tool's result in which the gate's scan found
	// something, held because the policy's resultScan says Hold. Approve
	// releases exactly the result named by resultDigest to the agent;
	// Reject drops it, and the agent gets an error.
	CallKindResult CallKind = "Result"
)

// CallRecord is a resolved call.
type CallRecord struct {
	// id of the call.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	ID string `json:"id"`

	// kind is Call (when omitted) or Result.
	// +optional
	Kind CallKind `json:"kind,omitempty"`

	// resultDigest is, for a Result, the SHA-256 of the result held.
	// +optional
	ResultDigest Fingerprint `json:"resultDigest,omitempty"`

	// verdict is how the call ended.
	// +required
	Verdict CallVerdict `json:"verdict"`

	// fingerprint of the definition the call was made against.
	// +required
	Fingerprint Fingerprint `json:"fingerprint"`

	// argumentsDigest of the call's arguments.
	// +required
	ArgumentsDigest Fingerprint `json:"argumentsDigest"`

	// agent that made the call.
	// +required
	Agent AgentIdentity `json:"agent"`

	// requestedTime is when the gate held the call.
	// +required
	RequestedTime metav1.Time `json:"requestedTime"`

	// resolvedTime is when the operator resolved it.
	// +required
	ResolvedTime metav1.Time `json:"resolvedTime"`

	// decisions are the latest decisions taken on the call, moved from
	// status.decisions.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	Decisions []Decision `json:"decisions,omitempty"`
}

// PinnedDefinition is a trusted definition of a tool.
type PinnedDefinition struct {
	// fingerprint of the trusted definition.
	// +required
	Fingerprint Fingerprint `json:"fingerprint"`

	// time it was pinned.
	// +required
	Time metav1.Time `json:"time"`

	// source is TrustOnFirstUse or Approval.
	// +required
	Source PinSource `json:"source"`

	// approvers are the users whose approvals pinned it, for Approval.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=256
	Approvers []string `json:"approvers,omitempty"`

	// definition is the canonical JSON (RFC 8785) of the pinned definition,
	// kept so a later change can be explained part by part.
	// +optional
	// +kubebuilder:validation:MaxLength=262144
	Definition string `json:"definition,omitempty"`

	// origin is the origin (scheme://host:port) of the endpoint the pinned
	// definition was trusted or approved at: the same definition from
	// another origin is another server's, and is reviewed again.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Origin string `json:"origin,omitempty"`
}

// DefinitionChange explains the difference between two definitions.
type DefinitionChange struct {
	// from is the pinned fingerprint.
	// +required
	From Fingerprint `json:"from"`

	// to is the observed fingerprint.
	// +required
	To Fingerprint `json:"to"`

	// detectedTime is when the change was first seen.
	// +required
	DetectedTime metav1.Time `json:"detectedTime"`

	// kinds classify the change. AnnotationsLoweredRisk, a server declaring
	// its tool safer than before, is the most suspicious kind.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Kinds []ChangeKind `json:"kinds,omitempty"`

	// parts lists the parts of the definition that changed, such as
	// "description" or "inputSchema".
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=64
	Parts []string `json:"parts,omitempty"`

	// details are human-readable lines of the structured diff.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=512
	Details []string `json:"details,omitempty"`
}

// Decision is one human decision. The approver types action, fingerprint,
// callID and comment; toolgate's admission webhook fills user, groups,
// uid, credentialID and time from the API request, overwriting anything
// typed there.
type Decision struct {
	// action is Approve or Reject.
	// +required
	Action DecisionAction `json:"action"`

	// fingerprint is the exact definition decided on. A decision about any
	// fingerprint but the one observed now is refused.
	// +required
	Fingerprint Fingerprint `json:"fingerprint"`

	// callID makes this, when set, a decision on one pending call rather than
	// on the tool's definition.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]+$`
	CallID string `json:"callID,omitempty"`

	// comment is the approver's note.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Comment string `json:"comment,omitempty"`

	// user is the approver's user name, from the API request.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	User string `json:"user,omitempty"`

	// groups are the approver's groups, from the API request.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	Groups []string `json:"groups,omitempty"`

	// uid is the approver's UID as the API server authenticated it, from
	// the API request, when it has one that fits: it tells apart two
	// identities that once bore the same user name.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	UID string `json:"uid,omitempty"`

	// credentialID identifies the credential the request was made with
	// (the authentication.kubernetes.io/credential-id extra of the API
	// request: a service account token's JTI, a client certificate's
	// SHA-256), when the authenticator gives one that fits. Like every
	// other stamped field, it is what the API server saw after
	// impersonation: see docs/lifecycle.md.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	CredentialID string `json:"credentialID,omitempty"`

	// time of the decision, from the API server's clock.
	// +optional
	Time *metav1.Time `json:"time,omitempty"`
}

// HeldBy is why a call waits for a person.
// +kubebuilder:validation:Enum=Designation;ArgumentRule;ArgumentLevel
type HeldBy string

// Why calls wait.
const (
	// HeldByDesignation: the policy's approval rules gate the tool.
	HeldByDesignation HeldBy = "Designation"
	// HeldByArgumentRule: an argument rule with action Hold matched.
	HeldByArgumentRule HeldBy = "ArgumentRule"
	// HeldByArgumentLevel: the call's arguments raised its level to
	// approval.minLevel or above.
	HeldByArgumentLevel HeldBy = "ArgumentLevel"
)

// PendingCall is a call, or a call's result, held by a gate until a human
// decides.
// +kubebuilder:validation:XValidation:rule="!has(self.kind) || self.kind != 'Result' || (has(self.resultDigest) && has(self.findings))",message="a held Result names its resultDigest and its findings"
type PendingCall struct {
	// id identifies the call; decisions name it in callID.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]+$`
	ID string `json:"id"`

	// kind is Call (when omitted): the call waits to be forwarded; or
	// Result: the call was made, and its result waits to reach the agent
	// because the gate's scan found something in it.
	// +optional
	Kind CallKind `json:"kind,omitempty"`

	// resultDigest is, for a Result, "sha256:" and the hex SHA-256 of the
	// result's bytes as the server sent them: a release is for exactly
	// this result.
	// +optional
	ResultDigest Fingerprint `json:"resultDigest,omitempty"`

	// findings are, for a Result, what the scan found in it: the signal,
	// where, and an escaped excerpt.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	Findings []Finding `json:"findings,omitempty"`

	// fingerprint of the definition the call was made against.
	// +required
	Fingerprint Fingerprint `json:"fingerprint"`

	// heldBy says why a call waits: Designation (the policy's approval
	// rules name the tool, its level or its category), ArgumentRule (an
	// argument rule matched the call; rule names it) or ArgumentLevel (the
	// call's arguments raised it to level, at or above the policy's
	// approval.minLevel). Empty on a Result.
	// +optional
	HeldBy HeldBy `json:"heldBy,omitempty"`

	// rule is "policy/rule" of the argument rule that held the call or
	// raised its level.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	Rule string `json:"rule,omitempty"`

	// level is the call's level after its arguments raised it.
	// +optional
	Level Level `json:"level,omitempty"`

	// reason says in words why the call waits: the rule's message, or the
	// argument floors the call met.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason,omitempty"`

	// agent identifies the caller: namespace/pod and service account.
	// +required
	Agent AgentIdentity `json:"agent"`

	// argumentsDigest is the SHA-256 of the call's canonical arguments: an
	// approval is for these exact arguments.
	// +required
	ArgumentsDigest Fingerprint `json:"argumentsDigest"`

	// arguments is a preview of the call's arguments, cut to 2 KiB.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Arguments string `json:"arguments,omitempty"`

	// argumentsComplete is true when arguments shows every argument in
	// full: nothing redacted, masked or cut. When it is not, approving
	// approves arguments the reviewer cannot all see (argumentsDigest
	// still covers them all); kubectl toolgate approve asks for
	// --accept-partial-arguments.
	// +optional
	ArgumentsComplete bool `json:"argumentsComplete,omitempty"`

	// requestedTime is when the gate held the call.
	// +required
	RequestedTime metav1.Time `json:"requestedTime"`

	// expiryTime is when the gate denies the call if nobody decided.
	// +required
	ExpiryTime metav1.Time `json:"expiryTime"`
}

// AgentIdentity names the pod that made a call.
type AgentIdentity struct {
	// namespace of the agent pod.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`

	// pod name.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Pod string `json:"pod"`

	// serviceAccount of the pod.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServiceAccount string `json:"serviceAccount,omitempty"`
}

// ToolPin is the review record of one tool of one MCPServer: the definition
// trusted, the definition seen now, the tool's risk and the human decisions
// taken on it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tgpin,categories=toolgate
// +kubebuilder:printcolumn:name="Server",type=string,JSONPath=`.spec.serverRef.name`
// +kubebuilder:printcolumn:name="Tool",type=string,JSONPath=`.spec.toolName`
// +kubebuilder:printcolumn:name="Level",type=string,JSONPath=`.status.risk.level`
// +kubebuilder:printcolumn:name="Category",type=string,JSONPath=`.status.risk.category`
// +kubebuilder:printcolumn:name="Blast Radius",type=string,JSONPath=`.status.risk.blastRadius`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ToolPin struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the tool and carries an optional human classification.
	// +required
	Spec ToolPinSpec `json:"spec"`

	// status is the review record.
	// +optional
	Status ToolPinStatus `json:"status,omitempty"`
}

// ToolPinList is a list of ToolPins.
//
// +kubebuilder:object:root=true
type ToolPinList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ToolPin `json:"items"`
}
