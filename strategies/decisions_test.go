package strategies_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// One test per decision of semantics §10: rlsolve's deliberate differences
// from RLinf.

// D1: a Packed process whose devices would run past its node is an error
// (RLinf's off-by-one check accepts it), directly and through a config.
func TestD1_PackedPastNodeIsAnError(t *testing.T) {
	ps, f := strategies.Packed{Start: 3, End: 6, HardwarePerProcess: 2}.Place(strategies.NewCluster(nodes(4, 4), nil), true)
	wantFailure(t, ps, f, model.CodeSpansNodes, 0)
	if !strings.Contains(f.Msg, "node 0") || !strings.Contains(f.Msg, "3,4") {
		t.Errorf("message should show the GPUs and the node: %s", f.Msg)
	}
	// Collocated rollout with TP 2 on GPUs 3-6 of 2x4 asks Packed(3,6,2).
	src := mpYAML(2, "    actor,rollout,reward: 3-6\n", tp(2, 2))
	ds := checkDiags(t, src, nodes(4, 4), detect)
	d := wantDiag(t, ds, model.CodeSpansNodes, model.SeverityError)
	if line, col := posOf(t, src, "3-6", 0); d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("primary at %s, want %d:%d", d.Primary, line, col)
	}
}

// D2: node_group as a YAML list is accepted like the comma string, with a
// portability warning.
func TestD2_NodeGroupYAMLList(t *testing.T) {
	head := `cluster:
  num_nodes: 2
  node_groups:
    - {label: a800, node_ranks: 0}
    - {label: 4090, node_ranks: 1}
  component_placement:
`
	list := head + "    actor: {node_group: [a800, 4090], placement: 0-5}\n"
	comma := head + "    actor: {node_group: \"a800,4090\", placement: 0-5}\n"
	rl := mustPlan(t, list, nodes(4, 2), hybrid)
	rc := mustPlan(t, comma, nodes(4, 2), hybrid)
	if !reflect.DeepEqual(comp(t, rl, "actor").Placements.Slice(), comp(t, rc, "actor").Placements.Slice()) {
		t.Error("list and comma forms place differently")
	}
	d := wantDiag(t, rl.Diagnostics, model.WarnNodeGroupList, model.SeverityWarning)
	if line, col := posOf(t, list, "[a800", 0); d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("warning at %s, want %d:%d", d.Primary, line, col)
	}
	if findDiag(rc.Diagnostics, model.WarnNodeGroupList) != nil {
		t.Error("the comma form should not warn")
	}
}

// D3: unquoted scalars YAML 1.1 reads as numbers are refused before any
// planning (grammar/yaml11_test.go covers each form).
func TestD3_YAML11ScalarRefused(t *testing.T) {
	cfg, ds := grammar.LoadConfig("t.yaml", []byte(actorYAML("1:0")), grammar.DefaultLimits)
	d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError)
	if d.Primary.Line != 4 || d.Primary.Col != 12 {
		t.Errorf("at %s, want 4:12", d.Primary)
	}
	if cfg != nil && len(cfg.Components) != 0 {
		t.Errorf("the refused placement should not become a component: %+v", cfg.Components)
	}
}

// D4: process ranks not starting at 0 are accepted and renumbered, with a
// warning on the process range.
func TestD4_ProcessOffsetWarns(t *testing.T) {
	src := actorYAML("0-3:4-7")
	r := mustPlan(t, src, nodes(8), hybrid)
	if got := field(comp(t, r, "actor").Placements.Slice(), func(p model.Placement) int { return p.Rank }); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("ranks %v", got)
	}
	d := wantDiag(t, r.Diagnostics, model.WarnProcessOffset, model.SeverityWarning)
	if line, col := posOf(t, src, "4-7", 0); d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("warning at %s, want %d:%d", d.Primary, line, col)
	}
}

