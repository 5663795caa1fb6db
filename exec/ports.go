package exec

import (
	"net"
	"os"
	"strings"
)

// freePorts binds n TCP ports on all interfaces (as RLinf's find_free_port
// binds ("", 0)), all at once so they differ, and releases them.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// isLocalAddr reports whether addr (an IP or a host name) names this
// machine, without asking DNS.
func isLocalAddr(addr string) bool {
	if addr == "localhost" {
		return true
	}
	if ip := net.ParseIP(addr); ip != nil {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return false
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
		return false
	}
	h, err := os.Hostname()
	if err != nil {
		return false
	}
	short, _, _ := strings.Cut(h, ".")
	return addr == h || addr == short
}
