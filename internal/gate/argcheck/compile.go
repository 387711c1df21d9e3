package argcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// MaxSchemaSize is the largest inputSchema Compile accepts, in bytes.
const MaxSchemaSize = 1 << 20

// MaxSchemaDepth is how deeply an inputSchema's JSON may nest. jsonschema-go
// decodes each nested schema afresh from its bytes, so decoding costs about
// the schema's size times its depth; the bound keeps that linear.
const MaxSchemaDepth = 32

// maxEvaluations bounds how many subschema evaluations one path through the
// arguments may need (see cost).
const maxEvaluations = 1 << 16

// draft URIs jsonschema-go validates, as it spells them.
const (
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
	draft07     = "http://json-schema.org/draft-07/schema#"
)

var errRemote = errors.New("remote references are not followed")

// compiled is a pinned input schema ready to check calls.
type compiled struct {
	resolved *jsonschema.Resolved
	root     *jsonschema.Schema
	refs     map[*jsonschema.Schema][]*jsonschema.Schema // $ref and $dynamicRef targets
	// declared maps the namefold.Key of every property name the schema
	// declares, at any depth and under any applicator, to those names: an
	// argument of the same key but none of those names is a declared
	// property to a server decoding case-insensitively, and something
	// else to JSON Schema.
	declared map[string][]string
}

// uncheckable is the Error every call gets when its pinned schema cannot be
// compiled.
func uncheckable(why string, cause error) *Error {
	return &Error{Reason: "the tool's pinned input schema cannot be checked: " + why, cause: cause}
}

func compile(raw []byte) (c *compiled, e *Error) {
	defer func() {
		if r := recover(); r != nil {
			c, e = nil, uncheckable("the schema library failed on it", fmt.Errorf("panic: %v", r))
		}
	}()
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, uncheckable("it is missing", nil)
	}
	if len(raw) > MaxSchemaSize {
		return nil, uncheckable("it is too large", nil)
	}
	if err := scanSchema(raw); err != nil {
		return nil, uncheckable("it is not valid JSON for the gate", err)
	}
	root := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, root); err != nil {
		return nil, uncheckable("it is not a valid schema", err)
	}
	draft7 := false
	switch normalizeDraft(root.Schema) {
	case "":
	case draft202012:
		root.Schema = draft202012
	case draft07:
		root.Schema = draft07
		draft7 = true
	default:
		return nil, uncheckable("its $schema is not draft 2020-12 or draft-07", nil)
	}
	if err := checkKeywords(root, draft7); err != nil {
		return nil, uncheckable("it uses a keyword the gate cannot enforce as written", err)
	}
	tighten(root)

	resolved, err := root.Resolve(&jsonschema.ResolveOptions{
		Loader: func(*url.URL) (*jsonschema.Schema, error) { return nil, errRemote },
	})
	if errors.Is(err, errRemote) {
		return nil, uncheckable("it refers to a schema outside itself, which the gate does not fetch", err)
	}
	if err != nil {
		return nil, uncheckable("it is not a valid schema", err)
	}
	refs, err := resolveRefs(root, draft7)
	if err != nil {
		return nil, uncheckable("it has a reference the gate cannot follow", err)
	}
	if err := cost(root, refs); err != nil {
		return nil, uncheckable("it is too costly to evaluate", err)
	}
	return &compiled{resolved: resolved, root: root, refs: refs, declared: declaredNames(raw)}, nil
}

// scanSchema refuses what encoding/json (which jsonschema-go decodes with)
// would read silently otherwise than a strict reader: duplicate member
// names (the last would win) and invalid UTF-8 (replaced). It also bounds
// nesting depth.
func scanSchema(raw []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if k := tok.Kind(); (k == '{' || k == '[') && dec.StackDepth() > MaxSchemaDepth {
			return fmt.Errorf("nested deeper than %d", MaxSchemaDepth)
		}
	}
}

// normalizeDraft maps the spellings of one draft's URI (http or https, with
// or without an empty fragment) to the one jsonschema-go recognises.
func normalizeDraft(s string) string {
	t := strings.TrimSuffix(s, "#")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "http://"), "https://")
	switch t {
	case "json-schema.org/draft/2020-12/schema":
		return draft202012
	case "json-schema.org/draft-07/schema":
		return draft07
	}
	return s
}

// keywords are the member names jsonschema-go reads into a Schema's fields.
var keywords = func() []string {
	names := []string{"type", "items", "dependencies"}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}()

