package solver

import (
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// TestLazyCapacityInOptimizingCall: the first-fit guess holds (no node
// over capacity, none added), but pack's lower bound is below it, so
// minimize asks the solver for fewer nodes; without capacity it proposes
// overfilled nodes, whose capacity the loop adds (capped > 0) until the
// answer holds. The value agrees with the device encoding's, and the
// placement never gives one device twice.
func TestLazyCapacityInOptimizingCall(t *testing.T) {
	cases := []struct{ name, components string }{
		{"units of 3: two a node, so five need three nodes", "    a: {gpus: 6, gpus_per_process: 3}\n    b: {gpus: 9, gpus_per_process: 3}\n"},
		{"ones beside units of 3", "    a: {gpus: 3}\n    b: {gpus: 12, gpus_per_process: 3}\n"},
	}
	for _, c := range cases {
		for _, class := range []model.PlacementClass{model.ClassHybrid, model.ClassModelParallel} {
			sp := classSpace(t, 3, class, c.components)
			in := newInstanceBy(sp, false, byNode)
			opt := PlaceOptions{}
			opt.defaults()
			o := &optimizer{in: in, opt: opt, deadline: cpuDeadlineIn(10 * time.Second), fresh: true}
			guess, ok := in.guess(nil)
			if !ok || o.try(guess...) != sat || o.capped != 0 {
				t.Fatalf("%s (%s): the guess must hold with no capacity added (ok %v, capped %d)", c.name, class, ok, o.capped)
			}
			o.guessed = true
			_, _, lb := in.nodesUsed()
			if guessed := in.nodesTaken(o.best); guessed <= lb {
				t.Fatalf("%s (%s): the guess's %d nodes meet the bound %d: no optimizing call", c.name, class, guessed, lb)
			}
			res := &Placement{}
			if err := o.optimize(res); err != nil {
				t.Fatalf("%s (%s): %v", c.name, class, err)
			}
			if o.capped == 0 {
				t.Errorf("%s (%s): no optimizing call overfilled a node: the loop did not run", c.name, class)
			}
			dev, err := Place(classSpace(t, 3, class, c.components), PlaceOptions{DeviceEncoding: true})
			if err != nil || dev.Diagnostics.HasErrors() {
				t.Fatalf("%s (%s): device encoding: %v %v", c.name, class, err, dev.Diagnostics)
			}
			if res.Value != dev.Value || !res.Optimal {
				t.Errorf("%s (%s): value %d (optimal %v), device encoding %d", c.name, class, res.Value, res.Optimal, dev.Value)
			}
			assertDisjoint(t, c.name, sp.Demands, in.extract(o.best))
		}
	}
}

// assertDisjoint fails unless each placement takes its count of ranks and
// no rank is taken twice.
func assertDisjoint(t *testing.T, name string, ds []*rules.Demand, placed []Placed) {
	t.Helper()
	seen := map[int]string{}
	for i, p := range placed {
		if len(p.Ranks) != ds[i].Count {
			t.Errorf("%s: %s takes %d ranks, wants %d", name, p.Name, len(p.Ranks), ds[i].Count)
		}
		for _, r := range p.Ranks {
			if other, ok := seen[r]; ok {
				t.Errorf("%s: rank %d taken by %s and %s", name, r, other, p.Name)
			}
			seen[r] = p.Name
		}
	}
}

// TestLazyCapacityRefutes: a space Hall's count passes and only node
// capacity refutes (five units of 3 on two nodes of 8: two units a node).
// Without capacity the first model overfills a node; once the loop adds
// it the call is unsat, Place explains it, and the check fixes are
// confirmed with (feasible) says no.
func TestLazyCapacityRefutes(t *testing.T) {
	five := "    a: {gpus: 3, gpus_per_process: 3}\n    b: {gpus: 3, gpus_per_process: 3}\n    c: {gpus: 3, gpus_per_process: 3}\n    d: {gpus: 3, gpus_per_process: 3}\n    e: {gpus: 3, gpus_per_process: 3}\n"
	sp := classSpace(t, 2, model.ClassHybrid, five)
	if hall(sp, allPresent(sp)) != nil || encodingFor(sp, false) != byNode {
		t.Fatal("the case must pass Hall's count and be placed by nodes")
	}
	in := newInstanceBy(sp, false, byNode)
	in.flush()
	st, runs, capped := in.solve(10 * time.Second)
	if st != unsat || capped == 0 || runs < 2 {
		t.Errorf("solve: %v after %d runs and %d nodes capped, want unsat once capacity is added", st, runs, capped)
	}
	if ok, sure := feasible(classSpace(t, 2, model.ClassHybrid, five), cpuDeadlineIn(10*time.Second)); ok || !sure {
		t.Errorf("feasible: %v (sure %v), want a proven no", ok, sure)
	}
	res, err := Place(classSpace(t, 2, model.ClassHybrid, five), PlaceOptions{})
	if err != nil || !res.Diagnostics.HasErrors() {
		t.Errorf("Place: %v, diagnostics %v: want it explained", err, res.Diagnostics)
	}
}

// Count rules by nodes are added when a model breaks them: a call with no
// guess finds a model that takes nothing, gets every component's count,
// and returns a model that gives each its devices.
func TestLazyCountsWithoutGuess(t *testing.T) {
	sp := plainSpace(t, 4, 3, 8) // three components of 8 GPUs on 4 nodes of 8
	in := newInstanceBy(sp, false, byNode)
	if len(in.uncounted) != 3 {
		t.Fatalf("%d count rules waiting, want 3", len(in.uncounted))
	}
	in.flush()
	st, runs, added := in.solve(10 * time.Second)
	if st != sat || runs < 2 || added == 0 {
		t.Fatalf("status %v after %d runs, %d rules added: want sat after adding some", st, runs, added)
	}
	for i, v := range in.roots {
		if v == nil {
			continue
		}
		n := 0
		for b := range v.units {
			n += in.stepsTaken(v, b) * v.step(b)
		}
		if n != sp.Demands[i].Count {
			t.Errorf("%s takes %d devices, wants %d", sp.Demands[i].Name, n, sp.Demands[i].Count)
		}
	}
}
