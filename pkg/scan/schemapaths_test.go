package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// The Fields of one walk never change as later walks write theirs into
// the same chunks, across as many chunks as they take, a path longer than
// a chunk included.
func TestSchemaPathsKeptAcrossWalks(t *testing.T) {
	type kept struct {
		texts []Text
		want  []string
	}
	var all []kept
	for i := range 400 {
		props := map[string]any{}
		for k := range 1 + i%7 {
			props[fmt.Sprintf("p%d_%d", i, k)] = map[string]any{"type": "string", "description": fmt.Sprintf("d%d", k)}
		}
		if i%50 == 0 {
			props[strings.Repeat("q", 60)] = map[string]any{"items": map[string]any{"anyOf": []any{
				map[string]any{"properties": map[string]any{strings.Repeat("r", 60): map[string]any{"title": "deep"}}}}}}
		}
		texts := AppendSchemaTexts(nil, fmt.Sprintf("inputSchema%d", i), tooldef.FromAny(map[string]any{"type": "object", "properties": props}))
		if i%3 == 0 {
			texts = AppendDataTexts(texts, "_meta", tooldef.FromAny(map[string]any{"k": strings.Repeat("v", i)}))
		}
		want := make([]string, len(texts))
		for k, tx := range texts {
			want[k] = strings.Clone(tx.Field)
		}
		all = append(all, kept{texts, want})
	}
	long := strings.Repeat("x", 64)
	var deep any = "leaf"
	for range 100 {
		deep = map[string]any{long: deep}
	}
	texts := AppendDataTexts(nil, "_meta", tooldef.FromAny(deep))
	if n := len(texts[len(texts)-1].Field); n <= pathChunk {
		t.Fatalf("the longest path is %d bytes, no longer than a chunk", n)
	}
	all = append(all, kept{texts, nil})
	for _, tx := range texts {
		all[len(all)-1].want = append(all[len(all)-1].want, strings.Clone(tx.Field))
	}
	_ = SchemaTexts("outputSchema", tooldef.FromAny(map[string]any{"description": "last"}))
	for i, k := range all {
		for j, tx := range k.texts {
			if tx.Field != k.want[j] {
				t.Fatalf("walk %d, text %d: Field %q, was %q", i, j, tx.Field, k.want[j])
			}
		}
	}
}
