package argcheck

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// resolveRefs finds, for every schema with a $ref or $dynamicRef, the
// schemas it may apply in place. It follows the rules jsonschema-go
// resolved them by (base URIs from $id, anchors, JSON Pointers into
// schemas); the library keeps its own resolution private, and the gate
// needs the graph to prove that checking terminates. A $dynamicRef is taken
// to reach every schema with a matching $dynamicAnchor, as it may at
// validation time.
func resolveRefs(root *jsonschema.Schema, draft7 bool) (map[*jsonschema.Schema][]*jsonschema.Schema, error) {
	type place struct {
		base     *url.URL
		resource *jsonschema.Schema
	}
	places := map[*jsonschema.Schema]place{}
	uris := map[string]*jsonschema.Schema{}
	anchors := map[*jsonschema.Schema]map[string]*jsonschema.Schema{}
	dynamic := map[string][]*jsonschema.Schema{}
	setAnchor := func(resource *jsonschema.Schema, name string, s *jsonschema.Schema) {
		if anchors[resource] == nil {
			anchors[resource] = map[string]*jsonschema.Schema{}
		}
		anchors[resource][name] = s
	}

	var err error
	var visit func(s *jsonschema.Schema, base *url.URL, resource *jsonschema.Schema)
	visit = func(s *jsonschema.Schema, base *url.URL, resource *jsonschema.Schema) {
		if s.ID != "" && !(draft7 && s.Ref != "") {
			id, perr := url.Parse(s.ID)
			switch {
			case perr != nil:
				err = perr
			case draft7 && id.Fragment != "":
				setAnchor(resource, strings.TrimPrefix(s.ID, "#"), s)
			default:
				base = base.ResolveReference(id)
				resource = s
				uris[base.String()] = s
			}
		}
		if !draft7 {
			if s.Anchor != "" {
				setAnchor(resource, s.Anchor, s)
			}
			if s.DynamicAnchor != "" {
				setAnchor(resource, s.DynamicAnchor, s)
				dynamic[s.DynamicAnchor] = append(dynamic[s.DynamicAnchor], s)
			}
		}
		places[s] = place{base, resource}
		for _, c := range children(s) {
			visit(c, base, resource)
		}
	}
	rootURI := &url.URL{}
	uris[rootURI.String()] = root
	visit(root, rootURI, root)
	if err != nil {
		return nil, err
	}

	lookup := func(s *jsonschema.Schema, ref string) (*jsonschema.Schema, string, error) {
		u, err := url.Parse(ref)
		if err != nil {
			return nil, "", err
		}
		u = places[s].base.ResolveReference(u)
		frag := u.Fragment
		u.Fragment, u.RawFragment = "", ""
		target := uris[u.String()]
		if target == nil {
			return nil, "", fmt.Errorf("%q is outside the schema", ref)
		}
		if frag == "" || strings.HasPrefix(frag, "/") {
			t := dereference(target, frag)
			if t == nil {
				return nil, "", fmt.Errorf("%q points at no schema", ref)
			}
			return t, "", nil
		}
		t := anchors[target][frag]
		if t == nil {
			return nil, "", fmt.Errorf("no anchor for %q", ref)
		}
		return t, frag, nil
	}

	refs := map[*jsonschema.Schema][]*jsonschema.Schema{}
	for s := range places {
		if s.Ref != "" {
			t, _, err := lookup(s, s.Ref)
			if err != nil {
				return nil, err
			}
			refs[s] = append(refs[s], t)
		}
		if s.DynamicRef != "" {
			t, frag, err := lookup(s, s.DynamicRef)
			if err != nil {
				return nil, err
			}
			refs[s] = append(refs[s], t)
			if frag != "" {
				refs[s] = append(refs[s], dynamic[frag]...)
			}
		}
	}
	return refs, nil
}

// dereference follows a JSON Pointer from s through schema keywords, as
// jsonschema-go does; nil if it leads to no schema.
func dereference(s *jsonschema.Schema, ptr string) *jsonschema.Schema {
	if ptr == "" {
		return s
	}
	if ptr[0] != '/' {
		return nil
	}
	segs := strings.Split(ptr[1:], "/")
	for i := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(segs[i], "~1", "/"), "~0", "~")
	}
	next := func(i *int) (string, bool) {
		*i++
		if *i >= len(segs) {
			return "", false
		}
		return segs[*i], true
	}
	at := func(list []*jsonschema.Schema, seg string, ok bool) *jsonschema.Schema {
		n, err := strconv.Atoi(seg)
		if !ok || err != nil || n < 0 || n >= len(list) || (len(seg) > 1 && seg[0] == '0') {
			return nil
		}
		return list[n]
	}
	key := func(m map[string]*jsonschema.Schema, seg string, ok bool) *jsonschema.Schema {
		if !ok {
			return nil
		}
		return m[seg]
	}
	for i := 0; i < len(segs) && s != nil; i++ {
		switch segs[i] {
		case "additionalProperties":
			s = s.AdditionalProperties
		case "propertyNames":
			s = s.PropertyNames
		case "unevaluatedProperties":
			s = s.UnevaluatedProperties
		case "unevaluatedItems":
			s = s.UnevaluatedItems
		case "additionalItems":
			s = s.AdditionalItems
		case "contains":
			s = s.Contains
		case "contentSchema":
			s = s.ContentSchema
		case "not":
			s = s.Not
		case "if":
			s = s.If
		case "then":
			s = s.Then
		case "else":
			s = s.Else
		case "items":
			if s.Items != nil {
				s = s.Items
			} else {
				seg, ok := next(&i)
				s = at(s.ItemsArray, seg, ok)
			}
		case "allOf":
			seg, ok := next(&i)
			s = at(s.AllOf, seg, ok)
		case "anyOf":
			seg, ok := next(&i)
			s = at(s.AnyOf, seg, ok)
		case "oneOf":
			seg, ok := next(&i)
			s = at(s.OneOf, seg, ok)
		case "prefixItems":
			seg, ok := next(&i)
			s = at(s.PrefixItems, seg, ok)
		case "$defs":
			seg, ok := next(&i)
			s = key(s.Defs, seg, ok)
		case "definitions":
			seg, ok := next(&i)
			s = key(s.Definitions, seg, ok)
		case "properties":
			seg, ok := next(&i)
			s = key(s.Properties, seg, ok)
		case "patternProperties":
			seg, ok := next(&i)
			s = key(s.PatternProperties, seg, ok)
		case "dependentSchemas":
			seg, ok := next(&i)
			s = key(s.DependentSchemas, seg, ok)
		case "dependencies":
			seg, ok := next(&i)
			s = key(s.DependencySchemas, seg, ok)
		default:
			return nil
		}
	}
	return s
}

