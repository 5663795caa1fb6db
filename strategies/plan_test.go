package strategies_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/strategies"
)

// actorYAML is a one-node config placing only `actor`.
func actorYAML(value string) string {
	return "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: " + value + "\n"
}

// checkDiags is every diagnostic of the whole check.
func checkDiags(t *testing.T, src string, inv *model.Inventory, class model.PlacementClass) model.Diagnostics {
	t.Helper()
	return pipeline.CheckBytes("test.yaml", []byte(src), pipeline.Options{Inventory: inv, GPUsPerNode: -1, Class: class}).Diagnostics
}

// §2.6 worked parse table (1 node x 8 GPUs, group cluster): world size and
// per-process resource lists in worker order.
func TestPlanParseTable(t *testing.T) {
	r0 := func(n int, ranks ...int) [][]int { // each rank repeated n times
		var out [][]int
		for _, x := range ranks {
			for i := 0; i < n; i++ {
				out = append(out, []int{x})
			}
		}
		return out
	}
	seq := func(a, b int) []int {
		var out []int
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
		return out
	}
	for _, tc := range []struct {
		value string
		world int
		lists [][]int
	}{
		{"0-3", 4, r0(1, 0, 1, 2, 3)},
		{"all", 8, r0(1, seq(0, 7)...)},
		{"ALL", 8, r0(1, seq(0, 7)...)},
		{"0-1:0-3", 4, r0(2, 0, 1)},
		{"0-3:0-1", 2, [][]int{{0, 1}, {2, 3}}},
		{"0-1:0-3,3-5,7:7-9", 10, append(append(r0(2, 0, 1), r0(1, 3, 4, 5)...), r0(3, 7)...)},
		{"0:0-4, 1:5-9", 10, r0(5, 0, 1)},
		{"0:0-1, 1:2-4", 5, append(r0(2, 0), r0(3, 1)...)},
		{"0-1:0", 1, [][]int{{0, 1}}},
		{"3", 1, [][]int{{3}}},
		{`"3"`, 1, [][]int{{3}}},
		{"0,2,3", 3, r0(1, 0, 2, 3)},
		{"0-2,5,7", 5, r0(1, 0, 1, 2, 5, 7)},
		{`" 0-3 , "`, 4, r0(1, 0, 1, 2, 3)},
		{"0-3:4-7", 4, r0(1, 0, 1, 2, 3)},
		{"All:0-15", 16, r0(2, seq(0, 7)...)},
	} {
		t.Run(tc.value, func(t *testing.T) {
			r := mustPlan(t, actorYAML(tc.value), nodes(8), hybrid)
			cp := comp(t, r, "actor")
			if cp.RankMapWorldSize != tc.world || cp.Placements.Len() != tc.world {
				t.Errorf("world size %d, %d placements; want %d", cp.RankMapWorldSize, cp.Placements.Len(), tc.world)
			}
			if cp.Strategy.Kind != model.StrategyFlexible || !reflect.DeepEqual(cp.Strategy.HardwareRanks(), tc.lists) {
				t.Errorf("strategy %s %v, want flexible %v", cp.Strategy.Kind, cp.Strategy.HardwareRanks(), tc.lists)
			}
			var got [][]int
			for _, p := range cp.Placements.All() {
				got = append(got, p.LocalHardwareRanks)
			}
			if !reflect.DeepEqual(got, tc.lists) {
				t.Errorf("placements' hardware %v, want %v", got, tc.lists)
			}
		})
	}
}

