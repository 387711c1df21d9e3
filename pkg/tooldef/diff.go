package tooldef

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/toolgate/toolgate/pkg/clip"
)

// maxDetailQuote bounds a value quoted in a change's detail line, so that
// a long title leaves room for the rest of the line.
const maxDetailQuote = 240

// Kinds of change, matching the ChangeKind values of the toolgate API.
const (
	KindCosmetic               = "Cosmetic"
	KindDescriptionChanged     = "DescriptionChanged"
	KindTitleChanged           = "TitleChanged"
	KindSchemaWidened          = "SchemaWidened"
	KindSchemaNarrowed         = "SchemaNarrowed"
	KindSchemaChanged          = "SchemaChanged"
	KindOutputSchemaChanged    = "OutputSchemaChanged"
	KindAnnotationsLoweredRisk = "AnnotationsLoweredRisk"
	KindAnnotationsRaisedRisk  = "AnnotationsRaisedRisk"
	KindAnnotationsChanged     = "AnnotationsChanged"
	KindMetaChanged            = "MetaChanged"
	// KindNewInstructions is added by callers that scan both definitions
	// and find poisoning signals only in the new one.
	KindNewInstructions = "NewInstructions"
)

// Diff explains how two definitions of one tool differ.
type Diff struct {
	// From and To are the old and new fingerprints.
	From string `json:"from"`
	To   string `json:"to"`
	// Parts lists the parts whose digests differ, in Parts order.
	Parts []string `json:"parts"`
	// Kinds classifies the change; sorted.
	Kinds []string `json:"kinds"`
	// Properties lists schema property changes.
	Properties []PropertyChange `json:"properties,omitempty"`
	// Annotations lists annotation changes, hints and declared fields.
	Annotations []AnnotationChange `json:"annotations,omitempty"`
	// LowersDeclaredRisk is true when the server now declares its tool
	// safer than before: a warning sign, not a comfort.
	LowersDeclaredRisk bool `json:"lowersDeclaredRisk"`
	// Details are human-readable lines, one per fact.
	Details []string `json:"details"`
}

// PropertyChange is one changed property of a schema.
type PropertyChange struct {
	// Schema is inputSchema or outputSchema.
	Schema string `json:"schema"`
	// Path is the property path: "a", "a.b" for nested objects, "a[]" for
	// array items.
	Path string `json:"path"`
	// Change is added, removed or changed.
	Change string `json:"change"`
	// Aspects lists what changed of a changed property: type, enum,
	// default, required, description, other.
	Aspects []string `json:"aspects,omitempty"`
}

// AnnotationChange is one changed annotation.
type AnnotationChange struct {
	// Key is the annotation, such as destructiveHint or riskLevel.
	Key string `json:"key"`
	// Old and New are the values, JSON-encoded; "" when absent.
	Old string `json:"old"`
	New string `json:"new"`
	// Direction is "lower", "higher" or "" when the change says nothing
	// about risk.
	Direction string `json:"direction,omitempty"`
}

// Compare explains how b differs from a. It returns nil when the
// fingerprints are equal.
func Compare(a, b *Tool) *Diff {
	if a.Fingerprint() == b.Fingerprint() {
		return nil
	}
	d := &Diff{From: a.Fingerprint(), To: b.Fingerprint()}
	kinds := map[string]bool{}
	for _, p := range Parts {
		if a.partDigests[p] != b.partDigests[p] {
			d.Parts = append(d.Parts, p)
		}
	}
	for _, p := range d.Parts {
		switch p {
		case PartName:
			d.Details = append(d.Details, fmt.Sprintf("name changed from %q to %q", a.Name, b.Name))
		case PartTitle:
			kinds[KindTitleChanged] = true
			d.Details = append(d.Details, fmt.Sprintf("title changed from %q to %q", clip.String(a.Title, maxDetailQuote), clip.String(b.Title, maxDetailQuote)))
		case PartDescription:
			if collapseSpace(a.Description) == collapseSpace(b.Description) {
				kinds[KindCosmetic] = true
				d.Details = append(d.Details, "description changed in whitespace only")
			} else {
				kinds[KindDescriptionChanged] = true
				d.Details = append(d.Details, fmt.Sprintf("description changed (%d → %d characters)", len(a.Description), len(b.Description)))
			}
		case PartInputSchema:
			widened, narrowed, changed := d.compareSchemas(PartInputSchema, a.InputSchema, b.InputSchema)
			kinds[KindSchemaWidened] = kinds[KindSchemaWidened] || widened
			kinds[KindSchemaNarrowed] = kinds[KindSchemaNarrowed] || narrowed
			if changed || (!widened && !narrowed) {
				kinds[KindSchemaChanged] = true
			}
		case PartOutputSchema:
			kinds[KindOutputSchemaChanged] = true
			d.compareSchemas(PartOutputSchema, a.OutputSchema, b.OutputSchema)
		case PartAnnotations:
			lower, higher := d.compareAnnotations(a, b)
			d.LowersDeclaredRisk = lower
			switch {
			case lower:
				kinds[KindAnnotationsLoweredRisk] = true
			case higher:
				kinds[KindAnnotationsRaisedRisk] = true
			default:
				kinds[KindAnnotationsChanged] = true
			}
		case PartMeta:
			kinds[KindMetaChanged] = true
			d.Details = append(d.Details, "_meta changed")
		case PartOther:
			kinds[KindMetaChanged] = true
			d.Details = append(d.Details, "fields outside the MCP tool definition changed")
		}
	}
	for k, on := range kinds {
		if on {
			d.Kinds = append(d.Kinds, k)
		}
	}
	sort.Strings(d.Kinds)
	return d
}

