// Command scanbench measures what the scan of what servers say costs per
// answer, side by side with what the gate did with the same answer before
// it scanned (the check that it is the one JSON-RPC response to the
// request): each answer is timed alone, so the figures are percentiles of
// single answers, not means of batches. It also reports the throughput on
// a large clean answer.
//
// Run it on one core, as the gate runs in a pod:
//
//	GOMAXPROCS=1 go run ./test/bench/scanbench
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/toolgate/toolgate/test/bench/cleantext"

	"github.com/toolgate/toolgate/internal/gate/rpcmsg"
	"github.com/toolgate/toolgate/pkg/resultscan"
)

func main() {
	n := flag.Int("n", 20000, "answers timed per variant")
	flag.Parse()
	id := []byte("7")
	small := answer(id, cleantext.Of(4<<10))
	large := answer(id, cleantext.Of(4<<20))
	tools := []string{"delete_repository", "send_email", "run_command", "read_file", "search"}
	sc := resultscan.New(resultscan.Options{AgentTools: tools})
	// The large answer is scanned whole, past the gate's default bound,
	// so that the figure is the scan's rate and not the bound's.
	scWhole := resultscan.New(resultscan.Options{AgentTools: tools, MaxBytes: 8 << 20})

	check := func(msg []byte) {
		if err := rpcmsg.CheckAnswer(msg, id); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	scanWith := func(s *resultscan.Scanner) func([]byte) {
		return func(msg []byte) {
			check(msg)
			var r resultscan.Report
			if err := s.Message(&r, msg); err != nil || !r.Clean() {
				fmt.Fprintln(os.Stderr, "a clean answer was flagged or left unscanned:", r.Findings, r.Unscanned, err)
				os.Exit(1)
			}
		}
	}
	scan := scanWith(sc)
	fmt.Printf("GOMAXPROCS=%d, %s/%s, %d answers per variant\n\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, *n)
	fmt.Printf("%-34s %10s %10s %10s\n", "a clean 4 KiB tools/call answer", "p50", "p99", "mean")
	for _, v := range []struct {
		name string
		f    func([]byte)
	}{{"no scan (the answer check alone)", check}, {"scan (answer check and scan)", scan}} {
		p50, p99, mean := percentiles(*n, func() { v.f(small) })
		fmt.Printf("%-34s %10s %10s %10s\n", v.name, p50, p99, mean)
	}
	fmt.Printf("\n%-34s %10s\n", "a clean 4 MiB answer, one core", "MB/s")
	for _, v := range []struct {
		name string
		f    func([]byte)
	}{{"no scan (the answer check alone)", check}, {"scan (answer check and scan)", scanWith(scWhole)}} {
		_, _, mean := percentiles(20, func() { v.f(large) })
		fmt.Printf("%-34s %10.0f\n", v.name, float64(len(large))/mean.Seconds()/1e6)
	}
}

func percentiles(n int, f func()) (p50, p99, mean time.Duration) {
	for range n / 10 {
		f() // warm the pools
	}
	d := make([]time.Duration, n)
	var sum time.Duration
	for i := range d {
		t0 := time.Now()
		f()
		d[i] = time.Since(t0)
		sum += d[i]
	}
	slices.Sort(d)
	return d[n/2], d[n*99/100], sum / time.Duration(n)
}

func answer(id []byte, text string) []byte {
	q, _ := json.Marshal(text)
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":` + string(q) + `}],"isError":false}}`)
}
