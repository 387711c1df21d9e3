package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicyMode says whether a policy's decisions are enforced.
// +kubebuilder:validation:Enum=Enforce;Audit
type PolicyMode string

// Policy modes.
const (
	// PolicyEnforce withholds and holds tools and calls as the policy says.
	PolicyEnforce PolicyMode = "Enforce"
	// PolicyAudit logs what Enforce would have done and lifts only what a
	// policy could have chosen otherwise: the tool list, the ceiling up to
	// the cluster's cap, the agents' trust; approval-gated calls go through
	// without a human. What no policy could expose stays withheld: poisoning
	// findings no human approved, levels above the cap, unjudged tools and
	// tools whose pin is not Trusted (rug-pulled, rejected, unreviewed).
	PolicyAudit PolicyMode = "Audit"
)

// ToolPolicySpec says what the agents of one namespace may see and call.
// +kubebuilder:validation:XValidation:rule="!has(self.approval) || !has(self.approval.minLevel) || !has(self.maxLevel) || self.approval.minLevel <= self.maxLevel",message="approval.minLevel above maxLevel can never apply: tools above maxLevel are withheld"
type ToolPolicySpec struct {
	// podSelector picks the agent pods of this namespace the policy applies
	// to. An empty selector picks every pod.
	// +optional
	PodSelector metav1.LabelSelector `json:"podSelector,omitempty"`

	// servers are the MCPServers these agents may use. A server must also
	// admit this namespace in its spec.consumers.
	// +required
	// +listType=map
	// +listMapKey=namespace
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Servers []ServerReference `json:"servers"`

	// maxLevel is the ceiling: tools above it are never shown to an agent
	// and have no approval path. Left out, the cluster's default ceiling
	// applies (the operator's --default-max-level, L3 unless the platform
	// team set another); the cluster's cap (--max-level-cap) bounds it
	// either way. status.ceiling shows the ceiling in force.
	// +optional
	MaxLevel Level `json:"maxLevel,omitempty"`

	// agentTrustLevel is the agents' trust on SEP-2793's 1–5 scale (1 an
	// observer, 5 autonomous). A tool whose minTrustLevel is higher is
	// withheld.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	AgentTrustLevel int32 `json:"agentTrustLevel,omitempty"`

	// approval says which calls wait for a human.
	// +optional
	Approval *CallApprovalRules `json:"approval,omitempty"`

	// mode is Enforce or Audit. Audit withholds nothing a policy could
	// have exposed: a tool withheld only by a tool list, by a ceiling
	// within the cluster's cap (--max-level-cap) or by agentTrustLevel is
	// listed and callable, and an approval-gated call is forwarded without
	// waiting for a human; each is logged as what Enforce would have done.
	// A tool no policy could expose stays withheld: one with poisoning
	// findings no human approved, above the cluster's cap, not yet judged,
	// or whose pin is not Trusted at the definition seen now.
	// +optional
	// +kubebuilder:default=Enforce
	Mode PolicyMode `json:"mode,omitempty"`

	// resultScan says what the gate does when its scan of what a server
	// says — a tool's result, a log line, a request the server makes of
	// the agent, a prompt, a resource — finds text meant to steer the
	// model. Left out, the default follows risk: Record while nothing the
	// agents can reach is L4 or above and the tool (for a result) is at
	// most L2, or the server's reachable tools are below L3 (for the
	// rest); Redact otherwise. A policy in Audit mode records only. When
	// several policies select a pod, the strictest action wins: Record,
	// then Redact, then Hold, then Withhold.
	// +optional
	ResultScan *ResultScan `json:"resultScan,omitempty"`

	// argumentRules tighten calls by what they are called with: each is a
	// CEL expression over a call's arguments, the agent and the tool's
	// pinned risk, and when it is true the call is refused, held for a
	// person, or raised to a level that then meets the ceiling and
	// approval.minLevel. A rule never exposes a call the policy would
	// withhold and never changes what tools/list shows. The operator
	// checks each rule against the pinned inputSchema of every tool it
	// names and reports problems in status.argumentRules; the gate refuses
	// calls of a tool whose rule it cannot evaluate. When several
	// policies select a pod, every rule of every policy applies.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	ArgumentRules []ArgumentRule `json:"argumentRules,omitempty"`

	// argumentFloors turns the built-in argument floors on (Enabled, the
	// default) or off: values that widen a call's reach (wildcards,
	// "all", an all-namespaces or recursive flag, an empty selector),
	// flags that force or skip a safety check, and statements that write
	// or drop in a query-like parameter raise the level of that call
	// (docs/risk-model.md, "Argument floors"). They stay on for a pod
	// unless every policy that selects it turns them off.
	// +optional
	// +kubebuilder:default=Enabled
	ArgumentFloors ArgumentFloorsMode `json:"argumentFloors,omitempty"`
}