// §2.6 errors: the code, and the primary span on the offending characters
// of the placement string (line 4; the value starts at column 12).
func TestPlanParseErrors(t *testing.T) {
	for _, tc := range []struct {
		value string
		code  string
		at    string // the characters the primary span should cover
		nth   int    // which occurrence of at inside the value
	}{
		{"0-1,1-2", model.CodeDuplicateResource, "1-2", 0},
		{"2-3,0-1", model.CodeResourceOrder, "0-1", 0},
		{"0-0:0,1-1:2", model.CodeProcessOrder, "2", 0},
		{"0-2:0-1", model.CodeNotDivisible, "0-2:0-1", 0},
		{"0-3:all", model.CodeProcessAll, "all", 0},
		{"0-8", model.CodeRankOutOfRange, "8", 0},
		{"0-3,9", model.CodeRankOutOfRange, "9", 0},
		{"-1", model.CodeRankSyntax, "-", 0},
		{"a-b", model.CodeRankSyntax, "a", 0},
		{"0--1", model.CodeRankSyntax, "-", 1},
		{"0:1:2", model.CodeRankSyntax, ":", 1},
		{"0:0-1,1:1-2", model.CodeDuplicateProcess, "1-2", 0},
		{"[0,1]", model.CodeWrongType, "[0,1]", 0},
	} {
		t.Run(tc.value, func(t *testing.T) {
			src := actorYAML(tc.value)
			ds := checkDiags(t, src, nodes(8), hybrid)
			d := wantDiag(t, ds, tc.code, model.SeverityError)
			// Position of the expected characters: value column + offset.
			off := -1
			for i, from := 0, 0; i <= tc.nth; i++ {
				j := strings.Index(tc.value[from:], tc.at)
				off, from = from+j, from+j+1
			}
			line, col := 4, 12+off
			if d.Primary.Line != line || d.Primary.Col != col {
				t.Errorf("primary at %d:%d, want %d:%d (%q of %q): %s", d.Primary.Line, d.Primary.Col, line, col, tc.at, tc.value, d.Summary)
			}
			if tc.code != model.CodeWrongType && d.Primary.EndCol != col+len(tc.at) {
				t.Errorf("primary ends at column %d, want %d", d.Primary.EndCol, col+len(tc.at))
			}
		})
	}
}

// hetero33 is §3.2/§3.3's cluster: nodes 0,1 with 4 GPUs, node 2 with 2,
// node 3 with no GPU and 2 Franka (from hardware configs).
const hetero33 = `cluster:
  num_nodes: 4
  node_groups:
    - label: a800
      node_ranks: 0-1
    - label: 4090
      node_ranks: 2
    - label: franka
      node_ranks: 3
      hardware:
        type: Franka
        configs:
          - node_rank: 3
            robot_ip: 10.0.0.11
          - node_rank: 3
            robot_ip: 10.0.0.12
    - label: cpu
      node_ranks: 3
    - label: ign
      node_ranks: 0-1
      ignore_hardware: true
  component_placement:
`

// §3.2: resource counts of each group.
func TestPlanGroupResourceCounts(t *testing.T) {
	r := mustPlan(t, hetero33+"    x: 0\n", nodes(4, 4, 2, 0), hybrid)
	for label, want := range map[string]int{"a800": 8, "4090": 2, "franka": 2, "cpu": 1, "ign": 2, "cluster": 10, "node": 4} {
		g := r.Cluster.Group(label)
		if g == nil {
			t.Errorf("no group %q", label)
			continue
		}
		if g.ResourceCount() != want {
			t.Errorf("group %s: %d resources, want %d", label, g.ResourceCount(), want)
		}
	}
	if g := r.Cluster.Group("cpu"); g.HardwareType != "" {
		t.Errorf("cpu group type %q, want none", g.HardwareType)
	}
	if g := r.Cluster.Group("franka"); g.HardwareType != "Franka" {
		t.Errorf("franka group type %q", g.HardwareType)
	}
}

// §3.3: several groups concatenate their ranks in label order.
func TestPlanMultiGroup(t *testing.T) {
	src := hetero33 + `    a: {node_group: "a800,4090", placement: 0-9}
    b: {node_group: "a800,franka", placement: 7-9}
`
	r := mustPlan(t, src, nodes(4, 4, 2, 0), hybrid)
	var want []pw
	for i := 0; i < 8; i++ {
		want = append(want, pw{node: i / 4, pnode: i / 4, lacc: i % 4, lrank: i % 4, lws: 4, vis: itoa(i % 4), lhw: []int{i % 4}, label: "a800"})
	}
	for i := 0; i < 2; i++ {
		want = append(want, pw{node: 2, pnode: 2, lacc: i, lrank: i, lws: 2, vis: itoa(i), lhw: []int{i}, label: "4090"})
	}
	checkPlacements(t, comp(t, r, "a").Placements.Slice(), want)
	checkPlacements(t, comp(t, r, "b").Placements.Slice(), []pw{
		{node: 1, pnode: 0, lacc: 3, lrank: 0, lws: 1, vis: "3", lhw: []int{3}, label: "a800"},
		{node: 3, pnode: 1, lacc: -1, lrank: 0, lws: 2, vis: "", lhw: []int{0}, label: "franka", accel: "NO_ACCEL"},
		{node: 3, pnode: 1, lacc: -1, lrank: 1, lws: 2, vis: "", lhw: []int{1}, label: "franka", accel: "NO_ACCEL"},
	})
}

