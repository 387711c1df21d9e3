package nodeenv

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// hostState is what a node could change on the machine, each aspect as a
// set of lines, so that two states compare line by line.
type hostState map[string][]string

// sysctlDirs are the kernel tunables compared. The kubelet writes some of
// vm and kernel; kube-proxy and the CNI plugins write net ones (per
// network namespace, so they must not change here at all).
var sysctlDirs = []string{"vm", "kernel", "net/ipv4", "net/ipv6/conf/all", "net/bridge", "net/netfilter"}

// volatileSysctls change by themselves on a live machine.
var volatileSysctls = regexp.MustCompile(`^(kernel/(random/|ns_last_pid|pty/nr|tainted|sched_domain|usermodehelper|keys/(maxkeys|maxbytes)$)|vm/(stat_refresh|drop_caches|compact_memory)|net/netfilter/nf_conntrack_count|net/ipv4/(tcp_mem|udp_mem|neigh/|route/flush)|net/ipv6/conf/all/stable_secret)`)

// nodeDirs are the directories a kubelet, containerd or the CNI plugins
// write to when not told otherwise; inside the node's mount namespace they
// are on file systems of its own, so none may appear on the machine.
var nodeDirs = []string{
	"/run/netns", "/run/containerd", "/run/nri", "/run/xtables.lock", "/var/lib/cni", "/var/lib/kubelet",
	"/var/lib/containerd", "/var/log/pods", "/var/log/containers", "/usr/libexec/kubernetes",
	"/opt/containerd", "/etc/cni/net.d", "/etc/kubernetes",
}

// snapshotHost reads the machine's state. marker is a string every process
// of the node carries on its command line (the node's directory); the
// containers' own processes die with the node's PID namespace.
func snapshotHost(marker string) (hostState, error) {
	s := hostState{}
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing interfaces: %w", err)
	}
	for _, i := range ifaces {
		s["interfaces"] = append(s["interfaces"], fmt.Sprintf("%s %s mtu %d", i.Name, i.Flags, i.MTU))
		addrs, err := i.Addrs()
		if err != nil {
			return nil, fmt.Errorf("addresses of %s: %w", i.Name, err)
		}
		for _, a := range addrs {
			s["addresses"] = append(s["addresses"], i.Name+" "+a.String())
		}
	}
	expires := regexp.MustCompile(`expires -?\d+sec`)
	for _, family := range []string{"-4", "-6"} {
		out, err := exec.Command("ip", family, "route", "show", "table", "all").Output()
		if err != nil {
			return nil, fmt.Errorf("ip %s route: %w", family, err)
		}
		s["routes"] = append(s["routes"], lines(expires.ReplaceAllString(string(out), "expires"))...)
	}
	for _, tool := range []string{"iptables-save", "ip6tables-save", "iptables-legacy-save", "ip6tables-legacy-save"} {
		if _, err := exec.LookPath(tool); err != nil {
			continue
		}
		out, err := exec.Command(tool).Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		for _, l := range lines(string(out)) {
			if strings.HasPrefix(l, "#") {
				continue // the time it was generated
			}
			// Chain counters change with traffic.
			s["iptables"] = append(s["iptables"], tool+" "+regexp.MustCompile(`\[\d+:\d+\]`).ReplaceAllString(l, ""))
		}
	}
	if _, err := exec.LookPath("nft"); err == nil {
		if out, err := exec.Command("nft", "list", "tables").Output(); err == nil {
			s["nftables"] = lines(string(out))
		}
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	for _, l := range lines(string(mountinfo)) {
		// Mount point, options, type and source; the IDs are left out.
		f := strings.Fields(l)
		if len(f) < 5 {
			continue
		}
		s["mounts"] = append(s["mounts"], strings.Join(append([]string{f[4]}, f[slices.Index(f, "-")+1:]...), " "))
	}
	for _, dir := range sysctlDirs {
		root := filepath.Join("/proc/sys", dir)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil //nolint:nilerr // a directory that does not exist here (net/bridge) is compared as absent
			}
			name := strings.TrimPrefix(p, "/proc/sys/")
			if volatileSysctls.MatchString(name) || strings.Contains(name, "/conf/") && !strings.Contains(name, "/conf/all/") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil //nolint:nilerr // write-only tunables are not compared
			}
			s["sysctls"] = append(s["sysctls"], name+" = "+strings.Join(strings.Fields(string(b)), " "))
			return nil
		})
	}
	hierarchies, _ := os.ReadDir("/sys/fs/cgroup")
	for _, h := range hierarchies {
		entries, _ := os.ReadDir(filepath.Join("/sys/fs/cgroup", h.Name()))
		for _, e := range entries {
			if e.IsDir() {
				s["cgroups"] = append(s["cgroups"], h.Name()+"/"+e.Name())
			}
		}
	}
	for _, d := range nodeDirs {
		if _, err := os.Lstat(d); err == nil {
			s["directories"] = append(s["directories"], d)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		// Every process of the node names its directory (a configuration,
		// a socket, a state directory); matching names instead would take
		// another clone's `kubelet --version` for a leftover.
		if marker != "" && bytes.Contains(b, []byte(marker)) {
			s["processes"] = append(s["processes"], strings.Join(args, " "))
		}
	}
	for k := range s {
		slices.Sort(s[k])
	}
	return s, nil
}

// diff lists what differs between two states: lines only in before ("-")
// and only in after ("+"), per aspect.
func (before hostState) diff(after hostState) []string {
	var out []string
	keys := slices.Sorted(maps.Keys(before))
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		b, a := set(before[k]), set(after[k])
		for _, l := range slices.Sorted(maps.Keys(b)) {
			if !a[l] {
				out = append(out, k+": - "+l)
			}
		}
		for _, l := range slices.Sorted(maps.Keys(a)) {
			if !b[l] {
				out = append(out, k+": + "+l)
			}
		}
	}
	return out
}

// cgroupPrefix begins the name of every node's cgroup.
const cgroupPrefix = "toolgate-node-"

// removeCgroups removes, depth first, the cgroup named name in every
// hierarchy: the node's pods and containers live under it, and cgroups
// are not held by any namespace. A cgroup still holding a process cannot
// be removed, and the error says so.
func removeCgroups(name string) error {
	var errs []string
	hierarchies, _ := os.ReadDir("/sys/fs/cgroup")
	for _, h := range hierarchies {
		root := filepath.Join("/sys/fs/cgroup", h.Name(), name)
		if _, err := os.Stat(root); err != nil {
			continue
		}
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for _, d := range slices.Backward(dirs) {
			if err := os.Remove(d); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("removing the node's cgroups: %s", strings.Join(errs, "; "))
	}
	return nil
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func set(ls []string) map[string]bool {
	m := make(map[string]bool, len(ls))
	for _, l := range ls {
		m[l] = true
	}
	return m
}

// removeStaleCgroups removes the cgroups of nodes that ended without
// removing theirs. Only a caller holding the machine's node lock may: a
// running node's cgroup would go too.
func removeStaleCgroups() error {
	var errs []string
	seen := map[string]bool{}
	stale, _ := filepath.Glob("/sys/fs/cgroup/*/" + cgroupPrefix + "*")
	for _, p := range stale {
		if name := filepath.Base(p); !seen[name] {
			seen[name] = true
			if err := removeCgroups(name); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("the cgroups a node left: %s", strings.Join(errs, "; "))
	}
	return nil
}
