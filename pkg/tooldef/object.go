package tooldef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is a decoded JSON object: its members sorted by their names'
// bytes, no two with the same name. The package's tree holds every object
// as an *Object, beside []any, string, json.Number, bool and nil.
//
// An object is its members in one slice rather than a Go map because
// every reader of a definition takes them in order: the scan and the risk
// engine walk schemas in byte order so that what they report is the same
// on every run, and the canonical form writes them sorted (in the same
// order for names in ASCII, almost all of them; it sorts a copy of an
// object with other names by their UTF-16 code units, as RFC 8785 says).
// A map had to be iterated and sorted again by each; and a map of up to eight
// members is a whole table of eight slots, where an object here is one
// run of its exact size. A schema's objects have two or three members,
// so looking a name up by comparing it with each costs no more than
// hashing it.
//
// An Object is read-only once made: the members Members returns must not
// be changed, and a nil *Object reads as an empty object.
type Object struct {
	members []Member
	// nonASCII says a name is outside ASCII, where the canonical form may
	// order the members otherwise.
	nonASCII bool
}

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Len returns the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.members)
}

// Members returns the members in their order. The slice belongs to the
// object and must not be changed.
func (o *Object) Members() []Member {
	if o == nil {
		return nil
	}
	return o.members
}

// linearLookup is the most members Lookup compares one by one; a larger
// object is searched by halves.
const linearLookup = 16

// Lookup returns the value of the member key and whether there is one.
func (o *Object) Lookup(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	ms := o.members
	if len(ms) <= linearLookup {
		for i := range ms {
			if ms[i].Key == key {
				return ms[i].Value, true
			}
		}
		return nil, false
	}
	i, found := slices.BinarySearchFunc(ms, key, func(m Member, k string) int { return strings.Compare(m.Key, k) })
	if !found {
		return nil, false
	}
	return ms[i].Value, true
}

// Get returns the value of the member key, nil when there is none (or
// when it is null: Lookup tells the two apart).
func (o *Object) Get(key string) any {
	v, _ := o.Lookup(key)
	return v
}

// Has reports whether the object has a member key.
func (o *Object) Has(key string) bool {
	_, ok := o.Lookup(key)
	return ok
}

// GetString returns the member key's value when it is a string, and "".
func (o *Object) GetString(key string) string {
	s, _ := o.Get(key).(string)
	return s
}

// GetObject returns the member key's value when it is an object, and nil.
func (o *Object) GetObject(key string) *Object {
	m, _ := o.Get(key).(*Object)
	return m
}

// GetArray returns the member key's value when it is an array, and nil.
func (o *Object) GetArray(key string) []any {
	a, _ := o.Get(key).([]any)
	return a
}

// Keys returns the members' names in their order.
func (o *Object) Keys() []string {
	keys := make([]string, o.Len())
	for i, m := range o.Members() {
		keys[i] = m.Key
	}
	return keys
}

// NewObject makes an object of members, which it copies and sorts; two
// members of one name are an error.
func NewObject(members ...Member) (*Object, error) {
	ms := slices.Clone(members)
	sortMembers(ms)
	for i := 1; i < len(ms); i++ {
		if ms[i].Key == ms[i-1].Key {
			return nil, fmt.Errorf("duplicate member name %q", ms[i].Key)
		}
	}
	return &Object{members: ms, nonASCII: anyNonASCII(ms)}, nil
}

// anyNonASCII reports a member whose name is outside ASCII.
func anyNonASCII(ms []Member) bool {
	for _, m := range ms {
		if !isASCII(m.Key) {
			return true
		}
	}
	return false
}

// ObjectOf makes an object of a Go map's members, converting the values
// as FromAny does.
func ObjectOf(m map[string]any) *Object {
	if len(m) == 0 {
		return &Object{}
	}
	ms := make([]Member, 0, len(m))
	for k, v := range m {
		ms = append(ms, Member{k, FromAny(v)})
	}
	sortMembers(ms)
	return &Object{members: ms, nonASCII: anyNonASCII(ms)}
}

// FromAny returns v with every map[string]any in it, at any depth, made
// an *Object: the package's tree for a value built in Go (a schema a
// program writes, a test's definition) rather than decoded. Arrays are
// copied (a nil one stays nil); values of other types are returned as
// they are.
func FromAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return ObjectOf(x)
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromAny(e)
		}
		return out
	}
	return v
}