// D5: what RLinf only finds at launch is an error at check time, located in
// the placement string.
func TestD5_LaunchErrorsAtCheckTime(t *testing.T) {
	for _, tc := range []struct {
		name, groups, value string
		inv                 *model.Inventory
		code, at            string
	}{
		{"process on two nodes", "", "3-4:0", nodes(4, 4), model.CodeSpansNodes, "3-4:0"},
		{"groups against node order", "    - {label: a, node_ranks: 0}\n    - {label: b, node_ranks: 1}\n",
			`{node_group: "b,a", placement: "0,2"}`, nodes(2, 2), model.CodeNodeOrder, "b,a"},
		{"CPU groups against node order", "    - {label: a, node_ranks: 0, ignore_hardware: true}\n    - {label: b, node_ranks: 1, ignore_hardware: true}\n",
			`{node_group: "b,a", placement: 0-1}`, nodes(2, 2), model.CodeNodeOrder, "b,a"},
		{"two hardware types in a process", "    - {label: gpu, node_ranks: 0}\n    - {label: franka, node_ranks: 0, hardware_type: Franka}\n",
			`{node_group: "gpu,franka", placement: "0-1:0"}`, withRobots(nodes(1), 0, "Franka", 1), model.CodeMixedHardware, "0-1:0"},
		{"typed and untyped groups", "    - {label: a800, node_ranks: 0}\n", `{node_group: "a800,node", placement: 0}`, nodes(2, 2), model.CodeMixedTypedUntyped, "a800,node"},
		{"overlapping CPU groups", "    - {label: c1, node_ranks: 0-1, ignore_hardware: true}\n    - {label: c2, node_ranks: 1, ignore_hardware: true}\n",
			`{node_group: "c1,c2", placement: 0}`, nodes(2, 2), model.CodeGroupsOverlap, "c1,c2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "cluster:\n  num_nodes: " + itoa(len(tc.inv.Nodes)) + "\n"
			if tc.groups != "" {
				src += "  node_groups:\n" + tc.groups
			}
			src += "  component_placement:\n    actor: " + tc.value + "\n"
			ds := checkDiags(t, src, tc.inv, hybrid)
			d := wantDiag(t, ds, tc.code, model.SeverityError)
			line := strings.Count(src, "\n")
			col := strings.LastIndex(src, tc.at) - strings.LastIndex(src, "\n    actor:")
			if d.Primary.Line != line || d.Primary.Col != col {
				t.Errorf("primary at %s, want %d:%d (%q)", d.Primary, line, col, tc.at)
			}
		})
	}
}

// D6: duplicate node-group labels are an error at check time.
func TestD6_DuplicateLabels(t *testing.T) {
	src := `cluster:
  num_nodes: 2
  node_groups:
    - {label: train, node_ranks: 0}
    - {label: train, node_ranks: 1}
  component_placement:
    actor: all
`
	ds := checkDiags(t, src, nodes(2, 2), hybrid)
	d := wantDiag(t, ds, model.CodeDuplicateLabel, model.SeverityError)
	if line, col := posOf(t, src, "train", 1); d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("at %s, want the second label %d:%d", d.Primary, line, col)
	}
	if len(d.Labels) == 0 || d.Labels[0].Span.Line != 4 {
		t.Errorf("labels %+v should point at the first definition", d.Labels)
	}
}

// D7: Flexible on a group without hardware is a clear error, not a crash.
func TestD7_FlexibleWithoutHardware(t *testing.T) {
	c := groupsCluster(t, nodes(0, 0), "    - {label: cpu, node_ranks: 0-1}\n")
	for _, label := range []string{"cpu", "node", "cluster"} {
		ps, f := strategies.Flexible{HardwareRanks: [][]int{{0}}, NodeGroups: []string{label}}.Place(c, true)
		wantFailure(t, ps, f, model.CodeNeedsHardware, -1)
		if f != nil && f.Why == "" {
			t.Errorf("%s: the failure should explain RLinf's crash", label)
		}
	}
}