// §3.3 / D5: mixing a typed group with an untyped one is refused now.
func TestPlanMixedTypedUntyped(t *testing.T) {
	for _, groups := range []string{"a800,node", "a800,cpu"} {
		t.Run(groups, func(t *testing.T) {
			src := hetero33 + fmt.Sprintf("    a: {node_group: %q, placement: 0}\n", groups)
			ds := checkDiags(t, src, nodes(4, 4, 2, 0), hybrid)
			d := wantDiag(t, ds, model.CodeMixedTypedUntyped, model.SeverityError)
			line, col := posOf(t, src, groups, 0)
			if d.Primary.Line != line || d.Primary.Col != col {
				t.Errorf("primary at %d:%d, want the node_group at %d:%d", d.Primary.Line, d.Primary.Col, line, col)
			}
		})
	}
}

// §3.3: two accelerator groups on the same node map onto the same GPUs.
func TestPlanGroupsSharingANode(t *testing.T) {
	src := `cluster:
  num_nodes: 1
  node_groups:
    - {label: g1, node_ranks: 0}
    - {label: g2, node_ranks: 0}
  component_placement:
    a: {node_group: "g1,g2", placement: 0-3}
`
	r := mustPlan(t, src, nodes(2), hybrid)
	if got := visible(comp(t, r, "a").Placements.Slice()); !reflect.DeepEqual(got, []string{"0", "1", "0", "1"}) {
		t.Errorf("visible %v, want GPUs 0,1,0,1", got)
	}
}

// §7 TestHybridComponentPlacement facts 20-26.
func TestPlanHybridFacts(t *testing.T) {
	t.Run("fact 20", func(t *testing.T) {
		src := `cluster:
  num_nodes: 2
  node_groups:
    - {label: train, node_ranks: 0-1}
  component_placement:
    actor: {node_group: train, placement: 0-3}
    env: {node_group: node, placement: "0-1:0-3"}
    reward: {node_group: train, placement: 0-1}
`
		r := mustPlan(t, src, nodes(4, 4), hybrid)
		actor := comp(t, r, "actor")
		if !reflect.DeepEqual(actor.HardwareRanks, []int{0, 1, 2, 3}) || actor.Placements.Len() != 4 {
			t.Errorf("actor hardware %v, %d placements", actor.HardwareRanks, actor.Placements.Len())
		}
		env := comp(t, r, "env")
		if env.Strategy.Kind != model.StrategyNode || env.Placements.Len() != 4 || !reflect.DeepEqual(nodesOf(env.Placements.Slice()), []int{0, 0, 1, 1}) {
			t.Errorf("env %s strategy, nodes %v", env.Strategy.Kind, nodesOf(env.Placements.Slice()))
		}
	})
	t.Run("fact 21", func(t *testing.T) {
		r := mustPlan(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,reward: all\n", nodes(4), hybrid)
		ps := comp(t, r, "actor").Placements.Slice()
		if got := field(ps, func(p model.Placement) int { return p.LocalAcceleratorRank }); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
			t.Errorf("local accelerator ranks %v", got)
		}
		if comp(t, r, "reward").Strategy.Kind != model.StrategyFlexible {
			t.Error("reward should share actor's flexible strategy")
		}
	})
	t.Run("fact 22", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-2,5,7\n    inference: 3-4\n    reward: 0-2\n"
		r := mustPlan(t, src, nodes(8), detect)
		if got := field(comp(t, r, "actor").Placements.Slice(), func(p model.Placement) int { return p.LocalAcceleratorRank }); !reflect.DeepEqual(got, []int{0, 1, 2, 5, 7}) {
			t.Errorf("actor %v", got)
		}
		if got := field(comp(t, r, "inference").Placements.Slice(), func(p model.Placement) int { return p.LocalAcceleratorRank }); !reflect.DeepEqual(got, []int{3, 4}) {
			t.Errorf("inference %v", got)
		}
	})
	t.Run("fact 23", func(t *testing.T) {
		r := mustPlan(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,inference: 0-1\n", nodes(2), hybrid)
		a, i := comp(t, r, "actor"), comp(t, r, "inference")
		if a.Placements.Len() != 2 || !reflect.DeepEqual(a.Strategy, i.Strategy) || !reflect.DeepEqual(a.Placements.Slice(), i.Placements.Slice()) || a.Entry != i.Entry {
			t.Errorf("actor and inference should share one strategy: %+v / %+v", a.Strategy, i.Strategy)
		}
	})
	t.Run("fact 24", func(t *testing.T) {
		ds := checkDiags(t, actorYAML("0-1,1-2"), nodes(4), hybrid)
		wantDiag(t, ds, model.CodeDuplicateResource, model.SeverityError)
	})
	t.Run("fact 25", func(t *testing.T) {
		ds := checkDiags(t, actorYAML("0-0:0,1-1:2"), nodes(2), hybrid)
		wantDiag(t, ds, model.CodeProcessOrder, model.SeverityError)
	})
	t.Run("fact 26", func(t *testing.T) {
		src := `cluster:
  num_nodes: 2
  node_groups:
    - {label: train, node_ranks: 0}
    - {label: infer, node_ranks: 1}
  component_placement:
    actor: {node_group: train, placement: 0-1}
    rollout: {node_group: infer, placement: 0}
`
		r := mustPlan(t, src, nodes(4, 4), hybrid)
		if got := nodesOf(comp(t, r, "actor").Placements.Slice()); !reflect.DeepEqual(got, []int{0, 0}) {
			t.Errorf("actor nodes %v", got)
		}
		if got := nodesOf(comp(t, r, "rollout").Placements.Slice()); !reflect.DeepEqual(got, []int{1}) {
			t.Errorf("rollout nodes %v", got)
		}
	})
}

