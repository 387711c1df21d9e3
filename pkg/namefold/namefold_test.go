package namefold

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestKeyMatchesEncodingJSON(t *testing.T) {
	// Two names encoding/json matches to one field have one Key.
	type call struct {
		Name string `json:"name"`
	}
	for _, variant := range []string{"name", "Name", "NAME", "nAmE"} {
		var c call
		if err := json.Unmarshal([]byte(`{"`+variant+`":"x"}`), &c); err != nil || c.Name != "x" {
			t.Fatalf("encoding/json did not read %q as name", variant)
		}
		if Key(variant) != Key("name") {
			t.Errorf("Key(%q) = %q, Key(name) = %q", variant, Key(variant), Key("name"))
		}
	}
	type args struct {
		Arguments string `json:"arguments"`
		Keys      string `json:"keys"`
	}
	for _, variant := range []string{"argumentſ", "ARGUMENTS"} {
		var a args
		if err := json.Unmarshal([]byte(`{"`+variant+`":"x"}`), &a); err != nil || a.Arguments != "x" {
			t.Fatalf("encoding/json did not read %q as arguments", variant)
		}
		if Key(variant) != Key("arguments") {
			t.Errorf("Key(%q) differs from Key(arguments)", variant)
		}
	}
	var a args
	_ = json.Unmarshal([]byte(`{"\u212aeys":"x"}`), &a) // Kelvin sign
	if a.Keys != "x" || Key("\u212aeys") != Key("keys") {
		t.Errorf("the Kelvin sign: encoding/json read %q, keys %q and %q", a.Keys, Key("\u212aeys"), Key("keys"))
	}
	if Key("name") == Key("names") || Key("_meta") == Key("meta") {
		t.Error("distinct names share a Key")
	}
}

func TestCheck(t *testing.T) {
	params := NewLevel(map[string]*Level{"name": nil, "arguments": nil, "_meta": nil})
	top := NewLevel(map[string]*Level{"jsonrpc": nil, "id": nil, "method": nil, "params": params})
	tools := Names("name", "description", "inputSchema")
	list := NewLevel(map[string]*Level{"result": NewLevel(map[string]*Level{"tools": tools, "nextCursor": nil})})
	for _, tc := range []struct {
		name    string
		level   *Level
		msg     string
		path    string // "" when the message passes
		defined bool
	}{
		{"plain call", top, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}`, "", false},
		{"params Name beside name", top, `{"id":1,"method":"tools/call","params":{"name":"a","Name":"b"}}`, "/params", false},
		{"params NAME alone", top, `{"id":1,"method":"tools/call","params":{"NAME":"b"}}`, "/params", true},
		{"long s in arguments", top, `{"id":1,"method":"tools/call","params":{"name":"a","argumentſ":{}}}`, "/params", true},
		{"top-level Params", top, `{"id":1,"method":"tools/call","Params":{"name":"b"}}`, "", true},
		{"collision deep in arguments", top, `{"id":1,"method":"m","params":{"arguments":{"a":{"b":[{"repo":1,"Repo":2}]}}}}`, "/params/arguments/a/b/0", false},
		{"unknown member passes", top, `{"id":1,"method":"m","params":{"name":"a","task":{"ttl":1}}}`, "", false},
		{"arguments may use any case once", top, `{"id":1,"method":"m","params":{"arguments":{"Name":1,"ARGUMENTS":2}}}`, "", false},
		{"list with Tools beside tools", list, `{"id":1,"result":{"tools":[],"Tools":[{"name":"x"}]}}`, "/result", false},
		{"list with toolſ", list, `{"id":1,"result":{"toolſ":[]}}`, "/result", true},
		{"tool with Description", list, `{"id":1,"result":{"tools":[{"name":"x","Description":"y"}]}}`, "/result/tools/0", true},
		{"pointer escapes", nil, `{"a/b":{"x":1,"X":2}}`, "/a~1b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.msg), tc.level)
			if tc.path == "" && !tc.defined {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Path != tc.path || e.Defined != tc.defined || !errors.Is(err, ErrAmbiguous) {
				t.Errorf("got path %q defined %v (%v), want %q %v", e.Path, e.Defined, err, tc.path, tc.defined)
			}
		})
	}
}

func TestCheckRefusesWhatIsNotJSON(t *testing.T) {
	for _, msg := range []string{``, `{"a":`, `{"name":"a","n\u0061me":"b"}`, `{"a":1}{}`, `{"a":1,"a":2}`, "{\"\xff\":1}"} {
		if err := Check([]byte(msg), nil); err == nil {
			t.Errorf("%q passed", msg)
		}
	}
}

func BenchmarkCheckCall(b *testing.B) {
	params := NewLevel(map[string]*Level{"name": nil, "arguments": nil, "_meta": nil})
	top := NewLevel(map[string]*Level{"jsonrpc": nil, "id": nil, "method": nil, "params": params})
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris","units":"metric","days":3},"_meta":{"progressToken":7}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(msg, top); err != nil {
			b.Fatal(err)
		}
	}
}

// A value Check accepts is valid JSON in which no object has two members of
// one Key; one it refuses with an *Error has such a pair, or a defined name
// in another case.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"name":"a","Name":"b"}`, `{"a":[{"x":1},{"X":2}]}`, `{"toolſ":[]}`, `[1,{"k":1,"\u212a":2}]`, `{"params":{"NAME":1}}`} {
		f.Add([]byte(s))
	}
	top := NewLevel(map[string]*Level{"params": Names("name", "arguments"), "tools": nil})
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b, top)
		if err != nil {
			return
		}
		var v any
		if jerr := json.Unmarshal(b, &v); jerr != nil {
			t.Fatalf("accepted what encoding/json cannot read: %v", jerr)
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				keys := map[string]string{}
				for k, e := range v {
					if other, ok := keys[Key(k)]; ok {
						t.Fatalf("accepted %q beside %q in %s", k, other, b)
					}
					keys[Key(k)] = k
					walk(e)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(v)
	})
}
