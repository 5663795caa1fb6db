package proptest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/longtest"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
)

// keep moves the fewest workers: a spec is placed on the whole cluster
// (packed or spread, so that the previous plan is not always the one
// pack would make again) and planned the ordinary way (its plan document's workers are the previous
// plan), then one node is excluded and solve keeps; exhaustive search over
// the new space finds no placement that moves fewer workers, nor one that
// moves as few on fewer nodes.
func TestPropSolveKeepFewestMoved(t *testing.T) {
	longtest.Skip(t, "200 keep solves, each against a brute force")
	var kept, skipped int
	params := propParams(t)
	params.MinSuccessfulTests = propCount(t, 200)
	props := gopter.NewProperties(params)
	props.Property("keep moves the fewest workers", prop.ForAll(func(s svSpec) string {
		before := solver.ObjectivePack
		if s.ObjectiveKind == 1 {
			before = solver.ObjectiveSpread
		}
		s.Without, s.Placed, s.ObjectiveKind = 0, 0, 0
		text, inv, _ := s.render()
		first := pipeline.Solve("keep.yaml", []byte(text), pipeline.SolveOptions{Options: pipeline.Options{Inventory: inv}, Objective: before})
		if first.Text == nil {
			return "" // nothing to keep
		}
		doc, err := render.NewDocument(first.Verified.RenderInput())
		if err != nil {
			return fmt.Sprintf("plan document: %v", err)
		}
		prev := pipeline.PreviousWorkers(doc.Records())
		down := len(s.Nodes) - 1
		again := pipeline.Solve("keep.yaml", []byte(text), pipeline.SolveOptions{Options: pipeline.Options{Inventory: inv},
			Objective: solver.ObjectiveKeep, Previous: prev, Without: []int{down}})
		cfg, _ := grammar.LoadConfig("keep.yaml", []byte(text), grammar.DefaultLimits)
		sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: []int{down}})
		best, ok := svFewestMoved(sp, prev)
		switch {
		case !ok:
			skipped++
			return ""
		case best < 0 && again.Text != nil:
			return fmt.Sprintf("solve kept a placement where exhaustive search finds none\n%s", text)
		case best < 0:
			return ""
		case again.Text == nil:
			return fmt.Sprintf("solve found no placement, exhaustive search moves %d\n%s\n%v", best, text, again.Diagnostics)
		case again.Placement.Value != best:
			return fmt.Sprintf("keep moved %d workers, the fewest is %d\n%s# without node %d\n", again.Placement.Value, best, text, down)
		}
		fewest, ok := svFewestNodesMoving(sp, prev, best, len(inv.Nodes))
		if got := planNodes(again.Verified.Result.Plan); ok && got != fewest {
			return fmt.Sprintf("keep moved the fewest (%d) on %d nodes; %d nodes would do\n%s# without node %d\n", best, got, fewest, text, down)
		}
		kept++
		return ""
	}, genSolveSpec()))
	propRun(t, props)
	t.Logf("%d kept and compared, %d too large to search", kept, skipped)
	if kept == 0 {
		t.Error("no case was compared")
	}
}

// svFewestMoved is the fewest workers of prev any placement of sp moves
// (-1: no placement); ok is false when the search gave up.
func svFewestMoved(sp *rules.Space, prev map[string][]solver.Worker) (int, bool) {
	all := svAll(sp)
	best, done := -1, true
	for v := 0; v <= 64; v++ {
		found, ok := brute(sp, all, v, func(ch map[int][]rules.Device) int { return svMoved(sp, ch, prev) })
		if !ok {
			return 0, false
		}
		if found {
			best = v
			break
		}
	}
	return best, done
}

// svFewestNodesMoving is the fewest nodes with devices in use of any
// placement of sp that moves at most moved workers of prev.
func svFewestNodesMoving(sp *rules.Space, prev map[string][]solver.Worker, moved, nodeCount int) (int, bool) {
	all := svAll(sp)
	nodes := func(ch map[int][]rules.Device) int {
		if svMoved(sp, ch, prev) > moved {
			return nodeCount + 1 // over any limit the search tries
		}
		return bruteNodesUsed(sp, ch)
	}
	for v := 0; v <= nodeCount; v++ {
		found, ok := brute(sp, all, v, nodes)
		if !ok || found {
			return v, ok
		}
	}
	return 0, false
}

// planNodes counts the nodes where a plan's workers hold devices.
func planNodes(plan *model.Plan) int {
	nodes := map[int]bool{}
	for i := range plan.Components {
		for _, p := range plan.Components[i].Placements.All() {
			if len(p.LocalHardwareRanks) > 0 {
				nodes[p.ClusterNodeRank] = true
			}
		}
	}
	return len(nodes)
}

// svMoved counts the workers of prev whose node or devices differ in a
// (partial: roots not chosen yet count nothing) placement.
func svMoved(sp *rules.Space, ch map[int][]rules.Device, prev map[string][]solver.Worker) int {
	moved := 0
	for i, d := range sp.Demands {
		devs, ok := ch[sp.Root(i)]
		if !ok || d.WithPlaced >= 0 {
			continue
		}
		workers := svWorkers(sp, i, devs)
		for r, w := range svPrevious(prev, d.Name) {
			if r >= len(workers) || workers[r].Node != w.Node || !slices.Equal(workers[r].Devices, w.Devices) {
				moved++
			}
		}
	}
	return moved
}

func svPrevious(prev map[string][]solver.Worker, names string) []solver.Worker {
	for n, w := range prev {
		if slices.Contains(splitNames(names), n) {
			return w
		}
	}
	return nil
}

func splitNames(s string) []string {
	var out []string
	for _, n := range grammar.ParseNames(s) {
		out = append(out, n.Text)
	}
	return out
}

// svWorkers splits a demand's devices (in its ranks' order) into its
// workers, as its placement string gives them.
func svWorkers(sp *rules.Space, i int, devs []rules.Device) []solver.Worker {
	d := sp.Demands[i]
	order := map[rules.Device]int{}
	for _, b := range d.Blocks {
		for l := 0; l < b.Cap; l++ {
			order[b.Device(l)] = b.First + l
		}
	}
	sorted := slices.Clone(devs)
	slices.SortFunc(sorted, func(a, b rules.Device) int { return order[a] - order[b] })
	procs := sp.Processes(i, len(sorted))
	var out []solver.Worker
	for r := 0; r < procs; r++ {
		var w solver.Worker
		if procs >= len(sorted) {
			x := sorted[r*len(sorted)/procs]
			w.Node = x.Node
			if x.Type != "" {
				w.Devices = []int{x.Local}
			}
		} else {
			per := len(sorted) / procs
			for _, x := range sorted[r*per : (r+1)*per] {
				w.Node = x.Node
				w.Devices = append(w.Devices, x.Local)
			}
		}
		out = append(out, w)
	}
	return out
}
