package solver

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// TestNodeKeepMovedMatchesPlacement: on the node encoding, keep's count
// of moved workers (offsets from the layout, holds from the prefix
// sums), read from a model, is the number of previous workers whose node
// or devices differ in the placement laid out from that model, counted
// worker by worker. The cases are keepblk's generated ones (previous
// plans placed by devices, then scribbled on), where the space is regular.
func TestNodeKeepMovedMatchesPlacement(t *testing.T) {
	seeds, compared := 400, 0
	if testing.Short() {
		seeds = 80
	}
	for seed := int64(0); seed < int64(seeds); seed++ {
		n, err := nodeKeepMovedCase(seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		compared += n
	}
	t.Logf("%d models compared over %d seeds", compared, seeds)
	if compared < seeds {
		t.Errorf("only %d models compared over %d seeds: the generator makes too few regular cases", compared, seeds)
	}
}

// nodeKeepMovedCase builds seed's case and compares the counts in a few
// of its node-encoded models; it returns how many it compared.
func nodeKeepMovedCase(seed int64) (int, error) {
	rnd := rand.New(rand.NewSource(seed))
	text, inv := keepCaseSpec(rnd)
	cfg, ds := grammar.LoadConfig("keep.yaml", []byte(text), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		return 0, fmt.Errorf("generated config: %v\n%s", ds, text)
	}
	sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid})
	if sp.Diagnostics.HasErrors() {
		return 0, nil
	}
	prev, ok := keepRandomPlan(rnd, sp)
	if !ok {
		return 0, nil
	}
	if rnd.Intn(2) == 0 {
		keepScribble(rnd, prev, len(inv.Nodes))
	}
	var without []int
	if rnd.Intn(2) == 0 {
		without = []int{rnd.Intn(len(inv.Nodes))}
	}
	sp = rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: without})
	if sp.Diagnostics.HasErrors() || !regular(sp) || sp.Auto != nil {
		return 0, nil
	}
	in := newInstanceBy(sp, false, byNode)
	x, _, _, _ := in.keepPlan(prev)
	if x == nil || !keepPlaceable(in) {
		return 0, nil
	}
	compared := 0
	for round := 0; round < 6; round++ {
		extra := nodeRandomAssumptions(rnd, in)
		if round%2 == 1 {
			extra = append(extra, leq(in.c, x, rnd.Intn(1<<len(x))))
		}
		in.flush(append(extra, x...)...)
		in.g.Assume(extra...)
		if solveFor(in.g, 10*time.Second) != 1 {
			continue
		}
		snap := in.snapshot()
		got, want := value(in.g.Value, in.c, x), keepDirectMoved(in, snap, prev)
		if got != want {
			return compared, fmt.Errorf("the circuit counts %d moved, the placement %d\n%s# without %v\n# previous %v\n# placed %v", got, want, text, without, prev, in.extract(snap))
		}
		compared++
	}
	return compared, nil
}

// nodeRandomAssumptions are a few distinct unit literals, each set or
// not at random.
func nodeRandomAssumptions(rnd *rand.Rand, in *instance) []z.Lit {
	var all []z.Lit
	for _, v := range in.roots {
		if v == nil {
			continue
		}
		for _, xs := range v.units {
			all = append(all, xs...)
		}
	}
	var out []z.Lit
	for _, k := range rnd.Perm(len(all))[:min(3, len(all))] {
		m := all[k]
		if rnd.Intn(2) == 0 {
			m = m.Not()
		}
		out = append(out, m)
	}
	return out
}

// BenchmarkPlaceKeep8192 re-places the 8,192-GPU spec after node 10
// failed, keeping the first placement's workers (scale.sh's keep8192).
func BenchmarkPlaceKeep8192(b *testing.B) {
	sp := benchSpace(b, 1024, false, nil)
	first, err := Place(sp, PlaceOptions{})
	if err != nil || first.Diagnostics.HasErrors() {
		b.Fatalf("first placement: %v %v", err, first.Diagnostics)
	}
	prev := benchWorkers(sp, first)
	var res *Placement
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sp := benchSpace(b, 1024, false, []int{10})
		if res, err = Place(sp, PlaceOptions{Objective: ObjectiveKeep, Previous: prev}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("encoding %s, optimal %v", res.Stats.Encoding, res.Optimal)
	b.ReportMetric(float64(res.Value), "moved")
	b.ReportMetric(float64(res.Stats.Vars), "vars")
	b.ReportMetric(float64(res.Stats.Clauses), "clauses")
	b.ReportMetric(float64(res.Stats.Calls), "calls")
}

// keepBuilt is the size of sp's instance with keep's whole circuit for
// prev, as its stats count it: what keep builds when its guess misses.
func keepBuilt(sp *rules.Space, prev map[string][]Worker) int {
	in := newInstanceBy(sp, false, encodingFor(sp, false, ObjectiveKeep))
	x, _, _, _ := in.keepPlan(prev)
	in.flush(x...)
	st := in.stats()
	return st.Vars + st.Clauses
}