// compareSchemas records property changes and reports whether the schema
// was widened (accepts more: new properties, fewer required, more enum
// values, extra properties allowed), narrowed, or changed otherwise.
func (d *Diff) compareSchemas(schema string, a, b any) (widened, narrowed, changed bool) {
	before := len(d.Properties)
	pa, pb := flattenProperties(a), flattenProperties(b)
	paths := map[string]bool{}
	for p := range pa {
		paths[p] = true
	}
	for p := range pb {
		paths[p] = true
	}
	for _, path := range SortedKeys(paths) {
		oldP, inA := pa[path]
		newP, inB := pb[path]
		switch {
		case !inA:
			widened = true
			d.Properties = append(d.Properties, PropertyChange{Schema: schema, Path: path, Change: "added"})
			d.Details = append(d.Details, fmt.Sprintf("%s: property %q added", schema, path))
		case !inB:
			narrowed = true
			d.Properties = append(d.Properties, PropertyChange{Schema: schema, Path: path, Change: "removed"})
			d.Details = append(d.Details, fmt.Sprintf("%s: property %q removed", schema, path))
		default:
			aspects := propertyAspects(oldP, newP)
			if len(aspects) == 0 {
				continue
			}
			d.Properties = append(d.Properties, PropertyChange{Schema: schema, Path: path, Change: "changed", Aspects: aspects})
			d.Details = append(d.Details, fmt.Sprintf("%s: property %q changed: %s", schema, path, strings.Join(aspects, ", ")))
			for _, aspect := range aspects {
				switch aspect {
				case "required":
					if oldP.required && !newP.required {
						widened = true
					} else {
						narrowed = true
					}
				case "enum":
					switch oldEnum, newEnum := oldP.schema.Get("enum"), newP.schema.Get("enum"); {
					case newEnum == nil:
						widened = true // the enum is gone: any value goes
					case oldEnum == nil:
						narrowed = true // an enum appeared: fewer values go
					default:
						added, removed := setDelta(oldEnum, newEnum)
						widened = widened || added
						narrowed = narrowed || removed
					}
				case "description":
				default:
					changed = true
				}
			}
		}
	}
	// A schema that starts or stops admitting arbitrary extra properties.
	if ap, bp := additionalAllowed(a), additionalAllowed(b); ap != bp {
		if bp {
			widened = true
			d.Details = append(d.Details, schema+": now admits properties it does not declare")
		} else {
			narrowed = true
			d.Details = append(d.Details, schema+": no longer admits undeclared properties")
		}
	}
	if len(d.Properties) == before && !widened && !narrowed {
		changed = true
		d.Details = append(d.Details, schema+" changed outside its properties")
	}
	return widened, narrowed, changed
}

type property struct {
	schema   *Object
	required bool
}

