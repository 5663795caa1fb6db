package exec

import (
	"fmt"
	"net/netip"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRayLiveOrder: the test cluster's nodes differ in string, numeric and
// RLINF_NODE_RANK order. A plan whose inventory lists them in string or
// numeric order is refused before anything is submitted, at the node where
// it differs from RLinf's order; the rank order (topology --ray's, which
// TestRayLiveEnv launches) is the one accepted. One of the two runs the
// preflight's probe job, the other reads the facts topology --ray kept.
func TestRayLiveOrder(t *testing.T) {
	l := rayLive(t)
	if len(l.ips) < 2 {
		t.Skipf("one node: no order to get wrong")
	}
	g := l.gpus / len(l.ips)
	orders := map[string][]string{
		"string":  slices.Sorted(slices.Values(l.ips)),
		"numeric": slices.SortedFunc(slices.Values(l.ips), func(a, b string) int { return netip.MustParseAddr(a).Compare(netip.MustParseAddr(b)) }),
	}
	for name, ips := range orders {
		t.Run(name, func(t *testing.T) {
			if slices.Equal(ips, l.ips) {
				t.Skipf("the cluster's %s order is its rank order (%v): not the test cluster's layout", name, ips)
			}
			var inv strings.Builder
			inv.WriteString("inventory:\n  nodes:\n")
			for i, ip := range ips {
				fmt.Fprintf(&inv, "    - rank: %d\n      ip: %q\n      accelerators: {type: NV_GPU, count: %d}\n", i, ip, g)
			}
			file := filepath.Join(l.dir, name+".yaml")
			if err := os.WriteFile(file, []byte(inv.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := l.launchArgs(l.config(t), "--run", "*=true")
			for i, a := range args {
				if a == l.inv {
					args[i] = file
				}
			}
			cmd := osexec.Command(l.bin, args...)
			if name == "numeric" {
				// No facts kept: this one's preflight runs the probe job.
				cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
			}
			out, err := cmd.CombinedOutput()
			first := 0 // where the inventory first differs from RLinf's order
			for ips[first] == l.ips[first] {
				first++
			}
			want := fmt.Sprintf("node %d is %s in the plan, but RLinf numbers the Ray cluster's nodes %s", first, ips[first], numberedIPs(l.ips))
			if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), name+".yaml:") {
				t.Errorf("launch: %v, want a refusal %q located in %s.yaml:\n%s", err, want, name, out)
			}
			if strings.Contains(string(out), "Ray job rlsolve-") {
				t.Errorf("a job was submitted:\n%s", out)
			}
		})
	}
}

func numberedIPs(ips []string) string {
	parts := make([]string, len(ips))
	for i, ip := range ips {
		parts[i] = fmt.Sprintf("%d=%s", i, ip)
	}
	return strings.Join(parts, " ")
}