// ToAny returns v with every *Object in it, at any depth, made a
// map[string]any: for code that hands the tree to a library that knows
// Go maps (encoding a value for the API server, printing it as YAML).
// Arrays holding objects are copied.
func ToAny(v any) any {
	switch x := v.(type) {
	case *Object:
		if x == nil {
			return nil
		}
		m := make(map[string]any, len(x.members))
		for _, mb := range x.members {
			m[mb.Key] = ToAny(mb.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ToAny(e)
		}
		return out
	}
	return v
}

// Map returns the object as a map[string]any, values converted by ToAny.
func (o *Object) Map() map[string]any {
	m, _ := ToAny(o).(map[string]any)
	return m
}

// With returns a copy of the object with the member key set to v, added
// in its place when absent. The object itself is unchanged.
func (o *Object) With(key string, v any) *Object {
	ms := make([]Member, 0, o.Len()+1)
	set := false
	for _, m := range o.Members() {
		if m.Key == key {
			m.Value, set = v, true
		}
		ms = append(ms, m)
	}
	if !set {
		ms = append(ms, Member{key, v})
		sortMembers(ms)
	}
	return &Object{members: ms, nonASCII: anyNonASCII(ms)}
}

// Without returns a copy of the object without the member key.
func (o *Object) Without(key string) *Object {
	ms := make([]Member, 0, o.Len())
	for _, m := range o.Members() {
		if m.Key != key {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		// As a decoded empty object holds them.
		ms = nil
	}
	return &Object{members: ms, nonASCII: anyNonASCII(ms)}
}

// MarshalJSON writes the object with its members in their order, so that
// a tree of Objects encodes as the JSON it was decoded from. The whole
// subtree is written in one pass: were each nested object encoded by
// encoding/json on its own, every level would check its children's output
// again, and a deep tree would cost its depth times its size.
func (o *Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	return appendJSON(nil, o, 0)
}

// appendJSON appends v as JSON: the package's tree written directly, any
// other value (a number or a map a program put in it) by encoding/json.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		if utf8.ValidString(x) {
			return appendCanonicalString(b, x), nil
		}
	case *Object:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, m := range x.members {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, m.Key, depth+1); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, m.Value, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	// A number is checked by encoding/json; a string that is not UTF-8 is
	// written with its invalid bytes replaced, as encoding/json writes it.
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// UnmarshalJSON reads an object as DecodeValue does: a duplicate name or
// invalid UTF-8 is an error, numbers are kept as json.Number. A null
// leaves the object as it is, as encoding/json asks.
func (o *Object) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v, err := decode(data, 0)
	if err != nil {
		return err
	}
	x, ok := v.(*Object)
	if !ok {
		return fmt.Errorf("a JSON %s, not an object", jsonKind(v))
	}
	*o = *x
	return nil
}

// objectSlabs hands out the objects, members and array elements of one
// decode from a few large allocations rather than one or two of their own
// each: a catalogue has thousands of small objects and arrays, and they
// live and die together in the tree.
type objectSlabs struct {
	objects []Object
	members []Member
	elems   []any
}

// The sizes slabs grow between: a call's arguments take a few members, a
// saved catalogue thousands.
const (
	firstSlab = 16
	lastSlab  = 1024
)

// object makes an object of ms, which it copies; nonASCII says a name of
// ms is outside ASCII.
func (s *objectSlabs) object(ms []Member, nonASCII bool) *Object {
	if len(s.objects) == cap(s.objects) {
		s.objects = make([]Object, 0, min(max(2*cap(s.objects), firstSlab/4), lastSlab/4))
	}
	s.objects = s.objects[:len(s.objects)+1]
	o := &s.objects[len(s.objects)-1]
	if len(ms) == 0 {
		return o
	}
	o.nonASCII = nonASCII
	if len(ms) > cap(s.members)-len(s.members) {
		if len(ms) >= lastSlab/4 {
			o.members = slices.Clone(ms)
			return o
		}
		s.members = make([]Member, 0, min(max(2*cap(s.members), firstSlab, len(ms)), lastSlab))
	}
	n := len(s.members)
	s.members = append(s.members, ms...)
	// Capped, so that nothing appended to one object's members can run
	// into the next's.
	o.members = s.members[n:len(s.members):len(s.members)]
	return o
}

// array makes an array of elems, which it copies.
func (s *objectSlabs) array(elems []any) []any {
	if len(elems) == 0 {
		// Empty, not nil: JSON's [] is not its null.
		return make([]any, 0)
	}
	if len(elems) > cap(s.elems)-len(s.elems) {
		if len(elems) >= lastSlab/4 {
			return slices.Clone(elems)
		}
		s.elems = make([]any, 0, min(max(2*cap(s.elems), firstSlab, len(elems)), lastSlab))
	}
	n := len(s.elems)
	s.elems = append(s.elems, elems...)
	// Capped, as an object's members are.
	return s.elems[n:len(s.elems):len(s.elems)]
}
