package solver

import (
	"fmt"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Solve's benchmarks: six components on a heterogeneous cluster of nodes
// of 8 GPUs (half a800, half 4090, one robot node per 64), scaled.

// benchSpec is the requirement file for a cluster of n nodes of 8 GPUs.
func benchSpec(nodes int, impossible bool) string {
	half := nodes / 2
	gpus := half * 8
	inference := gpus / 8
	if impossible {
		inference = gpus // a800 is full with actor: nothing is left
	}
	return fmt.Sprintf(`cluster:
  num_nodes: %d
  node_groups:
    - {label: a800, node_ranks: 0-%d}
    - {label: "4090", node_ranks: %d-%d}
  component_placement:
    actor:     {gpus: %d, node_group: a800}
    reward:    {with: actor}
    rollout:   {gpus: %d, node_group: "4090", gpus_per_process: 2}
    inference: {gpus: %d, node_group: %s, apart_from: [rollout]}
    critic:    {gpus: %d, node_group: "4090"}
    agent:     {node_group: node, processes: %d}
`, nodes, half-1, half, nodes-1, gpus-gpus/8*2, gpus/2, inference, map[bool]string{true: "a800", false: `"4090"`}[impossible], gpus/8, nodes*4)
}

func benchSpace(b testing.TB, nodes int, impossible bool, without []int) *rules.Space {
	cfg, ds := grammar.LoadConfig("bench.yaml", []byte(benchSpec(nodes, impossible)), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		b.Fatalf("bench config: %v", ds)
	}
	inv := &model.Inventory{}
	for i := 0; i < nodes; i++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: 8})
	}
	return rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: without})
}

func benchPlace(b *testing.B, nodes int, impossible bool) {
	var res *Placement
	for i := 0; i < b.N; i++ {
		sp := benchSpace(b, nodes, impossible, nil)
		var err error
		if res, err = Place(sp, PlaceOptions{}); err != nil {
			b.Fatal(err)
		}
		if res.Diagnostics.HasErrors() != impossible {
			b.Fatalf("impossible=%v, diagnostics %v", impossible, res.Diagnostics)
		}
	}
	b.ReportMetric(float64(res.Stats.Vars), "vars")
	b.ReportMetric(float64(res.Stats.Clauses), "clauses")
	b.ReportMetric(float64(res.Stats.Calls), "calls")
}

func BenchmarkPlace1024(b *testing.B)           { benchPlace(b, 128, false) }
func BenchmarkPlace8192(b *testing.B)           { benchPlace(b, 1024, false) }
func BenchmarkPlaceImpossible1024(b *testing.B) { benchPlace(b, 128, true) }
