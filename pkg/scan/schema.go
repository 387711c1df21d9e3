package scan

import (
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/pkg/clip"
)

// Limits of SchemaTexts. A schema comes from an untrusted server; the walk
// must stay bounded whatever its shape.
const (
	maxSchemaDepth   = 64
	maxSchemaStrings = 10000
	maxSegmentRunes  = 64 // of one path segment in a Field
)

// Schema keywords whose value is a map from names to subschemas.
var schemaMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
}

// Schema keywords whose value is a subschema or an array of subschemas.
var schemaSubs = map[string]bool{
	"items": true, "prefixItems": true, "additionalItems": true, "additionalProperties": true,
	"unevaluatedItems": true, "unevaluatedProperties": true, "contains": true, "propertyNames": true,
	"anyOf": true, "oneOf": true, "allOf": true, "not": true, "if": true, "then": true, "else": true,
}

// Keywords whose string values are structural. They are skipped when the
// value is a short plain token ("string", "uri", "#/$defs/Foo"), because
// scanning them finds nothing; anything else in them is scanned like text,
// since the model reads the whole schema.
var schemaTokens = map[string]bool{
	"type": true, "format": true, "$ref": true, "$schema": true, "$id": true, "$anchor": true,
	"$dynamicRef": true, "$dynamicAnchor": true, "contentEncoding": true, "contentMediaType": true,
	"required": true,
}

// SchemaTexts walks a JSON schema decoded with encoding/json into any
// (map[string]any, []any, string, float64, bool, nil) and returns every
// string in it worth scanning, with its path under prefix. The model reads
// the whole schema, so besides the usual description, title, enum, const,
// default, examples and pattern it returns property names (Field
// "<path>.properties.<name>", Value the name), names under $defs,
// patternProperties and dependentSchemas, strings in unknown keywords, and
// walks nested schemas anywhere (items, prefixItems, additionalProperties,
// anyOf/oneOf/allOf/not, if/then/else, ...). Only short plain tokens in
// structural keywords (type, format, $ref, ...) are left out.
//
// Keys are visited in sorted order so the result is deterministic. The walk
// never panics, stops descending below 64 levels of nesting and returns at
// most 10,000 strings. Path segments that come from the schema are escaped
// and shortened, so a Field is always printable.
func SchemaTexts(prefix string, schema any) []Text {
	w := schemaWalker{kbuf: make([]string, 0, 32)}
	w.schema(prefix, schema, 0)
	return w.out
}

// DataTexts returns every string in a decoded JSON value that is not a
// schema (a tool's _meta, a field MCP does not define, an unknown
// annotation), member names included, with its path under prefix. A client
// may show any of them to the model. The bounds are those of SchemaTexts.
func DataTexts(prefix string, v any) []Text {
	w := schemaWalker{}
	w.data(prefix, v, 0)
	return w.out
}

type schemaWalker struct {
	out []Text
	// kbuf holds the sorted keys of the objects being walked, each
	// object's at the end while it is walked; nested objects push theirs
	// after them. One buffer serves the whole walk.
	kbuf []string
}

// keys pushes m's keys, sorted, onto kbuf and returns where they start and
// how many there are. Callers read them by index (kbuf may move while
// nested objects push theirs) and pop them with w.kbuf = w.kbuf[:start].
func (w *schemaWalker) keys(m map[string]any) (start, n int) {
	start = len(w.kbuf)
	for k := range m {
		w.kbuf = append(w.kbuf, k)
	}
	n = len(w.kbuf) - start
	if n > 1 {
		slices.Sort(w.kbuf[start:])
	}
	return start, n
}

func (w *schemaWalker) full() bool { return len(w.out) >= maxSchemaStrings }

func (w *schemaWalker) add(field, value string) {
	if !w.full() && value != "" {
		w.out = append(w.out, Text{Field: field, Value: value})
	}
}

