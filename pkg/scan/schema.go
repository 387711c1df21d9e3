package scan

import (
	"strconv"
	"sync"

	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Limits of SchemaTexts. A schema comes from an untrusted server; the walk
// must stay bounded whatever its shape.
const (
	maxSchemaDepth   = 64
	maxSchemaStrings = 10000
	maxSegmentRunes  = 64 // of one path segment in a Field
)

// How the walk treats a schema keyword's value.
const (
	kwData   = iota // description, title, enum, default, unknown keywords: every string
	kwMap           // a map from names to subschemas
	kwSub           // a subschema or an array of subschemas
	kwToken         // structural strings, skipped when short plain tokens
	kwDepend        // draft 7 dependencies: a schema or property names per key
)

// keyword classifies a schema keyword. A switch rather than maps of
// keywords: it is asked for every key of every schema, and a switch on
// strings costs a few comparisons where a map costs a hash.
func keyword(k string) int {
	switch k {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
		return kwMap
	case "items", "prefixItems", "additionalItems", "additionalProperties",
		"unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames",
		"anyOf", "oneOf", "allOf", "not", "if", "then", "else":
		return kwSub
	// Keywords whose string values are structural. They are skipped when the
	// value is a short plain token ("string", "uri", "#/$defs/Foo"), because
	// scanning them finds nothing; anything else in them is scanned like text,
	// since the model reads the whole schema.
	case "type", "format", "$ref", "$schema", "$id", "$anchor",
		"$dynamicRef", "$dynamicAnchor", "contentEncoding", "contentMediaType",
		"required":
		return kwToken
	case "dependencies":
		return kwDepend
	}
	return kwData
}

// SchemaTexts walks a JSON schema decoded into the tooldef package's tree
// (*tooldef.Object, []any, string, json.Number, bool, nil) and returns every
// string in it worth scanning, with its path under prefix. The model reads
// the whole schema, so besides the usual description, title, enum, const,
// default, examples and pattern it returns property names (Field
// "<path>.properties.<name>", Value the name), names under $defs,
// patternProperties and dependentSchemas, strings in unknown keywords, and
// walks nested schemas anywhere (items, prefixItems, additionalProperties,
// anyOf/oneOf/allOf/not, if/then/else, ...). Only short plain tokens in
// structural keywords (type, format, $ref, ...) are left out.
//
// Members are visited in the order an object holds them, sorted, so the
// result is deterministic. The walk
// never panics, stops descending below 64 levels of nesting and returns at
// most 10,000 strings. Path segments that come from the schema are escaped
// and shortened, so a Field is always printable.
//
// The Fields of one call share one string: the walk writes every path into
// one buffer, rather than building a string per path as it descends, and
// the strings of successive calls share chunks.
func SchemaTexts(prefix string, schema any) []Text {
	return AppendSchemaTexts(nil, prefix, schema)
}

// AppendSchemaTexts appends what SchemaTexts returns to dst.
func AppendSchemaTexts(dst []Text, prefix string, schema any) []Text {
	w := newWalker(dst, prefix)
	defer walkers.Put(w)
	w.schema(schema, 0)
	return w.finish()
}

// DataTexts returns every string in a decoded JSON value that is not a
// schema (a tool's _meta, a field MCP does not define, an unknown
// annotation), member names included, with its path under prefix. A client
// may show any of them to the model. The bounds are those of SchemaTexts.
func DataTexts(prefix string, v any) []Text {
	return AppendDataTexts(nil, prefix, v)
}

// AppendDataTexts appends what DataTexts returns to dst.
func AppendDataTexts(dst []Text, prefix string, v any) []Text {
	w := newWalker(dst, prefix)
	defer walkers.Put(w)
	w.data(v, 0)
	return w.finish()
}

// AppendMemberTexts appends what AppendDataTexts returns for an object of
// the one member key: v: a member of a larger object read on its own,
// with no object made to hold it.
func AppendMemberTexts(dst []Text, prefix, key string, v any) []Text {
	w := newWalker(dst, prefix)
	defer walkers.Put(w)
	p := w.join(key)
	w.add(key)
	w.data(v, 1)
	w.path = w.path[:p]
	return w.finish()
}

// walkers keeps walkers' buffers from one walk to the next: a tool's
// schemas are walked on every scan.
var walkers = sync.Pool{New: func() any { return new(schemaWalker) }}

func newWalker(dst []Text, prefix string) *schemaWalker {
	w := walkers.Get().(*schemaWalker)
	w.out, w.first = dst, len(dst)
	w.path = append(w.path[:0], prefix...)
	w.fields, w.starts, w.ends = w.fields[:0], w.starts[:0], w.ends[:0]
	return w
}

type schemaWalker struct {
	out []Text
	// first is where this walk's texts start in out.
	first int
	// path is the path of the value being walked; each step appends its
	// segment and cuts it off again on the way back.
	path []byte
	// fields holds the path of every text collected, one after the other
	// (a path that extends the one before it shares its bytes), and starts
	// and ends where each begins and stops: finish makes them one string
	// and slices the Fields from it.
	fields []byte
	starts []int
	ends   []int
	// paths holds the Fields of walks, one walk's after another's: a
	// tool's paths are a few hundred bytes, so one chunk serves many
	// tools, where a string of their own was an allocation for each.
	paths stringChunks
}

// pathChunk is the least a chunk of paths is allocated at.
const pathChunk = 4 << 10

// finish sets the Field of every text collected and returns them.
func (w *schemaWalker) finish() []Text {
	all := w.paths.keep(w.fields, pathChunk)
	for i, end := range w.ends {
		w.out[w.first+i].Field = all[w.starts[i]:end]
	}
	out := w.out
	// The pooled walker must not keep the caller's texts alive.
	w.out = nil
	return out
}

func (w *schemaWalker) full() bool { return len(w.out)-w.first >= maxSchemaStrings }

// add collects value under the current path.
func (w *schemaWalker) add(value string) {
	if !w.full() && value != "" {
		w.out = append(w.out, Text{Value: value})
		// A path often extends the one collected just before it (a
		// property's name, then its description): then only the rest is
		// written, and the two Fields start at the same place. It about
		// halves the bytes of a walk's paths.
		start := len(w.fields)
		if n := len(w.ends); n > 0 && w.ends[n-1] == len(w.fields) {
			prev := w.fields[w.starts[n-1]:]
			if len(w.path) >= len(prev) && string(w.path[:len(prev)]) == string(prev) {
				start = w.starts[n-1]
			}
		}
		w.fields = append(w.fields, w.path[len(w.fields)-start:]...)
		w.starts = append(w.starts, start)
		w.ends = append(w.ends, len(w.fields))
	}
}

// join appends the segment seg to the path and returns the path's length
// before it, to cut it back to.
func (w *schemaWalker) join(seg string) int {
	n := len(w.path)
	if n > 0 {
		w.path = append(w.path, '.')
	}
	w.path = append(w.path, fieldSegment(seg)...)
	return n
}

// index appends "[i]" to the path and returns its length before.
func (w *schemaWalker) index(i int) int {
	n := len(w.path)
	w.path = append(w.path, '[')
	w.path = strconv.AppendInt(w.path, int64(i), 10)
	w.path = append(w.path, ']')
	return n
}

// schema walks a value in a schema position.
func (w *schemaWalker) schema(v any, depth int) {
	if depth > maxSchemaDepth || w.full() {
		return
	}
	switch s := v.(type) {
	case *tooldef.Object:
		for _, m := range s.Members() {
			if w.full() {
				return
			}
			k, val := m.Key, m.Value
			kw := keyword(k)
			if kw == kwToken {
				// Most of a schema is "type": "string"; no path is built for
				// what is not collected.
				if str, ok := val.(string); ok && plainToken(str) {
					continue
				}
			}
			p := w.join(k)
			switch kw {
			case kwMap:
				o, ok := val.(*tooldef.Object)
				if !ok {
					w.data(val, depth+1)
					break
				}
				for _, named := range o.Members() {
					np := w.join(named.Key)
					w.add(named.Key)
					w.schema(named.Value, depth+2)
					w.path = w.path[:np]
				}
			case kwSub:
				if arr, ok := val.([]any); ok {
					for i, item := range arr {
						ip := w.index(i)
						w.schema(item, depth+2)
						w.path = w.path[:ip]
					}
				} else {
					w.schema(val, depth+1)
				}
			case kwDepend:
				// Draft 7: a schema or an array of property names per key.
				o, ok := val.(*tooldef.Object)
				if !ok {
					w.data(val, depth+1)
					break
				}
				for _, named := range o.Members() {
					np := w.join(named.Key)
					w.add(named.Key)
					if _, isArr := named.Value.([]any); isArr {
						w.data(named.Value, depth+2)
					} else {
						w.schema(named.Value, depth+2)
					}
					w.path = w.path[:np]
				}
			case kwToken:
				w.tokens(val, depth+1)
			default:
				// description, title, pattern, enum, const, default,
				// examples, $comment and any unknown keyword: data.
				w.data(val, depth+1)
			}
			w.path = w.path[:p]
		}
	case []any:
		// Not a schema, but a server may send one anyway.
		w.data(s, depth)
	case string:
		w.add(s)
	}
}

// data collects every string in a value, keys of objects included.
func (w *schemaWalker) data(v any, depth int) {
	if depth > maxSchemaDepth || w.full() {
		return
	}
	switch d := v.(type) {
	case string:
		w.add(d)
	case []any:
		for i, item := range d {
			if w.full() {
				return
			}
			ip := w.index(i)
			w.data(item, depth+1)
			w.path = w.path[:ip]
		}
	case *tooldef.Object:
		for _, m := range d.Members() {
			if w.full() {
				break
			}
			p := w.join(m.Key)
			w.add(m.Key)
			w.data(m.Value, depth+1)
			w.path = w.path[:p]
		}
	}
}

// tokens collects structural strings unless they are short plain tokens.
func (w *schemaWalker) tokens(v any, depth int) {
	switch d := v.(type) {
	case string:
		if !plainToken(d) {
			w.add(d)
		}
	case []any:
		for i, item := range d {
			if s, ok := item.(string); ok && plainToken(s) {
				continue
			}
			ip := w.index(i)
			w.data(item, depth+1)
			w.path = w.path[:ip]
		}
	default:
		w.data(v, depth)
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