// ArgumentFloorsMode turns the built-in argument floors on or off.
// +kubebuilder:validation:Enum=Enabled;Disabled
type ArgumentFloorsMode string

// Argument floor modes.
const (
	// ArgumentFloorsEnabled raises a call's level by what its arguments
	// say (the default).
	ArgumentFloorsEnabled ArgumentFloorsMode = "Enabled"
	// ArgumentFloorsDisabled judges calls by their tool's level alone.
	ArgumentFloorsDisabled ArgumentFloorsMode = "Disabled"
)

// ArgumentRuleAction is what an argument rule does with a call its
// expression is true for. Every action tightens.
// +kubebuilder:validation:Enum=Refuse;Hold;RaiseLevel
type ArgumentRuleAction string

// Argument rule actions.
const (
	// ArgumentRuleRefuse answers the call with a JSON-RPC error naming the
	// rule; it never reaches the server.
	ArgumentRuleRefuse ArgumentRuleAction = "Refuse"
	// ArgumentRuleHold holds the call on its tool's ToolPin until a person
	// approves or rejects it, as an approval-gated call waits; the person
	// sees the rule.
	ArgumentRuleHold ArgumentRuleAction = "Hold"
	// ArgumentRuleRaiseLevel raises the call's level to level: above the
	// ceiling it is refused, at approval.minLevel or above it is held.
	ArgumentRuleRaiseLevel ArgumentRuleAction = "RaiseLevel"
)

// ArgumentRule tightens the calls of some tools whose arguments match a
// CEL expression.
// +kubebuilder:validation:XValidation:rule="self.action == 'RaiseLevel' ? has(self.level) : !has(self.level)",message="level is set with action RaiseLevel, and only with it"
type ArgumentRule struct {
	// name identifies the rule in refusals, held calls, audit lines and
	// metrics.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// tools are the tools the rule applies to, each by name and optionally
	// on one server; without a server, on every server this policy
	// references (never on one only another policy references).
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Tools []ToolReference `json:"tools"`

	// expression is a CEL expression that yields a bool. It sees args (the
	// call's arguments: nested objects and arrays, integers as int),
	// tool (name, server, level, category, blastRadius, reversibility:
	// the pinned risk) and agent (namespace, pod, serviceAccount,
	// labels). Write has(args.x) before reading an optional argument: an
	// expression that fails to evaluate counts as true, so the rule
	// tightens rather than lets a call through.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Expression string `json:"expression"`

	// action is Refuse, Hold or RaiseLevel.
	// +required
	Action ArgumentRuleAction `json:"action"`

	// level is, for RaiseLevel, the level the call is raised to.
	// +optional
	Level Level `json:"level,omitempty"`

	// message says why, to the agent in a refusal and to the person asked
	// to approve a held call.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`
}

// FindingAction is what a gate does when its scan of a server's answer
// finds something.
// +kubebuilder:validation:Enum=Record;Redact;Withhold;Hold
type FindingAction string

