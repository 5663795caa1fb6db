package grammar_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

func TestCheckRanks(t *testing.T) {
	for _, c := range []struct {
		ranks []int
		code  string // the first diagnostic's, "" for none
		n     int    // how many diagnostics
		want  string
		at    int // the node the first points at
	}{
		{[]int{1, 0, 2}, "", 0, "", 0},
		{nil, "", 0, "", 0},
		{[]int{0, 0, 1, 1}, model.CodeInventoryDuplicate, 2, "r 0 is given twice: n0 and n1", 1},
		{[]int{0, 2}, model.CodeInventoryInvalid, 1, "r 2 of n1 is out of range: 2 nodes have ranks 0..1 (rank 1 is missing)", 1},
		{[]int{-1, 0}, model.CodeInventoryInvalid, 1, "r -1 of n0 is out of range", 0},
		// A repeat is reported before (and instead of) a gap.
		{[]int{0, 0, 5}, model.CodeInventoryDuplicate, 1, "given twice", 1},
	} {
		var asked []int
		r := grammar.Ranks{Of: c.ranks, Name: "r",
			At:   func(i int) model.Span { asked = append(asked, i); return model.Span{File: "f", Line: i + 1, Col: 1} },
			Node: func(i int) string { return fmt.Sprintf("n%d", i) }}
		var ds model.Diagnostics
		ok := grammar.CheckRanks(&ds, r)
		if ok != (c.code == "") || len(ds) != c.n {
			t.Errorf("%v: ok %v, %d diagnostics %v", c.ranks, ok, len(ds), ds)
			continue
		}
		if c.code == "" {
			if len(asked) > 0 {
				t.Errorf("%v: spans asked for %v with nothing to report", c.ranks, asked)
			}
			continue
		}
		if d := ds[0]; d.Code != c.code || !strings.Contains(d.Summary, c.want) || d.Primary.Line != c.at+1 {
			t.Errorf("%v: %s at %s: %s", c.ranks, d.Code, d.Primary, d.Summary)
		}
	}
}

// One file's ranks are checked as merged files' are.
func TestInventoryFileRanks(t *testing.T) {
	for _, c := range []struct{ src, code, want string }{
		{"nodes:\n  - {rank: 0, hostname: a, accelerators: 8}\n  - {rank: 0, hostname: b, accelerators: 8}\n",
			model.CodeInventoryDuplicate, "node rank 0 is given twice: a (x.yaml:2:"},
		{"nodes:\n  - {rank: 0, accelerators: 8}\n  - {rank: 2, accelerators: 8}\n",
			model.CodeInventoryInvalid, "(rank 1 is missing)"},
	} {
		_, ds := grammar.LoadInventory("x.yaml", []byte(c.src), grammar.DefaultLimits)
		if len(ds) != 1 || ds[0].Code != c.code || !strings.Contains(ds[0].Summary, c.want) {
			t.Errorf("%q: %v", c.src, ds)
		}
	}
}

func TestDuplicateAddress(t *testing.T) {
	at := func(i int) model.Span { return model.Span{File: "d.json", Line: i + 1, Col: 1} }
	if d := grammar.DuplicateAddress([]string{"10.0.0.1", "10.0.0.2"}, at); d != nil {
		t.Errorf("distinct addresses: %v", d)
	}
	d := grammar.DuplicateAddress([]string{"10.0.0.1", "10.0.0.2", "10.0.0.1"}, at)
	if d == nil || d.Code != model.CodeInventoryDuplicate || d.Primary.Line != 3 || len(d.Labels) != 1 || d.Labels[0].Span.Line != 1 {
		t.Errorf("got %+v", d)
	}
}

// The limit bounds the nodes of all the files read as one inventory.
func TestInventoryEntriesLimit(t *testing.T) {
	lim := grammar.DefaultLimits
	lim.MaxClusterNodes = 3
	two := []byte("nodes:\n  - {accelerators: 8}\n  - {accelerators: 8}\n")
	files := []grammar.InventoryFile{{File: "a.yaml", Data: two}, {File: "b.yaml", Data: two}}
	es, ds := grammar.LoadInventoryEntries(files, lim)
	if es != nil || len(ds) != 1 || ds[0].Code != model.CodeLimit || ds[0].Primary.File != "b.yaml" || ds[0].Primary.Line != 3 {
		t.Errorf("got %d entries, %v", len(es), ds)
	}
	if es, ds := grammar.LoadInventoryEntries(nil, lim); es != nil || len(ds) != 1 || ds[0].Code != model.CodeInventoryInvalid {
		t.Errorf("no files: %d entries, %v", len(es), ds)
	}
}
