package topology

import (
	"net"
	"strings"
	"testing"
)

func TestEnvNodeRank(t *testing.T) {
	for _, c := range []struct {
		value string
		set   bool
		want  int
		err   string
	}{
		{"", false, -1, ""},
		{"  ", true, -1, ""},
		{"3", true, 3, ""},
		{" 0 ", true, 0, ""},
		{"-1", true, -1, ""},
		{"x", true, 0, "Invalid NODE_RANK value: x"},
		{"-2", true, 0, "not a node rank"},
		{"16", true, 0, "not a node rank"},
	} {
		lookup := func(k string) (string, bool) {
			if k != "RLINF_NODE_RANK" {
				t.Fatalf("looked up %s", k)
			}
			return c.value, c.set
		}
		got, err := EnvNodeRank(lookup, 16)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %q", c.value, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %d, %v; want %d", c.value, got, err, c.want)
		}
	}
}

// LocalIPv4 gives an address or nothing, never a loopback one.
func TestLocalIPv4(t *testing.T) {
	ip := LocalIPv4()
	if ip == "" {
		return // no usable interface here
	}
	p := net.ParseIP(ip)
	if p == nil || p.To4() == nil || p.IsLoopback() {
		t.Errorf("LocalIPv4() = %q", ip)
	}
}
