package scale

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's CPU
// times; 100 on every Linux this runs on.
const clockTicks = 100

// procCPU is what one process of the run spent on the CPU, user and system.
type procCPU struct {
	name string
	cpu  time.Duration
}

// cpuOf reads a process's CPU time and command name from /proc.
func cpuOf(pid int) (procCPU, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procCPU{}, false
	}
	return parseStat(string(raw))
}

// parseStat reads the command name and utime+stime from one line of
// /proc/<pid>/stat. The name is in parentheses and may hold spaces and
// parentheses itself, so the fields are counted from the last ')'.
func parseStat(line string) (procCPU, bool) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return procCPU{}, false
	}
	f := strings.Fields(line[end+1:])
	// After the name: state(0) ppid(1) ... utime(11) stime(12).
	if len(f) < 13 {
		return procCPU{}, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return procCPU{}, false
	}
	return procCPU{name: line[open+1 : end], cpu: time.Duration(u+s) * time.Second / clockTicks}, true
}

// parentOf reads a process's parent's pid from /proc.
func parentOf(pid int) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	line := string(raw)
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(line[end+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// controlPlaneCPU is the CPU time of this test's own children other than
// the operator: the API server and etcd that envtest started.
func controlPlaneCPU(operatorPid int) []procCPU {
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []procCPU
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == operatorPid || parentOf(pid) != self {
			continue
		}
		if c, ok := cpuOf(pid); ok {
			out = append(out, c)
		}
	}
	return out
}

// cpuLine says where the run's CPU went, in all and per pin: what
// converging cost, which a loaded machine stretches far less than the
// wall clock.
func cpuLine(operator procCPU, testProcess time.Duration, plane []procCPU, pins int) string {
	total := operator.cpu + testProcess
	each := func(name string, d time.Duration) string {
		return fmt.Sprintf("%s %.1f s (%.2f ms a pin)", name, d.Seconds(), perPin(d, pins))
	}
	parts := []string{each("operator", operator.cpu)}
	for _, p := range plane {
		parts = append(parts, each(p.name, p.cpu))
		total += p.cpu
	}
	parts = append(parts, each("the test's MCP servers and watch", testProcess))
	return fmt.Sprintf("scale: CPU %s: %s", each("in all", total), strings.Join(parts, ", "))
}

// perPin is d shared among pins, in milliseconds.
func perPin(d time.Duration, pins int) float64 {
	if pins <= 0 {
		return 0
	}
	return float64(d.Microseconds()) / 1000 / float64(pins)
}

// selfCPU is the test process's own CPU time so far: the 200 MCP servers
// the operator probes, and the watch that counts the pins.
func selfCPU() time.Duration {
	c, _ := cpuOf(os.Getpid())
	return c.cpu
}
