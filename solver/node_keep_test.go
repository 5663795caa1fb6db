package solver

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

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
	in := newInstanceBy(sp, false, encodingFor(sp, false))
	sets, _ := in.keepSets(prev)
	x, _ := in.keepCircuit(sets)
	in.flush(x...)
	st := in.stats()
	return st.Vars + st.Clauses
}

// TestPropNodeKeepMatchesDevices decides where keep may run on nodes: on
// generated regular cases (keepblk's clusters and components; previous
// plans placed by pack, or by devices at random and scribbled on; a node
// failed or not), keep on nodes alone never moves fewer workers than by
// devices (that would be a wrong circuit), it moves as few wherever it
// meets keep's lower bound, and Place (nodes, falling back to devices
// where the bound is missed) always moves as few as by devices, proven.
func TestPropNodeKeepMatchesDevices(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 100
	}
	var equal, above, fellBack, packedAbove, packed int
	for seed := int64(0); seed < int64(seeds); seed++ {
		c, ok := nodeKeepCase(t, seed)
		if !ok {
			continue
		}
		opt := PlaceOptions{Objective: ObjectiveKeep, Previous: c.prev}
		opt.defaults()
		node, lb, err := placeIn(c.sp, opt, byNode, cpuDeadlineIn(opt.Budget))
		dev, _, err2 := placeIn(c.sp, opt, byDevice, cpuDeadlineIn(opt.Budget))
		final, err3 := Place(c.sp, opt)
		if err != nil || err2 != nil || err3 != nil {
			t.Fatalf("seed %d: %v %v %v", seed, err, err2, err3)
		}
		if (node.Placed == nil) != (dev.Placed == nil) || node.Placed == nil {
			if (node.Placed == nil) != (dev.Placed == nil) {
				t.Fatalf("seed %d: placed by nodes %v, by devices %v\n%s", seed, node.Placed != nil, dev.Placed != nil, c.text)
			}
			continue
		}
		if got := movedBetween(c.prev, benchWorkers(c.sp, node)); got != node.Value {
			t.Fatalf("seed %d: keep by nodes says %d moved, its placement moves %d\n%s", seed, node.Value, got, c.text)
		}
		switch {
		case !node.Optimal || !dev.Optimal || !final.Optimal:
			t.Fatalf("seed %d: not proven optimal (nodes %v, devices %v, Place %v)", seed, node.Optimal, dev.Optimal, final.Optimal)
		case node.Value < dev.Value:
			t.Fatalf("seed %d: nodes move %d, devices %d: below the device encoding's optimum\n%s# previous %v", seed, node.Value, dev.Value, c.text, c.prev)
		case node.Value == lb && node.Value != dev.Value:
			t.Fatalf("seed %d: nodes meet the bound %d, devices move %d\n%s", seed, lb, dev.Value, c.text)
		case final.Value != dev.Value:
			t.Fatalf("seed %d: Place moves %d (%s), devices %d\n%s# previous %v", seed, final.Value, final.Stats.Encoding, dev.Value, c.text, c.prev)
		}
		if node.Value == dev.Value {
			equal++
		} else {
			above++
		}
		if c.packed {
			packed++
			if node.Value != dev.Value {
				packedAbove++
			}
		}
		if final.Stats.Encoding != "node" {
			fellBack++
		}
		if final.Stats.Elapsed <= 0 {
			t.Fatalf("seed %d: Place (%s) reports no time spent", seed, final.Stats.Encoding)
		}
	}
	t.Logf("%d cases: nodes as few as devices in %d, more in %d (of %d from pack's plans: %d); Place fell back to devices in %d", equal+above, equal, above, packed, packedAbove, fellBack)
	if equal+above < seeds/4 {
		t.Errorf("only %d of %d seeds compared: the generator makes too few regular cases", equal+above, seeds)
	}
}

type nodeKeepSpace struct {
	text string
	sp   *rules.Space
	prev map[string][]Worker
	// packed: prev is pack's placement (laid out as the node encoding
	// lays it), not a random one scribbled on.
	packed bool
}

// nodeKeepCase is seed's regular keep case, or false.
func nodeKeepCase(t *testing.T, seed int64) (nodeKeepSpace, bool) {
	rnd := rand.New(rand.NewSource(seed))
	text, inv, cfg, sp, err := keepCase(rnd)
	if err != nil {
		t.Fatal(err)
	}
	if sp == nil {
		return nodeKeepSpace{}, false
	}
	var prev map[string][]Worker
	packed := rnd.Intn(2) == 0
	if packed {
		first, err := Place(sp, PlaceOptions{})
		if err != nil || first.Placed == nil {
			return nodeKeepSpace{}, false
		}
		prev = benchWorkers(sp, first)
	} else {
		var ok bool
		if prev, ok = keepRandomPlan(rnd, sp); !ok {
			return nodeKeepSpace{}, false
		}
		keepScribble(rnd, prev, len(inv.Nodes))
	}
	var without []int
	if rnd.Intn(3) > 0 {
		without = []int{rnd.Intn(len(inv.Nodes))}
	}
	sp = rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: without})
	if sp.Diagnostics.HasErrors() || encodingFor(sp, false) != byNode {
		return nodeKeepSpace{}, false
	}
	return nodeKeepSpace{text: fmt.Sprintf("%s# without %v\n", text, without), sp: sp, prev: prev, packed: packed}, true
}

// movedBetween counts the workers of prev that now (same component, same
// rank) holds on another node or other devices, or not at all.
func movedBetween(prev, now map[string][]Worker) int {
	moved := 0
	for name, ws := range prev {
		for r, w := range ws {
			if r >= len(now[name]) || now[name][r].Node != w.Node || !slices.Equal(now[name][r].Devices, w.Devices) {
				moved++
			}
		}
	}
	return moved
}

// Keep by nodes reports the workers its placement moves: the layout its
// offsets count on is the one extracted, also when a guess had to fit the
// most confined component first (a rollout held to node 0 ahead of an
// actor that kept node 0).
func TestNodeKeepValueIsItsPlacement(t *testing.T) {
	text := "cluster:\n  num_nodes: 2\n  node_groups:\n    - {label: small, node_ranks: 0}\n" +
		"  component_placement:\n    actor: {gpus: 12}\n    rollout: {gpus: 4, node_group: small}\n"
	cfg, ds := grammar.LoadConfig("keep.yaml", []byte(text), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("%v", ds)
	}
	inv := &model.Inventory{}
	for i := 0; i < 2; i++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: 8})
	}
	sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid})
	var actor []Worker
	for d := 0; d < 12; d++ {
		actor = append(actor, Worker{Node: d / 8, Devices: []int{d % 8}})
	}
	prev := map[string][]Worker{"actor": actor}
	opt := PlaceOptions{Objective: ObjectiveKeep, Previous: prev}
	opt.defaults()
	res, _, err := placeIn(sp, opt, byNode, cpuDeadlineIn(opt.Budget))
	if err != nil || res.Placed == nil {
		t.Fatalf("%v %v", err, res.Diagnostics)
	}
	if got := movedBetween(prev, benchWorkers(sp, res)); got != res.Value {
		t.Errorf("keep by nodes says %d moved, its placement moves %d: %+v", res.Value, got, res.Placed)
	}
}