// cost proves that checking arguments against root terminates and stays
// cheap. jsonschema-go follows $ref and the in-place applicators
// recursively, with no guard, so:
//
//   - a cycle of in-place applications ({"$ref": "#"}, two $defs that
//     $ref each other through allOf) would recurse until the stack
//     overflows, which kills the process: such a schema is refused;
//   - subschemas that apply several times to one value (allOf of two $refs
//     to a def that does the same, one level down) can multiply, and
//     recursion through anyOf branches that each descend into the same
//     member doubles the work per level of the arguments: the number of
//     evaluations along any one path into the arguments, up to
//     MaxArgumentDepth levels deep, must stay under maxEvaluations.
//
// A recursive schema that branches by member name (a binary tree with
// "left" and "right") costs one evaluation per level and is accepted.
func cost(root *jsonschema.Schema, refs map[*jsonschema.Schema][]*jsonschema.Schema) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*jsonschema.Schema]int{}
	var cyclic func(s *jsonschema.Schema) bool
	cyclic = func(s *jsonschema.Schema) bool {
		switch state[s] {
		case active:
			return true
		case done:
			return false
		}
		state[s] = active
		for _, c := range inPlace(s, refs) {
			if cyclic(c) {
				return true
			}
		}
		state[s] = done
		return false
	}
	var all []*jsonschema.Schema
	walk(root, func(s *jsonschema.Schema) bool { all = append(all, s); return true })
	for _, s := range all {
		if cyclic(s) {
			return errors.New("subschemas apply each other in place in a cycle")
		}
	}

	// closure lists, with repetition, every schema applied to a value that
	// root s is applied to; nil if longer than maxEvaluations.
	closures := map[*jsonschema.Schema][]*jsonschema.Schema{}
	var closure func(s *jsonschema.Schema) []*jsonschema.Schema
	closure = func(s *jsonschema.Schema) []*jsonschema.Schema {
		if cl, ok := closures[s]; ok {
			return cl
		}
		cl := []*jsonschema.Schema{s}
		for _, c := range inPlace(s, refs) {
			sub := closure(c)
			if sub == nil || len(cl)+len(sub) > maxEvaluations {
				cl = nil
				break
			}
			cl = append(cl, sub...)
		}
		closures[s] = cl
		return cl
	}

	type at struct {
		s *jsonschema.Schema
		d int
	}
	memo := map[at]int{}
	sat := func(n int) int { return min(n, maxEvaluations+1) }
	// evals is the most evaluations along one path of d levels into a value
	// s applies to.
	var evals func(s *jsonschema.Schema, d int) int
	evals = func(s *jsonschema.Schema, d int) int {
		if n, ok := memo[at{s, d}]; ok {
			return n
		}
		cl := closure(s)
		if cl == nil {
			return maxEvaluations + 1
		}
		n := len(cl)
		if d > 0 && n <= maxEvaluations {
			// A member named in some "properties" gets that subschema;
			// any member may get the patterned, additional and unevaluated
			// ones. The worst member decides.
			named := map[string]bool{}
			for _, t := range cl {
				for k := range t.Properties {
					named[k] = true
				}
			}
			anyMember := 0
			for _, t := range cl {
				for _, c := range t.PatternProperties {
					anyMember = sat(anyMember + evals(c, d-1))
				}
				for _, c := range []*jsonschema.Schema{t.AdditionalProperties, t.UnevaluatedProperties} {
					if c != nil {
						anyMember = sat(anyMember + evals(c, d-1))
					}
				}
				if t.PropertyNames != nil {
					anyMember = sat(anyMember + evals(t.PropertyNames, 0))
				}
			}
			worst := anyMember
			for k := range named {
				m := anyMember
				for _, t := range cl {
					if c := t.Properties[k]; c != nil {
						m = sat(m + evals(c, d-1))
					}
				}
				worst = max(worst, m)
			}
			// Items: every item subschema may apply to one item.
			item := 0
			for _, t := range cl {
				for _, c := range elements(t) {
					item = sat(item + evals(c, d-1))
				}
			}
			n = sat(n + max(worst, item))
		}
		memo[at{s, d}] = n
		return n
	}
	if evals(root, MaxArgumentDepth) > maxEvaluations {
		return fmt.Errorf("more than %d subschema evaluations along one path into the arguments", maxEvaluations)
	}
	return nil
}
