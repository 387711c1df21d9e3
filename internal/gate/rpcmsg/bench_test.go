package rpcmsg

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// list100 is a tools/list answer of 100 tools shaped as the Go SDK writes
// them, the catalogue of the gate's benchmark (test/bench/gatebench).
func list100() []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"description":"Tool %d of the benchmark: echoes its text back, with a description about as long as a real server's.",`+
			`"inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false},"name":"tool_%03d"}`, i, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// BenchmarkFilterList100 filters the list as the gate does, with and
// without a memory budget charged (the gate's charges a mutex-guarded
// budget for every node).
func BenchmarkFilterList100(b *testing.B) {
	b.Run("uncharged", func(b *testing.B) { benchFilter(b, nil) })
	var mu sync.Mutex
	var used int64
	b.Run("charged", func(b *testing.B) {
		benchFilter(b, func(n int64) error {
			mu.Lock()
			used += n
			mu.Unlock()
			return nil
		})
	})
}

func benchFilter(b *testing.B, charge func(int64) error) {
	benchFilterKnown(b, charge, nil)
}

// BenchmarkFilterList100Known filters the same list with its tools
// remembered (Known), as every list after a server's first is.
func BenchmarkFilterList100Known(b *testing.B) {
	benchFilterKnown(b, nil, NewKnown(1<<20))
}

func benchFilterKnown(b *testing.B, charge func(int64) error, known *Known) {
	msg := list100()
	opts := ListOptions{Keep: func(l *Listed) bool { return l.Name != "tool_050" }, Cache: true, Charge: charge, Known: known}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		out, _, err := FilterList(dst[:0], msg, opts)
		if err != nil {
			b.Fatal(err)
		}
		dst = out
	}
}
