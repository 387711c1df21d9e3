package testenv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// A reserved port lies outside the range the kernel hands to outgoing
// connections, is free when handed out, and stays locked against every
// other reservation while this process lives.
func TestReservedPortsStayOutOfTheEphemeralRangeAndLocked(t *testing.T) {
	lo, hi := reservablePorts()
	seen := map[int]bool{}
	for range 20 {
		port := MustReservePort(t)
		if port < lo || port >= hi {
			t.Fatalf("port %d is outside [%d, %d)", port, lo, hi)
		}
		if seen[port] {
			t.Fatalf("port %d reserved twice", port)
		}
		seen[port] = true

		// Another reservation, as another test process would make it,
		// opens the lock file anew: its lock must be refused.
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "toolgate-test-ports", strconv.Itoa(port)+".lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		_ = f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatalf("a second lock on reserved port %d: %v, want EWOULDBLOCK", port, err)
		}

		// And the port is free for the process it is meant for.
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("reserved port %d cannot be bound: %v", port, err)
		}
		_ = ln.Close()
	}
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var eLo, eHi int
		if _, err := fmt.Sscan(string(b), &eLo, &eHi); err == nil && hi > eLo {
			t.Fatalf("reservable ports [%d, %d) reach into the ephemeral range [%d, %d]", lo, hi, eLo, eHi)
		}
	}
}
