package topology

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// What `rlsolve topology --nvml` learns of the node it runs on besides its
// GPUs: its address and the rank RLinf would give it.

// LocalIPv4 is this machine's address for an inventory: the first IPv4 address of an interface that is up and not a
// loopback, a container bridge or a virtual pair; "" when there is none.
func LocalIPv4() string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, in := range ifs {
		if in.Flags&net.FlagUp == 0 || in.Flags&net.FlagLoopback != 0 {
			continue
		}
		skip := false
		for _, p := range []string{"docker", "veth", "br-", "virbr", "cni", "flannel", "cali", "tailscale", "lxc"} {
			skip = skip || strings.HasPrefix(in.Name, p)
		}
		if skip {
			continue
		}
		addrs, err := in.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String()
			}
		}
	}
	return ""
}

// EnvNodeRank reads RLINF_NODE_RANK through lookup as RLinf does: -1 when
// it is unset, empty or -1 (RLinf's "not set"); an error for anything that
// is not a node rank below max.
func EnvNodeRank(lookup func(string) (string, bool), max int) (int, error) {
	v, ok := lookup("RLINF_NODE_RANK")
	if !ok || strings.TrimSpace(v) == "" {
		return -1, nil
	}
	r, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || r < -1 || r >= max {
		return 0, fmt.Errorf("RLINF_NODE_RANK=%q is not a node rank (RLinf: \"Invalid NODE_RANK value: %s. Must be an integer.\")", v, v)
	}
	return r, nil
}