// flattenProperties maps each property path of an object schema to its
// schema, descending into nested objects and array items.
func flattenProperties(schema any) map[string]property {
	out := map[string]property{}
	var walk func(prefix string, s *Object, depth int)
	walk = func(prefix string, s *Object, depth int) {
		if depth > 32 {
			return
		}
		required := map[string]bool{}
		if req := s.GetArray("required"); req != nil {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for _, m := range s.GetObject("properties").Members() {
			name := m.Key
			ps, _ := m.Value.(*Object)
			path := name
			if prefix != "" {
				path = prefix + "." + name
			}
			out[path] = property{schema: ps, required: required[name]}
			if ps != nil {
				walk(path, ps, depth+1)
			}
		}
		if items := s.GetObject("items"); items != nil {
			path := prefix + "[]"
			if prefix != "" {
				out[path] = property{schema: items}
			}
			walk(path, items, depth+1)
		}
	}
	if s, ok := schema.(*Object); ok && s != nil {
		walk("", s, 0)
	}
	return out
}

// propertyAspects names what differs between two versions of a property,
// ignoring nested properties (they are compared under their own paths).
func propertyAspects(a, b property) []string {
	var aspects []string
	if a.required != b.required {
		aspects = append(aspects, "required")
	}
	keys := map[string]bool{}
	for _, m := range a.schema.Members() {
		keys[m.Key] = true
	}
	for _, m := range b.schema.Members() {
		keys[m.Key] = true
	}
	other := false
	for _, k := range SortedKeys(keys) {
		if k == "properties" || k == "items" || k == "required" {
			continue
		}
		if reflect.DeepEqual(a.schema.Get(k), b.schema.Get(k)) {
			continue
		}
		switch k {
		case "type", "enum", "default", "description":
			aspects = append(aspects, k)
		default:
			other = true
		}
	}
	if other {
		aspects = append(aspects, "other")
	}
	return aspects
}

func setDelta(a, b any) (added, removed bool) {
	as, _ := a.([]any)
	bs, _ := b.([]any)
	key := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, v := range as {
		inA[key(v)] = true
	}
	for _, v := range bs {
		inB[key(v)] = true
	}
	for k := range inB {
		if !inA[k] {
			added = true
		}
	}
	for k := range inA {
		if !inB[k] {
			removed = true
		}
	}
	return added, removed
}

func additionalAllowed(schema any) bool {
	s, ok := schema.(*Object)
	if !ok || s == nil {
		return true
	}
	if v, ok := s.Get("additionalProperties").(bool); ok {
		return v
	}
	return true
}

// Order of declared values, from least to most risky, for the annotations
// whose direction of change says something.
var declaredOrder = map[string][]string{
	"riskLevel":              {"low", "medium", "high", "critical"},
	"category":               {"read", "observe", "utility", "mutate", "delete", "destroy"},
	"blastRadius":            {"item", "namespace", "cluster", "organization", "global"},
	"reversibility":          {"auto", "manual", "none"},
	"approvalRecommendation": {"none", "single", "multi"},
}

// riskyHintValue is the value of each hint that means more risk.
var riskyHintValue = map[string]bool{
	"readOnlyHint":    false,
	"destructiveHint": true,
	"idempotentHint":  false,
	"openWorldHint":   true,
}

func (d *Diff) compareAnnotations(a, b *Tool) (lower, higher bool) {
	keys := map[string]bool{}
	for _, m := range a.Annotations.Members() {
		keys[m.Key] = true
	}
	for _, m := range b.Annotations.Members() {
		keys[m.Key] = true
	}
	for _, k := range SortedKeys(keys) {
		av, bv := a.Annotations.Get(k), b.Annotations.Get(k)
		if reflect.DeepEqual(av, bv) {
			continue
		}
		c := AnnotationChange{Key: k, Old: encode(av), New: encode(bv)}
		c.Direction = direction(k, av, bv)
		switch c.Direction {
		case "lower":
			lower = true
		case "higher":
			higher = true
		}
		d.Annotations = append(d.Annotations, c)
		line := fmt.Sprintf("annotations.%s changed from %s to %s", k, orAbsent(c.Old), orAbsent(c.New))
		if c.Direction == "lower" {
			line += ": the server now declares less risk"
		}
		d.Details = append(d.Details, line)
	}
	return lower, higher
}

func direction(key string, a, b any) string {
	if risky, ok := riskyHintValue[key]; ok {
		bb, _ := b.(bool)
		if bb == risky {
			return "higher"
		}
		return "lower"
	}
	if order, ok := declaredOrder[key]; ok {
		ia, ib := indexOf(order, a), indexOf(order, b)
		switch {
		case ia < 0 || ib < 0:
			// Declaring something where nothing was is neither; dropping a
			// declaration loses information, treated as lowering.
			if ia >= 0 && ib < 0 {
				return "lower"
			}
			return ""
		case ib < ia:
			return "lower"
		case ib > ia:
			return "higher"
		}
		return ""
	}
	switch key {
	case "minTrustLevel":
		fa, okA := number(a)
		fb, okB := number(b)
		if okA && (!okB || fb < fa) {
			return "lower"
		}
		if okB && (!okA || fb > fa) {
			return "higher"
		}
	case "sideEffects":
		added, removed := setDelta(a, b)
		if removed {
			return "lower"
		}
		if added {
			return "higher"
		}
	}
	return ""
}

func indexOf(order []string, v any) int {
	s, ok := v.(string)
	if !ok {
		return -1
	}
	for i, o := range order {
		if o == s {
			return i
		}
	}
	return -1
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

func encode(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
