package argrule

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// maxSchemaHops bounds how many $ref, anyOf, oneOf and allOf steps are
// followed to read one subschema, so that a schema referring to itself
// ({"$ref": "#"}) ends.
const maxSchemaHops = 32

// schemaDoc is a tool's pinned input schema, read for what a rule may say of
// the values it describes: which member names exist and which CEL type a
// value has. It reads only what that needs (type, properties,
// additionalProperties, patternProperties, unevaluatedProperties, items,
// local $ref, and anyOf, oneOf and allOf where they reduce to one schema);
// whatever else the schema says leaves the value dyn and its names
// unchecked, which errs towards accepting the expression.
type schemaDoc struct {
	root any
}

// readSchema decodes an input schema; nil when there is none (absent,
// null) or it is not a JSON object, which says nothing of the arguments.
func readSchema(raw []byte) *schemaDoc {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil
	}
	if _, ok := root.(map[string]any); !ok {
		return nil
	}
	return &schemaDoc{root: root}
}

// shape is what a subschema says of a value.
type shape struct {
	// typ is the value's CEL type; dyn where the schema declares no type,
	// several, or "number" (a JSON number is an int or a double by how it
	// is written, not by the schema).
	typ *cel.Type
	// props are the subschemas of the declared properties.
	props map[string]any
	// extra is the subschema of members not in props
	// (additionalProperties), nil when there is none.
	extra any
	// closed: a member not in props and without extra is no argument.
	closed bool
	// items is the subschema of a list's elements, nil when there is none.
	items any
}

var vague = shape{typ: cel.DynType}

func (s shape) isList() bool { return s.items != nil || s.typ.Kind() == types.ListKind }

// shapeOf reads the shape of a subschema.
func (d *schemaDoc) shapeOf(node any) shape { return d.shapeAt(node, 0) }

func (d *schemaDoc) shapeAt(node any, hops int) shape {
	m, ok := node.(map[string]any)
	if !ok || hops > maxSchemaHops {
		return vague
	}
	if ref, ok := m["$ref"].(string); ok {
		target, ok := d.resolve(ref)
		if !ok {
			return vague
		}
		return d.shapeAt(target, hops+1)
	}
	for _, keyword := range []string{"anyOf", "oneOf"} {
		if branches, ok := m[keyword].([]any); ok {
			return d.alternatives(branches, hops)
		}
	}
	if branches, ok := m["allOf"].([]any); ok {
		// allOf wrapping a single schema (often a $ref with a description
		// beside it) is that schema; several would have to be merged.
		if len(branches) == 1 && !hasAny(m, "type", "properties", "items") {
			return d.shapeAt(branches[0], hops+1)
		}
		return vague
	}

	s := shape{typ: cel.DynType}
	typeName, nullable, several := declaredType(m["type"])
	if several {
		return vague
	}
	if props, ok := m["properties"].(map[string]any); ok {
		s.props = props
	}
	additional, hasAdditional := m["additionalProperties"]
	if sub, ok := additional.(map[string]any); ok {
		s.extra = sub
	}
	disallowed := additional == false
	s.closed = (s.props != nil || disallowed) && (!hasAdditional || disallowed) &&
		!hasAny(m, "patternProperties") && !opens(m["unevaluatedProperties"])
	if items, ok := m["items"].(map[string]any); ok {
		s.items = items
	}
	switch typeName {
	case "string":
		s.typ = cel.StringType
	case "integer":
		s.typ = cel.IntType
	case "boolean":
		s.typ = cel.BoolType
	case "null":
		s.typ = cel.NullType
	case "object":
		s.typ = cel.MapType(cel.StringType, cel.DynType)
	case "array":
		elem := cel.DynType
		if s.items != nil {
			elem = d.shapeAt(s.items, hops+1).typ
		}
		s.typ = cel.ListType(elem)
	}
	if nullable {
		s.typ = cel.DynType
	}
	return s
}

// declaredType reads "type": the one type named besides "null", whether
// "null" is named, and whether several other types are.
func declaredType(v any) (name string, nullable, several bool) {
	switch t := v.(type) {
	case string:
		return t, false, false
	case []any:
		for _, x := range t {
			switch n, _ := x.(string); {
			case n == "null":
				nullable = true
			case name == "":
				name = n
			default:
				several = true
			}
		}
	}
	return name, nullable, several
}

// alternatives reads anyOf or oneOf: one schema, or one and {"type":
// "null"} (how generators write an optional value), is that schema; more
// could be anything.
func (d *schemaDoc) alternatives(branches []any, hops int) shape {
	var only any
	count, nullable := 0, false
	for _, b := range branches {
		if m, ok := b.(map[string]any); ok && m["type"] == "null" && !hasAny(m, "properties", "items", "$ref") {
			nullable = true
			continue
		}
		only = b
		count++
	}
	if count != 1 {
		return vague
	}
	s := d.shapeAt(only, hops+1)
	if nullable {
		s.typ = cel.DynType
	}
	return s
}

// resolve follows a $ref within the schema: a JSON Pointer fragment
// ("#/$defs/Options", "#/definitions/x"). References to other documents,
// anchors and $id-relative URIs are not followed.
func (d *schemaDoc) resolve(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	pointer := ref[1:]
	node := d.root
	if pointer == "" {
		return node, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	for _, token := range strings.Split(pointer[1:], "/") {
		token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[token]
			if !ok {
				return nil, false
			}
			node = next
		default:
			return nil, false
		}
	}
	return node, true
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// opens reports whether unevaluatedProperties admits members: true or a
// schema. Absent or false keeps the object as its properties say.
func opens(v any) bool {
	return v != nil && v != false
}