// D8: a worker placed through `cluster` on a node whose group sets
// env_configs gets a warning naming what it will not receive.
func TestD8_EnvConfigsNotApplied(t *testing.T) {
	head := `cluster:
  num_nodes: 1
  node_groups:
    - label: train
      node_ranks: 0
      env_configs:
        - node_ranks: 0
          python_interpreter_path: /opt/py
          env_vars:
            - NCCL_DEBUG: INFO
  component_placement:
`
	r := mustPlan(t, head+"    actor: 0-1\n", nodes(2), hybrid)
	d := wantDiag(t, r.Diagnostics, model.WarnEnvNotApplied, model.SeverityWarning)
	for _, s := range []string{"NCCL_DEBUG", "python_interpreter_path", "train"} {
		if !strings.Contains(d.Summary, s) {
			t.Errorf("warning %q should name %s", d.Summary, s)
		}
	}
	r = mustPlan(t, head+"    actor: {node_group: train, placement: 0-1}\n", nodes(2), hybrid)
	if findDiag(r.Diagnostics, model.WarnEnvNotApplied) != nil {
		t.Error("no warning expected when placed through the group")
	}
}

// D9: model-parallel differences are warnings: node_group ignored, reward
// gaps filled, launched processes differing from get_world_size.
func TestD9_ModelParallelWarnings(t *testing.T) {
	t.Run("node_group ignored", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 2\n  node_groups:\n    - {label: train, node_ranks: 1}\n  component_placement:\n" +
			"    actor: {node_group: train, placement: 0-3}\n    rollout: {node_group: train, placement: 0-3}\n    reward: 0-3\n" + tp(1, 1)
		r := mustPlan(t, src, nodes(4, 4), detect)
		wantDiag(t, r.Diagnostics, model.WarnMPNodeGroup, model.SeverityWarning)
		// Packed over `cluster`: GPUs 0-3 are node 0's, not train's.
		if got := nodesOf(comp(t, r, "actor").Placements.Slice()); !reflect.DeepEqual(got, []int{0, 0, 0, 0}) {
			t.Errorf("actor nodes %v, want node 0 (the cluster group)", got)
		}
	})
	t.Run("reward gaps", func(t *testing.T) {
		r := mustPlan(t, mpYAML(1, "    actor,rollout: 0-3\n    reward: \"0,2\"\n", tp(1, 1)), nodes(4), detect)
		wantDiag(t, r.Diagnostics, model.WarnMPRewardGaps, model.SeverityWarning)
		if got := visible(comp(t, r, "reward").Placements.Slice()); !reflect.DeepEqual(got, []string{"0", "1", "2"}) {
			t.Errorf("reward visible %v, want 3 processes on 0,1,2", got)
		}
	})
	t.Run("world size", func(t *testing.T) {
		r := mustPlan(t, mpYAML(1, "    actor,rollout,reward: all\n", tp(2, 2)), nodes(8), detect)
		wantDiag(t, r.Diagnostics, model.NoteMPWorldSize, model.SeverityNote)
		rollout := comp(t, r, "rollout")
		if rollout.RankMapWorldSize != 8 || rollout.Placements.Len() != 4 {
			t.Errorf("rollout: get_world_size %d, %d launched; want 8 and 4", rollout.RankMapWorldSize, rollout.Placements.Len())
		}
	})
}

// D10: an empty group and unknown cluster keys are accepted with warnings;
// placing on the empty group is an error.
func TestD10_EmptyGroupAndUnknownKeys(t *testing.T) {
	src := `cluster:
  num_nodes: 1
  auto_schedular: true
  node_groups:
    - {label: spare, node_ranks: ""}
  component_placement:
    actor: all
`
	r := mustPlan(t, src, nodes(2), hybrid)
	wantDiag(t, r.Diagnostics, model.WarnEmptyGroup, model.SeverityWarning)
	_, ds := grammar.LoadConfig("t.yaml", []byte(src), grammar.DefaultLimits)
	d := wantDiag(t, ds, model.WarnUnknownKey, model.SeverityWarning)
	if len(d.Help) == 0 || !strings.Contains(d.Help[0].Message, "auto_scheduler") {
		t.Errorf("help %+v should suggest auto_scheduler", d.Help)
	}
	bad := strings.Replace(src, "actor: all", "actor: {node_group: spare, placement: 0}", 1)
	wantDiag(t, checkDiags(t, bad, nodes(2), hybrid), model.CodeEmptyGroup, model.SeverityError)
}

