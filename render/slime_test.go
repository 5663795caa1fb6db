package render_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
)

// slimeNodes are n nodes of g GPUs named n0.. with IPs 10.0.0.1.. in rank
// order.
func slimeNodes(n, g int) []model.Node {
	nodes := make([]model.Node, n)
	for i := range nodes {
		nodes[i] = model.Node{Rank: i, IP: fmt.Sprintf("10.0.0.%d", i+1), Hostname: fmt.Sprintf("n%d", i), AccelType: model.AccelNVGPU, AccelCount: g}
	}
	return nodes
}

// slimeDoc plans slime flags on nodes, as `plan --slime FLAGS` does, and
// returns the document and the plan.
func slimeDoc(t *testing.T, flags string, nodes []model.Node) (*render.Document, *render.Input) {
	t.Helper()
	so := pipeline.CheckSlime(flags, "", pipeline.Options{Inventory: &model.Inventory{Source: "t", Nodes: nodes}, GPUsPerNode: -1})
	in := so.RenderInput()
	if in == nil || so.Diagnostics.HasErrors() {
		t.Fatalf("%s: no plan: %v", flags, so.Diagnostics)
	}
	doc, err := render.NewDocument(in)
	if err != nil {
		t.Fatal(err)
	}
	return doc, in
}

// TestSlimeRecords: each worker's bundles, GPU request and SGLang engine,
// hosts from the inventory, on the layouts of strategies' slime tests.
func TestSlimeRecords(t *testing.T) {
	// Colocated: both on the same bundles, actor 0.8 + engine 0.2 of each GPU.
	doc, _ := slimeDoc(t, "--colocate --actor-num-nodes 2 --rollout-num-gpus-per-engine 4", slimeNodes(2, 8))
	act, ro := doc.Components["actor"].Placements, doc.Components["rollout"].Placements
	if act[5].GPUFraction != 0.8 || ro[1].GPUFraction != 0.2 || !reflect.DeepEqual(ro[1].Bundles, []int{4, 5, 6, 7}) || !reflect.DeepEqual(act[5].Bundles, []int{5}) {
		t.Errorf("colocated: fractions/bundles %+v %+v", act[5].SlimeRecord, ro[1].SlimeRecord)
	}

	// 4-GPU nodes with the rollout starting mid-node.
	doc, _ = slimeDoc(t, "--actor-num-gpus-per-node 2 --rollout-num-gpus 6 --rollout-num-gpus-per-engine 2 --num-gpus-per-node 4", slimeNodes(2, 4))
	ro = doc.Components["rollout"].Placements
	if len(ro) != 3 || ro[1].IP != "10.0.0.2" || ro[1].SGLang.Port != 15000 || ro[1].SGLang.BaseGPUID != 0 || ro[2].LocalRank != 1 || ro[2].PlacementNodeRank != 1 ||
		ro[2].SGLang.Engine != 2 {
		t.Errorf("mid-node records %+v", ro)
	}

	// Engines of 16 GPUs span two whole nodes and share the first node's
	// dist_init_addr: every worker takes HTTP and NCCL ports on its node,
	// the dist_init_addr block is on each engine's first node only.
	doc, _ = slimeDoc(t, "--actor-num-nodes 1 --rollout-num-gpus 32 --rollout-num-gpus-per-engine 16", slimeNodes(5, 8))
	ro = doc.Components["rollout"].Placements
	if len(ro) != 4 || ro[1].SGLang.NodeRank != 1 || ro[1].SGLang.NNodes != 2 || ro[1].SGLang.DistInitAddr != "10.0.0.2:15002" || ro[1].IP != "10.0.0.3" ||
		ro[3].SGLang.Engine != 1 || ro[3].SGLang.NodeRank != 1 {
		t.Errorf("two-node engines: %+v", ro)
	}
	dist := map[int]bool{}
	for _, np := range doc.Slime.Ports {
		for _, b := range np.Blocks {
			if b.Kind == "dist_init" {
				dist[np.ClusterNodeRank] = true
			}
		}
	}
	if len(doc.Slime.Ports) != 4 || !reflect.DeepEqual(dist, map[int]bool{1: true, 3: true}) {
		t.Errorf("port plan %+v", doc.Slime.Ports)
	}

	// The stable order sorts 10.0.0.7 before 10.0.0.66; GPUs by device id,
	// with their UUIDs.
	nodes := []model.Node{
		{Rank: 0, IP: "10.0.0.66", AccelCount: 2, Devices: []model.Device{{Index: 3, UUID: "GPU-3"}, {Index: 1, UUID: "GPU-1"}}},
		{Rank: 1, IP: "10.0.0.7", AccelCount: 2},
	}
	doc, _ = slimeDoc(t, "--debug-train-only --actor-num-gpus-per-node 4", nodes)
	if p := doc.Components["actor"].Placements[3]; !reflect.DeepEqual(p.GPUUUIDs, []string{"GPU-3"}) || p.Env["CUDA_VISIBLE_DEVICES"] != "3" || p.Env["MASTER_ADDR"] != "10.0.0.7" {
		t.Errorf("device ids: %+v", p)
	}
}

// TestSlimeDocumentShape: the RLinf plan's shape (the same keys per
// component and per record) plus slime's, and the table.
func TestSlimeDocumentShape(t *testing.T) {
	doc, in := slimeDoc(t, "--rollout-num-gpus 8 --rollout-num-gpus-per-engine 2", slimeNodes(2, 8))
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"format_version", "placement_mode", "inventory", "components", "component_order", "diagnostics", "slime"} {
		if _, ok := m[k]; !ok {
			t.Errorf("document lacks %q", k)
		}
	}
	comps := m["components"].(map[string]any)
	for _, name := range []string{"actor", "rollout"} {
		c := comps[name].(map[string]any)
		for _, k := range []string{"world_size", "rlinf_world_size", "node_groups", "strategy", "placements"} {
			if _, ok := c[k]; !ok {
				t.Errorf("%s lacks %q", name, k)
			}
		}
		p := c["placements"].([]any)[0].(map[string]any)
		for _, k := range []string{"rank", "cluster_node_rank", "placement_node_rank", "local_accelerator_rank", "local_rank", "local_world_size",
			"visible_accelerators", "isolate_accelerator", "local_hardware_ranks", "node_group_label", "accelerator_type", "ip", "env", "bundles", "gpu_fraction"} {
			if _, ok := p[k]; !ok {
				t.Errorf("%s record lacks %q", name, k)
			}
		}
	}
	sl := m["slime"].(map[string]any)
	for _, k := range []string{"mode", "flags", "bundles", "rollout_offset", "stable_order", "engines", "ports", "gpu_fraction"} {
		if _, ok := sl[k]; !ok {
			t.Errorf("slime section lacks %q", k)
		}
	}
	var sb strings.Builder
	if err := render.WriteTable(&sb, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "15002  15003  10.0.0.2:15039 (15039-15069)") {
		t.Errorf("table:\n%s", sb.String())
	}
}
