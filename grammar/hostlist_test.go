package grammar_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
)

// ExpandHostlist expands Slurm-style host lists, keeping zero padding.
func TestExpandHostlist(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a800-[0-7]", []string{"a800-0", "a800-1", "a800-2", "a800-3", "a800-4", "a800-5", "a800-6", "a800-7"}},
		{"node[01-04,09]", []string{"node01", "node02", "node03", "node04", "node09"}},
		{"gpu1,gpu2", []string{"gpu1", "gpu2"}},
		{"10.0.0.[1-3]", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}},
		{"a[1-2]b[1-2]", []string{"a1b1", "a1b2", "a2b1", "a2b2"}},
		{"x[1-2],y", []string{"x1", "x2", "y"}},
		{" a , b ", []string{"a", "b"}},
		{"n[008-010]", []string{"n008", "n009", "n010"}},
		{"", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := grammar.ExpandHostlist(tc.in, 100)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpandHostlistRejected(t *testing.T) {
	for _, in := range []string{"a[1-", "a]", "a[3-1]", "a[x]", "a[-1]", "a[1-2"} {
		if got, err := grammar.ExpandHostlist(in, 100); err == nil {
			t.Errorf("%q accepted: %v", in, got)
		}
	}
}

// Beyond max the expansion is refused before allocating, however large the
// range or product is.
func TestExpandHostlistLimit(t *testing.T) {
	for _, tc := range []struct {
		in  string
		max int
	}{
		{"n[1-10]", 5},
		{"a,b,c", 2},
		{"n[0-999999999]", 100},
		{"a[0-99999]b[0-99999]", 1000},
		{"a[0-9],b[0-9]", 15},
	} {
		t.Run(tc.in, func(t *testing.T) {
			start := time.Now()
			got, err := grammar.ExpandHostlist(tc.in, tc.max)
			if err == nil {
				t.Fatalf("accepted %d names", len(got))
			}
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if !strings.Contains(err.Error(), "more than") && !strings.Contains(err.Error(), "too many") {
				t.Errorf("error %q should say the list is too long", err)
			}
		})
	}
}

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
