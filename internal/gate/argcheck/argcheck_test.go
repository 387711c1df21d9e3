package argcheck

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// check compiles schema under a fresh Checker and checks args against it.
func check(t *testing.T, schema, args string) *Error {
	t.Helper()
	var raw []byte
	if args != "<absent>" {
		raw = []byte(args)
	}
	err := NewChecker(0).Check("fp", func() []byte { return []byte(schema) }, raw)
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Check returned %T %v, want *Error", err, err)
	}
	return e
}

const (
	closed = `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},
		"required":["path"],"additionalProperties":false}`
	declared = `{"type":"object","properties":{"path":{"type":"string"}}}`
	nested   = `{"type":"object","properties":{"opts":{"type":"object",
		"properties":{"depth":{"type":"integer","minimum":0,"maximum":5}},"required":["depth"],"additionalProperties":false}}}`
	arrays = `{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string","maxLength":3},"maxItems":2}}}`
	defs   = `{"type":"object","$defs":{"Mode":{"enum":["r","w"]}},"properties":{"mode":{"$ref":"#/$defs/Mode"}}}`
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, schema, args string
		arg, reason        string // want; reason "" means allowed
	}{
		{"closed ok", closed, `{"path":"a","n":3}`, "", ""},
		{"closed unknown argument", closed, `{"path":"a","x":1}`, "/x", "unknown argument"},
		{"missing required", closed, `{"n":1}`, "/path", "missing required argument"},
		{"wrong type", closed, `{"path":7}`, "/path", "wrong type: want string, got integer"},
		{"integer written as float", closed, `{"path":"a","n":3.0}`, "", ""},
		{"fraction for integer", closed, `{"path":"a","n":3.5}`, "/n", "wrong type: want integer, got number"},

		{"declared, extra refused", declared, `{"path":"a","extra":"b"}`, "/extra", "unknown argument"},
		{"declared, declared ok", declared, `{"path":"a"}`, "", ""},
		{"declared empty, any argument refused", `{"type":"object","properties":{}}`, `{"a":1}`, "/a", "unknown argument"},
		{"declared empty, none ok", `{"type":"object","properties":{}}`, `{}`, "", ""},
		{"a declared name in another case, beside open additional properties", `{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":true}`, `{"CITY":"x"}`, "/CITY", `an argument named as the declared "city" but for case`},
		{"a nested declared name in another case", `{"type":"object","properties":{"options":{"type":"object","properties":{"dryRun":{"const":true}}}}}`, `{"options":{"DryRun":false}}`, "/options/DryRun", `an argument named as the declared "dryRun" but for case`},
		{"a name declared through $ref in another case", `{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"path":{"type":"string"}}}}}`, `{"PATH":"/etc/passwd"}`, "/PATH", `an argument named as the declared "path" but for case`},
		{"a declared name folded", `{"type":"object","properties":{"keys":{}},"additionalProperties":true}`, `{"\u212aeys":1}`, "/\u212aeys", `an argument named as the declared "keys" but for case`},
		{"explicit additionalProperties true keeps meaning", `{"type":"object","properties":{"a":{}},"additionalProperties":true}`, `{"b":1}`, "", ""},
		{"additionalProperties schema keeps meaning", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"b":1}`, "/b", "wrong type: want string, got integer"},
		{"additionalProperties schema ok", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"b":"x"}`, "", ""},
		{"patternProperties keeps meaning", `{"type":"object","properties":{"a":{}},"patternProperties":{"^x-":{}}}`, `{"b":1}`, "", ""},
		{"declared in allOf counts", `{"type":"object","properties":{"a":{}},"allOf":[{"properties":{"b":{"type":"string"}}}]}`, `{"a":1,"b":"x"}`, "", ""},
		{"declared in allOf, not elsewhere", `{"type":"object","properties":{"a":{}},"allOf":[{"properties":{"b":{}}}]}`, `{"c":1}`, "/c", "unknown argument"},
		{"tightening is top level only", `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{}}}}}`, `{"o":{"z":1}}`, "", ""},

		{"loose object", `{"type":"object"}`, `{"anything":[1,{"x":null}]}`, "", ""},
		{"loose absent arguments", `{"type":"object"}`, "<absent>", "", ""},
		{"loose non-object", `{"type":"object"}`, `[1]`, "", "arguments must be a JSON object"},
		{"string arguments", `{"type":"object"}`, `"x"`, "", "arguments must be a JSON object"},
		{"null arguments", `{"type":"object"}`, `null`, "", "arguments must be a JSON object"},
		{"not JSON", `{"type":"object"}`, `{"a":`, "", "arguments are not valid JSON"},
		{"duplicate names", `{"type":"object"}`, `{"a":1,"a":2}`, "", "arguments are not valid JSON"},
		{"absent checked as {}", closed, "<absent>", "/path", "missing required argument"},

		{"enum ok", `{"properties":{"m":{"enum":["r","w"]}}}`, `{"m":"r"}`, "", ""},
		{"enum", `{"properties":{"m":{"enum":["r","w"]}}}`, `{"m":"rw"}`, "/m", "not one of the allowed values"},
		{"const", `{"properties":{"m":{"const":1}}}`, `{"m":1.5}`, "/m", "not the allowed value"},
		{"nested ok", nested, `{"opts":{"depth":2}}`, "", ""},
		{"nested wrong", nested, `{"opts":{"depth":9}}`, "/opts/depth", "greater than the maximum 5"},
		{"nested missing", nested, `{"opts":{}}`, "/opts/depth", "missing required property"},
		{"nested unknown", nested, `{"opts":{"depth":1,"x":1}}`, "/opts/x", "unknown property"},
		{"array ok", arrays, `{"paths":["a","b"]}`, "", ""},
		{"array item type", arrays, `{"paths":["a",2]}`, "/paths/1", "wrong type: want string, got integer"},
		{"array item length", arrays, `{"paths":["abcd"]}`, "/paths/0", "longer than 3 characters"},
		{"array too long", arrays, `{"paths":["a","b","c"]}`, "/paths", "more items than allowed"},
		{"ref ok", defs, `{"mode":"w"}`, "", ""},
		{"ref to defs", defs, `{"mode":"x"}`, "/mode", "not one of the allowed values"},
		{"anyOf", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"v":true}`, "/v", "matches none of the allowed forms"},
		{"oneOf ok", `{"properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"v":1}`, "", ""},
		{"pattern (RE2)", `{"properties":{"v":{"type":"string","pattern":"^(a+)+$"}}}`, `{"v":"` + strings.Repeat("a", 5000) + `!"}`, "/v", "does not match the required pattern"},
		{"format is an annotation", `{"properties":{"v":{"type":"string","format":"email"}}}`, `{"v":"not an email"}`, "", ""},
		{"unknown keyword ignored", `{"properties":{"v":{"type":"string","x-secret":true}}}`, `{"v":"a"}`, "", ""},
		{"name escaped in pointer", closed, `{"path":"a","a/b~c":1}`, "/a~1b~0c", "unknown argument"},

		{"big integer exact", `{"properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740993}`, "/n", "greater than the maximum 9007199254740992"},
		{"big integer at bound", `{"properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740992}`, "", ""},
		{"uint64", `{"properties":{"n":{"type":"integer","minimum":0}}}`, `{"n":18446744073709551615}`, "", ""},
		{"beyond uint64, inexact", `{"properties":{"n":{"type":"integer"}}}`, `{"n":100000000000000000000001}`, "/n", "number cannot be checked exactly"},
		{"beyond uint64, exact", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1180591620717411303424}`, "", ""},
		{"fraction rounding to integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1.0000000000000001}`, "/n", "number cannot be checked exactly"},
		{"underflow", `{"properties":{"n":{"type":"number"}}}`, `{"n":1e-400}`, "/n", "number cannot be checked exactly"},
		{"overflow", `{"properties":{"n":{"type":"number"}}}`, `{"n":1e400}`, "/n", "number cannot be checked exactly"},
		{"exponent integer", `{"properties":{"n":{"type":"integer","maximum":100}}}`, `{"n":1e2}`, "", ""},
		{"deep arguments", `{"type":"object"}`, `{"a":` + strings.Repeat("[", MaxArgumentDepth) + strings.Repeat("]", MaxArgumentDepth) + `}`, "/a" + strings.Repeat("/0", MaxArgumentDepth-1), "nested too deeply"},
		{"deepest arguments", `{"type":"object"}`, `{"a":` + strings.Repeat("[", MaxArgumentDepth-1) + strings.Repeat("]", MaxArgumentDepth-1) + `}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := check(t, tc.schema, tc.args)
			switch {
			case tc.reason == "" && e != nil:
				t.Fatalf("refused: %v (cause %v)", e, e.cause)
			case tc.reason != "" && e == nil:
				t.Fatalf("allowed, want %q at %q", tc.reason, tc.arg)
			case e != nil && (e.Argument != tc.arg || e.Reason != tc.reason):
				t.Fatalf("got %q at %q, want %q at %q", e.Reason, e.Argument, tc.reason, tc.arg)
			}
		})
	}
}

// A schema the gate cannot check refuses every call (fail closed), with a
// reason saying so.
func TestUncheckableSchemaFailsClosed(t *testing.T) {
	for _, tc := range []struct{ name, schema, why string }{
		{"not JSON", `{"type":`, "not valid JSON"},
		{"duplicate keyword", `{"type":"object","additionalProperties":false,"additionalProperties":true}`, "not valid JSON"},
		{"invalid schema", `{"type":"object","properties":{"a":{"type":7}}}`, "not a valid schema"},
		{"bad regexp", `{"properties":{"a":{"pattern":"("}}}`, "not a valid schema"},
		{"unresolvable ref", `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, "not a valid schema"},
		{"remote ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "does not fetch"},
		{"remote ref via $id", `{"$id":"https://example.com/root.json","properties":{"a":{"$ref":"other.json#/x"}}}`, "does not fetch"},
		{"ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "too costly"},
		{"self ref", `{"$ref":"#"}`, "too costly"},
		{"exponential refs", expRefs(30), "too costly"},
		{"exponential recursion", `{"anyOf":[{"properties":{"c":{"$ref":"#"}}},{"properties":{"c":{"$ref":"#"}}}]}`, "too costly"},
		{"unsupported draft", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, "$schema"},
		{"keyword but for case", `{"type":"object","properties":{"a":{}},"AdditionalProperties":true}`, "keyword"},
		{"keyword by Unicode fold", `{"type":"object","properties":{"a":{}},"additionalPropertieſ":true}`, "keyword"},
		{"items array in 2020-12", `{"properties":{"a":{"items":[{"type":"string"}]}}}`, "keyword"},
		{"too deep", strings.Repeat(`{"not":`, MaxSchemaDepth) + `{}` + strings.Repeat(`}`, MaxSchemaDepth), "not valid JSON"},
		{"missing", ``, "missing"},
		{"integer keyword out of range", `{"properties":{"a":{"maxLength":1e12}}}`, "not a valid schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChecker(0)
			err := c.Compile("fp", []byte(tc.schema))
			if err == nil {
				t.Fatal("compiled")
			}
			e := check(t, tc.schema, `{}`)
			if e == nil || e.Argument != "" || !strings.Contains(e.Reason, "pinned input schema cannot be checked") || !strings.Contains(e.Reason, tc.why) {
				t.Fatalf("got %v, want a refusal saying %q", e, tc.why)
			}
		})
	}
}

