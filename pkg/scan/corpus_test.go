package scan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// The development corpus holds the real tools/list answers of 30 MCP
// servers. It is the false-positive check: every finding on it must be
// listed below with the reason it is right, so that a rule change that
// starts flagging honest tools fails this test.

type corpusTool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	InputSchema  any            `json:"inputSchema"`
	OutputSchema any            `json:"outputSchema"`
	Annotations  map[string]any `json:"annotations"`
}

type corpusServer struct {
	file       string
	Server     string `json:"server"`
	Initialize struct {
		Instructions string `json:"instructions"`
	} `json:"initialize"`
	Tools []corpusTool `json:"tools"`
}

// corpusDir is the corpus's servers directory.
func corpusDir(tb testing.TB) string {
	return filepath.Join(corpus.Dir(tb), "servers")
}

func loadCorpusServers(tb testing.TB) []corpusServer {
	dir := corpusDir(tb)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Skipf("no servers in %s", dir)
	}
	sort.Strings(files)
	var out []corpusServer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var s corpusServer
		if err := json.Unmarshal(b, &s); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		s.file = strings.TrimSuffix(filepath.Base(f), ".json")
		out = append(out, s)
	}
	return out
}

// toolTexts is what the risk engine will hand to Scan for one tool.
func toolTexts(t corpusTool) []Text {
	texts := []Text{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}}
	if at, ok := t.Annotations["title"].(string); ok {
		texts = append(texts, Text{"annotations.title", at})
	}
	texts = append(texts, SchemaTexts("inputSchema", tooldef.FromAny(t.InputSchema))...)
	texts = append(texts, SchemaTexts("outputSchema", tooldef.FromAny(t.OutputSchema))...)
	return texts
}

// otherTools lists the tool names of every other server, minus the names
// the server offers itself (see Options.OtherTools). Giving each server the
// whole rest of the corpus is a harsher shadowing test than any real agent.
func otherTools(servers []corpusServer, self int) []string {
	own := map[string]bool{}
	for _, t := range servers[self].Tools {
		own[t.Name] = true
	}
	var names []string
	for i, s := range servers {
		if i == self {
			continue
		}
		for _, t := range s.Tools {
			if !own[t.Name] {
				names = append(names, t.Name)
			}
		}
	}
	return names
}

// expectedCorpusFindings lists every finding the corpus is allowed to
// produce, keyed "server-file/tool/signal/field" (tool "-" for server
// instructions), with the reason it is a true positive. None of the 30
// servers is poisoned, and the scanner reports nothing on them; the list
// is empty, so any new finding fails the test.
//
// Texts in the corpus the rules were tuned not to report, with why:
//   - desktop-commander start_search: `".env", "dockerfile"` is a search
//     example, not a read directive (.env counts only as a verb's object);
//   - desktop-commander: "IMPORTANT: Always use absolute paths", "DO NOT use
//     this tool to create PDF files" (imperatives without a hostile aim);
//   - context7: "Do not include ... API keys, passwords, credentials ... in
//     your query" (a prohibition, not an exfiltration directive) and "You
//     MUST call this function before 'Query Documentation' tool" (its own
//     tool; "query" is another server's tool name, but a plain word counts
//     only when written as a tool);
//   - sentry: <examples>, <hints> (structuring tags, not <IMPORTANT> or
//     <system>); mongodb: "before using 'query'" (a parameter, not the
//     postgres server's query tool);
//   - cloud-run: "Do not select it yourself, make sure the user provides
//     ..."; filesystem: "will succeed silently"; everything: the easter-egg
//     instruction in initialize.instructions; git: "ssh://" URLs, SSH key
//     fingerprints; playwright: the cookie tools (not a cookie store path).
var expectedCorpusFindings = map[string]string{}

func TestCorpusFalsePositives(t *testing.T) {
	servers := loadCorpusServers(t)
	got := map[string]bool{}
	tools := 0
	for i, s := range servers {
		opts := Options{OtherTools: otherTools(servers, i)}
		record := func(tool string, fs []Finding) {
			for _, f := range fs {
				key := s.file + "/" + tool + "/" + f.Signal + "/" + f.Field
				got[key] = true
				t.Logf("%s: %q", key, f.Excerpt)
			}
		}
		if s.Initialize.Instructions != "" {
			record("-", Scan([]Text{{"instructions", s.Initialize.Instructions}}, opts))
		}
		for _, tool := range s.Tools {
			tools++
			record(tool.Name, Scan(toolTexts(tool), opts))
			record(tool.Name, NameFindings(tool.Name))
		}
	}
	t.Logf("%d servers, %d tools, %d findings", len(servers), tools, len(got))
	if len(got) > len(expectedCorpusFindings) {
		t.Errorf("%d findings on the corpus, at most %d expected", len(got), len(expectedCorpusFindings))
	}
	for k := range got {
		if _, ok := expectedCorpusFindings[k]; !ok {
			t.Errorf("unexpected finding on the corpus (false positive?): %s", k)
		}
	}
	for k := range expectedCorpusFindings {
		if !got[k] {
			t.Errorf("expected corpus finding no longer reported: %s", k)
		}
	}
}

