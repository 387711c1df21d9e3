package v1alpha1

import "cmp"

// Level is a rung of toolgate's ordered risk ladder, from L0 (verified) to L5
// (critical). Levels compare by their digit.
// +kubebuilder:validation:Enum=L0;L1;L2;L3;L4;L5
type Level string

// The six risk levels. docs/risk-model.md maps them to SEP-2793's riskLevel.
const (
	LevelVerified Level = "L0"
	LevelSafe     Level = "L1"
	LevelLow      Level = "L2"
	LevelModerate Level = "L3"
	LevelHigh     Level = "L4"
	LevelCritical Level = "L5"
)

// Valid reports whether l is one of the six levels (what the CRDs' enum
// allows), for values that come from elsewhere than the API server.
func (l Level) Valid() bool {
	return len(l) == 2 && l[0] == 'L' && l[1] >= '0' && l[1] <= '5'
}

// Rank is the level's digit, 0 for L0 to 5 for L5. Anything that is not
// one of the six levels, the empty level included, ranks as L5: nothing
// unrecognised is ever treated as safe. Levels are compared by Rank (or
// Compare), never as strings.
func (l Level) Rank() int {
	if l.Valid() {
		return int(l[1] - '0')
	}
	return 5
}

// Compare returns -1 when l ranks below o, 0 when they rank the same and
// +1 when l ranks above, as cmp.Compare does; it suits slices.SortFunc.
func (l Level) Compare(o Level) int {
	return cmp.Compare(l.Rank(), o.Rank())
}

// RiskLevel is SEP-2793's graded risk classification.
// +kubebuilder:validation:Enum=low;medium;high;critical
type RiskLevel string

// SEP-2793 risk levels.
const (
	RiskLow      RiskLevel = "low"
	RiskMedium   RiskLevel = "medium"
	RiskHigh     RiskLevel = "high"
	RiskCritical RiskLevel = "critical"
)

// Category is SEP-2793's action category of a tool.
// +kubebuilder:validation:Enum=read;observe;mutate;delete;destroy;utility
type Category string

// SEP-2793 categories.
const (
	CategoryRead    Category = "read"
	CategoryObserve Category = "observe"
	CategoryMutate  Category = "mutate"
	CategoryDelete  Category = "delete"
	CategoryDestroy Category = "destroy"
	CategoryUtility Category = "utility"
)

// BlastRadius is SEP-2793's scope of an undesired outcome.
// +kubebuilder:validation:Enum=item;namespace;cluster;organization;global
type BlastRadius string

// SEP-2793 blast radii, from narrowest to widest.
const (
	BlastItem         BlastRadius = "item"
	BlastNamespace    BlastRadius = "namespace"
	BlastCluster      BlastRadius = "cluster"
	BlastOrganization BlastRadius = "organization"
	BlastGlobal       BlastRadius = "global"
)

// Reversibility is SEP-2793's statement of whether an effect can be undone.
// +kubebuilder:validation:Enum=auto;manual;none
type Reversibility string

// SEP-2793 reversibility values.
const (
	ReversibilityAuto   Reversibility = "auto"
	ReversibilityManual Reversibility = "manual"
	ReversibilityNone   Reversibility = "none"
)

// ApprovalRecommendation is SEP-2793's hint of how many humans should approve.
// +kubebuilder:validation:Enum=none;single;multi
type ApprovalRecommendation string

// SEP-2793 approval recommendations.
const (
	ApprovalNone   ApprovalRecommendation = "none"
	ApprovalSingle ApprovalRecommendation = "single"
	ApprovalMulti  ApprovalRecommendation = "multi"
)

// Fingerprint is "sha256:" followed by 64 lower-case hex digits: the SHA-256
// of the canonical (RFC 8785) JSON of a whole tool definition.
// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
// +kubebuilder:validation:MaxLength=71
type Fingerprint string

// Finding is one hit of the poisoning scan.
type Finding struct {
	// signal names the kind of finding, for example "hidden-instruction",
	// "invisible-unicode" or "exfiltration".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Signal string `json:"signal"`

	// field is where in the definition the finding was made, as a path such
	// as "description" or "inputSchema.properties.path.description".
	// +required
	// +kubebuilder:validation:MaxLength=512
	Field string `json:"field"`

	// excerpt is a short, escaped excerpt around the finding.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Excerpt string `json:"excerpt,omitempty"`
}

// ToolRisk is the whole risk judgement of one tool: its L0–L5 level and every
// SEP-2793 field, with the reasons behind them.
type ToolRisk struct {
	// level is the tool's inherent level.
	// +required
	Level Level `json:"level"`

	// effectiveLevel is the level shown beside the inherent one when every
	// call of the tool is held for human approval: one band lower, unless the
	// poisoning scan hit. It never lifts a tool over a ceiling.
	// +optional
	EffectiveLevel Level `json:"effectiveLevel,omitempty"`

	// riskLevel is SEP-2793's graded risk.
	// +required
	RiskLevel RiskLevel `json:"riskLevel"`

	// category is SEP-2793's action category.
	// +required
	Category Category `json:"category"`

	// blastRadius is SEP-2793's scope of an undesired outcome.
	// +required
	BlastRadius BlastRadius `json:"blastRadius"`

	// reversibility says whether the tool's effect can be undone.
	// +required
	Reversibility Reversibility `json:"reversibility"`

	// sideEffects lists SEP-2793 side effects, such as "state_loss" or
	// "external_notification". The vocabulary is open.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=64
	SideEffects []string `json:"sideEffects,omitempty"`

	// approvalRecommendation is how many humans should approve a change.
	// +required
	ApprovalRecommendation ApprovalRecommendation `json:"approvalRecommendation"`

	// minTrustLevel is the lowest agent trust level (1–5) that may use the tool.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	MinTrustLevel int32 `json:"minTrustLevel"`

	// floors lists the floor rules that pinned the level, if any.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=256
	Floors []string `json:"floors,omitempty"`

	// reasons lists, in order, the signals that raised the level.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=512
	Reasons []string `json:"reasons,omitempty"`

	// findings are the poisoning scan's hits.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Findings []Finding `json:"findings,omitempty"`

	// overridden is true when a human classification override in the
	// ToolPin's spec replaced part of this judgement.
	// +optional
	Overridden bool `json:"overridden,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// name of the referent.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// KeyReference names one key of a Secret or ConfigMap in the same namespace.
type KeyReference struct {
	// name of the Secret or ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// key within it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// Short returns the fingerprint's first twelve hex digits after "sha256:",
// enough to tell definitions apart in a message.
func (f Fingerprint) Short() string {
	if len(f) > 19 {
		return string(f[:19])
	}
	return string(f)
}
