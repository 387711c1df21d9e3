package risk

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// BenchmarkPipeline measures the whole per-tool pipeline on the development
// corpus: parse, canonicalise and fingerprint (tooldef), infer and score.
func BenchmarkPipeline(b *testing.B) {
	dir := corpusRoot(b)
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	var raws [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		cat, err := tooldef.ParseCatalogue(data, tooldef.DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range cat.Tools {
			full, err := json.Marshal(t.Object)
			if err != nil {
				b.Fatal(err)
			}
			raws = append(raws, full)
		}
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for _, raw := range raws {
			tool, err := tooldef.ParseTool(raw)
			if err != nil {
				b.Fatal(err)
			}
			_ = Assess(Input{Tool: tool})
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tools/s")
}
