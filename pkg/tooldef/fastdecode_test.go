package tooldef

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/internal/corpus"
)

// tokenizerDecode decodes data as decode did before the direct reader:
// by the tokenizer alone, strings copied into the arena.
func tokenizerDecode(data []byte, maxString int) (any, error) {
	d := decoder{dec: jsontext.NewDecoder(bytes.NewBuffer(data)), maxString: maxString, inputLen: len(data)}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

func fastOnly(data []byte, maxString int) (any, bool) {
	d := decoder{maxString: maxString, inputLen: len(data)}
	v, ok := d.fastDecode(data)
	return v, ok
}

// What the direct reader must leave to the tokenizer, and what it must
// take itself.
func TestFastDecodeGivesUpOnWhatItDoesNotAccept(t *testing.T) {
	for _, c := range []struct {
		in        string
		maxString int
		ok        bool
	}{
		{`{"a": "b", "c": [1, -2.5e+3, 0, true, false, null, {}, []]}`, 0, true},
		{" \t\r\n{\"a\":\"\\u00e9\\n\\\"\"} \n", 0, true},
		{`"é"`, 0, true},
		{`{"a": 1, "a": 2}`, 0, false},
		{`{"a": 1, "\u0061": 2}`, 0, false},
		{`{"a": 1,}`, 0, false},
		{`[1,]`, 0, false},
		{`[1 2]`, 0, false},
		{`{"a" 1}`, 0, false},
		{`01`, 0, false},
		{`1.`, 0, false},
		{`1e`, 0, false},
		{`-`, 0, false},
		{`+1`, 0, false},
		{`.5`, 0, false},
		{`tru`, 0, false},
		{`nul`, 0, false},
		{`{} {}`, 0, false},
		{"\"a\x01b\"", 0, false},
		{"\"\xff\"", 0, false},
		{`"\ud800"`, 0, false},
		{`"\x"`, 0, false},
		{`"abc`, 0, false},
		{`"abcd"`, 3, false},
		{`"ab\u0063"`, 3, true},
		{`"ab\u0063d"`, 3, false},
		{"\xef\xbb\xbf{}", 0, false},
		{``, 0, false},
		{`   `, 0, false},
	} {
		_, ok := fastOnly([]byte(c.in), c.maxString)
		if ok != c.ok {
			t.Errorf("fastDecode(%q, max %d) ok = %v, want %v", c.in, c.maxString, ok, c.ok)
		}
		if ok {
			if _, err := tokenizerDecode([]byte(c.in), c.maxString); err != nil {
				t.Errorf("fastDecode took %q, which the tokenizer refuses: %v", c.in, err)
			}
		}
	}
	deep := bytes.Repeat([]byte("["), maxDepth+2)
	deep = append(deep, bytes.Repeat([]byte("]"), maxDepth+2)...)
	if _, ok := fastOnly(deep, 0); ok {
		t.Errorf("fastDecode took nesting past %d levels", maxDepth)
	}
}

// Every capture of both corpus folders is read by the direct reader, to
// the same tree the tokenizer gives, its strings in a few chunks.
func TestFastDecodeReadsTheCorpusAsTheTokenizer(t *testing.T) {
	n := 0
	for _, dir := range corpus.Dirs(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d := decoder{inputLen: len(data)}
			fast, ok := d.fastDecode(data)
			if !ok {
				t.Errorf("%s: the direct reader gave up", f)
				continue
			}
			slow, err := tokenizerDecode(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s: the direct reader and the tokenizer disagree", f)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no corpus capture read")
	}
}

// Whatever the direct reader takes, the tokenizer takes too, to the same
// value; and decode, which falls back on the tokenizer, agrees with it on
// every input, valid or not.
func FuzzFastDecodeAgreesWithTokenizer(f *testing.F) {
	for _, s := range []string{`{"a": "b", "c": ["d\"", "e"]}`, `{"a": 1, "a": 2}`, `[1, 2.5e3, -0, true]`,
		`"\ud83d\ude00"`, `{"x": {"y": [null, false, "é"]}}`, `[1,]`, "\"\xff\"",
		`[0, 9, 10, 99, 100, -0, 05, 1.0, 0e1]`} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, maxString int) {
		fast, ok := fastOnly(data, maxString)
		slow, err := tokenizerDecode(data, maxString)
		if ok {
			if err != nil {
				t.Fatalf("the direct reader took %q, which the tokenizer refuses: %v", data, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: direct %#v, tokenizer %#v", data, fast, slow)
			}
		}
		got, gotErr := decode(data, maxString)
		if (gotErr == nil) != (err == nil) || (err == nil && !reflect.DeepEqual(got, slow)) {
			t.Fatalf("%q: decode (%#v, %v), tokenizer (%#v, %v)", data, got, gotErr, slow, err)
		}
	})
}