// mpYAML builds a model-parallel training config.
func mpYAML(numNodes int, placement, rest string) string {
	return fmt.Sprintf("cluster:\n  num_nodes: %d\n  component_placement:\n%s%s", numNodes, placement, rest)
}

func tp(actor, rollout int) string {
	return fmt.Sprintf("actor:\n  model:\n    tensor_model_parallel_size: %d\nrollout:\n  tensor_parallel_size: %d\n", actor, rollout)
}

// §7 TestModelParallelComponentPlacement facts 27-33.
func TestPlanModelParallelFacts(t *testing.T) {
	disagg := "    actor: 0-1\n    rollout: 2-5\n    inference: 6-7\n    reward: 2-5\n"
	infTP := func(n int) string {
		return fmt.Sprintf("inference:\n  model:\n    tensor_model_parallel_size: %d\n", n)
	}
	t.Run("fact 27 collocated", func(t *testing.T) {
		r := mustPlan(t, mpYAML(1, "    actor,rollout,reward: 0-3\n", tp(4, 2)), nodes(4), detect)
		if r.Plan.Mode != model.ModeCollocated {
			t.Errorf("mode %s", r.Plan.Mode)
		}
		for _, n := range []string{"actor", "rollout"} {
			cp := comp(t, r, n)
			if !reflect.DeepEqual(cp.HardwareRanks, []int{0, 1, 2, 3}) || cp.RankMapWorldSize != 4 || cp.Strategy.Kind != model.StrategyPacked {
				t.Errorf("%s: hardware %v world %d strategy %s", n, cp.HardwareRanks, cp.RankMapWorldSize, cp.Strategy.Kind)
			}
		}
		if r.Plan.Component("inference") != nil {
			t.Error("no dedicated inference expected")
		}
	})
	t.Run("fact 28 disaggregated", func(t *testing.T) {
		r := mustPlan(t, mpYAML(1, disagg, tp(2, 2)+infTP(2)+"algorithm:\n  recompute_logprobs: true\n"), nodes(8), detect)
		if r.Plan.Mode != model.ModeDisaggregated {
			t.Errorf("mode %s", r.Plan.Mode)
		}
		for n, want := range map[string][]int{"actor": {0, 1}, "rollout": {2, 3, 4, 5}, "inference": {6, 7}} {
			if got := comp(t, r, n).HardwareRanks; !reflect.DeepEqual(got, want) {
				t.Errorf("%s hardware %v, want %v", n, got, want)
			}
		}
	})
	t.Run("fact 29 no actor", func(t *testing.T) {
		ds := checkDiags(t, mpYAML(1, "    rollout,reward: 0-3\n", tp(1, 1)), nodes(4), detect)
		d := wantDiag(t, ds, model.CodeMPMissing, model.SeverityError)
		if !strings.Contains(d.Summary, "actor") {
			t.Errorf("summary %q should name actor", d.Summary)
		}
	})
	t.Run("fact 30 inference TP too large", func(t *testing.T) {
		ds := checkDiags(t, mpYAML(1, disagg, tp(2, 2)+infTP(4)), nodes(8), detect)
		wantDiag(t, ds, model.CodeMPTPTooLarge, model.SeverityError)
	})
	t.Run("fact 31 recompute_logprobs false", func(t *testing.T) {
		ds := checkDiags(t, mpYAML(1, disagg, tp(2, 2)+infTP(2)+"algorithm:\n  recompute_logprobs: false\n"), nodes(8), detect)
		wantDiag(t, ds, model.CodeMPRecompute, model.SeverityError)
	})
	t.Run("fact 32 no reward", func(t *testing.T) {
		ds := checkDiags(t, mpYAML(1, "    actor: 0-1\n    rollout: 2-3\n", tp(1, 1)), nodes(4), detect)
		d := wantDiag(t, ds, model.CodeMPMissing, model.SeverityError)
		if !strings.Contains(d.Summary, "reward") {
			t.Errorf("summary %q should name reward", d.Summary)
		}
	})
	t.Run("fact 33 auto", func(t *testing.T) {
		src := mpYAML(1, "    actor: 0-3\n    rollout: 4-7\n    inference: 8-9\n    reward: 4-7\n  auto_scheduler: true\n", tp(2, 2)+infTP(2))
		r := mustPlan(t, src, nodes(10), detect)
		if r.Plan.Mode != model.ModeAuto {
			t.Errorf("mode %s", r.Plan.Mode)
		}
		actor := comp(t, r, "actor").Placements.Slice()
		if len(actor) != 10 || strings.Join(actor[0].VisibleAccelerators, ",") != "0" {
			t.Errorf("actor: %d placements, first visible %v", len(actor), actor[0].VisibleAccelerators)
		}
		for _, p := range comp(t, r, "rollout").Placements.All() {
			if p.LocalWorldSize != 2 {
				t.Errorf("rollout rank %d lws %d, want 2", p.Rank, p.LocalWorldSize)
			}
		}
		if comp(t, r, "inference") == nil {
			t.Error("dedicated inference expected")
		}
	})
}

