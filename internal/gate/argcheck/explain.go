package argcheck

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// maxExplainSteps bounds the walk that names the offending argument; it
// runs only on refused calls.
const maxExplainSteps = 10000

// check decodes and validates arguments. jsonschema-go decides; when it
// refuses, explain finds the argument to name, because the library's
// errors are prose that quotes the offending values.
func (c *compiled) check(raw []byte) (e *Error) {
	args, e := decodeArguments(raw)
	if e != nil {
		return e
	}
	// Whatever additionalProperties allows: a server binding arguments to
	// fields case-insensitively (encoding/json) reads such an argument as
	// the declared one, which the schema was not asked about.
	if e := c.foldedNames(args, "", 0); e != nil {
		return e
	}
	defer func() {
		if recover() != nil {
			e = refuse("", "arguments cannot be checked against the tool's input schema")
		}
	}()
	if c.resolved.Validate(args) == nil {
		return nil
	}
	x := explainer{refs: c.refs, steps: maxExplainSteps}
	if e := x.explain(c.root, args, "", 0); e != nil {
		return e
	}
	return refuse("", "arguments do not match the tool's input schema")
}

type explainer struct {
	refs  map[*jsonschema.Schema][]*jsonschema.Schema
	steps int
}

// explain returns the first rule of s that v, at pointer p, visibly breaks,
// or nil. It mirrors jsonschema-go for the keywords that name a cause and
// gives up (nil) where it cannot tell; the verdict is always the library's.
func (x *explainer) explain(s *jsonschema.Schema, v any, p string, depth int) *Error {
	x.steps--
	if s == nil || x.steps < 0 || depth > 2*MaxArgumentDepth {
		return nil
	}
	if isFalse(s) {
		return refuse(p, "not allowed here")
	}
	for _, t := range x.refs[s] {
		if e := x.explain(t, v, p, depth+1); e != nil {
			return e
		}
	}
	got := jsonType(v)
	if s.Type != "" || s.Types != nil {
		want := s.Types
		if s.Type != "" {
			want = []string{s.Type}
		}
		if !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
			return refuse(p, fmt.Sprintf("wrong type: want %s, got %s", strings.Join(want, " or "), got))
		}
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonschema.Equal(e, v) }) {
		return refuse(p, "not one of the allowed values")
	}
	if s.Const != nil && !jsonschema.Equal(*s.Const, v) {
		return refuse(p, "not the allowed value")
	}
	if e := explainScalar(s, v, p); e != nil {
		return e
	}
	for _, t := range s.AllOf {
		if e := x.explain(t, v, p, depth+1); e != nil {
			return e
		}
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if alts != nil && !slices.ContainsFunc(alts, func(t *jsonschema.Schema) bool { return x.explain(t, v, p, depth+1) == nil }) {
			return refuse(p, "matches none of the allowed forms")
		}
	}
	if s.If != nil {
		branch := s.Else
		if x.explain(s.If, v, p, depth+1) == nil {
			branch = s.Then
		}
		if e := x.explain(branch, v, p, depth+1); e != nil {
			return e
		}
	}
	switch v := v.(type) {
	case map[string]any:
		return x.explainObject(s, v, p, depth)
	case []any:
		return x.explainArray(s, v, p, depth)
	}
	return nil
}

func (x *explainer) explainObject(s *jsonschema.Schema, v map[string]any, p string, depth int) *Error {
	what := "property"
	if p == "" {
		what = "argument"
	}
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			return refuse(pointer(p, name), "missing required "+what)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.DependentRequired)) {
		if _, ok := v[name]; ok {
			for _, r := range s.DependentRequired[name] {
				if _, ok := v[r]; !ok {
					return refuse(pointer(p, r), "missing "+what+" required alongside "+strconv.Quote(bound(name)))
				}
			}
		}
	}
	if s.MinProperties != nil && len(v) < *s.MinProperties {
		return refuse(p, "fewer members than allowed")
	}
	if s.MaxProperties != nil && len(v) > *s.MaxProperties {
		return refuse(p, "more members than allowed")
	}
	declared := x.declared(s)
	for _, name := range slices.Sorted(maps.Keys(v)) {
		q := pointer(p, name)
		if s.PropertyNames != nil && x.explain(s.PropertyNames, name, q, depth+1) != nil {
			return refuse(q, what+" name not allowed")
		}
		matched := false
		if t, ok := s.Properties[name]; ok {
			matched = true
			if e := x.explain(t, v[name], q, depth+1); e != nil {
				return e
			}
		}
		for pat, t := range s.PatternProperties {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(name) {
				matched = true
				if e := x.explain(t, v[name], q, depth+1); e != nil {
					return e
				}
			}
		}
		switch {
		case matched:
		case s.AdditionalProperties != nil:
			if isFalse(s.AdditionalProperties) {
				return refuse(q, "unknown "+what)
			}
			if e := x.explain(s.AdditionalProperties, v[name], q, depth+1); e != nil {
				return e
			}
		case s.UnevaluatedProperties != nil && !declared[name]:
			if isFalse(s.UnevaluatedProperties) {
				return refuse(q, "unknown "+what)
			}
			if e := x.explain(s.UnevaluatedProperties, v[name], q, depth+1); e != nil {
				return e
			}
		}
	}
	return nil
}