// Finding actions, from the most permissive to the strictest.
const (
	// FindingRecord passes the answer; the finding is logged, counted and
	// marked with an Event on the tool's ToolPin (or the MCPServer).
	FindingRecord FindingAction = "Record"
	// FindingRedact replaces each flagged span with a marker the model can
	// read, and records.
	FindingRedact FindingAction = "Redact"
	// FindingHold holds a tool's result on its ToolPin until a person
	// releases or drops it, as a held call waits (a finding in what is
	// not one tool's result has no pin to wait on, and is withheld).
	FindingHold FindingAction = "Hold"
	// FindingWithhold answers the agent with an error instead, and
	// records.
	FindingWithhold FindingAction = "Withhold"
)

// ResultScan chooses the action on a finding in what servers answer.
type ResultScan struct {
	// action applies to every server and tool no override names. Left
	// out, the default follows risk (see spec.resultScan).
	// +optional
	Action FindingAction `json:"action,omitempty"`

	// overrides choose the action for one server, one tool, or one tool
	// of one server. The most specific applies: a server and a tool, then
	// a tool (on any server), then a server, then action. A server's
	// override also covers what of the server is not one tool's result
	// (log lines, requests, prompts, resources). Two overrides equally
	// specific for the same tool: the stricter applies.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Overrides []ResultScanOverride `json:"overrides,omitempty"`
}

// ResultScanOverride is the action for one server, one tool, or one tool
// of one server.
// +kubebuilder:validation:XValidation:rule="has(self.server) || has(self.tool)",message="an override names a server, a tool or both; for every server and tool, set resultScan.action instead"
type ResultScanOverride struct {
	// server is "namespace/name" of an MCPServer; any server when left
	// out.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$')",message="server must be \"namespace/name\" of an MCPServer"
	Server string `json:"server,omitempty"`

	// tool is the tool's name exactly as the server sends it; every tool
	// of the server when left out.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Tool string `json:"tool,omitempty"`

	// action is Record, Redact, Withhold or Hold.
	// +required
	Action FindingAction `json:"action"`
}

// ServerReference names an MCPServer and, optionally, narrows its tools.
type ServerReference struct {
	// namespace of the MCPServer.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// name of the MCPServer.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// tools are, when set, the only tools of the server these agents may see;
	// every other rule still applies to them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	Tools []string `json:"tools,omitempty"`
}

