package tooldef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// A string the arena returned never changes, whatever is added after it,
// across as many chunks as the adds take.
func TestStringArenaKeepsEveryString(t *testing.T) {
	var a stringArena
	var got, want []string
	for i := range 500 {
		w := strings.Repeat(string(rune('a'+i%26)), i%37) + fmt.Sprint(i)
		// A small rest makes the arena begin many chunks.
		got = append(got, a.add([]byte(w), i*7, i%300))
		want = append(want, w)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d is %q, want %q", i, got[i], want[i])
		}
	}
	if s := a.add(nil, 5, 10); s != "" {
		t.Errorf("an empty add gave %q", s)
	}
}

// Neither reader allocates a string of its own for each string of a whole
// input, escaped or not: a value costs its box, and the strings a few
// chunks between them.
func TestDecodeCopiesStringsIntoChunks(t *testing.T) {
	for _, escaped := range []bool{false, true} {
		var b bytes.Buffer
		b.WriteByte('[')
		const n = 200
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if escaped {
				fmt.Fprintf(&b, `"line %d\nof text"`, i)
			} else {
				fmt.Fprintf(&b, `"line %d of text"`, i)
			}
		}
		b.WriteByte(']')
		data := b.Bytes()
		fast := testing.AllocsPerRun(20, func() {
			if _, err := decode(data, 0); err != nil {
				t.Fatal(err)
			}
		})
		slow := testing.AllocsPerRun(20, func() {
			d := decoder{dec: jsontext.NewDecoder(bytes.NewBuffer(data)), inputLen: len(data)}
			if _, err := d.value(0); err != nil {
				t.Fatal(err)
			}
		})
		// n boxes, the array, the stacks' growth and the chunks; a string
		// allocated on its own would add n more. The tokenizer allocates
		// a little of its own per decode, not per string.
		if limit := float64(n + 30); fast > limit || slow > limit {
			t.Errorf("escaped %v: %v allocations (direct) and %v (tokenizer) for %d strings, want at most %v", escaped, fast, slow, n, limit)
		}
	}
}

// The strings boxed once come back as their boxes from the direct reader,
// whether written plainly or with escapes: neither a box nor a copy of
// their bytes is allocated for them.
func TestFastDecodeBoxesConstants(t *testing.T) {
	data := []byte(`["string", "obj\u0065ct", "https://json-schema.org/draft/2020-12/schema"` + strings.Repeat(`, "integer", "array"`, 100) + `]`)
	v, err := decode(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := v.([]any)
	if a[0] != "string" || a[1] != "object" || a[2] != draft202012 || a[3] != "integer" || a[4] != "array" {
		t.Errorf("decoded %v", a[:5])
	}
	// The array, the stacks' growth and the unescaping buffer: nothing per
	// string.
	if n := testing.AllocsPerRun(20, func() { _, _ = decode(data, 0) }); n > 20 {
		t.Errorf("%v allocations for %d strings boxed once, want at most 20", n, len(a))
	}
	for _, s := range []string{"null", "array", "string", "object", "number", "integer", "boolean", draft7, draft202012} {
		if boxedConstant([]byte(s)) != box(s) {
			t.Errorf("boxedConstant(%q) is not box's", s)
		}
	}
	for _, s := range []string{"", "nul", "strings", "Object", draft7 + " ", "https://json-schema.org/draft/2019-09/schema"} {
		if boxedConstant([]byte(s)) != nil {
			t.Errorf("boxedConstant(%q) boxed a string that is not boxed once", s)
		}
	}
}

// The numbers 0 to 99 come back from the direct reader as their boxes,
// equal to the tokenizer's json.Number; any other number as the
// tokenizer reads it.
func TestFastDecodeBoxesSmallNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		fmt.Fprintf(&b, "%d,", i)
	}
	others := []string{"100", "-1", "-0", "0.5", "1e2", "10.0", "99.9", "9007199254740991", "-99", "1E1", "0e0"}
	b.WriteString(strings.Join(others, ","))
	b.WriteString("]")
	data := []byte(b.String())
	fast, ok := fastOnly(data, 0)
	if !ok {
		t.Fatal("the direct reader refused the numbers")
	}
	slow, err := tokenizerDecode(data, 0)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("direct %v, tokenizer %v (%v)", fast, slow, err)
	}
	a := fast.([]any)
	for i := range 100 {
		if a[i] != json.Number(strconv.Itoa(i)) || a[i] != smallNumbers[i] {
			t.Errorf("%d decoded as %#v", i, a[i])
		}
	}
	for k, s := range others {
		if a[100+k] != json.Number(s) {
			t.Errorf("%s decoded as %#v", s, a[100+k])
		}
	}
	for _, s := range []string{"", "-", "-1", "00", "05", "100", "1.", "a", "1a", "-0"} {
		if boxedSmallNumber([]byte(s)) != nil {
			t.Errorf("boxedSmallNumber(%q) boxed a number that is not boxed once", s)
		}
	}
	// The array, the stacks' growth: nothing per number.
	small := []byte("[" + strings.Repeat("0, 1, 10, 42, 99, ", 100) + "1]")
	if n := testing.AllocsPerRun(20, func() { _, _ = decode(small, 0) }); n > 20 {
		t.Errorf("%v allocations for 501 numbers boxed once, want at most 20", n)
	}
}