// D11: an env var key twice in one group, even on disjoint nodes, is an
// error whose explanation says the rule is per group.
func TestD11_EnvVarKeyPerGroup(t *testing.T) {
	src := `cluster:
  num_nodes: 2
  node_groups:
    - label: train
      node_ranks: 0-1
      env_configs:
        - node_ranks: 0
          env_vars:
            - NCCL_DEBUG: INFO
        - node_ranks: 1
          env_vars:
            - NCCL_DEBUG: WARN
  component_placement:
    actor: all
`
	ds := checkDiags(t, src, nodes(2, 2), hybrid)
	d := wantDiag(t, ds, model.CodeEnvVarDuplicated, model.SeverityError)
	if line, col := posOf(t, src, "NCCL_DEBUG", 1); d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("at %s, want %d:%d", d.Primary, line, col)
	}
	if !strings.Contains(d.Why, "per node group") {
		t.Errorf("why %q should say the rule is per node group", d.Why)
	}
}

// D12: Node placement's local accelerator rank is the integer 0 in output.
func TestD12_NodeLocalAcceleratorRankIsInt(t *testing.T) {
	ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0}}.Place(strategies.NewCluster(nodes(2), nil), true))
	b, err := json.Marshal(ps[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"local_accelerator_rank":0,`) {
		t.Errorf("json %s should carry the integer 0", b)
	}
}

// D13: inventories carry explicit ranks; node rank r is the inventory's
// node r whatever the file order or IP.
func TestD13_InventoryRanksAsGiven(t *testing.T) {
	invSrc := `nodes:
  - rank: 1
    ip: 10.0.0.2
    accelerators: 4
  - rank: 0
    ip: 10.0.0.10
    accelerators: 2
`
	inv, ds := grammar.LoadInventory("inv.yaml", []byte(invSrc), grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatalf("inventory: %s", diagText(ds))
	}
	for r, ip := range []string{"10.0.0.10", "10.0.0.2"} {
		if inv.Nodes[r].Rank != r || inv.Nodes[r].IP != ip {
			t.Errorf("node %d: rank %d ip %s, want ip %s", r, inv.Nodes[r].Rank, inv.Nodes[r].IP, ip)
		}
	}
	r := mustPlan(t, "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n", inv, hybrid)
	actor := comp(t, r, "actor")
	if got := nodesOf(actor.Placements.Slice()); !reflect.DeepEqual(got, []int{0, 0, 1, 1, 1, 1}) {
		t.Errorf("actor nodes %v", got)
	}
	if got := r.Cluster.Env(actor, 3)["MASTER_ADDR"]; got != "10.0.0.10" {
		t.Errorf("MASTER_ADDR %q, want rank 0's IP", got)
	}
	// Discovered nodes (no explicit rank) are ordered by numeric IPv4, with
	// a warning where RLinf's string order would differ; the plan then
	// follows that order.
	t.Run("discovered node order", func(t *testing.T) {
		found := []model.Node{{IP: "10.0.0.10", AccelCount: 2}, {IP: "10.0.0.9", AccelCount: 2}}
		ordered, warn := topology.Order(found)
		if ordered[0].IP != "10.0.0.9" || ordered[1].IP != "10.0.0.10" || warn == "" {
			t.Fatalf("order %v, warning %q", ordered, warn)
		}
		r := mustPlan(t, "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n", &model.Inventory{Nodes: ordered}, hybrid)
		if got := r.Cluster.Env(comp(t, r, "actor"), 0)["MASTER_ADDR"]; got != "10.0.0.9" {
			t.Errorf("MASTER_ADDR %q, want the numerically first IP", got)
		}
	})
}
