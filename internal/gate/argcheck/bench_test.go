package argcheck

import (
	"strings"
	"testing"
)

// A typical tool: three arguments, one required, one enum, one bounded
// integer, closed by the gate's tightening.
const typical = `{"type":"object","properties":{
	"path":{"type":"string","description":"File to read"},
	"encoding":{"type":"string","enum":["utf-8","base64"]},
	"limit":{"type":"integer","minimum":1,"maximum":10000}},
	"required":["path"]}`

func BenchmarkCheck(b *testing.B) {
	c := NewChecker(0)
	schema := func() []byte { return []byte(typical) }
	args := []byte(`{"path":"/var/log/app.log","encoding":"utf-8","limit":200}`)
	if err := c.Check("fp", schema, args); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Check("fp", schema, args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckRefused(b *testing.B) {
	c := NewChecker(0)
	schema := func() []byte { return []byte(typical) }
	args := []byte(`{"path":"/var/log/app.log","encoding":"utf-8","limit":200,"extra":true}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Check("fp", schema, args); err == nil {
			b.Fatal("allowed")
		}
	}
}

// The worst schema MaxSchemaSize and MaxSchemaDepth allow for decoding:
// deeply nested, with the bulk at the bottom.
func BenchmarkCompileDeep(b *testing.B) {
	depth := MaxSchemaDepth/2 - 1
	bulk := `{"enum":["` + strings.Repeat("x", MaxSchemaSize-depth*16-64) + `"]}`
	schema := []byte(strings.Repeat(`{"not":`, depth) + bulk + strings.Repeat(`}`, depth))
	b.ReportAllocs()
	for b.Loop() {
		if err := NewChecker(0).Compile("fp", schema); err != nil {
			b.Fatal(err)
		}
	}
}
