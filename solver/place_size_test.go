package solver

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// plainSpace is n components of gpus GPUs each, anywhere on nodes nodes of
// 8 GPUs: every pair of them may share every GPU.
func plainSpace(t testing.TB, nodes, n, gpus int) *rules.Space {
	return wideSpace(t, nodes, 8, n, gpus)
}

// wideSpace is plainSpace on nodes of perNode GPUs.
func wideSpace(t testing.TB, nodes, perNode, n, gpus int) *rules.Space {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n  component_placement:\n", nodes)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    c%d: {gpus: %d}\n", i, gpus)
	}
	cfg, ds := grammar.LoadConfig("plain.yaml", []byte(b.String()), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("plain config: %v", ds)
	}
	inv := &model.Inventory{}
	for i := 0; i < nodes; i++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: perNode})
	}
	return rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid})
}

// TestEstimateBoundsInstance: the estimate is at least the size of the
// instance solve builds and searches with (so the limit is never passed
// unseen), and not far above it (so it refuses only what is large).
func TestEstimateBoundsInstance(t *testing.T) {
	cases := []struct {
		name string
		sp   *rules.Space
		opt  PlaceOptions
	}{
		{"bench 128 nodes, pack", benchSpace(t, 128, false, nil), PlaceOptions{}},
		{"bench 64 nodes, spread", benchSpace(t, 64, false, nil), PlaceOptions{Objective: ObjectiveSpread}},
		{"4 plain components on 32 nodes", plainSpace(t, 32, 4, 32), PlaceOptions{}},
		{"8 plain components on 16 nodes", plainSpace(t, 16, 8, 8), PlaceOptions{}},
		// The node encoding's capacity sums grow with the square of a
		// node's devices.
		{"6 plain components on 16 nodes of 72 GPUs", wideSpace(t, 16, 72, 6, 144), PlaceOptions{}},
	}
	// keep at two scales: its per-block counters grow with the blocks and
	// the width of a count, its per-worker tests with the workers.
	for _, nodes := range []int{32, 256} {
		first, err := Place(benchSpace(t, nodes, false, nil), PlaceOptions{})
		if err != nil || first.Diagnostics.HasErrors() {
			t.Fatalf("first placement: %v %v", err, first.Diagnostics)
		}
		prev := benchWorkers(benchSpace(t, nodes, false, nil), first)
		cases = append(cases, struct {
			name string
			sp   *rules.Space
			opt  PlaceOptions
		}{fmt.Sprintf("bench %d nodes, keep", nodes), benchSpace(t, nodes, false, []int{3}), PlaceOptions{Objective: ObjectiveKeep, Previous: prev}})
	}
	for _, c := range cases {
		workers := 0
		for _, ws := range c.opt.Previous {
			workers += len(ws)
		}
		est, _, _ := estimate(c.sp, encodingFor(c.sp, false), false, workers)
		res, err := Place(c.sp, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Diagnostics.HasErrors() {
			t.Fatalf("%s: %v", c.name, res.Diagnostics)
		}
		got := res.Stats.Vars + res.Stats.Clauses
		if c.opt.Previous != nil {
			got = keepBuilt(c.sp, c.opt.Previous) // a guess that meets keep's bound builds less
		}
		if res.Stats.Encoding == byNode.String() {
			got = max(got, cappedBuilt(c.sp)) // capacity is added as models overfill nodes
		}
		t.Logf("%s: estimate %d, built %d (%.2fx)", c.name, est, got, float64(est)/float64(got))
		if est < got || est > 4*got {
			t.Errorf("%s: estimate %d, built %d variables and clauses: want the estimate in [built, 4 x built]", c.name, est, got)
		}
	}
}

// cappedBuilt is the size of sp's node-encoded instance with the capacity
// of every node and every count rule added: the most the lazy rules can
// add.
func cappedBuilt(sp *rules.Space) int {
	in := newInstanceBy(sp, false, byNode)
	for k := range in.shared {
		in.nodeCapacity(k)
	}
	for _, r := range in.uncounted {
		in.clause(eq(in.c, in.totalOf(r.v), r.d.Count))
	}
	in.flush()
	s := in.stats()
	return s.Vars + s.Clauses
}

// TestPlaceRefusesOverSize: fifty components that may each take any GPU
// of 1,024 nodes are refused by the estimate, before the instance exists;
// twelve are not. The node encoding's instance of the fifty is under the
// limit: solve places them.
func TestPlaceRefusesOverSize(t *testing.T) {
	fifty := plainSpace(t, 1024, 50, 128)
	err := checkSize(fifty, byDevice, false, nil)
	var big *SizeError
	if !errors.As(err, &big) {
		t.Fatalf("50 components on 1,024 nodes: err %v, want a *SizeError", err)
	}
	if big.Estimate <= big.Limit || big.Devices != 50*8192 || big.Pairs != 50*49/2*8192 {
		t.Errorf("50 components: %+v: want 409,600 device choices, 10,035,200 shared, over the limit", big)
	}
	if size, _, _ := estimate(plainSpace(t, 1024, 12, 512), byDevice, false, 0); size > MaxInstance {
		t.Errorf("12 components on 1,024 nodes: estimate %d, over the limit %d", size, MaxInstance)
	}
	if enc := encodingFor(fifty, false); enc != byNode {
		t.Fatalf("50 components: encoding %v, want node", enc)
	}
	if size, _, _ := estimate(fifty, byNode, false, 0); size > MaxInstance {
		t.Errorf("50 components, node encoding: estimate %d, over the limit %d", size, MaxInstance)
	}
}

// spaceOf is the space of a component_placement body on nodes of 8 GPUs.
func spaceOf(t testing.TB, nodes int, components string) *rules.Space {
	text := fmt.Sprintf("cluster:\n  num_nodes: %d\n  component_placement:\n%s", nodes, components)
	cfg, ds := grammar.LoadConfig("spread.yaml", []byte(text), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("config: %v", ds)
	}
	inv := &model.Inventory{}
	for i := 0; i < nodes; i++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: 8})
	}
	return rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid})
}

