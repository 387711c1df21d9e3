package tooldef

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// Lookup finds every member and no other name, whether it compares names
// one by one (small objects) or searches by halves (large ones), ASCII
// names or not.
func TestObjectLookup(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, linearLookup, linearLookup + 1, 100} {
		for _, suffix := range []string{"", "é", "\U0001F600"} {
			m := map[string]any{}
			for i := range n {
				m[fmt.Sprintf("k%d%s", i, suffix)] = i
			}
			o := ObjectOf(m)
			if o.Len() != n {
				t.Fatalf("%d members made an object of %d", n, o.Len())
			}
			for k, v := range m {
				if got, ok := o.Lookup(k); !ok || got != v {
					t.Errorf("n=%d: Lookup(%q) = %v, %v; want %v", n, k, got, ok, v)
				}
			}
			for _, absent := range []string{"", "k", "zz", "k" + suffix, fmt.Sprintf("k%d%s", n, suffix)} {
				if _, ok := o.Lookup(absent); ok {
					t.Errorf("n=%d: Lookup(%q) found a member that is not there", n, absent)
				}
			}
			keys := o.Keys()
			if !slices.IsSorted(keys) {
				t.Errorf("n=%d: members out of byte order: %q", n, keys)
			}
		}
	}
}

// A nil object reads as an empty one, so that a reader can take a member
// that is absent or not an object and go on.
func TestNilObjectReadsEmpty(t *testing.T) {
	var o *Object
	if o.Len() != 0 || o.Members() != nil || o.Get("a") != nil || o.Has("a") || o.GetString("a") != "" ||
		o.GetObject("a") != nil || o.GetArray("a") != nil || len(o.Keys()) != 0 {
		t.Error("a nil object does not read as empty")
	}
	o = ObjectOf(map[string]any{"s": "x", "n": 1, "o": map[string]any{"a": nil}, "a": []any{"y"}})
	if o.GetString("n") != "" || o.GetObject("s") != nil || o.GetArray("o") != nil {
		t.Error("a typed getter returned a member of another type")
	}
	if v, ok := o.GetObject("o").Lookup("a"); !ok || v != nil {
		t.Error("a null member must be found, with a nil value")
	}
}

func TestNewObjectRefusesADuplicateName(t *testing.T) {
	if _, err := NewObject(Member{"a", 1}, Member{"b", 2}, Member{"a", 3}); err == nil {
		t.Error("two members named a were accepted")
	}
	o, err := NewObject(Member{"b", 2}, Member{"a", 1})
	if err != nil || !slices.Equal(o.Keys(), []string{"a", "b"}) {
		t.Errorf("NewObject = %v, %v; want a then b", o.Keys(), err)
	}
}

// With and Without leave the object they are called on as it was.
func TestWithAndWithoutCopy(t *testing.T) {
	o := ObjectOf(map[string]any{"b": 2, "d": 4})
	added, replaced, removed := o.With("c", 3), o.With("b", 20), o.Without("b")
	if !slices.Equal(o.Keys(), []string{"b", "d"}) || o.Get("b") != 2 {
		t.Fatalf("the object changed: %v", o.Map())
	}
	if !slices.Equal(added.Keys(), []string{"b", "c", "d"}) || added.Get("c") != 3 {
		t.Errorf("With added %v", added.Map())
	}
	if replaced.Get("b") != 20 || replaced.Len() != 2 {
		t.Errorf("With replaced %v", replaced.Map())
	}
	if removed.Has("b") || removed.Len() != 1 {
		t.Errorf("Without left %v", removed.Map())
	}
	if empty := ObjectOf(map[string]any{"a": 1}).Without("a"); !reflect.DeepEqual(empty, ObjectOf(nil)) {
		t.Error("an object emptied by Without differs from an empty one made")
	}
}

