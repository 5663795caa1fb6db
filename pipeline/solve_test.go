package pipeline_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/solver"
)

// solveInv is an inventory of nodes with the given GPU counts; a negative
// count is a CPU node with that many Franka robots.
func solveInv(nodes ...int) *model.Inventory {
	inv := &model.Inventory{Source: "test"}
	for i, n := range nodes {
		nd := model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: n}
		if n < 0 {
			nd = model.Node{Rank: i, Hardware: map[string]int{"Franka": -n}}
		}
		inv.Nodes = append(inv.Nodes, nd)
	}
	return inv
}

// nvlinkInv is two nodes of 8 GPUs in two NVLink islands each (0-3, 4-7).
func nvlinkInv() *model.Inventory {
	inv := solveInv(8, 8)
	for n := range inv.Nodes {
		for i := 0; i < 8; i++ {
			var peers []int
			for j := i / 4 * 4; j < i/4*4+4; j++ {
				if j != i {
					peers = append(peers, j)
				}
			}
			inv.Nodes[n].Devices = append(inv.Nodes[n].Devices, model.Device{Index: i, NVLinkPeers: peers, NVLinkKnown: true, NUMANode: -1})
		}
	}
	return inv
}

// TestSolvePlaces: requirements become the placements a careful person
// writes, in every placement class, and the solved file passes check.
func TestSolvePlaces(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		inv        *model.Inventory
		obj        solver.Objective
		want       map[string]string // component -> placement
		groups     map[string]string // component -> node_group written
	}{
		{name: "hybrid, groups and with", inv: solveInv(8, 8, 8, 8), yaml: `cluster:
  num_nodes: 4
  node_groups:
    - {label: a800, node_ranks: 0-1}
    - {label: "4090", node_ranks: 2-3}
  component_placement:
    actor: {gpus: 16, node_group: a800}
    reward: {with: actor}
    rollout: {gpus: 8, node_group: "4090", gpus_per_process: 2}
    inference: {gpus: 4, apart_from: [actor, rollout]}
`, want: map[string]string{"actor": "0-15", "reward": "0-15", "rollout": "0-7:0-3", "inference": "24-27"},
			groups: map[string]string{"actor": "a800", "reward": "a800", "rollout": "4090"}},
		{name: "processes share a node", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 8, processes: 2}
    env: {gpus: 2, processes: 8}
`, want: map[string]string{"actor": "0-7:0-1", "env": "8-9:0-7"}},
		{name: "placed components keep their devices", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  component_placement:
    rollout: 0-5
    actor: {gpus: 4, gpus_per_process: 2}
`, want: map[string]string{"actor": "6-9:0-1"}}, // the lowest GPUs: a process on each node
		{name: "whole nodes", inv: solveInv(8, 4, 8), yaml: `cluster:
  num_nodes: 3
  component_placement:
    actor: {nodes: 2}
`, want: map[string]string{"actor": "0-11"}}, // the lowest two nodes
		{name: "robots and CPU processes", inv: solveInv(8, -2), yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: franka
      node_ranks: 1
      hardware:
        type: Franka
        configs:
          - {robot_ip: 10.0.0.1, node_rank: 1}
          - {robot_ip: 10.0.0.2, node_rank: 1}
  component_placement:
    actor: {gpus: 8}
    env: {node_group: franka, processes: 2}
    agent: {node_group: node, processes: 6}
`, want: map[string]string{"actor": "0-7", "env": "0-1", "agent": "0-1:0-5"}},
		{name: "model-parallel collocated", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 16}
    rollout: {with: actor}
    reward: {with: actor}
runner: {task_type: reasoning}
actor: {model: {tensor_model_parallel_size: 4}}
rollout: {tensor_parallel_size: 2}
`, want: map[string]string{"actor": "0-15", "rollout": "0-15", "reward": "0-15"}},
		{name: "model-parallel disaggregated engines stay on a node", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 6}
    reward: {with: actor}
    rollout: {gpus: 8}
