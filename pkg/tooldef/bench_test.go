package tooldef

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
)

func corpusFiles(b *testing.B) [][]byte {
	files, _ := filepath.Glob(filepath.Join(corpusDir(b), "*.json"))
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// BenchmarkDecode compares, in one run, the decoder this package uses with
// encoding/json on the development corpus.
func BenchmarkDecode(b *testing.B) {
	data := corpusFiles(b)
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, d := range data {
				dec := json.NewDecoder(bytes.NewReader(d))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("jsontext", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, d := range data {
				if _, err := decode(d, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkCanonical compares, in one run, writing the canonical form from
// the decoded tree with canonicalising the bytes with the library.
func BenchmarkCanonical(b *testing.B) {
	var tools []*Tool
	var raws [][]byte
	for _, d := range corpusFiles(b) {
		cat, err := ParseCatalogue(d, DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range cat.Tools {
			tools = append(tools, t)
			raw, _ := json.Marshal(t.Object)
			raws = append(raws, raw)
		}
	}
	b.Run("jcs-transform", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, raw := range raws {
				if _, err := jcs.Transform(raw); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("tree-writer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, t := range tools {
				if err := t.computeDigests(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
