package topology

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func ipNodes(ips ...string) []model.Node {
	var ns []model.Node
	for _, ip := range ips {
		ns = append(ns, model.Node{IP: ip, AccelCount: 8})
	}
	return ns
}

// D13: numeric IPv4 order, with a warning where RLinf's string order differs.
func TestOrderNumericIPs(t *testing.T) {
	got, warn := Order(ipNodes("10.0.0.10", "10.0.0.2", "10.0.0.1"))
	want := []string{"10.0.0.1", "10.0.0.2", "10.0.0.10"}
	for i, n := range got {
		if n.IP != want[i] || n.Rank != i {
			t.Fatalf("rank %d: got %s (rank %d), want %s", i, n.IP, n.Rank, want[i])
		}
	}
	// RLinf compares strings: "10.0.0.10" < "10.0.0.2".
	if !strings.Contains(warn, "rank 1 is 10.0.0.2 here but 10.0.0.10 in RLinf") {
		t.Errorf("warning = %q", warn)
	}
}

func TestOrderAgreesWithRLinf(t *testing.T) {
	if _, warn := Order(ipNodes("10.0.0.3", "10.0.0.1", "10.0.0.2")); warn != "" {
		t.Errorf("unexpected warning %q", warn)
	}
}

func TestOrderHostnamesAfterIPs(t *testing.T) {
	ns := []model.Node{{Hostname: "b"}, {Hostname: "a"}, {IP: "192.168.0.5"}}
	got, _ := Order(ns)
	if got[0].IP != "192.168.0.5" || got[1].Hostname != "a" || got[2].Hostname != "b" {
		t.Errorf("order = %+v", got)
	}
}

// RLinf groups nodes by accelerator type before sorting (§6.1): a CPU node
// with a lower IP comes after the GPU nodes there, first here.
func TestOrderTypeGroupsWarn(t *testing.T) {
	ns := []model.Node{{IP: "10.0.0.5", AccelCount: 8}, {IP: "10.0.0.3"}, {IP: "10.0.0.4", AccelCount: 8}}
	got, warn := Order(ns)
	if got[0].IP != "10.0.0.3" || warn == "" {
		t.Errorf("order %v, warning %q", got, warn)
	}
}

func TestChoosePrecedence(t *testing.T) {
	file := Uniform(2, 4, "file")
	inCfg := Uniform(2, 2, "config")
	if inv, _ := Choose(Choice{File: file, InConfig: inCfg, GPUsPerNode: 1, Nodes: NumNodes(2), Assume: 8}); inv != file {
		t.Error("--inventory must win")
	}
	if inv, _ := Choose(Choice{InConfig: inCfg, GPUsPerNode: 1, Nodes: NumNodes(2), Assume: 8}); inv != inCfg {
		t.Error("the config's inventory must win over --gpus-per-node")
	}
	if inv, note := Choose(Choice{GPUsPerNode: 0, Nodes: NumNodes(3), Assume: 8}); len(inv.Nodes) != 3 || inv.Nodes[0].AccelCount != 0 || note != "" {
		t.Error("--gpus-per-node 0 is a CPU-only cluster")
	}
	inv, note := Choose(Choice{GPUsPerNode: -1, Nodes: NumNodes(2), Assume: 8})
	if !inv.Assumed || inv.Nodes[1].AccelCount != DefaultGPUsPerNode || !strings.Contains(note, "assuming 2 node(s) with 8") {
		t.Errorf("default: %+v %q", inv, note)
	}
	// slime: as many nodes of its --num-gpus-per-node as its GPUs need.
	need := func(per int) int { return (12 + per - 1) / per }
	inv, note = Choose(Choice{GPUsPerNode: -1, Nodes: need, Assume: 4, From: "--num-gpus-per-node"})
	if len(inv.Nodes) != 3 || inv.Nodes[0].AccelCount != 4 || !strings.Contains(note, "assuming 3 node(s) with 4 NVIDIA GPUs each, from --num-gpus-per-node (") {
		t.Errorf("slime: %+v %q", inv, note)
	}
	if inv, _ := Choose(Choice{GPUsPerNode: 6, Nodes: need, Assume: 4}); len(inv.Nodes) != 2 || inv.Source != "--gpus-per-node 6" {
		t.Errorf("slime with --gpus-per-node: %+v", inv)
	}
}

// D13 for inventories: ranks that RLinf's string order would change.
func TestRLinfOrderDiffers(t *testing.T) {
	ns := ipNodes("10.0.0.2", "10.0.0.10")
	if msg := RLinfOrderDiffers(ns); !strings.Contains(msg, "node rank 0 (10.0.0.2) would be 10.0.0.10") {
		t.Errorf("message %q", msg)
	}
	if msg := RLinfOrderDiffers(ipNodes("10.0.0.1", "10.0.0.2")); msg != "" {
		t.Errorf("same order, got %q", msg)
	}
	if msg := RLinfOrderDiffers([]model.Node{{IP: "10.0.0.2"}, {}}); msg != "" {
		t.Errorf("a node without IP cannot be compared, got %q", msg)
	}
}