func BenchmarkScanCorpus(b *testing.B) {
	servers := loadCorpusServers(b)
	type job struct {
		tool    corpusTool
		scanner *Scanner
	}
	var jobs []job
	bytes := 0
	alone := New(Options{})
	for i, s := range servers {
		// One Scanner per server, as a caller scanning a catalogue builds it.
		scanner := New(Options{OtherTools: otherTools(servers, i)})
		for _, tool := range s.Tools {
			jobs = append(jobs, job{tool, scanner})
			for _, tx := range toolTexts(tool) {
				bytes += len(tx.Value)
			}
		}
	}
	for _, mode := range []string{"with-other-tools", "alone"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				for _, j := range jobs {
					scanner := j.scanner
					if mode == "alone" {
						scanner = alone
					}
					scanner.Scan(toolTexts(j.tool))
				}
			}
			elapsed := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N*len(jobs))/elapsed, "tools/s")
			b.ReportMetric(elapsed*1e6/float64(b.N*len(jobs)), "µs/tool")
		})
	}
}

// BenchmarkScanTool scans the corpus tools whose text is 1-5 KB, the size
// the latency target is stated for.
func BenchmarkScanTool(b *testing.B) {
	servers := loadCorpusServers(b)
	var tools []corpusTool
	bytes := 0
	for _, s := range servers {
		for _, tool := range s.Tools {
			n := 0
			for _, tx := range toolTexts(tool) {
				n += len(tx.Value)
			}
			if n >= 1<<10 && n <= 5<<10 {
				tools = append(tools, tool)
				bytes += n
			}
		}
	}
	if len(tools) == 0 {
		b.Skip("no corpus tool of 1-5 KB")
	}
	texts := make([][]Text, len(tools))
	for i, tool := range tools {
		texts[i] = toolTexts(tool)
	}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		for _, tx := range texts {
			Scan(tx, Options{})
		}
	}
	elapsed := time.Since(start).Seconds()
	b.ReportMetric(elapsed*1e6/float64(b.N*len(tools)), "µs/tool")
	b.ReportMetric(float64(bytes)/float64(len(tools)), "bytes/tool")
}

// BenchmarkScanCorpusBySize scans the corpus's texts split by size, the
// texts under 16 bytes (names, enum values, short titles) apart from the
// rest, each tool's texts of a size in one Scan: what a text costs to set
// up beside what prose costs a byte.
func BenchmarkScanCorpusBySize(b *testing.B) {
	servers := loadCorpusServers(b)
	for _, size := range []struct {
		name  string
		short bool
	}{{"under-16-bytes", true}, {"16-bytes-and-more", false}} {
		var tools [][]Text
		texts, bytes := 0, 0
		for _, s := range servers {
			for _, tool := range s.Tools {
				var keep []Text
				for _, tx := range toolTexts(tool) {
					if (len(tx.Value) < 16) == size.short {
						keep = append(keep, tx)
						bytes += len(tx.Value)
					}
				}
				texts += len(keep)
				tools = append(tools, keep)
			}
		}
		scanner := New(Options{})
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			for b.Loop() {
				for _, t := range tools {
					scanner.Scan(t)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*texts), "ns/text")
			b.ReportMetric(float64(texts), "texts")
		})
	}
}

// BenchmarkShadowingCheck runs the shadowing check alone over the corpus's
// clean texts, each server's against the names of every other server, as
// a Scanner of an agent offered all of them would.
func BenchmarkShadowingCheck(b *testing.B) {
	servers := loadCorpusServers(b)
	type job struct {
		sh    *shadower
		texts []*textCtx
	}
	var jobs []job
	bytes := 0
	for i, s := range servers {
		j := job{sh: newShadower(otherTools(servers, i))}
		for _, tool := range s.Tools {
			for _, tx := range toolTexts(tool) {
				c := newTextCtx(tx.Value, false)
				c.prepare()
				j.texts = append(j.texts, c)
				bytes += len(c.clean)
			}
		}
		jobs = append(jobs, j)
	}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		for _, j := range jobs {
			for _, c := range j.texts {
				c.hits = c.hits[:0]
				j.sh.scan(c)
			}
		}
	}
}