// heteroEnv is fact 34's cluster: one node with 1 GPU and 1 Franka; groups
// gpu and franka each with their own env var and interpreter.
func heteroEnv(t *testing.T) *strategies.Cluster {
	inv := withRobots(nodes(1), 0, "Franka", 1)
	return groupsCluster(t, inv, `    - label: gpu
      node_ranks: 0
      env_configs:
        - node_ranks: 0
          python_interpreter_path: /opt/gpu/python
          env_vars:
            - GPU_ENV: 1
    - label: franka
      node_ranks: 0
      hardware_type: Franka
      env_configs:
        - node_ranks: 0
          python_interpreter_path: /opt/franka/python
          env_vars:
            - FRANKA_ENV: 1
`)
}

// §7 TestHeteroMultiNodeGroupPlacement facts 34-38.
func TestPlanHeteroFacts(t *testing.T) {
	heteroWant := []pw{
		{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}, label: "gpu"},
		{node: 0, pnode: 0, lacc: 0, lrank: 1, lws: 2, vis: "0", lhw: []int{0}, label: "franka"},
	}
	groupsOwn := func(t *testing.T, c *strategies.Cluster) {
		t.Helper()
		if got := c.GroupEnv("gpu", 0); !reflect.DeepEqual(got, map[string]string{"GPU_ENV": "1"}) {
			t.Errorf("gpu env %v", got)
		}
		if got := c.GroupEnv("franka", 0); !reflect.DeepEqual(got, map[string]string{"FRANKA_ENV": "1"}) {
			t.Errorf("franka env %v", got)
		}
		if c.Interpreter("gpu", 0) != "/opt/gpu/python" || c.Interpreter("franka", 0) != "/opt/franka/python" {
			t.Errorf("interpreters %q %q", c.Interpreter("gpu", 0), c.Interpreter("franka", 0))
		}
	}
	t.Run("fact 34/37 flexible", func(t *testing.T) {
		c := heteroEnv(t)
		ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{0}, {1}}, NodeGroups: []string{"gpu", "franka"}}.Place(c, true))
		checkPlacements(t, ps, heteroWant)
		groupsOwn(t, c)
	})
	t.Run("fact 35 packed", func(t *testing.T) {
		c := heteroEnv(t)
		ps := mustPlace(t)(strategies.Packed{Start: 0, End: 1, NodeGroups: []string{"gpu", "franka"}}.Place(c, true))
		checkPlacements(t, ps, heteroWant)
		groupsOwn(t, c)
	})
	t.Run("fact 36 node", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 1}, NodeGroups: []string{"a", "b"}}.Place(abCluster(t), false))
		if got := visible(ps); !reflect.DeepEqual(got, []string{"0", "0,1"}) || ps[0].NodeGroupLabel != "a" || ps[1].NodeGroupLabel != "b" {
			t.Errorf("visible %v labels %s %s", got, ps[0].NodeGroupLabel, ps[1].NodeGroupLabel)
		}
	})
	t.Run("fact 38 mixed types", func(t *testing.T) {
		ps, f := strategies.Flexible{HardwareRanks: [][]int{{0, 1}}, NodeGroups: []string{"gpu", "franka"}}.Place(heteroEnv(t), true)
		wantFailure(t, ps, f, model.CodeMixedHardware, 0)
	})
	t.Run("fact 34 through a config", func(t *testing.T) {
		src := `cluster:
  num_nodes: 1
  node_groups:
    - {label: gpu, node_ranks: 0}
    - {label: franka, node_ranks: 0, hardware_type: Franka}
  component_placement:
    env: {node_group: "gpu,franka", placement: 0-1}
`
		r := mustPlan(t, src, withRobots(nodes(1), 0, "Franka", 1), hybrid)
		checkPlacements(t, comp(t, r, "env").Placements.Slice(), heteroWant)
	})
}

