package offline

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/policy"
)

// maxPolicyBytes bounds a policy file: a ToolPolicy is at most a few
// hundred kilobytes even with every list at its bound.
const maxPolicyBytes = 8 << 20

// The patterns the ToolPolicy CRD holds its names to.
var (
	dns1123Label  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Domain = regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$`)
	serverRef     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$`)
	// documentSeparator is a YAML document marker on a line of its own.
	documentSeparator = regexp.MustCompile(`^---(\s.*)?$`)
)

// readPolicies reads every ToolPolicy of a YAML or JSON file: documents
// separated by "---", each a ToolPolicy or a List of them (what kubectl
// get -o yaml prints). A document that is not one, or that the CRD's
// schema would not admit, is an error naming the file, the document and
// the field.
func readPolicies(name string, data []byte) ([]toolgatev1alpha1.ToolPolicy, error) {
	var out []toolgatev1alpha1.ToolPolicy
	for i, doc := range splitDocuments(data) {
		where := fmt.Sprintf("%s: document %d (line %d)", name, i+1, doc.line)
		if len(bytes.TrimSpace(stripComments(doc.text))) == 0 {
			continue
		}
		var head struct {
			metav1.TypeMeta `json:",inline"`
			Items           []json.RawMessage `json:"items"`
		}
		if err := yaml.Unmarshal(doc.text, &head); err != nil {
			return nil, fmt.Errorf("%s: %s", where, yamlError(err))
		}
		switch head.Kind {
		case "List", "ToolPolicyList":
			for j, item := range head.Items {
				p, err := decodePolicy(item)
				if err != nil {
					return nil, fmt.Errorf("%s: items[%d]: %w", where, j, err)
				}
				out = append(out, p)
			}
		default:
			p, err := decodePolicy(doc.text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no ToolPolicy in the file", name)
	}
	seen := map[string]bool{}
	for _, p := range out {
		if seen[p.Name] {
			// The gate names rules "policy/rule": two policies of one name
			// would make two rules one.
			return nil, fmt.Errorf("%s: two ToolPolicies named %q: the policies that select one pod are of one namespace, and names are unique in it", name, p.Name)
		}
		seen[p.Name] = true
	}
	return out, nil
}

type document struct {
	text []byte
	line int
}

// splitDocuments cuts a YAML stream at its "---" lines, keeping where each
// document starts, for errors.
func splitDocuments(data []byte) []document {
	var docs []document
	cur := document{line: 1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxPolicyBytes+1)
	line := 0
	for sc.Scan() {
		line++
		if documentSeparator.Match(sc.Bytes()) {
			docs = append(docs, cur)
			cur = document{line: line + 1}
			continue
		}
		cur.text = append(append(cur.text, sc.Bytes()...), '\n')
	}
	return append(docs, cur)
}

// stripComments drops YAML comment lines, so that a document of comments
// alone counts as empty.
func stripComments(b []byte) []byte {
	var out []byte
	for line := range bytes.Lines(b) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
		}
	}
	return out
}

// yamlError makes the YAML library's account of a bad document read as
// one sentence about the document.
func yamlError(err error) string {
	s := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: "} {
		s = strings.TrimPrefix(s, prefix)
	}
	return s
}

// decodePolicy reads one document as a ToolPolicy, strictly: a repeated
// key or an unknown field is a mistake — a misspelt field is one the API
// server would drop, and the rule with it.
func decodePolicy(doc []byte) (toolgatev1alpha1.ToolPolicy, error) {
	var p toolgatev1alpha1.ToolPolicy
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return p, errors.New(yamlError(err))
	}
	var tm metav1.TypeMeta
	if err := jsonv2.Unmarshal(j, &tm); err != nil {
		return p, fieldError(err)
	}
	if tm.Kind != "ToolPolicy" || tm.APIVersion != toolgatev1alpha1.GroupVersion.String() {
		return p, fmt.Errorf("apiVersion %q, kind %q: want %s, ToolPolicy", tm.APIVersion, tm.Kind, toolgatev1alpha1.GroupVersion)
	}
	if err := jsonv2.Unmarshal(j, &p, jsonv2.RejectUnknownMembers(true)); err != nil {
		return p, fieldError(err)
	}
	if err := validatePolicy(&p); err != nil {
		return p, fmt.Errorf("ToolPolicy %q: %w", p.Name, err)
	}
	return p, nil
}

// fieldError names the field a document could not be read at, as
// kubectl names fields: spec.argumentRules[0].expression.
func fieldError(err error) error {
	var se *jsonv2.SemanticError
	if !errors.As(err, &se) || se.JSONPointer == "" {
		return err
	}
	field := fieldPath(se.JSONPointer)
	switch {
	case errors.Is(se.Err, jsonv2.ErrUnknownName):
		return fmt.Errorf("%s: unknown field", field)
	case se.Err != nil:
		return fmt.Errorf("%s: %w", field, se.Err)
	case se.GoType != nil && se.JSONKind != 0:
		return fmt.Errorf("%s: a JSON %s, where %s is wanted", field, se.JSONKind, se.GoType)
	}
	return fmt.Errorf("%s: %w", field, err)
}

