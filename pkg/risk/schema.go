package risk

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// param is one property of an input schema, wherever it was declared.
type param struct {
	name     string
	flat     string // lower-case, without _ - and .
	schema   *tooldef.Object
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
	root, ok := schema.(*tooldef.Object)
	if !ok {
		return nil
	}
	w := schemaWalk{root: root}
	w.walk(root, 0, false, true)
	w.flattenNames()
	return w.out
}

// schemaWalk is the state of one walk of an input schema.
type schemaWalk struct {
	root *tooldef.Object
	out  []param
	// Most schemas have no $ref: the set is made on the first one.
	seenRef map[string]bool
	// flatSize is the length of the names that flatten changes, which
	// flattenNames converts together.
	flatSize int
}

// walk reads the properties of node and of what it holds. Each object's
// properties are read in the order of its members, sorted by name, so
// that the parameters come in the same order on every run.
func (w *schemaWalk) walk(node *tooldef.Object, depth int, nested, requiredCtx bool) {
	if node == nil || depth > maxSchemaDepth || len(w.out) >= maxParams {
		return
	}
	if ref, ok := node.Get("$ref").(string); ok && !w.seenRef[ref] {
		if w.seenRef == nil {
			w.seenRef = map[string]bool{}
		}
		w.seenRef[ref] = true
		w.walk(resolveRef(w.root, ref), depth+1, nested, requiredCtx)
	}
	for _, key := range [...]string{"anyOf", "oneOf", "allOf"} {
		if variants, ok := node.Get(key).([]any); ok {
			for _, v := range variants {
				vm, _ := v.(*tooldef.Object)
				w.walk(vm, depth+1, nested, requiredCtx && key == "allOf")
			}
		}
	}
	if items, ok := node.Get("items").(*tooldef.Object); ok {
		w.walk(items, depth+1, true, false)
	}
	props := node.GetObject("properties")
	if props.Len() == 0 {
		return
	}
	req := node.GetArray("required")
	if w.out == nil {
		w.out = make([]param, 0, props.Len())
	}
	for _, prop := range props.Members() {
		name := prop.Key
		if len(w.out) >= maxParams {
			break
		}
		p, _ := prop.Value.(*tooldef.Object)
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
		t, typed := p.Lookup("type")
		typ, _ := t.(string)
		w.out = append(w.out, param{name: name, flat: flat, schema: p, typ: typ, required: isRequired, nested: nested})
		// Descend into wrappers, variants and arrays of objects;
		// other object parameters are values, read as one.
		if wrapper || holdsMore(p, typed) {
			w.walk(p, depth+1, true, isRequired && wrapper)
		}
	}
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
func holdsMore(p *tooldef.Object, typed bool) bool {
	if p.Len() <= 2 {
		// {"type": …, "description": …}, the common case, holds nothing.
		t := typed
		d := p.Has("description")
		if t && d || p.Len() == 1 && (t || d) {
			return false
		}
	}
	for _, k := range [...]string{"anyOf", "oneOf", "allOf", "$ref"} {
		if p.Has(k) {
			return true
		}
	}
	if items, ok := p.Get("items").(*tooldef.Object); ok {
		for _, k := range [...]string{"properties", "anyOf", "oneOf", "allOf", "$ref"} {
			if items.Has(k) {
				return true
			}
		}
	}
	return false
}

// resolveRef follows a local reference (#/$defs/x, #/definitions/x).
func resolveRef(root *tooldef.Object, ref string) *tooldef.Object {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var node any = root
	for _, part := range strings.Split(path, "/") {
		m, ok := node.(*tooldef.Object)
		if !ok {
			return nil
		}
		node = m.Get(strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~"))
	}
	m, _ := node.(*tooldef.Object)
	return m
}

// optionValues are the string values a parameter allows: its enum, its
// const, and those of its variants.
func optionValues(p *tooldef.Object) []string {
	var out []string
	if enum, ok := p.Get("enum").([]any); ok {
		for _, e := range enum {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	if c, ok := p.Get("const").(string); ok {
		out = append(out, c)
	}
	if items, ok := p.Get("items").(*tooldef.Object); ok {
		out = append(out, optionValues(items)...)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if variants, ok := p.Get(key).([]any); ok {
			for _, v := range variants {
				if vm, ok := v.(*tooldef.Object); ok {
					out = append(out, optionValues(vm)...)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
