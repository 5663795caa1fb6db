package proptest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/rlsolve/rlsolve/model"
)

// Random requirement files on small clusters (up to 4 nodes of 4 GPUs, up
// to 4 components), small enough for exhaustive search. Every field is a
// small integer so that gopter shrinks a case towards the plainest one.

// svNode is one node: its GPU count (1-4).
type svNode struct{ GPUs int }

// svComp is one component's requirement.
type svComp struct {
	GPUs  int // in units: 1-3
	Unit  int // gpus_per_process: 1 plain, 2
	Group int // 0: none, 1: group g1, 2: group g2
	With  int // 0: none, else shares the devices of component With-1 (an earlier one)
	Apart int // 0: none, else apart from component Apart-1 (an earlier one)
	Procs bool
}

// svSpec is one case: nodes, two groups' node windows, components, a
// placed component (Placed > 0: GPUs 0..Placed-1 of the cluster) and an
// excluded node (Without > 0: node Without-1).
type svSpec struct {
	Nodes         []svNode
	G1Lo, G1Len   int
	Comps         []svComp
	Placed        int
	Without       int
	ObjectiveKind int // 0 pack, 1 spread
}

func genSolveSpec() gopter.Gen {
	node := gen.Struct(reflect.TypeOf(svNode{}), map[string]gopter.Gen{"GPUs": gen.IntRange(1, 4)})
	comp := gen.Struct(reflect.TypeOf(svComp{}), map[string]gopter.Gen{
		"GPUs": gen.IntRange(1, 3), "Unit": gen.IntRange(1, 2), "Group": gen.IntRange(0, 2),
		"With":  gen.Weighted([]gen.WeightedGen{{Weight: 4, Gen: gen.Const(0)}, {Weight: 1, Gen: gen.IntRange(1, 3)}}),
		"Apart": gen.Weighted([]gen.WeightedGen{{Weight: 4, Gen: gen.Const(0)}, {Weight: 1, Gen: gen.IntRange(1, 3)}}),
		"Procs": gen.Bool(),
	})
	return gen.Struct(reflect.TypeOf(svSpec{}), map[string]gopter.Gen{
		"Nodes": gen.SliceOfN(4, node).SuchThat(func(v []svNode) bool { return len(v) >= 1 }),
		"G1Lo":  gen.IntRange(0, 3), "G1Len": gen.IntRange(1, 3),
		"Comps":         gen.SliceOfN(4, comp).SuchThat(func(v []svComp) bool { return len(v) >= 1 }),
		"Placed":        gen.Weighted([]gen.WeightedGen{{Weight: 3, Gen: gen.Const(0)}, {Weight: 1, Gen: gen.IntRange(1, 3)}}),
		"Without":       gen.Weighted([]gen.WeightedGen{{Weight: 3, Gen: gen.Const(0)}, {Weight: 1, Gen: gen.IntRange(1, 4)}}),
		"ObjectiveKind": gen.IntRange(0, 1),
	})
}

var svNames = []string{"actor", "rollout", "inference", "reward"}

// render writes the spec as an RLinf config (hybrid: no TP sizes) and an
// inventory, and the --without-node list.
func (s svSpec) render() (string, *model.Inventory, []int) {
	n := len(s.Nodes)
	inv := &model.Inventory{Source: "test"}
	for i, nd := range s.Nodes {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: nd.GPUs})
	}
	lo := min(s.G1Lo, n-1)
	hi := min(lo+s.G1Len-1, n-1)
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n  node_groups:\n", n)
	fmt.Fprintf(&b, "    - {label: g1, node_ranks: %d-%d}\n", lo, hi)
	fmt.Fprintf(&b, "    - {label: g2, node_ranks: 0-%d}\n", n-1)
	b.WriteString("  component_placement:\n")
	if s.Placed > 0 {
		fmt.Fprintf(&b, "    critic: \"0-%d\"\n", min(s.Placed, s.totalGPUs())-1)
	}
	for i, c := range s.Comps {
		var keys []string
		switch {
		case c.With > 0 && c.With-1 < i:
			keys = append(keys, "with: "+svNames[c.With-1])
		case c.Procs:
			keys = append(keys, fmt.Sprintf("processes: %d", c.GPUs))
		default:
			keys = append(keys, fmt.Sprintf("gpus: %d", c.GPUs*c.Unit))
		}
		if c.Unit > 1 {
			keys = append(keys, fmt.Sprintf("gpus_per_process: %d", c.Unit))
		}
		if c.Group > 0 {
			keys = append(keys, fmt.Sprintf("node_group: g%d", c.Group))
		}
		if c.Apart > 0 && c.Apart-1 < i && c.Apart != c.With {
			keys = append(keys, "apart_from: ["+svNames[c.Apart-1]+"]")
		}
		fmt.Fprintf(&b, "    %s: {%s}\n", svNames[i], strings.Join(keys, ", "))
	}
	var without []int
	if s.Without > 0 && s.Without-1 < n {
		without = []int{s.Without - 1}
	}
	return b.String(), inv, without
}

func (s svSpec) totalGPUs() int {
	t := 0
	for _, nd := range s.Nodes {
		t += nd.GPUs
	}
	return t
}