// expRefs is a schema whose $defs each apply the next one twice: 2^n
// evaluations of the last one on every call.
func expRefs(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}},"$ref":"#/$defs/d0"}`, n)
	return b.String()
}

// Draft spellings jsonschema-go would refuse at every call are read as the
// draft they name; legitimate recursion compiles.
func TestCompiles(t *testing.T) {
	for _, schema := range []string{
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`,
		`{"$schema":"http://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{}]}}}`,
		`{"$schema":"https://json-schema.org/draft-07/schema","type":"object"}`,
		`{"$defs":{"T":{"type":"object","properties":{"left":{"$ref":"#/$defs/T"},"right":{"$ref":"#/$defs/T"}}}},"properties":{"tree":{"$ref":"#/$defs/T"}}}`,
		`{"$defs":{"J":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/J"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/J"}}]}},"properties":{"v":{"$ref":"#/$defs/J"}}}`,
		`true`,
	} {
		if err := NewChecker(0).Compile("fp", []byte(schema)); err != nil {
			t.Errorf("%s: %v (cause %v)", schema, err, errors.Unwrap(err))
		}
	}
}

// Remote references are never fetched: a server that listens is never
// contacted, and the schema is uncheckable.
func TestRemoteRefNotFetched(t *testing.T) {
	hits := make(chan struct{}, 10)
	srv := newCountingServer(t, hits)
	schema := fmt.Sprintf(`{"type":"object","properties":{"a":{"$ref":%q},"b":{"$dynamicRef":%q}}}`, srv+"/s.json", srv+"/t.json#x")
	if err := NewChecker(0).Compile("fp", []byte(schema)); err == nil {
		t.Fatal("compiled a schema with remote references")
	}
	if len(hits) != 0 {
		t.Fatalf("the schema's URL was fetched %d times", len(hits))
	}
}