// CallApprovalRules designate calls that a human approves one by one. A call
// matching any rule waits.
// +kubebuilder:validation:XValidation:rule="has(self.minLevel) || has(self.categories) || has(self.tools)",message="approval needs at least one of minLevel, categories and tools"
type CallApprovalRules struct {
	// minLevel makes calls to tools at this level or above wait for approval.
	// +optional
	MinLevel Level `json:"minLevel,omitempty"`

	// categories make calls to tools of these categories wait for approval.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=6
	Categories []Category `json:"categories,omitempty"`

	// tools make calls to these tools wait for approval.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Tools []ToolReference `json:"tools,omitempty"`

	// timeout is how long a call waits before it is denied.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="approval.timeout must be a duration such as 30s, 5m or 1h"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('10s') && duration(self) <= duration('24h'))",message="approval.timeout must be between 10s and 24h"
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// ToolReference names a tool, optionally on one server.
type ToolReference struct {
	// server is "namespace/name" of an MCPServer; any listed server if empty.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$')",message="server must be \"namespace/name\" of an MCPServer"
	Server string `json:"server,omitempty"`

	// name of the tool, exactly as the server sends it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
}

// ToolPolicyStatus is what the policy exposes now.
type ToolPolicyStatus struct {
	// conditions are the policy's state: Ready summarises; GateBypassable
	// says whether the agents could call a referenced server around their
	// gates.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// exposed counts the tools shown to agents.
	// +optional
	Exposed int32 `json:"exposed,omitempty"`

	// withheld counts the tools hidden from agents.
	// +optional
	Withheld int32 `json:"withheld,omitempty"`

	// approvalGated counts exposed tools whose calls wait for a human.
	// +optional
	ApprovalGated int32 `json:"approvalGated,omitempty"`

	// ceiling is the ceiling in force for this policy's tools: its
	// maxLevel, or the cluster's default when it has none, bounded by the
	// cluster's cap.
	// +optional
	Ceiling Level `json:"ceiling,omitempty"`

	// argumentRules lists up to 64 problems the operator found with the
	// policy's argument rules: an expression that does not compile, costs
	// more than the budget, or names an argument a tool's pinned
	// inputSchema does not have. The gate refuses the calls of a tool
	// whose rule has a problem. The ArgumentRules condition summarises.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	ArgumentRules []ArgumentRuleProblem `json:"argumentRules,omitempty"`

	// tools lists up to 200 tools with the policy's decision and its reason,
	// withheld ones first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=200
	Tools []PolicyToolDecision `json:"tools,omitempty"`
}

// ArgumentRuleProblem is why one argument rule cannot be evaluated for
// one tool, or at all.
type ArgumentRuleProblem struct {
	// rule is the rule's name.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Rule string `json:"rule"`

	// server is "namespace/name" of the tool's MCPServer; empty when the
	// problem is the rule's own.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	Server string `json:"server,omitempty"`

	// tool is the tool whose pinned inputSchema the rule does not fit;
	// empty when the problem is the rule's own.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Tool string `json:"tool,omitempty"`

	// kind is Syntax, Type, UnknownArgument, Cost, or Schema (the pin
	// keeps no definition to check the rule against).
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Kind string `json:"kind"`

	// message says what is wrong, naming the argument or the position.
	// +required
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message"`
}

// ToolDecision is what a policy does with a tool.
// +kubebuilder:validation:Enum=Exposed;Withheld;ApprovalGated
type ToolDecision string

// Policy decisions on a tool.
const (
	ToolExposed       ToolDecision = "Exposed"
	ToolWithheld      ToolDecision = "Withheld"
	ToolApprovalGated ToolDecision = "ApprovalGated"
)

// PolicyToolDecision is the policy's decision on one tool, with its reason.
type PolicyToolDecision struct {
	// server is "namespace/name" of the MCPServer.
	// +required
	// +kubebuilder:validation:MaxLength=317
	Server string `json:"server"`

	// tool name.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Tool string `json:"tool"`

	// decision is Exposed, Withheld or ApprovalGated.
	// +required
	Decision ToolDecision `json:"decision"`

	// reason explains the decision, for example "level L5 above ceiling L3".
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason,omitempty"`

	// level is the tool's inherent level, shown for gated tools beside
	// effectiveLevel.
	// +optional
	Level Level `json:"level,omitempty"`

	// effectiveLevel is the level after the approval gate's credit: one
	// band below level for a gated tool, unless its poisoning scan hit.
	// It is shown, never used to let a tool over the ceiling.
	// +optional
	EffectiveLevel Level `json:"effectiveLevel,omitempty"`

	// resultAction is what the gate does on a finding in the tool's
	// results, resolved from spec.resultScan or its default.
	// +optional
	ResultAction FindingAction `json:"resultAction,omitempty"`
}

// ToolPolicy says which MCP tools the agents of its namespace may see and
// call, and which calls wait for a human.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tgpolicy;tgpol,categories=toolgate
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Ceiling",type=string,JSONPath=`.status.ceiling`
// +kubebuilder:printcolumn:name="Trust",type=integer,JSONPath=`.spec.agentTrustLevel`
// +kubebuilder:printcolumn:name="Exposed",type=integer,JSONPath=`.status.exposed`
// +kubebuilder:printcolumn:name="Withheld",type=integer,JSONPath=`.status.withheld`
// +kubebuilder:printcolumn:name="Gated",type=integer,JSONPath=`.status.approvalGated`
// +kubebuilder:printcolumn:name="Bypassable",type=string,JSONPath=`.status.conditions[?(@.type=="GateBypassable")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ToolPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the namespace's agents may see and call.
	// +required
	Spec ToolPolicySpec `json:"spec"`

	// status is what the policy exposes now.
	// +optional
	Status ToolPolicyStatus `json:"status,omitempty"`
}

// ToolPolicyList is a list of ToolPolicies.
//
// +kubebuilder:object:root=true
type ToolPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ToolPolicy `json:"items"`
}
