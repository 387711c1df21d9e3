package resultscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/test/bench/cleantext"
)

func BenchmarkText(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		text := cleantext.Of(size)
		s := New(Options{AgentTools: []string{"delete_repository", "send_email", "search", "read_file"}})
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				var r Report
				s.Text(&r, "text", text)
				if len(r.Findings) != 0 {
					b.Fatalf("clean text flagged: %+v", r.Findings)
				}
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strings.TrimSuffix(strings.Repeat("x", 0), "") + itoa(n>>20) + "MiB"
	}
	return itoa(n>>10) + "KiB"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}

// BenchmarkMessage is the scan as the gate runs it: a tools/call response
// walked with the JSON tokenizer, each string scanned.
func BenchmarkMessage(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		msg := resultMessage(cleantext.Of(size))
		s := New(Options{AgentTools: []string{"delete_repository", "send_email", "search", "read_file"}})
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				var r Report
				if err := s.Message(&r, msg); err != nil || len(r.Findings) != 0 {
					b.Fatalf("%v %+v", err, r.Findings)
				}
			}
		})
	}
}

// resultMessage is a tools/call response holding text as one text item.
func resultMessage(text string) []byte {
	q, _ := json.Marshal(text)
	return []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + string(q) + `}],"isError":false}}`)
}
