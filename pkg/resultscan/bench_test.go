package resultscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// cleanResult is ordinary tool output of about size bytes: prose, a log
// excerpt, a JSON record, a link, the mix a fetch or a ticket tool returns.
func cleanResult(size int) string {
	parts := []string{
		"The quarterly report shows revenue grew by 12 percent compared with the same period last year. ",
		"Operating costs were flat, and the team shipped three releases of the billing service.\n",
		"2024-05-01T10:00:00Z INFO request served path=/api/v1/users status=200 duration=12ms\n",
		"{\"id\": 4411, \"name\": \"Ada Example\", \"email\": \"ada@example.com\", \"role\": \"admin\"}\n",
		"See https://docs.example.com/guide?section=setup&lang=en for the setup guide.\n",
		"Please review the pull request and merge it when the checks pass. ",
		"Customers in the northern region reported faster response times after the migration.\n",
	}
	var b strings.Builder
	for b.Len() < size {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	return b.String()[:size]
}

func BenchmarkText(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		text := cleanResult(size)
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
		msg := resultMessage(cleanResult(size))
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
