package fleet

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// spread is what a set of durations says: its median, its 99th
// percentile and its maximum, by the nearest-rank method.
type spread struct {
	n             int
	p50, p99, max time.Duration
}

func spreadOf(ds []time.Duration) spread {
	if len(ds) == 0 {
		return spread{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		// The nearest rank: the smallest value at least p of the set is at
		// or under.
		i := int(float64(len(s))*p+0.999999) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return spread{n: len(s), p50: rank(0.50), p99: rank(0.99), max: s[len(s)-1]}
}

func (s spread) String() string {
	r := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return fmt.Sprintf("p50 %s, p99 %s, max %s over %d gates", r(s.p50), r(s.p99), r(s.max), s.n)
}

// sumSeries adds up the samples of a metric, in the Prometheus text format,
// whose labels include every one given (`name="value"`).
func sumSeries(text, metric string, labels ...string) float64 {
	var total float64
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, metric)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		set, value := "", rest
		if strings.HasPrefix(rest, "{") {
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				continue
			}
			set, value = rest[1:end], rest[end+1:]
		}
		match := true
		for _, l := range labels {
			match = match && containsLabel(set, l)
		}
		if !match {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
			total += v
		}
	}
	return total
}

// containsLabel reports whether a label set, as written between the
// braces, holds the pair l exactly.
func containsLabel(set, l string) bool {
	for {
		i := strings.Index(set, l)
		if i < 0 {
			return false
		}
		before := i == 0 || set[i-1] == ','
		after := i+len(l) == len(set) || set[i+len(l)] == ','
		if before && after {
			return true
		}
		set = set[i+len(l):]
	}
}

// vmKiB reads one of a process's memory lines of /proc/PID/status
// ("VmRSS", "VmHWM") in KiB; 0 when it cannot.
func vmKiB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			if fs := strings.Fields(rest); len(fs) > 0 {
				n, _ := strconv.ParseInt(fs[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// endings counts why the gates' streams ended, from the client's log: a
// fleet that reconnects over and over is seen here before it is seen in
// the figures.
type endings struct {
	mu     sync.Mutex
	counts map[string]int
}

func (e *endings) Enabled(context.Context, slog.Level) bool { return true }
func (e *endings) WithAttrs([]slog.Attr) slog.Handler       { return e }
func (e *endings) WithGroup(string) slog.Handler            { return e }

func (e *endings) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	why := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" || a.Key == "why" {
			why += ": " + a.Value.String()
		}
		return true
	})
	if len(why) > 160 {
		why = why[:160]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counts == nil {
		e.counts = map[string]int{}
	}
	e.counts[why]++
	return nil
}

// take returns the counts so far, most frequent first, and starts again.
func (e *endings) take() string {
	e.mu.Lock()
	counts := e.counts
	e.counts = nil
	e.mu.Unlock()
	if len(counts) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return counts[b] - counts[a] })
	var out []string
	for _, k := range keys[:min(len(keys), 5)] {
		out = append(out, fmt.Sprintf("%d x %q", counts[k], k))
	}
	return strings.Join(out, "; ")
}

// cpuTime reads the CPU time (user and system) a process has used, from
// /proc/PID/stat, in the kernel's clock ticks of 10ms; 0 when it cannot.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command, second, is in parentheses and may hold spaces.
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(s[end+1:])
	// utime and stime are the 14th and 15th fields of the line, the 12th
	// and 13th after the command.
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+st) * 10 * time.Millisecond
}

// selfCPU is the CPU time this process has used: the gates' clients.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lastLiveHeap reads the heap live after the last collection from the
// runtime's gctrace lines ("gc 7 @2.1s 1%: ..., 12->13->6 MB, 14 MB goal,
// ..."), in bytes; -1 when there is none.
func lastLiveHeap(log string) float64 {
	live := -1.0
	for _, line := range strings.Split(log, "\n") {
		if !strings.HasPrefix(line, "gc ") {
			continue
		}
		for _, f := range strings.Split(line, ",") {
			f = strings.TrimSpace(f)
			if !strings.HasSuffix(f, " MB") || strings.Count(f, "->") != 2 {
				continue
			}
			parts := strings.Split(strings.TrimSuffix(f, " MB"), "->")
			if v, err := strconv.ParseFloat(parts[2], 64); err == nil {
				live = v * (1 << 20)
			}
		}
	}
	return live
}
