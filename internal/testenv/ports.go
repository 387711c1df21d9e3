package testenv

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A port a test hands to a process it starts (the operator's gate port,
// its health probes) must stay free until that process binds it. A port
// found by listening on port 0 and closing again is an ephemeral port: the
// kernel hands the same range to every outgoing connection on the machine,
// and to every other test process doing the same, so on a loaded machine
// running several test packages at once it is sometimes taken in between.
//
// ReservePort avoids both: it picks from the ports just below the
// ephemeral range, which no outgoing connection uses, and it holds a lock
// file for the port for as long as the test process lives, which every
// toolgate test process honours (controller-runtime's envtest reserves its
// ports the same way). The lock is the test's, not the child's: the child
// inherits no descriptor of it, and a test process that ends takes its
// children with it.

// reservedPorts keeps the locks' files open, and so the locks held, until
// the process exits.
var reservedPorts struct {
	sync.Mutex
	files []*os.File
}

// ReservePort returns a port on 127.0.0.1 that nothing listens on and that
// no other toolgate test process will hand out while this one runs.
func ReservePort() (int, error) {
	lo, hi := reservablePorts()
	dir := filepath.Join(os.TempDir(), "toolgate-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, fmt.Errorf("reserving a port: %w", err)
	}
	var lastErr error
	for range 200 {
		port := lo + rand.IntN(hi-lo)
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)+".lock"), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			lastErr = err
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = f.Close()
			lastErr = err
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			// Something outside the tests holds it: leave it.
			_ = f.Close()
			lastErr = err
			continue
		}
		_ = ln.Close()
		reservedPorts.Lock()
		reservedPorts.files = append(reservedPorts.files, f)
		reservedPorts.Unlock()
		return port, nil
	}
	return 0, fmt.Errorf("reserving a port in [%d, %d): none free after 200 tries: %w", lo, hi, lastErr)
}

// MustReservePort is ReservePort for a test, which fails when no port can
// be had.
func MustReservePort(t testing.TB) int {
	t.Helper()
	port, err := ReservePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// MustReserveAddr is MustReservePort as host:port on 127.0.0.1.
func MustReserveAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(MustReservePort(t)))
}

// reservablePorts is the span of ports ReservePort picks from: the 8,192
// ports below the kernel's ephemeral range (32768 by default), and above
// the registered ports of common services.
func reservablePorts() (lo, hi int) {
	hi = 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
				hi = n
			}
		}
	}
	lo = hi - 8192
	if lo < 10000 {
		// An ephemeral range reaching this low leaves no span outside it;
		// the locks still keep toolgate's own tests apart.
		lo, hi = 10000, 18192
	}
	return lo, hi
}