// declared is the set of member names "properties" declares in s or in the
// subschemas that apply in place with it: the members unevaluatedProperties
// leaves alone (if those subschemas succeed).
func (x *explainer) declared(s *jsonschema.Schema) map[string]bool {
	if s.UnevaluatedProperties == nil {
		return nil
	}
	names := map[string]bool{}
	seen := map[*jsonschema.Schema]bool{}
	var add func(t *jsonschema.Schema)
	add = func(t *jsonschema.Schema) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		for k := range t.Properties {
			names[k] = true
		}
		for _, c := range inPlace(t, x.refs) {
			if c != t.Not { // "not" leaves no annotations
				add(c)
			}
		}
	}
	add(s)
	return names
}

func (x *explainer) explainArray(s *jsonschema.Schema, v []any, p string, depth int) *Error {
	if s.MinItems != nil && len(v) < *s.MinItems {
		return refuse(p, "fewer items than allowed")
	}
	if s.MaxItems != nil && len(v) > *s.MaxItems {
		return refuse(p, "more items than allowed")
	}
	for i, item := range v {
		t := s.Items
		if i < len(s.PrefixItems) {
			t = s.PrefixItems[i]
		} else if i < len(s.ItemsArray) {
			t = s.ItemsArray[i]
		} else if s.ItemsArray != nil {
			t = s.AdditionalItems
		}
		if t == nil {
			continue
		}
		if isFalse(t) {
			return refuse(index(p, i), "more items than allowed")
		}
		if e := x.explain(t, item, index(p, i), depth+1); e != nil {
			return e
		}
	}
	if s.UniqueItems {
		for i := range v {
			for j := range i {
				if jsonschema.Equal(v[i], v[j]) {
					return refuse(index(p, i), "repeats an earlier item")
				}
			}
		}
	}
	if s.Contains != nil && (s.MinContains == nil || *s.MinContains > 0) &&
		!slices.ContainsFunc(v, func(item any) bool { return x.explain(s.Contains, item, p, depth+1) == nil }) {
		return refuse(p, "no item of the required form")
	}
	return nil
}

func explainScalar(s *jsonschema.Schema, v any, p string) *Error {
	if str, ok := v.(string); ok {
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			return refuse(p, fmt.Sprintf("shorter than %d characters", *s.MinLength))
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return refuse(p, fmt.Sprintf("longer than %d characters", *s.MaxLength))
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(str) {
				return refuse(p, "does not match the required pattern")
			}
		}
		return nil
	}
	r := exact(v)
	if r == nil {
		return nil
	}
	cmp := func(f float64) int { return r.Cmp(new(big.Rat).SetFloat64(f)) }
	switch {
	case s.Minimum != nil && cmp(*s.Minimum) < 0:
		return refuse(p, "less than the minimum "+num(*s.Minimum))
	case s.ExclusiveMinimum != nil && cmp(*s.ExclusiveMinimum) <= 0:
		return refuse(p, "not greater than "+num(*s.ExclusiveMinimum))
	case s.Maximum != nil && cmp(*s.Maximum) > 0:
		return refuse(p, "greater than the maximum "+num(*s.Maximum))
	case s.ExclusiveMaximum != nil && cmp(*s.ExclusiveMaximum) >= 0:
		return refuse(p, "not less than "+num(*s.ExclusiveMaximum))
	case s.MultipleOf != nil && *s.MultipleOf != 0:
		// As jsonschema-go does: in float64.
		f, _ := r.Float64()
		if _, frac := math.Modf(f / *s.MultipleOf); frac != 0 {
			return refuse(p, "not a multiple of "+num(*s.MultipleOf))
		}
	}
	return nil
}

// isFalse reports whether s is the schema false, as jsonschema-go reads it
// ({"not": {}}).
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !isTrue(s.Not) {
		return false
	}
	t := *s
	t.Not = nil
	return isTrue(&t)
}

func isTrue(s *jsonschema.Schema) bool {
	b, err := s.MarshalJSON()
	return err == nil && string(b) == "true"
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64, uint64:
		return "integer"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// exact is v's value if v is a number, else nil.
func exact(v any) *big.Rat {
	switch v := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(v)
	case uint64:
		return new(big.Rat).SetUint64(v)
	case float64:
		return new(big.Rat).SetFloat64(v)
	}
	return nil
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// bound shortens a schema-supplied name quoted in a Reason.
func bound(s string) string {
	if len(s) <= 64 {
		return s
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// foldedNames refuses a member, at any depth of the arguments, whose name
// is a property the schema declares but for case or Unicode folding.
func (c *compiled) foldedNames(v any, p string, depth int) *Error {
	if depth > MaxArgumentDepth {
		return nil // deeper than decodeArguments lets through
	}
	switch v := v.(type) {
	case map[string]any:
		for name, member := range v {
			if names, ok := c.declared[namefold.Key(name)]; ok && !slices.Contains(names, name) {
				return refuse(pointer(p, name), "an argument named as the declared "+strconv.Quote(names[0])+" but for case")
			}
			if e := c.foldedNames(member, pointer(p, name), depth+1); e != nil {
				return e
			}
		}
	case []any:
		for i, item := range v {
			if e := c.foldedNames(item, index(p, i), depth+1); e != nil {
				return e
			}
		}
	}
	return nil
}
