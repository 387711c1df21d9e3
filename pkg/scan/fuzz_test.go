package scan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// FuzzScan checks that no input makes Scan panic or break its contract:
// at most 64 findings, one per (signal, field), every field named, every
// excerpt short, valid UTF-8 and free of raw control or invisible
// characters.
func FuzzScan(f *testing.F) {
	for _, tc := range signalTests {
		for _, c := range append(append([]signalCase{}, tc.attacks...), tc.benign...) {
			f.Add(c.text, c.field, strings.Join(c.opts.OtherTools, ","))
		}
	}
	f.Add(invariantPoisoning, "description", "send_email")
	f.Add("\xff\xfe\x1b[8m\u202e\U000E0041", "name", "")
	f.Add(strings.Repeat("\U000E0041", 200), "", "a,b")
	f.Fuzz(func(t *testing.T, value, field, others string) {
		var opts Options
		if others != "" {
			opts.OtherTools = strings.Split(others, ",")
		}
		texts := []Text{{field, value}, {"description", value}, {"name", value}}
		fs := Scan(texts, opts)
		checkFindings(t, fs)
		checkFindings(t, NameFindings(value))
	})
}

// FuzzSchemaTexts checks that SchemaTexts survives any JSON value, stays
// within its bounds and names every string with a printable path.
func FuzzSchemaTexts(f *testing.F) {
	f.Add(`{"type":"object","properties":{"path":{"type":"string","description":"A path"}}}`)
	f.Add(`{"properties":{"p\u0430th":{"enum":["a",{"x":["y"]}],"default":{"k\u200b":"v"}}},"$defs":{"Foo":{"items":[{"title":"t"},true]}}}`)
	f.Add(`{"anyOf":[{"not":{"const":"x"}},{"if":{"pattern":"^a"},"then":{"examples":[["deep"]]},"else":false}],"dependencies":{"a":["b"],"c":{"title":"d"}}}`)
	f.Add(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`)
	f.Add(`"just a string"`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Skip()
		}
		texts := SchemaTexts("inputSchema", tooldef.FromAny(v))
		if len(texts) > maxSchemaStrings {
			t.Fatalf("%d texts, more than %d", len(texts), maxSchemaStrings)
		}
		for _, tx := range texts {
			if !strings.HasPrefix(tx.Field, "inputSchema") {
				t.Fatalf("field %q not under the prefix", tx.Field)
			}
			if !utf8.ValidString(tx.Field) {
				t.Fatalf("field %q is not valid UTF-8", tx.Field)
			}
			checkVisible(t, "field", tx.Field)
		}
		checkFindings(t, Scan(texts, Options{}))
	})
}

// FuzzPrepareASCII holds the clean forms a Scan makes beforehand, for all
// its texts at once, equal to those prepare makes for one text alone, with
// the same control-character hits.
func FuzzPrepareASCII(f *testing.F) {
	f.Add("Returns the Weather.\nfor a city", "plain lower case", "Caf\u00e9 au lait")
	f.Add("Tab\tand \x01control", "line\nBreak and\n  wrapped line", "ALL CAPS\r\n")
	f.Add(strings.Repeat("A", maxScanBytes+3), "", "\xff\xfe")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		texts := []Text{{"description", a}, {"name", b}, {"title", c}}
		pre := &textCtx{}
		cleans := pre.prepareASCII(texts)
		for i, tx := range texts {
			alone := newTextCtx(tx.Value, false)
			alone.prepare()
			withPre := newTextCtx(tx.Value, false)
			withPre.usePre(cleans, pre.cleanAt[i])
			withPre.prepare()
			if withPre.clean != alone.clean || len(withPre.hits) != len(alone.hits) || withPre.deltas != nil != (alone.deltas != nil) {
				t.Fatalf("%q: clean %q and %d hits made beforehand, %q and %d alone", tx.Value, withPre.clean, len(withPre.hits), alone.clean, len(alone.hits))
			}
			for k := range alone.hits {
				if withPre.hits[k] != alone.hits[k] {
					t.Fatalf("%q: hit %+v made beforehand, %+v alone", tx.Value, withPre.hits[k], alone.hits[k])
				}
			}
		}
	})
}

// The clean forms one Scan made beforehand never change as later Scans
// make theirs in the same chunks, across as many chunks as they take.
func TestPrepareASCIIKeepsEarlierForms(t *testing.T) {
	c := &textCtx{}
	type made struct{ got, want string }
	var all []made
	for i := range 300 {
		texts := []Text{{"description", strings.Repeat("Some Capitals ", 1+i%40)}, {"title", "A Title"}, {"name", "plain"}}
		if i%100 == 0 {
			texts = append(texts, Text{"description", strings.Repeat("X", cleanChunkSize+5)})
		}
		cleans := c.prepareASCII(texts)
		all = append(all, made{cleans, strings.Clone(cleans)})
	}
	for i, m := range all {
		if m.got != m.want {
			t.Fatalf("Scan %d: clean forms changed from %.40q to %.40q", i, m.want, m.got)
		}
	}
}
