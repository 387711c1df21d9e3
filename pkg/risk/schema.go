package risk

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/keysort"
)

// param is one property of an input schema, wherever it was declared.
type param struct {
	name     string
	flat     string // lower-case, without _ - and .
	schema   map[string]any
	typ      string // the schema's "type", when it is a string
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
	w := schemaWalk{root: root}
	// Each object's property names are held here, sorted, while its
	// properties are read; nested objects push theirs after them, so one
	// buffer serves the whole walk, and most schemas' names fit on the
	// stack.
	var names [24]string
	w.walk(root, 0, false, true, names[:0])
	w.flattenNames()
	return w.out
}

// schemaWalk is the state of one walk of an input schema.
type schemaWalk struct {
	root map[string]any
	out  []param
	// Most schemas have no $ref: the set is made on the first one.
	seenRef map[string]bool
	// flatSize is the length of the names that flatten changes, which
	// flattenNames converts together.
	flatSize int
}

// walk reads the properties of node and of what it holds. names is the
// buffer of property names (see schemaParams); it is returned, as long as
// it came and perhaps grown, for the caller to go on with.
func (w *schemaWalk) walk(node map[string]any, depth int, nested, requiredCtx bool, names []string) []string {
	if node == nil || depth > maxSchemaDepth || len(w.out) >= maxParams {
		return names
	}
	if ref, ok := node["$ref"].(string); ok && !w.seenRef[ref] {
		if w.seenRef == nil {
			w.seenRef = map[string]bool{}
		}
		w.seenRef[ref] = true
		names = w.walk(resolveRef(w.root, ref), depth+1, nested, requiredCtx, names)
	}
	for _, key := range [...]string{"anyOf", "oneOf", "allOf"} {
		if variants, ok := node[key].([]any); ok {
			for _, v := range variants {
				vm, _ := v.(map[string]any)
				names = w.walk(vm, depth+1, nested, requiredCtx && key == "allOf", names)
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		names = w.walk(items, depth+1, true, false, names)
	}
	props, _ := node["properties"].(map[string]any)
	if len(props) == 0 {
		return names
	}
	req, _ := node["required"].([]any)
	if w.out == nil {
		w.out = make([]param, 0, len(props))
	}
	base, end := len(names), len(names)+len(props)
	// Grown once to hold this object's names, rather than doubling
	// from nothing as they are appended.
	names = slices.Grow(names, len(props))
	for k := range props {
		names = append(names, k)
	}
	keysort.Bytewise(names[base:])
	for i := base; i < end; i++ {
		name := names[i]
		if len(w.out) >= maxParams {
			break
		}
		p, _ := props[name].(map[string]any)
		if p == nil {
			continue
		}
		isRequired := requiredCtx && listed(req, name)
		// An ASCII name that flattening changes keeps its own name
		// until flattenNames; the list of wrappers is asked about its
		// flattened form built on the stack.
		flat, wrapper := name, false
		if flattensASCII(name) {
			var buf [64]byte
			wrapper = wrapperNames[string(appendFlat(buf[:0], name))]
			w.flatSize += len(name)
		} else {
			flat = flatten(name)
			wrapper = wrapperNames[flat]
		}
		// The type is read here once for every rule that asks.
		t, typed := p["type"]
		typ, _ := t.(string)
		w.out = append(w.out, param{name: name, flat: flat, schema: p, typ: typ, required: isRequired, nested: nested})
		// Descend into wrappers, variants and arrays of objects;
		// other object parameters are values, read as one.
		if wrapper || holdsMore(p, typed) {
			names = w.walk(p, depth+1, true, isRequired && wrapper, names)[:end]
		}
	}
	return names[:base]
}

// flattenNames sets the flattened names the walk left for later: one
// string holds them all, rather than one allocation each.
func (w *schemaWalk) flattenNames() {
	if w.flatSize == 0 {
		return
	}
	var b strings.Builder
	b.Grow(w.flatSize)
	var buf [64]byte
	for i := range w.out {
		p := &w.out[i]
		if !flattensASCII(p.name) {
			continue
		}
		start := b.Len()
		if len(p.name) <= len(buf) {
			b.Write(appendFlat(buf[:0], p.name))
		} else {
			b.Write(appendFlat(nil, p.name))
		}
		// What the builder holds is never changed by what is written
		// after it.
		p.flat = b.String()[start:]
	}
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
	if flattensASCII(name) {
		return string(appendFlat(nil, name))
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return strings.ToLower(separators.Replace(name))
		}
	}
	return name
}

// flattensASCII says name is ASCII and flatten changes it.
func flattensASCII(name string) bool {
	changes := false
	for i := 0; i < len(name); i++ {
		switch b := name[i]; {
		case b >= utf8.RuneSelf:
			return false
		case b == '_' || b == '-' || b == '.' || (b >= 'A' && b <= 'Z'):
			changes = true
		}
	}
	return changes
}

// appendFlat appends flatten of an ASCII name to dst.
func appendFlat(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		switch b := name[i]; {
		case b == '_' || b == '-' || b == '.':
		case b >= 'A' && b <= 'Z':
			dst = append(dst, b+'a'-'A')
		default:
			dst = append(dst, b)
		}
	}
	return dst
}

// holdsMore says a property holds further properties to read: variants, a
// reference, or array items that are objects. Most properties hold only a
// type and a description, and are told apart first; typed says p has a
// type, which the caller has looked up.
func holdsMore(p map[string]any, typed bool) bool {
	if len(p) <= 2 {
		// {"type": …, "description": …}, the common case, holds nothing.
		t := typed
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