// §5 strided collocated rollout: visible GPUs of each rollout process.
func TestPlanCollocatedStride(t *testing.T) {
	for _, tc := range []struct {
		name       string
		inv        *model.Inventory
		placement  string
		actor, rol int
		want       []string
	}{
		{"A4 R2", nodes(8), "all", 4, 2, []string{"0,2", "1,3", "4,6", "5,7"}},
		{"A2 R4", nodes(8), "all", 2, 4, []string{"0,1,2,3", "4,5,6,7"}},
		{"A8 R2", nodes(8), "all", 8, 2, []string{"0,4", "1,5", "2,6", "3,7"}},
		{"A4 R2 on 2x8", nodes(8, 8), "all", 4, 2, []string{"0,2", "1,3", "4,6", "5,7", "0,2", "1,3", "4,6", "5,7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := mpYAML(len(tc.inv.Nodes), "    actor,rollout,reward: "+tc.placement+"\n", tp(tc.actor, tc.rol))
			r := mustPlan(t, src, tc.inv, detect)
			if r.Plan.Mode != model.ModeCollocated {
				t.Errorf("mode %s", r.Plan.Mode)
			}
			ps := comp(t, r, "rollout").Placements.Slice()
			if got := visible(ps); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rollout visible %v, want %v", got, tc.want)
			}
			if len(tc.inv.Nodes) == 2 && !reflect.DeepEqual(nodesOf(ps), []int{0, 0, 0, 0, 1, 1, 1, 1}) {
				t.Errorf("rollout nodes %v", nodesOf(ps))
			}
		})
	}
}

// §5 disaggregated example: per-component visible GPUs.
func TestPlanDisaggregatedExample(t *testing.T) {
	src := mpYAML(1, "    actor: 0-1\n    rollout: 2-5\n    inference: 6-7\n    reward: 2-5\n",
		tp(2, 2)+"inference:\n  model:\n    tensor_model_parallel_size: 2\n")
	r := mustPlan(t, src, nodes(8), detect)
	for n, want := range map[string][]string{
		"actor":     {"0", "1"},
		"rollout":   {"2,3", "4,5"},
		"inference": {"6", "7"},
		"reward":    {"2", "3", "4", "5"},
	} {
		if got := visible(comp(t, r, n).Placements.Slice()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s visible %v, want %v", n, got, want)
		}
	}
}

// §5: rollout 2-7 with TP 4 gives dp = 1, so one process owns all 6 GPUs,
// with a warning that 6 is not a multiple of 4.
func TestPlanDisaggregatedUnevenRollout(t *testing.T) {
	src := mpYAML(1, "    actor: 0-1\n    rollout: 2-7\n    reward: 2-7\n", tp(1, 4))
	r := mustPlan(t, src, nodes(8), detect)
	if got := visible(comp(t, r, "rollout").Placements.Slice()); !reflect.DeepEqual(got, []string{"2,3,4,5,6,7"}) {
		t.Errorf("rollout visible %v, want one process on 2-7", got)
	}
	wantDiag(t, r.Diagnostics, model.WarnParallelDivides, model.SeverityWarning)
}

