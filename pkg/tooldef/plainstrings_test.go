package tooldef

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestPlainStrings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, ``},
		{`{}`, ``},
		{`{"a": "b"}`, `ab`},
		{`{"name": "x", "d": "say \"hi\"", "e": "é", "f": ""}`, `namexdeéf`},
		{`["\\", "a\nb", "c"]`, `c`},
		{`["a", "unterminated`, `a`},
		{`"\`, ``},
		{`{"k": "v"} trailing "t"`, `kvt`},
	} {
		if got := plainStrings([]byte(c.in)); got != c.want {
			t.Errorf("plainStrings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every escape-free string of a valid text is sliced from the strings'
// copy, in order: the copy is used up exactly, so no string fell back to
// an allocation of its own and none was taken from the wrong place.
func TestDecodeSlicesEveryPlainString(t *testing.T) {
	data := []byte(`{"tools": [{"name": "a", "description": "say \"hi\"", "inputSchema": {"type": "object",
		"properties": {"x": {"type": "string", "enum": ["p", "q\u0041", "r"]}}}}], "n": 1.5, "b": true}`)
	d := decoder{dec: jsontext.NewDecoder(bytes.NewBuffer(data)), src: plainStrings(data)}
	v, err := d.value(0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "toolsnameadescriptioninputSchematypeobjectpropertiesxtypestringenumprnb"; d.src != want {
		t.Errorf("strings' copy %q, want %q", d.src, want)
	}
	if d.srcAt != len(d.src) {
		t.Errorf("used %d of %d bytes of the strings' copy", d.srcAt, len(d.src))
	}
	tool := v.(map[string]any)["tools"].([]any)[0].(map[string]any)
	if tool["description"] != `say "hi"` || tool["name"] != "a" {
		t.Errorf("decoded %v", tool)
	}
	enum := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)["x"].(map[string]any)["enum"].([]any)
	if enum[0] != "p" || enum[1] != "qA" || enum[2] != "r" {
		t.Errorf("enum %v", enum)
	}
}

// Slicing strings from the strings' copy must decode exactly what
// copying each string does, on any input, valid or not.
func FuzzDecodeSlicesAsCopies(f *testing.F) {
	f.Add([]byte(`{"a": "b", "c": ["d\"", "e"]}`))
	f.Add([]byte(`{"a": "b" "c"}`))
	f.Add([]byte(`["\\", "x", "\u00e9"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sliced, err1 := decode(data, 0)
		d := decoder{dec: jsontext.NewDecoder(bytes.NewBuffer(data))}
		copied, err2 := d.value(0)
		if err1 == nil && err2 != nil {
			// decode also refuses data after the value; the bare decoder does not.
			t.Fatalf("decode succeeded where the copying decoder failed: %v", err2)
		}
		if err1 == nil && !reflect.DeepEqual(sliced, copied) {
			t.Fatalf("sliced %#v, copied %#v", sliced, copied)
		}
	})
}
