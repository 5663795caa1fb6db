package topology

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// nodeFile is what `topology --nvml` writes on one node (rank < 0: none).
func nodeFile(rank int, host, ip string, uuids ...string) string {
	s := "inventory:\n  nodes:\n"
	if rank >= 0 {
		s += fmt.Sprintf("    - rank: %d\n      hostname: %s\n", rank, host)
	} else {
		s += fmt.Sprintf("    - hostname: %s\n", host)
	}
	s += fmt.Sprintf("      ip: %q\n      accelerators: {type: NV_GPU, count: %d}\n", ip, len(uuids))
	if len(uuids) > 0 {
		s += "      devices:\n"
		for i, u := range uuids {
			s += fmt.Sprintf("        - {index: %d, uuid: %s, nvlink: []}\n", i, u)
		}
	}
	return s
}

func merge(files ...string) (*model.Inventory, model.Diagnostics) {
	var in []MergeInput
	for i, f := range files {
		in = append(in, MergeInput{File: fmt.Sprintf("node%d.yaml", i), Data: []byte(f)})
	}
	return Merge(in, grammar.Limits{})
}

func hosts(inv *model.Inventory) []string {
	var out []string
	for _, n := range inv.Nodes {
		out = append(out, n.Hostname)
	}
	return out
}

func TestMergeExplicitRanks(t *testing.T) {
	inv, ds := merge(nodeFile(1, "b", "10.0.0.2", "GPU-b0", "GPU-b1"), nodeFile(0, "a", "10.0.0.1", "GPU-a0", "GPU-a1"))
	if len(ds) != 0 {
		t.Fatalf("%+v", ds)
	}
	if !reflect.DeepEqual(hosts(inv), []string{"a", "b"}) || inv.Nodes[1].Devices[1].UUID != "GPU-b1" || !inv.Nodes[1].Devices[1].NVLinkKnown {
		t.Errorf("merged %+v", inv.Nodes)
	}
	// The result encodes and loads as one inventory.
	out, err := Encode(inv, EncodeOptions{Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	back := loadInv(t, "merged.yaml", out)
	if !reflect.DeepEqual(hosts(back), []string{"a", "b"}) {
		t.Errorf("reloaded %v", hosts(back))
	}
}

// No ranks anywhere: numeric IP order (D13) and RLinf's string order
// differ here, so the merge warns.
func TestMergeByAddress(t *testing.T) {
	inv, ds := merge(nodeFile(-1, "j", "10.0.0.10"), nodeFile(-1, "b", "10.0.0.2"), nodeFile(-1, "a", "10.0.0.1"))
	if inv == nil || !reflect.DeepEqual(hosts(inv), []string{"a", "b", "j"}) {
		t.Fatalf("%v %+v", inv, ds)
	}
	if len(ds) != 1 || ds[0].Code != model.WarnNodeOrderRLinf || ds[0].Severity != model.SeverityWarning {
		t.Errorf("%+v", ds)
	}
	_, ds = merge(nodeFile(-1, "b", "10.0.0.2"), nodeFile(-1, "a", "10.0.0.1"))
	if len(ds) != 0 {
		t.Errorf("orders agree, yet %+v", ds)
	}
}

// Conflicts point at both files.
func TestMergeConflicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		code  string
		want  string
		at    string // file:line:col of the primary span
		label string
	}{
		{"same rank", []string{nodeFile(0, "a", "10.0.0.1"), nodeFile(0, "b", "10.0.0.2")}, model.CodeInventoryDuplicate,
			"node rank 0 is given twice: a (node0.yaml:3:13) and b (node1.yaml:3:13)", "node1.yaml:3:13", "node0.yaml:3:13"},
		{"same host", []string{nodeFile(0, "a", "10.0.0.1"), nodeFile(1, "a", "10.0.0.2")}, model.CodeInventoryDuplicate,
			"host a is described twice", "node1.yaml:4:17", "node0.yaml:4:17"},
		{"same GPU", []string{nodeFile(0, "a", "10.0.0.1", "GPU-x"), nodeFile(1, "b", "10.0.0.2", "GPU-x")}, model.CodeInventoryDuplicate,
			"GPU GPU-x appears on node rank 0 and on node rank 1", "node1.yaml:3:13", "node0.yaml:3:13"},
		{"mixed", []string{nodeFile(0, "a", "10.0.0.1"), nodeFile(-1, "b", "10.0.0.2")}, model.CodeInventoryRankMix,
			"1 of 2 nodes carry a rank and 1 do not", "node1.yaml:3:7", "node0.yaml:3:13"},
		{"gap", []string{nodeFile(0, "a", "10.0.0.1"), nodeFile(2, "b", "10.0.0.2")}, model.CodeInventoryInvalid,
			"rank 1 is missing", "node1.yaml:3:13", ""},
	} {
		inv, ds := merge(tc.files...)
		if inv != nil || !ds.HasErrors() {
			t.Errorf("%s: no error: %+v", tc.name, ds)
			continue
		}
		d := ds[0]
		if d.Code != tc.code || !strings.Contains(d.Summary, tc.want) || d.Primary.String() != tc.at {
			t.Errorf("%s: %s at %s: %s", tc.name, d.Code, d.Primary, d.Summary)
		}
		if tc.label != "" && (len(d.Labels) == 0 || d.Labels[0].Span.String() != tc.label) {
			t.Errorf("%s: labels %+v, want one at %s", tc.name, d.Labels, tc.label)
		}
	}
	// A file that does not load is reported as such.
	if inv, ds := merge("inventory:\n  nodes: 3\n"); inv != nil || !ds.HasErrors() {
		t.Errorf("bad file: %+v", ds)
	}
	if inv, ds := merge("inventory:\n  nodes: []\n"); inv != nil || !ds.HasErrors() {
		t.Errorf("no nodes: %+v", ds)
	}
}

// RLinf moves the Ray head first; OrderWithHead's warning accounts for it.
func TestOrderWithHead(t *testing.T) {
	ns := ipNodes("10.0.0.9", "10.0.0.10", "10.0.0.2", "10.0.0.1")
	got, warn := OrderWithHead(ns, 0)
	if got[0].IP != "10.0.0.1" || got[3].IP != "10.0.0.10" {
		t.Errorf("order %+v", got)
	}
	if !strings.Contains(warn, "rank 0 is 10.0.0.1 here but 10.0.0.9 in RLinf") {
		t.Errorf("warning %q", warn)
	}
	// Head already first in both orders: no warning.
	if _, warn := OrderWithHead(ipNodes("10.0.0.1", "10.0.0.2"), 0); warn != "" {
		t.Errorf("warning %q", warn)
	}
	if _, warn := OrderWithHead(ipNodes("10.0.0.1", "10.0.0.2"), 1); warn == "" {
		t.Error("head .2 is RLinf's rank 0: want a warning")
	}
}

// A name with host-list syntax survives a merge as that one name.
func TestMergeKeepsOddNames(t *testing.T) {
	inv, ds := merge("nodes:\n  - rank: 0\n    hostnames: [\"a[1],b\"]\n    accelerators: 1\n")
	if inv == nil {
		t.Fatal(ds)
	}
	for _, format := range []string{FormatYAML, FormatJSON} {
		out, _ := Encode(inv, EncodeOptions{Format: format, Ranks: true})
		if back := loadInv(t, "odd."+format, out); back.Nodes[0].Hostname != "a[1],b" {
			t.Errorf("%q\n%s", back.Nodes[0].Hostname, out)
		}
	}
}
