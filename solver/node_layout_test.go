package solver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// classSpace is a component_placement body on nodes of 8 GPUs, read in
// a placement class.
func classSpace(t testing.TB, nodes int, class model.PlacementClass, components string) *rules.Space {
	return groupSpace(t, nodes, class, "", components)
}

// groupSpace is classSpace with a node_groups body.
func groupSpace(t testing.TB, nodes int, class model.PlacementClass, groups, components string) *rules.Space {
	if groups != "" {
		groups = "  node_groups:\n" + groups
	}
	text := fmt.Sprintf("cluster:\n  num_nodes: %d\n%s  component_placement:\n%s", nodes, groups, components)
	cfg, ds := grammar.LoadConfig("layout.yaml", []byte(text), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("config: %v", ds)
	}
	inv := &model.Inventory{}
	for i := 0; i < nodes; i++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: 8})
	}
	return rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: class})
}

// TestLayoutIsFirstFit: on regular spaces the layout of the first-fit
// guess's counts is the guess's own devices, so the node encoding writes
// what the device encoding wrote whenever the guess is the answer.
func TestLayoutIsFirstFit(t *testing.T) {
	mp := model.ClassModelParallel
	cases := []struct {
		name string
		sp   *rules.Space
	}{
		{"bench 16 nodes", benchSpace(t, 16, false, nil)},
		{"bench 16 nodes, node 3 out", benchSpace(t, 16, false, []int{3})},
		{"plain", plainSpace(t, 8, 5, 12)},
		{"ranges across nodes", classSpace(t, 4, mp, "    actor: {gpus: 6}\n    rollout: {gpus: 12, gpus_per_process: 2}\n    inference: {gpus: 3}\n    reward: {gpus: 5}\n")},
		{"a range after a unit gap", classSpace(t, 3, mp, "    inference: {gpus: 1}\n    actor: {gpus: 10, gpus_per_process: 2}\n    critic: {gpus: 3}\n")},
		{"whole nodes", classSpace(t, 4, model.ClassHybrid, "    actor: {nodes: 2}\n    rollout: {gpus: 4}\n")},
		// In file order a takes node 0 from b: the guess fits b first.
		{"the confined first", groupSpace(t, 2, model.ClassHybrid, "    - {label: g, node_ranks: 0-0}\n", "    a: {gpus: 12}\n    b: {gpus: 4, node_group: g}\n")},
	}
	for _, c := range cases {
		if enc := encodingFor(c.sp, false); enc != byNode {
			t.Fatalf("%s: encoding %v, want node", c.name, enc)
		}
		in := newInstanceBy(c.sp, false, byNode)
		fits := make([][]bool, len(in.roots))
		record := func(i int, v *demandVars, has func(int) bool, blocked func(rules.Device) bool) ([]bool, bool) {
			taken, ok := in.firstFit(i, v, has, blocked)
			fits[i] = taken
			return taken, ok
		}
		if _, ok := in.guessWith(nil, record); !ok {
			t.Fatalf("%s: no first-fit guess", c.name)
		}
		laid := in.layout(func(i, b int) int { return in.roots[i].takenOn(fits[i], b) })
		for i, v := range in.roots {
			if v != nil && !slices.Equal(laid[i], fits[i]) {
				t.Errorf("%s: %s laid out at %s, first fit took %s", c.name, v.d.Name, showTaken(laid[i]), showTaken(fits[i]))
			}
		}
		res, err := Place(c.sp, PlaceOptions{})
		if err != nil || res.Diagnostics.HasErrors() || res.Stats.Encoding != "node" {
			t.Fatalf("%s: %v %v (%s)", c.name, err, res.Diagnostics, res.Stats.Encoding)
		}
	}
}

func showTaken(xs []bool) string {
	var b strings.Builder
	for _, x := range xs {
		if x {
			b.WriteByte('1')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}
