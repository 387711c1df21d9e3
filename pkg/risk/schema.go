package risk

import (
	"slices"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/pkg/keysort"
)

// param is one property of an input schema, wherever it was declared.
type param struct {
	name     string
	flat     string // lower-case, without _ - and .
	schema   map[string]any
	required bool
	nested   bool // declared below the top level
}

// wrapperNames are object parameters that only wrap the real arguments:
// a tool taking {"params": {"command": …}} takes a command.
var wrapperNames = map[string]bool{"params": true, "parameters": true, "input": true, "body": true, "request": true,
	"args": true, "arguments": true, "options": true, "payload": true, "data": true, "config": true, "spec": true}

// Walk bounds: a hostile schema cannot make the reading slow.
const (
	maxParams      = 256
	maxSchemaDepth = 8
)

// schemaParams reads every property of an input schema a caller can set:
// the top level, wrapper objects, the variants of anyOf, oneOf and allOf,
// array items, and local $ref into $defs or definitions. Arguments nested
// in any of these are as much the tool's as top-level ones.
func schemaParams(schema any) []param {
	root, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	var out []param
	// Most schemas have no $ref: the set is made on the first one.
	var seenRef map[string]bool
	// names holds each object's property names, sorted, while its
	// properties are read; nested objects push theirs after them, so one
	// buffer serves the whole walk.
	var names []string
	var walk func(node map[string]any, depth int, nested, requiredCtx bool)
	walk = func(node map[string]any, depth int, nested, requiredCtx bool) {
		if node == nil || depth > maxSchemaDepth || len(out) >= maxParams {
			return
		}
		if ref, ok := node["$ref"].(string); ok && !seenRef[ref] {
			if seenRef == nil {
				seenRef = map[string]bool{}
			}
			seenRef[ref] = true
			walk(resolveRef(root, ref), depth+1, nested, requiredCtx)
		}
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			if variants, ok := node[key].([]any); ok {
				for _, v := range variants {
					vm, _ := v.(map[string]any)
					walk(vm, depth+1, nested, requiredCtx && key == "allOf")
				}
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(items, depth+1, true, false)
		}
		props, _ := node["properties"].(map[string]any)
		if len(props) == 0 {
			return
		}
		req, _ := node["required"].([]any)
		if out == nil {
			out = make([]param, 0, len(props))
		}
		base := len(names)
		// Grown once to hold this object's names, rather than doubling
		// from nothing as they are appended.
		names = slices.Grow(names, len(props))
		for k := range props {
			names = append(names, k)
		}
		keysort.Bytewise(names[base:])
		defer func() { names = names[:base] }()
		for i := base; i < base+len(props); i++ {
			name := names[i]
			if len(out) >= maxParams {
				return
			}
			p, _ := props[name].(map[string]any)
			if p == nil {
				continue
			}
			isRequired := requiredCtx && listed(req, name)
			flat := flatten(name)
			out = append(out, param{name: name, flat: flat, schema: p, required: isRequired, nested: nested})
			// Descend into wrappers, variants and arrays of objects;
			// other object parameters are values, read as one.
			if wrapperNames[flat] || holdsMore(p) {
				walk(p, depth+1, true, isRequired && wrapperNames[flat])
			}
		}
	}
	walk(root, 0, false, true)
	return out
}

// listed says a required list names a property; such lists are short, so a
// scan is cheaper than a map.
func listed(req []any, name string) bool {
	for _, r := range req {
		if r == any(name) {
			return true
		}
	}
	return false
}

// flatten lower-cases a parameter name and drops _, - and ., so that
// allNamespaces, all_namespaces and all-namespaces compare equal. Most
// names need neither, and are returned as they are.
func flatten(name string) string {
	for i := 0; i < len(name); i++ {
		if b := name[i]; b == '_' || b == '-' || b == '.' || (b >= 'A' && b <= 'Z') || b >= 0x80 {
			return strings.ToLower(separators.Replace(name))
		}
	}
	return name
}

// holdsMore says a property holds further properties to read: variants, a
// reference, or array items that are objects. Most properties hold only a
// type and a description, and are told apart first.
func holdsMore(p map[string]any) bool {
	if len(p) <= 2 {
		// {"type": …, "description": …}, the common case, holds nothing.
		_, t := p["type"]
		_, d := p["description"]
		if t && d || len(p) == 1 && (t || d) {
			return false
		}
	}
	for _, k := range [...]string{"anyOf", "oneOf", "allOf", "$ref"} {
		if _, ok := p[k]; ok {
			return true
		}
	}
	if items, ok := p["items"].(map[string]any); ok {
		for _, k := range [...]string{"properties", "anyOf", "oneOf", "allOf", "$ref"} {
			if _, ok := items[k]; ok {
				return true
			}
		}
	}
	return false
}

// resolveRef follows a local reference (#/$defs/x, #/definitions/x).
func resolveRef(root map[string]any, ref string) map[string]any {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var node any = root
	for _, part := range strings.Split(path, "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	m, _ := node.(map[string]any)
	return m
}

// optionValues are the string values a parameter allows: its enum, its
// const, and those of its variants.
func optionValues(p map[string]any) []string {
	var out []string
	if enum, ok := p["enum"].([]any); ok {
		for _, e := range enum {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	if c, ok := p["const"].(string); ok {
		out = append(out, c)
	}
	if items, ok := p["items"].(map[string]any); ok {
		out = append(out, optionValues(items)...)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if variants, ok := p[key].([]any); ok {
			for _, v := range variants {
				if vm, ok := v.(map[string]any); ok {
					out = append(out, optionValues(vm)...)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