func TestCacheCompilesOnce(t *testing.T) {
	c := NewChecker(2)
	calls := 0
	schema := func() []byte { calls++; return []byte(closed) }
	for range 3 {
		if err := c.Check("a", schema, []byte(`{"path":"x"}`)); err != nil {
			t.Fatal(err)
		}
		if err := c.Check("a", schema, []byte(`{"x":1}`)); err == nil {
			t.Fatal("allowed an unknown argument")
		}
	}
	if calls != 1 || c.compiles != 1 {
		t.Fatalf("schema read %d times, compiled %d times; want 1", calls, c.compiles)
	}
	// An uncheckable schema is not recompiled either.
	bad := func() []byte { return []byte(`{"$ref":"#"}`) }
	for range 2 {
		if c.Check("b", bad, nil) == nil {
			t.Fatal("allowed a call against an uncheckable schema")
		}
	}
	if c.compiles != 2 {
		t.Fatalf("compiled %d times, want 2", c.compiles)
	}
	// The bound evicts the least recently used: a was used before b.
	for _, fp := range []string{"c", "b", "a"} { // b still cached, a evicted by c
		if c.Check(fp, schema, nil) == nil {
			t.Fatalf("%s: allowed a call missing a required argument", fp)
		}
	}
	if c.compiles != 4 || len(c.entries) != 2 {
		t.Fatalf("compiled %d times with %d entries; want 4 and 2", c.compiles, len(c.entries))
	}
}

