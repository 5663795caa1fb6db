package strategies_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// nvlinkNode gives node i of inv devices whose NVLink peers are the given
// pairs (an NVLink bridge per pair), or all-to-all when pairs is nil.
func nvlinkNode(inv *model.Inventory, i int, pairs [][2]int) *model.Inventory {
	n := &inv.Nodes[i]
	n.Devices = nil
	for d := 0; d < n.AccelCount; d++ {
		dv := model.Device{Index: d, UUID: "GPU-" + n.Hostname + "-" + string(rune('a'+d)), NUMANode: -1, NVLinkKnown: true, NVLinkPeers: []int{}}
		for e := 0; e < n.AccelCount; e++ {
			linked := pairs == nil && e != d
			for _, p := range pairs {
				linked = linked || p == [2]int{d, e} || p == [2]int{e, d}
			}
			if linked {
				dv.NVLinkPeers = append(dv.NVLinkPeers, e)
			}
		}
		n.Devices = append(n.Devices, dv)
	}
	return inv
}

func nvlinkWarnings(t *testing.T, src string, inv *model.Inventory) model.Diagnostics {
	t.Helper()
	var out model.Diagnostics
	for _, d := range mustPlan(t, src, inv, detect).Diagnostics {
		if d.Code == model.WarnTPNoNVLink {
			out = append(out, d)
		}
	}
	return out
}

const mpRollout4 = `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
rollout:
  tensor_parallel_size: 4
`

// A model-parallel rollout engine of 4 GPUs on a node whose GPUs are
// NVLink-bridged in pairs: every engine has an unconnected pair.
func TestNVLinkRolloutEngineAcrossPairs(t *testing.T) {
	inv := nvlinkNode(nodes(8), 0, [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}})
	ws := nvlinkWarnings(t, mpRollout4, inv)
	if len(ws) != 1 {
		t.Fatalf("want one warning, got %s", diagText(ws))
	}
	w := ws[0]
	if w.Code != model.WarnTPNoNVLink || w.Severity != model.SeverityWarning {
		t.Errorf("code %s severity %s", w.Code, w.Severity)
	}
	for _, want := range []string{"rollout: 2 of 2 tensor-parallel group(s)", "worker 0 on node 0 uses GPUs 0,1,2,3", "GPUs 0 and 2 are not NVLink peers"} {
		if !strings.Contains(w.Summary, want) {
			t.Errorf("summary %q lacks %q", w.Summary, want)
		}
	}
	if w.Primary.Line != 4 || len(w.Labels) != 1 || w.Labels[0].Span.Line != 6 {
		t.Errorf("spans: primary %v labels %+v", w.Primary, w.Labels)
	}
}

// With TP 2 every engine sits on a bridged pair: no warning. All-to-all
// (NVSwitch) never warns.
func TestNVLinkConnectedGroupsAreQuiet(t *testing.T) {
	src := strings.Replace(mpRollout4, "tensor_parallel_size: 4", "tensor_parallel_size: 2", 1)
	if ws := nvlinkWarnings(t, src, nvlinkNode(nodes(8), 0, [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}})); len(ws) != 0 {
		t.Errorf("pairs, TP 2: %s", diagText(ws))
	}
	if ws := nvlinkWarnings(t, mpRollout4, nvlinkNode(nodes(8), 0, nil)); len(ws) != 0 {
		t.Errorf("NVSwitch: %s", diagText(ws))
	}
}

// Without NVLink information nothing is said, even for PCIe-only layouts.
func TestNVLinkUnknownIsQuiet(t *testing.T) {
	if ws := nvlinkWarnings(t, mpRollout4, nodes(8)); len(ws) != 0 {
		t.Errorf("no devices: %s", diagText(ws))
	}
}

// Megatron's actor TP groups are consecutive actor workers: with actor TP 2
// on GPUs bridged as (0,2),(1,3) each TP group {0,1}, {2,3} is unconnected.
func TestNVLinkActorTPGroups(t *testing.T) {
	src := `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: 0-3
actor:
  model:
    tensor_model_parallel_size: 2
rollout:
  tensor_parallel_size: 1
`
	ws := nvlinkWarnings(t, src, nvlinkNode(nodes(4), 0, [][2]int{{0, 2}, {1, 3}}))
	if len(ws) != 1 || !strings.Contains(ws[0].Summary, "actor: 2 of 2") || !strings.Contains(ws[0].Summary, "TP group 0 (workers 0-1)") {
		t.Fatalf("got %s", diagText(ws))
	}
	if ws[0].Labels[0].Span.Line != 7 {
		t.Errorf("label should point at the actor TP size: %+v", ws[0].Labels)
	}
	// Wired as (0,1),(2,3) the same groups are fine.
	if ws := nvlinkWarnings(t, src, nvlinkNode(nodes(4), 0, [][2]int{{0, 1}, {2, 3}})); len(ws) != 0 {
		t.Errorf("connected TP groups: %s", diagText(ws))
	}
}

// An actor TP group across two nodes has no NVLink at all.
func TestNVLinkTPGroupAcrossNodes(t *testing.T) {
	src := `cluster:
  num_nodes: 2
  component_placement:
    actor: 1-4
    rollout,reward: 5-7
actor:
  model:
    tensor_model_parallel_size: 2
`
	inv := nvlinkNode(nvlinkNode(nodes(4, 4), 0, nil), 1, nil)
	ws := nvlinkWarnings(t, src, inv)
	if len(ws) != 1 || !strings.Contains(ws[0].Summary, "TP group 1 (workers 2-3) spans nodes 0, 1") {
		t.Fatalf("got %s", diagText(ws))
	}
}

// A hybrid (embodied) process holding several GPUs is a TP group too.
func TestNVLinkFlexibleProcess(t *testing.T) {
	src := `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3:0"
    env: "4-7:0-1"
`
	// A ring 0-1-2-3 lacks 0-2 and 1-3; env's two processes sit on the
	// bridged pairs (4,5) and (6,7).
	ws := nvlinkWarnings(t, src, nvlinkNode(nodes(8), 0, [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}, {4, 5}, {6, 7}}))
	if len(ws) != 1 || !strings.Contains(ws[0].Summary, "actor: 1 of 1") || !strings.Contains(ws[0].Summary, "GPUs 0 and 2") {
		t.Fatalf("got %s", diagText(ws))
	}
}