// Decoded, built from Go maps, encoded and decoded again: one tree.
func TestObjectRoundTrips(t *testing.T) {
	const doc = `{"z":[1,{"y":"é","x":null}],"a":{"\u00e9":true,"b":{}},"m":[],"n":-1.5e3}`
	decoded, err := decode([]byte(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	var viaStd any
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&viaStd); err != nil {
		t.Fatal(err)
	}
	if built := FromAny(viaStd); !reflect.DeepEqual(built, decoded) {
		t.Errorf("built from Go maps %#v, decoded %#v", built, decoded)
	}
	if back := ToAny(decoded); !reflect.DeepEqual(back, viaStd) {
		t.Errorf("ToAny gave %#v, want %#v", back, viaStd)
	}
	encoded, err := json.Marshal(decoded)
	if err != nil {
		t.Fatal(err)
	}
	var again Object
	if err := json.Unmarshal(encoded, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&again, decoded) {
		t.Errorf("encoded %s and decoded again to %#v", encoded, again)
	}
	if err := json.Unmarshal([]byte(`{"a":1,"a":2}`), &again); err == nil {
		t.Error("UnmarshalJSON took a duplicate name")
	}
	if err := json.Unmarshal([]byte(`[1]`), &again); err == nil {
		t.Error("UnmarshalJSON took an array")
	}
	if err := json.Unmarshal([]byte(`null`), &again); err != nil {
		t.Errorf("UnmarshalJSON refused null: %v", err)
	}
}

// The objects of one decode share slabs; each object's members are capped
// at its own, so that nothing appended to one can overwrite another's.
func TestSlabObjectsDoNotOverlap(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 3 * lastSlab {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"a":%d,"b":%d}`, i, -i)
	}
	b.WriteString(`,{}]`)
	v, err := decode([]byte(b.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	list := v.([]any)
	first := list[0].(*Object)
	if grown := append(first.Members(), Member{"c", 0}); &grown[0] == &first.Members()[0] {
		t.Error("an object's members are not capped at its own: an append ran into the next object's")
	}
	for i, e := range list[:len(list)-1] {
		o := e.(*Object)
		if o.Len() != 2 || o.Get("a") != json.Number(fmt.Sprint(i)) || o.Get("b") != json.Number(fmt.Sprint(-i)) {
			t.Fatalf("object %d holds %v", i, o.Map())
		}
	}
	if last := list[len(list)-1].(*Object); last.Len() != 0 {
		t.Errorf("the empty object holds %v", last.Map())
	}
}

// Arrays share slabs as objects do, each capped at its own elements; an
// empty array stays an empty array, not null.
func TestSlabArraysDoNotOverlap(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 3 * lastSlab {
		fmt.Fprintf(&b, `[%d,"x%d"],`, i, i)
	}
	b.WriteString(`[]]`)
	for _, read := range []func([]byte) (any, error){
		func(data []byte) (any, error) { return decode(data, 0) },
		func(data []byte) (any, error) { return tokenizerDecode(data, 0) },
	} {
		v, err := read([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		list := v.([]any)
		first := list[0].([]any)
		if grown := append(first, nil); &grown[0] == &first[0] {
			t.Error("an array is not capped at its own elements: an append ran into the next array's")
		}
		for i, e := range list[:len(list)-1] {
			a := e.([]any)
			if len(a) != 2 || a[0] != json.Number(fmt.Sprint(i)) || a[1] != fmt.Sprint("x", i) {
				t.Fatalf("array %d holds %v", i, a)
			}
		}
		if last := list[len(list)-1].([]any); last == nil || len(last) != 0 {
			t.Errorf("the empty array reads as %#v", last)
		}
	}
}

// A tree of objects encodes as encoding/json encodes the same tree of Go
// maps, nested deep or not, with what a program put in it (a float, a
// string that is not UTF-8) encoded as encoding/json encodes it; a bad
// number is an error, not invalid JSON.
func TestObjectMarshalsAsMaps(t *testing.T) {
	var deep any = map[string]any{"leaf": "x"}
	for i := range maxDepth - 2 {
		deep = map[string]any{"k": deep, "i": []any{json.Number(fmt.Sprint(i)), true, nil}}
	}
	for _, v := range []any{
		map[string]any{},
		map[string]any{"b": 1.5, "a": "\xff<&>\u2028\"\\\n", "c": []any{map[string]any{"d": json.Number("-1e3")}, []any{}, []any(nil)}, "é": false},
		deep,
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(FromAny(v))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("encoded %s, encoding/json %s", clipFor(got), clipFor(want))
		}
	}
	if _, err := json.Marshal(ObjectOf(map[string]any{"n": json.Number("1x")})); err == nil {
		t.Error("an invalid number was encoded")
	}
}

func clipFor(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// An object holds its members in byte order, which every reader walks, and
// the canonical form writes them in UTF-16 order, as RFC 8785 says: the two
// differ where a name holds a character above U+FFFF and another one in
// U+E000–U+FFFF. Names that are not UTF-8, which only a program can put in
// an object, are still found.
func TestObjectOrderAndCanonicalOrder(t *testing.T) {
	const doc = `{"\uff01":1,"\ud83d\ude00":2,"a":{"\uff01":3,"\ud83d\ude00":4}}`
	v, err := decode([]byte(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if keys := o.Keys(); !slices.Equal(keys, []string{"a", "\uff01", "\U0001F600"}) {
		t.Errorf("members held as %q, want byte order", keys)
	}
	got, err := appendCanonical(nil, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jcs.Transform([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("canonical form %s, want %s", got, want)
	}
	tool, err := ParseTool([]byte(`{"name":"t","inputSchema":` + doc + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if whole, err := jcs.Transform(tool.Canonical()); err != nil || string(whole) != string(tool.Canonical()) {
		t.Errorf("the tool's canonical form is not RFC 8785's: %s", tool.Canonical())
	}
	m := map[string]any{}
	for i := range 3 * linearLookup {
		m[fmt.Sprintf("\xfe%d", i)], m[fmt.Sprintf("\xff%d", i)] = i, -i
	}
	bad := ObjectOf(m)
	for k, want := range m {
		if got, ok := bad.Lookup(k); !ok || got != want {
			t.Fatalf("Lookup(%q) = %v, %v; want %v", k, got, ok, want)
		}
	}
}
