package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
)

// refusedPrefixes are the link-local ranges, where every cloud's instance
// metadata service lives (169.254.169.254 on AWS, GCP, Azure, OpenStack),
// and the metadata addresses outside them: Alibaba Cloud's 100.100.100.200,
// the IPv6 endpoint of AWS's instance metadata, fd00:ec2::254, and Azure's
// WireServer, 168.63.129.16, which hands a VM its extension settings and
// certificates.
// Whoever may create an MCPServer chooses the URL and the headers; without
// this, the operator would fetch the node's cloud credentials for them.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("100.100.100.200/32"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("168.63.129.16/32"),
}

// refusedAddress reports whether a probe must not connect to ip.
func refusedAddress(ip netip.Addr) bool {
	ip = ip.Unmap() // ::ffff:169.254.169.254 is 169.254.169.254
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// errRefusedAddress marks a connection the probe refused to make.
var errRefusedAddress = errors.New("a link-local or cloud metadata address")

// refusedError names the address refused; it is the operator's own words
// and the configured host, never anything a server sent.
type refusedError struct {
	host string
	ip   netip.Addr
}

func (e *refusedError) Error() string {
	if e.host != "" && e.host != e.ip.String() {
		return fmt.Sprintf("%s resolves to %s, %v, which probes may not reach", e.host, e.ip, errRefusedAddress)
	}
	return fmt.Sprintf("%s is %v, which probes may not reach", e.ip, errRefusedAddress)
}

func (e *refusedError) Unwrap() error { return errRefusedAddress }

// guardedDialer resolves a host once, refuses it if any of its addresses
// is refused, and dials the very address it checked, so a name that
// resolves to a harmless address for a check and to a metadata address
// for the connection (DNS rebinding) cannot get through.
type guardedDialer struct {
	allowLinkLocal bool
	lookup         func(ctx context.Context, network, host string) ([]netip.Addr, error)
	dial           func(ctx context.Context, network, address string) (net.Conn, error)
	// refused is told of every refusal, so that the probe reports it even
	// when the SDK's error does not wrap the dialer's.
	refused func(error)

	// origin is the configured endpoint's host; the addresses it resolved
	// to, once checked, are kept for the probe's result.
	origin   string
	mu       sync.Mutex
	resolved []netip.Addr
}

// note keeps the checked addresses of the origin host: the gate is given
// exactly these to dial, so that it never resolves the name itself.
func (d *guardedDialer) note(host string, ips []netip.Addr) {
	if !strings.EqualFold(host, d.origin) {
		return
	}
	set := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		set = append(set, ip.Unmap())
	}
	slices.SortFunc(set, netip.Addr.Compare)
	set = slices.Compact(set)
	d.mu.Lock()
	d.resolved = set
	d.mu.Unlock()
}

// addresses are the origin's addresses as last checked, nil when the
// probe never resolved it (it went through a proxy that was not checked).
func (d *guardedDialer) addresses() []netip.Addr {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.resolved)
}

func (d *guardedDialer) refuse(err *refusedError) error {
	if d.refused != nil {
		d.refused(err)
	}
	return err
}

func (d *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	name := host
	if ip, err := netip.ParseAddr(host); err == nil {
		ips, name = []netip.Addr{ip}, ""
	} else {
		lookupNet := "ip"
		switch network {
		case "tcp4":
			lookupNet = "ip4"
		case "tcp6":
			lookupNet = "ip6"
		}
		if ips, err = d.lookup(ctx, lookupNet, host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	if !d.allowLinkLocal {
		for _, ip := range ips {
			if refusedAddress(ip) {
				return nil, d.refuse(&refusedError{host: name, ip: ip.Unmap()})
			}
		}
	}
	d.note(host, ips)
	var firstErr error
	for _, ip := range ips {
		conn, err := d.dial(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// checkHost refuses a host before a request goes through a proxy, which
// dials the host itself: the dialer then sees only the proxy's address.
// The proxy resolves the name again, so behind a proxy the proxy must
// refuse metadata addresses too; this check stops the plain case.
func (d *guardedDialer) checkHost(ctx context.Context, host string) error {
	ips := []netip.Addr{}
	name := host
	if ip, err := netip.ParseAddr(host); err == nil {
		ips, name = append(ips, ip), ""
	} else if found, err := d.lookup(ctx, "ip", host); err == nil {
		ips = found
	}
	for _, ip := range ips {
		if refusedAddress(ip) && !d.allowLinkLocal {
			return d.refuse(&refusedError{host: name, ip: ip.Unmap()})
		}
	}
	if len(ips) > 0 {
		d.note(host, ips)
	}
	return nil
}
