package argfloor

import (
	"strings"
	"testing"
)

// richSchema holds a parameter of every role, so that fuzzed arguments
// reach every reading.
const richSchema = `{"type":"object","$defs":{"N":{"type":"object","properties":{"force":{"type":"boolean"},"child":{"$ref":"#/$defs/N"}}}},"properties":{
	"namespace":{"type":"string"},
	"ids":{"type":"array","items":{"type":"string"}},
	"filter":{"anyOf":[{"type":"object"},{"type":"string"}]},
	"where":{"type":"string"},
	"force":{"type":"boolean","default":false},
	"validate":{"type":"boolean","default":true},
	"mode":{"type":"string","enum":["list","hard","delete"]},
	"sql":{"type":"string"},
	"statements":{"type":"array","items":{"type":"string"}},
	"command":{"type":"string"},
	"args":{"type":"array","items":{"type":"string"}},
	"flags":{"type":"object","additionalProperties":true},
	"search":{"type":"string"},
	"tree":{"$ref":"#/$defs/N"},
	"items":{"type":"array","items":{"type":"object","properties":{"overwrite":{"type":"boolean"}}}}
}}`

func checkFloors(t *testing.T, fs []Floor) {
	t.Helper()
	if len(fs) > maxFloors {
		t.Fatalf("%d floors, more than %d", len(fs), maxFloors)
	}
	for _, f := range fs {
		if f.Level != "L3" && f.Level != "L4" && f.Level != "L5" {
			t.Fatalf("floor %+v: level out of range", f)
		}
		if len(f.Detail) > MaxDetail {
			t.Fatalf("floor %+v: detail longer than %d bytes", f, MaxDetail)
		}
		if f.Signal != SignalReach && f.Signal != SignalForce && f.Signal != SignalStatement {
			t.Fatalf("floor %+v: unknown signal", f)
		}
	}
}

// FuzzAnalyze: Analyze and Evaluate never panic on arbitrary schemas and
// arguments, and what they return is well formed.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{richSchema, deleteSchema, commandSchema, sqlSchema, operationSchema, ``, `{`, `{"properties":[]}`,
		`{"properties":{"a":{"$ref":"#"}}}`, `{"properties":{"force":{"type":["boolean",1]}}}`} {
		f.Add([]byte(s), []byte(`{"force":true,"namespace":"*","sql":"DROP TABLE t"}`), "read")
	}
	f.Fuzz(func(t *testing.T, schema, args []byte, category string) {
		p := Analyze(schema)
		_ = p.Signals()
		checkFloors(t, p.Evaluate(args, category))
	})
}

// FuzzEvaluate: every reading of a call's arguments — flags, selectors,
// statements, command lines, flag maps — never panics on arbitrary bytes.
func FuzzEvaluate(f *testing.F) {
	for _, a := range []string{
		`{"namespace":"all","ids":["*"],"filter":{},"where":"1=1","force":true,"validate":false,"mode":"hard"}`,
		`{"sql":"select 1; drop table x /* ' \" $$ ","statements":["DO $a$ x $a$","EXECUTE 'DELETE FROM t'"]}`,
		`{"command":"rm -rf / --no-preserve-root 'a\\' \"b","args":["--force","-A"],"flags":{"--all":null,"force":"yes"}}`,
		`{"tree":{"child":{"child":{"force":1}}},"items":[{"overwrite":true}],"search":"%"}`,
		`{"sql":"\u0000\ud800`, `[`, `"x"`, `{"force":tru`, `{"FORCE":true,"force":false}`,
	} {
		f.Add([]byte(a), "")
	}
	p := Analyze([]byte(richSchema))
	if p.Empty() {
		f.Fatal("the rich schema gives an empty plan")
	}
	f.Fuzz(func(t *testing.T, args []byte, category string) {
		checkFloors(t, p.Evaluate(args, category))
	})
}

// FuzzStatement: the statement reading never panics, and reading a text
// twice gives the same verdict.
func FuzzStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1; DROP TABLE t", "E'\\'", "$a$ $", "/*! DROP", "WITH d AS (DELETE FROM t",
		"DO $$ EXECUTE 'EXECUTE ''DROP TABLE t''' $$", strings.Repeat("(", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var x sqlScratch
		a := x.classify([]byte(s))
		if b := x.classify([]byte(s)); a != b {
			t.Fatalf("%q: %v then %v", s, a, b)
		}
		if a.level != 0 && a.level != l3 && a.level != l5 {
			t.Fatalf("%q: level %d", s, a.level)
		}
		_ = x.tautology([]byte(s))
	})
}
