package solver

import (
	"fmt"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Objective is what solve optimizes among the placements that hold.
type Objective string

// The objectives of solve.
const (
	// ObjectivePack uses the fewest nodes, then the lowest ranks, component
	// by component in file order: what a careful person writes.
	ObjectivePack Objective = "pack"
	// ObjectiveSpread spreads each component as evenly as it can: the
	// fewest devices of one component on one node, then the lowest ranks.
	ObjectiveSpread Objective = "spread"
	// ObjectiveKeep moves the fewest workers (node or devices changed) from
	// a previous plan, then the lowest ranks.
	ObjectiveKeep Objective = "keep"
)

// Objectives lists the objectives for help texts and completion.
var Objectives = []Objective{ObjectivePack, ObjectiveSpread, ObjectiveKeep}

// Worker is one worker of a previous plan: its node and local devices.
type Worker struct {
	Node    int
	Devices []int
}

// PlaceOptions say what to optimize and bound the search.
type PlaceOptions struct {
	Objective Objective
	// Previous are the workers of a previous plan by component name, in
	// rank order (keep).
	Previous map[string][]Worker
	// Budget bounds the whole search (10 s); Step one optimizing call (1 s):
	// past it the best placement found is kept, and said not to be proven
	// optimal.
	Budget, Step time.Duration
	// MaxConflicts bounds the independent conflicts explained (20).
	MaxConflicts int
	// DeviceEncoding places with one literal per device even where the
	// node-level encoding applies: tests compare the two.
	DeviceEncoding bool
}

func (o *PlaceOptions) defaults() {
	if o.Objective == "" {
		o.Objective = ObjectivePack
	}
	if o.Budget == 0 {
		o.Budget = 10 * time.Second
	}
	if o.Step == 0 {
		o.Step = time.Second
	}
	if o.MaxConflicts == 0 {
		o.MaxConflicts = 20
	}
}

// Placed is one requirement entry's placement.
type Placed struct {
	model.Solved
	Name string
	// Ranks are the resource ranks of Labels the entry takes.
	Ranks     []int
	Processes int
}

// The bounds that can end a search, as Placement.CutBy names them.
const (
	BoundBudget = "budget" // the whole search's (PlaceOptions.Budget)
	BoundStep   = "step"   // one optimizing call's (PlaceOptions.Step)
	// BoundSize is the instance-size limit (MaxInstance): keep by nodes
	// missed its lower bound and keep by devices was too large to try.
	BoundSize = "size"
)

// PlaceStats describe one solve, for benchmarks and --verbose output.
type PlaceStats struct {
	Vars, Clauses, Calls int
	Elapsed              time.Duration
	// Encoding is what the placing instance's literals stood for: "node"
	// (units per node, devices laid out after) or "device".
	Encoding string
}

// Placement is solve's answer: a placement per requirement entry, or the
// diagnostics that say why there is none.
type Placement struct {
	Placed    []Placed
	Objective Objective
	// Value is the objective's value: nodes used (pack), the most devices
	// of one component on one node (spread), workers moved (keep).
	Value int
	// Optimal is false when the budget ended the search for a better one;
	// CutBy then says which bound ended it: BoundBudget, BoundStep or
	// BoundSize.
	Optimal     bool
	CutBy       string
	Stats       PlaceStats
	Diagnostics model.Diagnostics
	// Cores are the facts (of the space) of each conflict explained, in
	// the order of the diagnostics.
	Cores [][]int
}

// afresh is a new instance of in's space, in its encoding, for the call
// after assumptions failed: gini (v1.0.4) can then report a model that
// violates a clause of a formula that has none, and exits the process
// over it; an instance that never saw the failed assumptions answers
// correctly.
func afresh(in *instance) *instance { return newInstanceBy(in.sp, false, in.enc) }

// Place chooses devices for every demand of the space, optimizing the
// objective, or explains why no choice holds.
func Place(sp *rules.Space, opt PlaceOptions) (*Placement, error) {
	opt.defaults()
	start := time.Now()
	res := &Placement{Objective: opt.Objective, Optimal: true}
	if sp.Diagnostics.HasErrors() {
		res.Diagnostics = sp.Diagnostics
		return res, nil
	}
	if opt.Objective == ObjectiveKeep && opt.Previous == nil {
		return nil, fmt.Errorf("the keep objective needs a previous plan")
	}
	deadline := cpuDeadlineIn(opt.Budget)
	enc := encodingFor(sp, false)
	if opt.DeviceEncoding {
		enc = byDevice
	}
	if err := checkSize(sp, enc, false, opt.Previous); err != nil {
		return nil, err
	}
	res, keepLB, err := placeIn(sp, opt, enc, deadline)
	if err == nil && enc == byNode && opt.Objective == ObjectiveKeep && res.Placed != nil && res.Value > keepLB {
		res = keepFallback(sp, opt, res, deadline)
	}
	if res != nil {
		res.Stats.Elapsed = time.Since(start)
	}
	return res, err
}

// placeIn places sp in the encoding enc (or explains why it cannot);
// keepLB is keep's lower bound on the workers moved, where it applies.
func placeIn(sp *rules.Space, opt PlaceOptions, enc encoding, deadline cpuDeadline) (res *Placement, keepLB int, err error) {
	res = &Placement{Objective: opt.Objective, Optimal: true}
	if hall(sp, allPresent(sp)) != nil {
		if err := checkSize(sp, byDevice, true, nil); err != nil {
			return nil, 0, err
		}
		res.Diagnostics, res.Cores, res.Stats = explain(sp, opt, deadline)
		return res, 0, nil
	}
	in := newInstanceBy(sp, false, enc)
	if opt.Objective == ObjectiveSpread {
		// Spread's first guess meets its counting bound: when it holds, no
		// call has to prove a bound.
		in.spreadCap = in.spreadBound()
	}
	o := &optimizer{in: in, opt: opt, deadline: deadline, fresh: true}
	st := unknown
	if guess, ok := in.guess(nil); ok {
		st = o.try(guess...)
		o.guessed = st == sat
		if st != sat {
			in = afresh(in)
			o.in, o.fresh = in, true
		}
	}
	if st != sat {
		st = o.try()
	}
	var explained PlaceStats
	switch st {
	case unsat:
		if err := checkSize(sp, byDevice, true, nil); err != nil {
			return nil, 0, err
		}
		res.Diagnostics, res.Cores, explained = explain(sp, opt, deadline)
	case unknown:
		return nil, 0, ErrBudget
	default:
		if err := o.optimize(res); err != nil {
			return nil, 0, err
		}
		res.Placed = in.extract(o.best)
	}
	res.Stats = in.stats()
	res.Stats.Calls = o.calls + explained.Calls
	return res, o.keepLB, nil
}

// extract reads each demand's placement from a snapshot.
func (in *instance) extract(snap [][]bool) []Placed {
	out := make([]Placed, len(in.sp.Demands))
	for i, d := range in.sp.Demands {
		out[i] = in.placed(i, d, snap)
	}
	return out
}

func allPresent(sp *rules.Space) []bool {
	all := make([]bool, len(sp.Facts))
	for f := range all {
		all[f] = true
	}
	return all
}

// stats is the instance's size: variables, and clauses (the direct ones
// and three per AND gate of the circuits).
func (in *instance) stats() PlaceStats {
	return PlaceStats{Vars: int(in.g.MaxVar()), Clauses: in.clauses + 3*in.c.Len(), Encoding: in.enc.String()}
}