func TestConcurrent(t *testing.T) {
	c := NewChecker(8)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				fp := fmt.Sprint((g + i) % 12)
				err := c.Check(fp, func() []byte { return []byte(closed) }, []byte(`{"path":"x","n":1}`))
				if err != nil {
					t.Error(err)
					return
				}
				if c.Check(fp, func() []byte { return []byte(closed) }, []byte(`{"path":1}`)) == nil {
					t.Error("allowed a wrong type")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestInputSchema(t *testing.T) {
	got, err := InputSchema([]byte(`{"name":"t","inputSchema": {"type":"object"} ,"x":[]}`))
	if err != nil || string(got) != `{"type":"object"}` {
		t.Fatalf("got %s, %v", got, err)
	}
	for _, bad := range []string{`[]`, `{"name":"t"}`, `{"inputSchema":{},"inputSchema":{}}`, `{"inputSchema":`} {
		if _, err := InputSchema([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Reasons never quote an argument's value, and pointers are bounded.
func TestNoValueEchoed(t *testing.T) {
	secret := "hunter2-" + strings.Repeat("s", 100)
	for _, schema := range []string{closed, `{"properties":{"path":{"enum":["x"]}}}`, `{"properties":{"path":{"pattern":"^x$"}}}`,
		`{"properties":{"path":{"type":"integer"}}}`, `{"properties":{"path":{"maxLength":3}}}`} {
		e := check(t, schema, `{"path":"`+secret+`","n":"`+secret+`"}`)
		if e == nil || strings.Contains(e.Error(), "hunter2") {
			t.Errorf("%s: %v", schema, e)
		}
	}
	long := strings.Repeat("é", 400)
	e := check(t, closed, `{"path":"a","`+long+`":1}`)
	if e == nil || len(e.Argument) > maxArgumentLen || !strings.HasSuffix(e.Argument, "…") {
		t.Fatalf("got %q", e.Argument)
	}
}
