package grammar_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
)

// Inventory host lists expand against the entry's ranks.
func TestInventoryHostlist(t *testing.T) {
	src := "nodes:\n  - ranks: 0-3\n    hostnames: a800-[0-3]\n    ips: 10.0.0.[1-4]\n    accelerators: 8\n"
	inv, ds := grammar.LoadInventory("inv.yaml", []byte(src), grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatal(diagText(ds))
	}
	for i, n := range inv.Nodes {
		if n.Rank != i || n.Hostname != "a800-"+itoa(i) || n.IP != "10.0.0."+itoa(i+1) || n.AccelCount != 8 {
			t.Errorf("node %d: %+v", i, n)
		}
	}
	_, ds = grammar.LoadInventory("inv.yaml", []byte(strings.Replace(src, "a800-[0-3]", "a800-[0-4]", 1)), grammar.DefaultLimits)
	if !ds.HasErrors() {
		t.Error("5 host names for 4 nodes should be an error")
	}
}