runner: {task_type: reasoning}
actor: {model: {tensor_model_parallel_size: 2}}
rollout: {tensor_parallel_size: 4}
`, want: map[string]string{"actor": "0-5", "reward": "0-5", "rollout": "8-15"}},
		{name: "AUTO mode: actor, rollout, inference from the first GPU to the last", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  auto_scheduler: true
  component_placement:
    inference: {gpus: 4}
    rollout: {gpus: 8}
    actor: {gpus: 4}
    reward: {with: rollout}
runner: {task_type: reasoning}
actor: {model: {tensor_model_parallel_size: 2}}
rollout: {tensor_parallel_size: 2}
`, want: map[string]string{"actor": "0-3", "rollout": "4-11", "inference": "12-15", "reward": "4-11"}},
		{name: "AUTO mode without inference, the actor placed", inv: solveInv(8, 8), yaml: `cluster:
  num_nodes: 2
  auto_scheduler: true
  component_placement:
    actor: 0-5
    rollout: {gpus: 10}
    reward: {with: actor}
runner: {task_type: reasoning}
actor: {model: {tensor_model_parallel_size: 2}}
rollout: {tensor_parallel_size: 2}
`, want: map[string]string{"rollout": "6-15", "reward": "0-5"}},
		{name: "TP groups inside an NVLink island", inv: nvlinkInv(), yaml: `cluster:
  num_nodes: 2
  component_placement:
    critic: 0-1
    rollout: {gpus: 8, gpus_per_process: 4}
`, want: map[string]string{"rollout": "4-11:0-1"}}, // not 2-5, across islands 0-3 and 4-7
		{name: "GPU memory keeps a model off small GPUs", yaml: memYAML(24, 80), want: map[string]string{"actor": "16-23"}},
		{name: "spread", inv: solveInv(8, 8, 8, 8), obj: solver.ObjectiveSpread, yaml: `cluster:
  num_nodes: 4
  component_placement:
    actor: {gpus: 8}
`, want: map[string]string{"actor": "0-1,8-9,16-17,24-25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pipeline.Solve("t.yaml", []byte(tc.yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: tc.inv}, Objective: tc.obj})
			if s.Text == nil {
				t.Fatalf("nothing placed: %v", summaries(s.Diagnostics))
			}
			if s.Verified.Failed() {
				t.Fatalf("the solved file fails check: %v", summaries(s.Verified.Diagnostics))
			}
			doc := s.Document()
			got := map[string]string{}
			for n, p := range doc.Components {
				if _, ok := tc.want[n]; ok {
					got[n] = p
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("placements %v, want %v\n%s", doc.Components, tc.want, s.Text)
			}
			cfg, _ := grammar.LoadConfig("t.yaml", s.Text, grammar.DefaultLimits)
			for n, g := range tc.groups {
				if e := entryOf(cfg, n); e == nil || !slices.Equal(e.NodeGroups, []string{g}) {
					t.Errorf("%s: node_group not written as %q\n%s", n, g, s.Text)
				}
			}
		})
	}
}

// TestSolveExplains: when nothing fits, the conflict is the minimal set of
// located facts, with verified fixes.
func TestSolveExplains(t *testing.T) {
	yaml := `cluster:
  num_nodes: 3
  node_groups:
    - {label: a800, node_ranks: 0-1}
  component_placement:
    actor: {gpus: 16, node_group: a800}
    inference: {gpus: 4, node_group: a800, apart_from: [actor]}
    rollout: {gpus: 8}
`
	s := pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(8, 8, 8)}})
	if s.Text != nil {
		t.Fatalf("placed what cannot be placed:\n%s", s.Text)
	}
	var d *model.Diagnostic
	for i := range s.Diagnostics {
		if s.Diagnostics[i].Code == model.CodeUnplaceable {
			d = &s.Diagnostics[i]
		}
	}
	if d == nil {
		t.Fatalf("no RLS-E1103: %v", summaries(s.Diagnostics))
	}
	lines := strings.Split(yaml, "\n")
	text := func(sp model.Span) string { return lines[sp.Line-1][sp.Col-1 : sp.EndCol-1] }
	var facts []string
	facts = append(facts, text(d.Primary))
	for _, l := range d.Labels {
		facts = append(facts, text(l.Span))
	}
	slices.Sort(facts)
	want := []string{"0-1", "16", "4", "a800", "a800", "actor"}
	if !slices.Equal(facts, want) {
		t.Errorf("conflict facts %q, want %q (rollout has no part in it)", facts, want)
	}
	var fixes []string
	for _, f := range d.Help {
		fixes = append(fixes, f.Message)
	}
	if len(fixes) == 0 || !strings.Contains(fixes[0], "12 instead of 16") {
		t.Errorf("fixes %q: want the largest count that fits first", fixes)
	}
}

// TestSolveExplainsAuto: AUTO mode's components must fill the cluster in
// order; counts that do not are the conflict, with the auto_scheduler
// switch, and the fixes make them fill it.
func TestSolveExplainsAuto(t *testing.T) {
	yaml := `cluster:
  num_nodes: 2
  auto_scheduler: true
  component_placement:
    actor: {gpus: 4}
    rollout: {gpus: 8}
    inference: {gpus: 2}
    reward: {with: rollout}
runner: {task_type: reasoning}
`
	s := pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(8, 8)}})
	if s.Text != nil {
		t.Fatalf("placed what AUTO mode refuses:\n%s", s.Text)
	}
	i := slices.IndexFunc(s.Diagnostics, func(d model.Diagnostic) bool { return d.Code == model.CodeUnplaceable })
	if i < 0 {
		t.Fatalf("no RLS-E1103: %v", summaries(s.Diagnostics))
	}
	d := s.Diagnostics[i]
	lines := strings.Split(yaml, "\n")
	text := func(sp model.Span) string { return lines[sp.Line-1][sp.Col-1 : sp.EndCol-1] }
	facts := []string{text(d.Primary)}
	for _, l := range d.Labels {
		facts = append(facts, text(l.Span))
	}
	slices.Sort(facts)
	if want := []string{"2", "4", "8", "true"}; !slices.Equal(facts, want) {
		t.Errorf("conflict facts %q, want %q", facts, want)
	}
	if !strings.Contains(d.Why, "4 + 8 + 2 = 14") {
		t.Errorf("why %q does not add the counts up", d.Why)
	}
	if len(d.Help) == 0 || !strings.Contains(d.Help[0].Message, "gpus: 4 instead of 2") || d.Help[0].Edits[0].NewText != "4" {
		t.Errorf("fixes %v: want inference's count that fills the cluster first", d.Help)
	}
}