// §5 AUTO example: actor on all 10 GPUs (its TP 2, not the example's 4:
// Megatron refuses a world of 10 with TP 4, D21).
func TestPlanAutoExample(t *testing.T) {
	src := mpYAML(1, "    actor: 0-3\n    rollout: 4-7\n    inference: 8-9\n    reward: 4-7\n  auto_scheduler: true\n",
		tp(2, 2)+"inference:\n  model:\n    tensor_model_parallel_size: 2\n")
	r := mustPlan(t, src, nodes(10), detect)
	each := func(a, b int) []string {
		var out []string
		for i := a; i <= b; i++ {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	for n, want := range map[string][]string{
		"actor":     each(0, 9),
		"rollout":   {"4,5", "6,7"},
		"inference": {"8", "9"},
		"reward":    each(4, 7),
	} {
		if got := visible(comp(t, r, n).Placements.Slice()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s visible %v, want %v", n, got, want)
		}
	}
	wantDiag(t, r.Diagnostics, model.NoteMPWorldSize, model.SeverityNote)
}

// §5 model-parallel errors, one code each.
func TestPlanModelParallelErrors(t *testing.T) {
	for _, tc := range []struct {
		name, placement, rest string
		gpus                  int
		code                  string
	}{
		{"missing rollout", "    actor: 0-3\n    reward: 0-3\n", tp(1, 1), 4, model.CodeMPMissing},
		{"actor not contiguous", "    actor: 0-1,3\n    rollout: 4-5\n    reward: 4-5\n", tp(1, 1), 8, model.CodeMPNotContiguous},
		{"partial overlap", "    actor: 0-3\n    rollout: 2-5\n    reward: 0-5\n", tp(1, 1), 8, model.CodeMPMode},
		{"inference in collocated mode", "    actor,rollout,reward: 0-3\n    inference: 4-5\n", tp(1, 1), 8, model.CodeMPCollocatedExtra},
		{"A4 R3", "    actor,rollout,reward: all\n", tp(4, 3), 8, model.CodeMPTPDivisible},
		{"A4 R2 on 0-5", "    actor,rollout,reward: 0-5\n", tp(4, 2), 8, model.CodePackedDivisible},
		{"rollout TP past its GPUs", "    actor,rollout,reward: 0-3\n", tp(1, 8), 8, model.CodeMPTPTooLarge},
		{"recompute false", "    actor: 0-1\n    rollout: 2-5\n    inference: 6-7\n    reward: 2-5\n", tp(1, 1) + "algorithm:\n  recompute_logprobs: false\n", 8, model.CodeMPRecompute},
		{"auto order", "    actor: 0-3\n    rollout: 6-7\n    inference: 4-5\n    reward: 6-7\n  auto_scheduler: true\n", tp(1, 1), 8, model.CodeMPAutoOrder},
		{"rollout smaller than TP x PP", "    actor: 0-1\n    rollout: 2-3\n    reward: 2-3\n", tp(1, 2) + "  pipeline_parallel_size: 2\n", 4, model.CodeMPSizes},
		{"TP 0", "    actor,rollout,reward: all\n", tp(1, 0), 4, model.CodeInvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := checkDiags(t, mpYAML(1, tc.placement, tc.rest), nodes(tc.gpus), detect)
			wantDiag(t, ds, tc.code, model.SeverityError)
		})
	}
}

// The mode flag: a config without model-parallel keys plans as hybrid
// unless model-parallel is asked for.
func TestPlanModeSelection(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\n"
	if r := mustPlan(t, src, nodes(4), detect); r.Plan.Mode != model.ModeHybrid {
		t.Errorf("detect: mode %s, want hybrid", r.Plan.Mode)
	}
	if r := mustPlan(t, src, nodes(4), modelParallel); r.Plan.Mode != model.ModeCollocated {
		t.Errorf("model-parallel: mode %s, want collocated", r.Plan.Mode)
	}
}

// num_nodes larger than the inventory is an error at num_nodes; a larger
// inventory is used up to num_nodes.
func TestPlanInventorySize(t *testing.T) {
	src := "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n"
	r := plan(t, src, nodes(4), hybrid)
	wantDiag(t, r.Diagnostics, model.CodeInventoryNodes, model.SeverityError)
	r = mustPlan(t, src, nodes(4, 4, 4), hybrid)
	if got := comp(t, r, "actor").Placements.Len(); got != 8 {
		t.Errorf("%d placements, want 8 (2 of 3 nodes)", got)
	}
}

// §2.3 steps 8-9: a process range that overlaps an earlier one is a
// duplicate; one that does not overlap but does not continue is an order
// error.
func TestPlanProcessRankChecks(t *testing.T) {
	for _, tc := range []struct {
		value, code, at string
	}{
		{"0:0-1,1:1-2", model.CodeDuplicateProcess, "1-2"},
		{"0:0-3,1:2", model.CodeDuplicateProcess, "2"},
		{"0:0,1:2", model.CodeProcessOrder, "2"},
		{"0:3-4,1:0-1", model.CodeProcessOrder, "0-1"},
		{"0:5,1:0-4", model.CodeProcessOrder, "0-4"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			src := actorYAML(tc.value)
			ds := checkDiags(t, src, nodes(8), hybrid)
			if !ds.HasErrors() {
				t.Fatal("accepted")
			}
			d := findDiag(ds, tc.code)
			d = wantDiag(t, ds, tc.code, model.SeverityError)
			line, col := 4, 12+strings.LastIndex(tc.value, tc.at)
			if d.Primary.Line != line || d.Primary.Col != col {
				t.Errorf("at %s, want %d:%d", d.Primary, line, col)
			}
		})
	}
}