// fieldPath renders a JSON Pointer as a field path.
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(string(p), "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// validatePolicy checks what the CRD's schema and rules would refuse at
// admission, of what check-call reads: a policy the API server would not
// admit must not pass a pipeline.
func validatePolicy(p *toolgatev1alpha1.ToolPolicy) error {
	if p.Name == "" || len(p.Name) > 253 || !dns1123Domain.MatchString(p.Name) {
		return fmt.Errorf("metadata.name %q: want a Kubernetes object name", p.Name)
	}
	s := &p.Spec
	if len(s.Servers) == 0 {
		return errors.New("spec.servers: required, at least one MCPServer")
	}
	for i, ref := range s.Servers {
		if !dns1123Label.MatchString(ref.Namespace) || len(ref.Namespace) > 63 || !dns1123Domain.MatchString(ref.Name) || len(ref.Name) > 253 {
			return fmt.Errorf("spec.servers[%d]: %q/%q is not the namespace and name of an MCPServer", i, ref.Namespace, ref.Name)
		}
	}
	if s.MaxLevel != "" && !s.MaxLevel.Valid() {
		return fmt.Errorf("spec.maxLevel %q: want L0 … L5", s.MaxLevel)
	}
	switch s.Mode {
	case "", toolgatev1alpha1.PolicyEnforce, toolgatev1alpha1.PolicyAudit:
	default:
		return fmt.Errorf("spec.mode %q: want Enforce or Audit", s.Mode)
	}
	if s.AgentTrustLevel != 0 && (s.AgentTrustLevel < 1 || s.AgentTrustLevel > 5) {
		return fmt.Errorf("spec.agentTrustLevel %d: want 1 to 5", s.AgentTrustLevel)
	}
	switch s.ArgumentFloors {
	case "", toolgatev1alpha1.ArgumentFloorsEnabled, toolgatev1alpha1.ArgumentFloorsDisabled:
	default:
		return fmt.Errorf("spec.argumentFloors %q: want Enabled or Disabled", s.ArgumentFloors)
	}
	if a := s.Approval; a != nil {
		if a.MinLevel == "" && len(a.Categories) == 0 && len(a.Tools) == 0 {
			return errors.New("spec.approval: needs at least one of minLevel, categories and tools")
		}
		if a.MinLevel != "" && !a.MinLevel.Valid() {
			return fmt.Errorf("spec.approval.minLevel %q: want L0 … L5", a.MinLevel)
		}
		if a.MinLevel != "" && s.MaxLevel != "" && a.MinLevel.Compare(s.MaxLevel) > 0 {
			return errors.New("spec.approval.minLevel: above maxLevel can never apply: tools above maxLevel are withheld")
		}
		for i, t := range a.Tools {
			if err := validateToolReference(t); err != nil {
				return fmt.Errorf("spec.approval.tools[%d]: %w", i, err)
			}
		}
	}
	if len(s.ArgumentRules) > 128 {
		return fmt.Errorf("spec.argumentRules: %d rules, at most 128", len(s.ArgumentRules))
	}
	names := map[string]bool{}
	for i := range s.ArgumentRules {
		if err := validateArgumentRule(&s.ArgumentRules[i]); err != nil {
			return fmt.Errorf("spec.argumentRules[%d].%w", i, err)
		}
		if n := s.ArgumentRules[i].Name; names[n] {
			return fmt.Errorf("spec.argumentRules[%d].name %q: duplicate", i, n)
		}
		names[s.ArgumentRules[i].Name] = true
	}
	return nil
}

func validateArgumentRule(r *toolgatev1alpha1.ArgumentRule) error {
	switch {
	case r.Name == "" || len(r.Name) > 63 || !dns1123Label.MatchString(r.Name):
		return fmt.Errorf("name %q: want a lower-case DNS label of at most 63 characters", r.Name)
	case len(r.Tools) == 0 || len(r.Tools) > 64:
		return fmt.Errorf("tools: %d entries, want 1 to 64", len(r.Tools))
	case r.Expression == "" || len(r.Expression) > gateproto.MaxExpressionBytes:
		return fmt.Errorf("expression: want 1 to %d bytes", gateproto.MaxExpressionBytes)
	case len(r.Message) > 256:
		return errors.New("message: longer than 256 characters")
	}
	for i, t := range r.Tools {
		if err := validateToolReference(t); err != nil {
			return fmt.Errorf("tools[%d]: %w", i, err)
		}
	}
	switch r.Action {
	case toolgatev1alpha1.ArgumentRuleRefuse, toolgatev1alpha1.ArgumentRuleHold:
		if r.Level != "" {
			return errors.New("level: level is set with action RaiseLevel, and only with it")
		}
	case toolgatev1alpha1.ArgumentRuleRaiseLevel:
		if !r.Level.Valid() {
			return fmt.Errorf("level %q: action RaiseLevel needs a level, L0 … L5", r.Level)
		}
	default:
		return fmt.Errorf("action %q: want Refuse, Hold or RaiseLevel", r.Action)
	}
	return nil
}

func validateToolReference(t toolgatev1alpha1.ToolReference) error {
	if t.Name == "" || len(t.Name) > 128 {
		return fmt.Errorf("name %q: want 1 to 128 bytes", t.Name)
	}
	if t.Server != "" && (len(t.Server) > 317 || !serverRef.MatchString(t.Server)) {
		return fmt.Errorf("server %q: must be \"namespace/name\" of an MCPServer", t.Server)
	}
	return nil
}

// policySet is the policies that select one pod, taken together as the
// operator takes them for the pod's gate (package policy, Evaluate): the
// strictest of each setting, and every argument rule of every policy.
type policySet struct {
	names []string
	mode  gateproto.Mode
	// ceiling is the lowest of the policies' ceilings, a policy without
	// maxLevel counting at the cluster's default.
	ceiling toolgatev1alpha1.Level
	// approvalLevel is the lowest approval.minLevel; empty when no policy
	// holds calls by level.
	approvalLevel toolgatev1alpha1.Level
	trust         int32
	floorsOff     bool
	approvals     []policy.ApprovalRule
	rules         []policy.ArgumentRule
	// servers are the MCPServers the policies reference, each with the
	// tool lists of the policies that narrow it.
	servers map[string]map[string][]string
	// namespace is the policies' namespace, when they all say the same.
	namespace string
	selectors map[string]metav1.LabelSelector
}

// combine takes policies together, in the operator's order: by name,
// under the operator's default ceiling (L3) and no cap.
func combine(policies []toolgatev1alpha1.ToolPolicy) policySet {
	return combineUnder(policies, "", "")
}

// combineUnder is combine under a cluster's default ceiling, for a policy
// that names none, and cap, which no policy rises above (the operator's
// --default-max-level and --max-level-cap; empty for L3 and none).
func combineUnder(policies []toolgatev1alpha1.ToolPolicy, defaultCeiling, ceilingCap toolgatev1alpha1.Level) policySet {
	policies = slices.Clone(policies)
	slices.SortFunc(policies, func(a, b toolgatev1alpha1.ToolPolicy) int { return cmp.Compare(a.Name, b.Name) })
	set := policySet{
		mode: gateproto.ModeAudit, ceiling: toolgatev1alpha1.LevelCritical, trust: 5, floorsOff: true,
		servers: map[string]map[string][]string{}, selectors: map[string]metav1.LabelSelector{},
	}
	namespaces := map[string]bool{}
	for i := range policies {
		p := &policies[i]
		s := &p.Spec
		set.names = append(set.names, p.Name)
		namespaces[p.Namespace] = true
		set.selectors[p.Name] = s.PodSelector
		if cmp.Or(s.Mode, toolgatev1alpha1.DefaultPolicyMode) != toolgatev1alpha1.PolicyAudit {
			set.mode = gateproto.ModeEnforce
		}
		c := cmp.Or(s.MaxLevel, defaultCeiling, toolgatev1alpha1.DefaultMaxLevel)
		if ceilingCap != "" && c.Compare(ceilingCap) > 0 {
			c = ceilingCap
		}
		if c.Compare(set.ceiling) < 0 {
			set.ceiling = c
		}
		set.trust = min(set.trust, cmp.Or(s.AgentTrustLevel, toolgatev1alpha1.DefaultAgentTrustLevel))
		if cmp.Or(s.ArgumentFloors, toolgatev1alpha1.DefaultArgumentFloors) != toolgatev1alpha1.ArgumentFloorsDisabled {
			set.floorsOff = false
		}
		if a := s.Approval; a != nil {
			set.approvals = append(set.approvals, policy.ApprovalRulesOf(p.Name, a)...)
			if a.MinLevel != "" && (set.approvalLevel == "" || a.MinLevel.Compare(set.approvalLevel) < 0) {
				set.approvalLevel = a.MinLevel
			}
		}
		for _, ref := range s.Servers {
			id := ref.Namespace + "/" + ref.Name
			if set.servers[id] == nil {
				set.servers[id] = map[string][]string{}
			}
			if len(ref.Tools) > 0 {
				set.servers[id][p.Name] = ref.Tools
			}
		}
	}
	// Every policy's rules, each compiled once, scoped to its policy's
	// servers: the operator's own gathering.
	set.rules = policy.ArgumentRulesOf(policies)
	if len(namespaces) == 1 {
		for ns := range namespaces {
			set.namespace = ns
		}
	}
	return set
}

// notListed says which policy's tool list for server leaves tool out, or
// "" when every list names it (or none narrows the server).
func (s *policySet) notListed(server, tool string) string {
	lists := s.servers[server]
	for _, p := range slices.Sorted(maps.Keys(lists)) {
		if !slices.Contains(lists[p], tool) {
			return p
		}
	}
	return ""
}

// unselecting names the policies whose podSelector does not select a pod
// with these labels: the operator would not take them for that pod.
func (s *policySet) unselecting(podLabels map[string]string) []string {
	var out []string
	for _, name := range s.names {
		sel := s.selectors[name]
		selector, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil || !selector.Matches(labels.Set(podLabels)) {
			out = append(out, name)
		}
	}
	return out
}