// memYAML is a collocated Qwen2.5-7B run on two nodes of GPUs of each
// size (GiB), with the inventory in the file.
func memYAML(small, large int) string {
	return fmt.Sprintf(`cluster:
  num_nodes: 4
  component_placement:
    actor: {gpus: 8}
    rollout: {with: actor}
    reward: {with: actor}
runner: {task_type: reasoning}
actor:
  training_backend: fsdp
  model: {model_path: /models/Qwen2.5-7B}
rollout:
  model: {model_path: /models/Qwen2.5-7B}
inventory:
  nodes:
    - {ranks: 0-1, accelerators: {count: 8, memory_gib: %d}}
    - {ranks: 2-3, accelerators: {count: 8, memory_gib: %d}}
`, small, large)
}

// TestSolveMemoryConflict: when no GPU holds a component, the conflict
// names its memory need and the GPU sizes, and nothing else.
func TestSolveMemoryConflict(t *testing.T) {
	s := pipeline.Solve("t.yaml", []byte(memYAML(24, 24)), pipeline.SolveOptions{})
	if s.Text != nil {
		t.Fatalf("placed a model no GPU holds:\n%s", s.Text)
	}
	var msgs []string
	for _, d := range s.Diagnostics {
		if d.Code == model.CodeUnplaceable {
			msgs = append(msgs, d.Summary)
		}
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "GiB per GPU at its peak") || !strings.Contains(msgs[0], "actor needs 8 GPUs") {
		t.Errorf("conflicts %q: want one naming the count and the memory need", msgs)
	}
}

// TestSolveBudgetNote: a search the budget cuts still gives a valid
// placement, and says it may not be the best.
func TestSolveBudgetNote(t *testing.T) {
	// Spread's counting bound (5: the actor's processes of 5) is not met:
	// under it one engine of 2 fits beside each of the actor's 63
	// processes and two on the node left, 65 of the rollout's 66, so 6 is
	// the best, and proving it needs a call that the step cuts (on 16
	// nodes the node-level encoding proves it before the step is read).
	yaml := `cluster:
  num_nodes: 64
  component_placement:
    actor: {gpus: 315, gpus_per_process: 5}
    rollout: {gpus: 132, gpus_per_process: 2}
`
	s := pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(slices.Repeat([]int{8}, 64)...)},
		Objective: solver.ObjectiveSpread, Step: time.Nanosecond})
	if s.Text == nil {
		t.Fatalf("nothing placed: %v", summaries(s.Diagnostics))
	}
	found := false
	for _, d := range s.Diagnostics {
		found = found || d.Code == model.NoteSolveBound && strings.HasPrefix(d.Summary, "one optimizing call's time limit ended the search")
	}
	if !found || s.Placement.Optimal {
		t.Errorf("no RLS-N1101 note (optimal %v): %v", s.Placement.Optimal, summaries(s.Diagnostics))
	}
}

func entryOf(cfg *model.Config, name string) *model.ComponentEntry {
	for i := range cfg.Components {
		if slices.Contains(cfg.Components[i].Names, name) {
			return &cfg.Components[i]
		}
	}
	return nil
}

func summaries(ds model.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code+" "+d.Summary)
	}
	return out
}

// TestSolveCostCounts: `gpus: auto` takes the counts the cost model gives
// for the mode the requirements ask for, and the document reports the
// modeled cost; without a cost model it is an error at the key.
func TestSolveCostCounts(t *testing.T) {
	yaml := `cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: auto}
    reward: {with: actor}
    rollout: {gpus: auto}
`
	var asked []bool
	costModel := func(file string, data []byte, inv *model.Inventory, collocated bool) (map[string]int, float64, *model.Diagnostic) {
		asked = append(asked, collocated)
		return map[string]int{"actor": 10, "rollout": 6}, 42.5, nil
	}
	s := pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(8, 8)}, CostModel: costModel})
	if s.Text == nil {
		t.Fatalf("nothing placed: %v", summaries(s.Diagnostics))
	}
	doc := s.Document()
	if doc.Objective != "cost" || doc.Value != 42.5 || doc.Components["actor"] != "0-9" || doc.Components["rollout"] != "10-15" {
		t.Errorf("document %+v", doc)
	}
	if !slices.Equal(asked, []bool{false}) {
		t.Errorf("the cost model was asked %v, want once, for a split layout", asked)
	}
	s = pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(8, 8)}})
	if s.Text != nil || len(s.Diagnostics) == 0 || s.Diagnostics[0].Code != model.CodeRequirementConflict || s.Diagnostics[0].Primary.Line != 4 {
		t.Errorf("gpus: auto without the cost objective: %v", summaries(s.Diagnostics))
	}
}