// TestSpreadBound: spread's counting bound is each component's count over
// its blocks in whole units, the largest of them; the placement found
// meets it where first fit under it holds, and never beats it.
func TestSpreadBound(t *testing.T) {
	cases := []struct {
		name       string
		nodes      int
		components string
		bound      int
		value      int // the optimum
	}{
		{"even", 4, "    a: {gpus: 12}\n", 3, 3},
		{"units round up", 16, "    a: {gpus: 36, gpus_per_process: 2}\n", 4, 4},
		{"the largest", 16, "    a: {gpus: 75, gpus_per_process: 5}\n    b: {gpus: 20}\n", 5, 5},
		{"not met", 3, "    a: {gpus: 10, gpus_per_process: 5}\n    b: {gpus: 12, gpus_per_process: 2}\n", 5, 8},
	}
	for _, c := range cases {
		sp := spaceOf(t, c.nodes, c.components)
		if got := newInstance(sp, false).spreadBound(); got != c.bound {
			t.Errorf("%s: bound %d, want %d", c.name, got, c.bound)
		}
		res, err := Place(sp, PlaceOptions{Objective: ObjectiveSpread})
		if err != nil || res.Diagnostics.HasErrors() {
			t.Fatalf("%s: %v %v", c.name, err, res.Diagnostics)
		}
		if res.Value != c.value || !res.Optimal {
			t.Errorf("%s: value %d (optimal %v), want %d", c.name, res.Value, res.Optimal, c.value)
		}
	}
}

// TestNodeEncodingRefusesOverSize: the node encoding's estimate refuses
// too, and says what it counted.
func TestNodeEncodingRefusesOverSize(t *testing.T) {
	sp := plainSpace(t, 1024, 200, 8)
	var big *SizeError
	if err := checkSize(sp, encodingFor(sp, false), false, nil); !errors.As(err, &big) {
		t.Fatalf("200 components on 1,024 nodes: err %v, want a *SizeError", err)
	}
	if big.Encoding != "node" || big.Devices != 200*1024*8 || big.Pairs != 200*1024 || !strings.Contains(big.Error(), "unit choices on nodes") {
		t.Errorf("%+v: %v: want 1,638,400 unit choices and 204,800 shares, by node", big, big)
	}
}
