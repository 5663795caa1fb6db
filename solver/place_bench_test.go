package solver

import (
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/benchspec"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Solve's benchmarks on internal/benchspec's requirement files; SAT sizes
// and solver calls are reported beside the time.

func benchSpace(b testing.TB, nodes int, impossible bool, without []int) *rules.Space {
	cfg, ds := grammar.LoadConfig("bench.yaml", []byte(benchspec.Solve(nodes, impossible)), grammar.DefaultLimits)
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

// BenchmarkPlaceKeep1024 re-places the 1,024-GPU spec after one node of
// the a800 group failed, keeping the first placement's workers.
func BenchmarkPlaceKeep1024(b *testing.B) {
	sp := benchSpace(b, 128, false, nil)
	first, err := Place(sp, PlaceOptions{})
	if err != nil || first.Diagnostics.HasErrors() {
		b.Fatalf("first placement: %v %v", err, first.Diagnostics)
	}
	prev := benchWorkers(sp, first)
	var res *Placement
	for i := 0; i < b.N; i++ {
		sp := benchSpace(b, 128, false, []int{10})
		if res, err = Place(sp, PlaceOptions{Objective: ObjectiveKeep, Previous: prev}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Value), "moved")
	b.ReportMetric(float64(res.Stats.Vars), "vars")
	b.ReportMetric(float64(res.Stats.Clauses), "clauses")
	b.ReportMetric(float64(res.Stats.Calls), "calls")
}

// benchWorkers turns a placement into the workers a plan of it has: each
// process's devices, in rank order.
func benchWorkers(sp *rules.Space, res *Placement) map[string][]Worker {
	out := map[string][]Worker{}
	for i, p := range res.Placed {
		d := sp.Demands[i]
		per := max(1, len(p.Ranks)/max(1, p.Processes))
		shared := max(1, p.Processes/max(1, len(p.Ranks))) // workers per device
		var ws []Worker
		for rank := 0; rank < p.Processes; rank++ {
			k := rank / shared * per
			var w Worker
			for _, r := range p.Ranks[k : k+per] {
				for _, blk := range d.Blocks {
					if r >= blk.First && r < blk.First+blk.Cap {
						w.Node = blk.Node
						if blk.Type != "" {
							w.Devices = append(w.Devices, r-blk.First)
						}
					}
				}
			}
			ws = append(ws, w)
		}
		out[d.Name] = ws
	}
	return out
}
