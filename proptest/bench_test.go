package proptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
)

// bigConfig is a 1024-node x 8-GPU layout with six components, one of them
// a 10,000-process CPU agent pool (10 per node on 1,000 nodes).
func bigConfig(nodes int) []byte {
	g := nodes * 8
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n  component_placement:\n", nodes)
	fmt.Fprintf(&b, "    actor: 0-%d\n", g/2-1)
	fmt.Fprintf(&b, "    rollout: %d-%d\n", g/2, g*3/4-1)
	fmt.Fprintf(&b, "    inference: %d-%d\n", g*3/4, g*7/8-1)
	fmt.Fprintf(&b, "    reward: 0-%d\n", g/2-1)
	fmt.Fprintf(&b, "    env: \"%d-%d:0-%d\"\n", g*7/8, g-1, g/4-1)
	agents := nodes * 10 * 1000 / 1024
	fmt.Fprintf(&b, "    agent: {node_group: node, placement: \"0-%d:0-%d\"}\n", agents/10-1, agents-1)
	return []byte(b.String())
}

func planBig(b *testing.B, nodes int, withEnv bool) {
	data := bigConfig(nodes)
	inv := topology.Uniform(nodes, 8, "bench")
	b.ReportAllocs()
	workers := 0
	for b.Loop() {
		o := pipeline.CheckBytes("bench.yaml", data, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		if o.Diagnostics.HasErrors() || o.Result == nil {
			b.Fatal(o.Diagnostics[0].Summary)
		}
		res := o.Result
		workers = 0
		for i := range res.Plan.Components {
			cp := &res.Plan.Components[i]
			workers += cp.Placements.Len()
			if withEnv {
				for j := range cp.Placements.Len() {
					_ = res.Cluster.Env(cp, j)
				}
			}
		}
	}
	b.ReportMetric(float64(workers), "workers")
}

// BenchmarkPlan1024 checks (the solver judges the rules) and expands the
// whole layout (no environments).
func BenchmarkPlan1024(b *testing.B) { planBig(b, 1024, false) }

// BenchmarkPlanEnv1024 also computes every worker's environment.
func BenchmarkPlanEnv1024(b *testing.B) { planBig(b, 1024, true) }

// TestBigConfigPlans keeps the benchmark input honest: it must be valid and
// give the documented worker counts.
func TestBigConfigPlans(t *testing.T) {
	o := pipeline.CheckBytes("bench.yaml", bigConfig(1024), pipeline.Options{Inventory: topology.Uniform(1024, 8, "bench"), GPUsPerNode: -1})
	if o.Diagnostics.HasErrors() || o.Result == nil {
		t.Fatal(o.Diagnostics[0].Summary)
	}
	res := o.Result
	want := map[string]int{"actor": 4096, "rollout": 2048, "inference": 1024, "reward": 4096, "env": 2048, "agent": 10000}
	for name, n := range want {
		if cp := res.Plan.Component(name); cp == nil || cp.Placements.Len() != n {
			t.Errorf("%s: want %d workers", name, n)
		}
	}
	agent := res.Plan.Component("agent")
	if p := agent.Placements.At(9999); p.ClusterNodeRank != 999 || p.LocalRank != 9 || p.LocalWorldSize != 10 {
		t.Errorf("last agent worker: %+v", p)
	}
}