// checkKeywords refuses schemas that jsonschema-go would enforce otherwise
// than a reader of the schema expects:
//
//   - a member whose name is a keyword but for case ("Required", "ſchema"):
//     encoding/json matches struct fields case-insensitively, so it would be
//     read as the keyword, possibly overriding the correctly spelled one;
//   - a keyword of the other draft, which the library ignores in this one:
//     in 2020-12, "items" as an array, "additionalItems", "dependencies";
//     in draft-07, "prefixItems", "dependentRequired", "dependentSchemas".
func checkKeywords(root *jsonschema.Schema, draft7 bool) error {
	var err error
	walk(root, func(s *jsonschema.Schema) bool {
		for name := range s.Extra {
			for _, k := range keywords {
				if name != k && strings.EqualFold(name, k) {
					err = fmt.Errorf("member %q is read as keyword %q", name, k)
					return false
				}
			}
		}
		switch {
		case !draft7 && s.ItemsArray != nil:
			err = errors.New(`"items" as an array is draft-07; 2020-12 uses "prefixItems"`)
		case !draft7 && s.AdditionalItems != nil:
			err = errors.New(`"additionalItems" is draft-07; 2020-12 uses "items"`)
		case !draft7 && (s.DependencySchemas != nil || s.DependencyStrings != nil):
			err = errors.New(`"dependencies" is draft-07; 2020-12 uses "dependentRequired" and "dependentSchemas"`)
		case draft7 && (s.PrefixItems != nil || s.DependentRequired != nil || s.DependentSchemas != nil):
			err = errors.New(`"prefixItems", "dependentRequired" and "dependentSchemas" are not draft-07`)
		}
		return err == nil
	})
	return err
}

// tighten refuses, at the top level, arguments the schema does not declare
// when it declares properties and is silent on the rest: it sets
// unevaluatedProperties to false, so that a member is allowed only if
// "properties" (here or in a subschema applying in place: allOf, anyOf,
// oneOf, $ref, then, else, …) declares it.
func tighten(root *jsonschema.Schema) {
	if root.Properties != nil && root.AdditionalProperties == nil &&
		root.PatternProperties == nil && root.UnevaluatedProperties == nil {
		root.UnevaluatedProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
}

// walk calls f on s and every subschema under it, preorder, until f returns
// false.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema) bool) bool {
	if s == nil {
		return true
	}
	if !f(s) {
		return false
	}
	for _, c := range children(s) {
		if !walk(c, f) {
			return false
		}
	}
	return true
}

// children lists the subschemas written inside s.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	var cs []*jsonschema.Schema
	cs = append(cs, inPlace(s, nil)...)
	cs = append(cs, members(s)...)
	cs = append(cs, elements(s)...)
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions} {
		for _, c := range m {
			cs = append(cs, c)
		}
	}
	if s.ContentSchema != nil {
		cs = append(cs, s.ContentSchema)
	}
	return cs
}

// inPlace lists the subschemas that apply to the same value as s,
// following refs (when given) to their targets.
func inPlace(s *jsonschema.Schema, refs map[*jsonschema.Schema][]*jsonschema.Schema) []*jsonschema.Schema {
	var cs []*jsonschema.Schema
	if refs != nil {
		cs = append(cs, refs[s]...)
	}
	cs = append(cs, s.AllOf...)
	cs = append(cs, s.AnyOf...)
	cs = append(cs, s.OneOf...)
	for _, c := range []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else} {
		if c != nil {
			cs = append(cs, c)
		}
	}
	for _, m := range []map[string]*jsonschema.Schema{s.DependentSchemas, s.DependencySchemas} {
		for _, c := range m {
			cs = append(cs, c)
		}
	}
	return cs
}

// members lists the subschemas that apply to an object's members.
func members(s *jsonschema.Schema) []*jsonschema.Schema {
	var cs []*jsonschema.Schema
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.PatternProperties} {
		for _, c := range m {
			cs = append(cs, c)
		}
	}
	for _, c := range []*jsonschema.Schema{s.AdditionalProperties, s.PropertyNames, s.UnevaluatedProperties} {
		if c != nil {
			cs = append(cs, c)
		}
	}
	return cs
}

// elements lists the subschemas that apply to an array's items.
func elements(s *jsonschema.Schema) []*jsonschema.Schema {
	var cs []*jsonschema.Schema
	cs = append(cs, s.PrefixItems...)
	cs = append(cs, s.ItemsArray...)
	for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems} {
		if c != nil {
			cs = append(cs, c)
		}
	}
	return cs
}

// declaredNames collects the member names of every "properties" object in
// a schema, wherever it is (a nested object's, an allOf branch's, a $defs
// entry's), by their namefold.Key. Reading the raw JSON over-collects at
// worst (a "properties" inside an enum value), which only refuses more
// arguments named as a declared one but for case.
func declaredNames(raw []byte) map[string][]string {
	out := map[string][]string{}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	var walk func(depth int) error
	walk = func(depth int) error {
		switch dec.PeekKind() {
		case '{':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return err
				}
				if tok.String() == "properties" && dec.PeekKind() == '{' && depth < MaxSchemaDepth {
					if _, err := dec.ReadToken(); err != nil {
						return err
					}
					for dec.PeekKind() != '}' {
						name, err := dec.ReadToken()
						if err != nil {
							return err
						}
						n := name.String()
						k := namefold.Key(n)
						if !slices.Contains(out[k], n) {
							out[k] = append(out[k], n)
						}
						if err := walk(depth + 1); err != nil {
							return err
						}
					}
					if _, err := dec.ReadToken(); err != nil {
						return err
					}
					continue
				}
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		case '[':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != ']' {
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		default:
			return dec.SkipValue()
		}
	}
	_ = walk(0) // the schema was read whole by scanSchema already
	return out
}