// schema walks a value in a schema position.
func (w *schemaWalker) schema(path string, v any, depth int) {
	if depth > maxSchemaDepth || w.full() {
		return
	}
	switch s := v.(type) {
	case map[string]any:
		start, n := w.keys(s)
		defer func() { w.kbuf = w.kbuf[:start] }()
		for i := 0; i < n; i++ {
			if w.full() {
				return
			}
			k := w.kbuf[start+i]
			val := s[k]
			if schemaTokens[k] {
				// Most of a schema is "type": "string"; no path is built for
				// what is not collected.
				if str, ok := val.(string); ok && plainToken(str) {
					continue
				}
			}
			p := join(path, k)
			switch {
			case schemaMaps[k]:
				m, ok := val.(map[string]any)
				if !ok {
					w.data(p, val, depth+1)
					continue
				}
				ms, mn := w.keys(m)
				for j := 0; j < mn; j++ {
					name := w.kbuf[ms+j]
					np := join(p, name)
					w.add(np, name)
					w.schema(np, m[name], depth+2)
				}
				w.kbuf = w.kbuf[:ms]
			case schemaSubs[k]:
				if arr, ok := val.([]any); ok {
					for i, item := range arr {
						w.schema(index(p, i), item, depth+2)
					}
				} else {
					w.schema(p, val, depth+1)
				}
			case k == "dependencies":
				// Draft 7: a schema or an array of property names per key.
				m, ok := val.(map[string]any)
				if !ok {
					w.data(p, val, depth+1)
					continue
				}
				ms, mn := w.keys(m)
				for j := 0; j < mn; j++ {
					name := w.kbuf[ms+j]
					np := join(p, name)
					w.add(np, name)
					if _, isArr := m[name].([]any); isArr {
						w.data(np, m[name], depth+2)
					} else {
						w.schema(np, m[name], depth+2)
					}
				}
				w.kbuf = w.kbuf[:ms]
			case schemaTokens[k]:
				w.tokens(p, val, depth+1)
			default:
				// description, title, pattern, enum, const, default,
				// examples, $comment and any unknown keyword: data.
				w.data(p, val, depth+1)
			}
		}
	case []any:
		// Not a schema, but a server may send one anyway.
		w.data(path, s, depth)
	case string:
		w.add(path, s)
	}
}

// data collects every string in a value, keys of objects included.
func (w *schemaWalker) data(path string, v any, depth int) {
	if depth > maxSchemaDepth || w.full() {
		return
	}
	switch d := v.(type) {
	case string:
		w.add(path, d)
	case []any:
		for i, item := range d {
			if w.full() {
				return
			}
			w.data(index(path, i), item, depth+1)
		}
	case map[string]any:
		start, n := w.keys(d)
		for i := 0; i < n && !w.full(); i++ {
			k := w.kbuf[start+i]
			p := join(path, k)
			w.add(p, k)
			w.data(p, d[k], depth+1)
		}
		w.kbuf = w.kbuf[:start]
	}
}

// tokens collects structural strings unless they are short plain tokens.
func (w *schemaWalker) tokens(path string, v any, depth int) {
	switch d := v.(type) {
	case string:
		if !plainToken(d) {
			w.add(path, d)
		}
	case []any:
		for i, item := range d {
			if s, ok := item.(string); ok && plainToken(s) {
				continue
			}
			w.data(index(path, i), item, depth+1)
		}
	default:
		w.data(path, v, depth)
	}
}

// plainToken reports a short printable-ASCII string without spaces.
func plainToken(s string) bool {
	if len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func join(path, seg string) string {
	seg = fieldSegment(seg)
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// fieldSegment makes a key from the schema safe to show in a Field:
// invisible and control characters escaped, at most 64 runes.
func fieldSegment(s string) string {
	safe := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			safe = false
			break
		}
	}
	if safe && len(s) <= maxSegmentRunes {
		if s == "" {
			return `""`
		}
		return s
	}
	if !safe {
		s = escapeVisible(s)
	}
	return clip.Runes(s, maxSegmentRunes)
}