// Huge ranks in a placement are refused quickly, before any expansion.
func TestPlanHugeRanks(t *testing.T) {
	for _, tc := range []struct{ value, code string }{
		{"0-99999999", model.CodeRankOutOfRange},
		{"0:0-99999999", model.CodeProcessLimit},
		{"0-7:0-99999999", model.CodeProcessLimit},
	} {
		t.Run(tc.value, func(t *testing.T) {
			ds := checkDiags(t, actorYAML(tc.value), nodes(8), hybrid)
			wantDiag(t, ds, tc.code, model.SeverityError)
		})
	}
}

// §2.5: groups without hardware get a Node strategy (one process per node
// resource); a process given several nodes is refused.
func TestPlanNodeStrategySelection(t *testing.T) {
	t.Run("CPU-only cluster group", func(t *testing.T) {
		r := mustPlan(t, "cluster:\n  num_nodes: 2\n  component_placement:\n    env: all\n", nodes(0, 0), hybrid)
		env := comp(t, r, "env")
		if env.Strategy.Kind != model.StrategyNode || !reflect.DeepEqual(env.Strategy.NodeRanks(), []int{0, 1}) {
			t.Errorf("strategy %+v", env.Strategy)
		}
		checkPlacements(t, env.Placements.Slice(), []pw{
			{node: 0, pnode: 0, lacc: -1, lrank: 0, lws: 1, vis: "", label: "cluster", accel: "NO_ACCEL"},
			{node: 1, pnode: 1, lacc: -1, lrank: 0, lws: 1, vis: "", label: "cluster", accel: "NO_ACCEL"},
		})
	})
	t.Run("one process on two nodes", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 2\n  component_placement:\n    env: {node_group: node, placement: \"0-1:0\"}\n"
		ds := checkDiags(t, src, nodes(4, 4), hybrid)
		d := wantDiag(t, ds, model.CodeOneProcessOneNode, model.SeverityError)
		if line, col := posOf(t, src, "0-1:0", 0); d.Primary.Line != line || d.Primary.Col != col {
			t.Errorf("at %s, want %d:%d", d.Primary, line, col)
		}
	})
	t.Run("unknown group with did-you-mean", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 1\n  node_groups:\n    - {label: train, node_ranks: 0}\n  component_placement:\n    env: {node_group: trian, placement: 0}\n"
		ds := checkDiags(t, src, nodes(4), hybrid)
		d := wantDiag(t, ds, model.CodeUnknownGroup, model.SeverityError)
		if line, col := posOf(t, src, "trian", 0); d.Primary.Line != line || d.Primary.Col != col {
			t.Errorf("at %s, want %d:%d", d.Primary, line, col)
		}
		if len(d.Help) == 0 || !strings.Contains(d.Help[0].Message, "train") {
			t.Errorf("help %+v", d.Help)
		}
	})
}
