package solver

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/go-air/gini/z"
)

// Node capacity is added lazily (counterexample-guided, issue 21): the
// placing instance starts without it, and each model the solver finds is
// checked node by node (overfull); a node over its devices gets its
// constraint (nodeCapacity) and the call is solved again (instance.solve,
// which every placing call uses: optimizer.try, feasible).
// At cluster scale the capacity totalizers were most of the instance,
// built and loaded only for the first-fit guess to satisfy them. Leaving
// clauses out only relaxes the instance: its UNSAT is the full one's, and
// a model is returned only once every node holds.

// solve runs the solver under assume for at most left of CPU time, and,
// by nodes, adds the capacity of every node a model overfills and the
// count of every demand it miscounts, and solves again on what is left of
// it: a sat answer holds on every node and for every count. Every placing
// call on an instance goes through it; runs counts the solver's runs,
// capped the rules it added.
func (in *instance) solve(left time.Duration, assume ...z.Lit) (st status, runs, capped int) {
	end := cpuNow() + left
	for left > 0 {
		in.g.Assume(assume...)
		runs++
		st = status(solveFor(in.g, left))
		if st != sat || in.enc != byNode {
			return st, runs, capped
		}
		over := in.overfull()
		miscounted := in.miscounted()
		if len(over)+miscounted == 0 {
			return st, runs, capped
		}
		for _, k := range over {
			in.nodeCapacity(k)
		}
		in.flush()
		st, left, capped = unknown, end-cpuNow(), capped+len(over)+miscounted
	}
	return st, runs, capped
}

// miscounted adds the count rule of every demand whose root the model
// gives another number of devices (the first-fit guess meets every count,
// so a placement that needs no optimizing call never builds a total), and
// says how many it added.
func (in *instance) miscounted() int {
	added := 0
	kept := in.uncounted[:0]
	for _, r := range in.uncounted {
		n := 0
		for b := range r.v.units {
			n += in.stepsTaken(r.v, b) * r.v.step(b)
		}
		if n == r.d.Count {
			kept = append(kept, r)
			continue
		}
		in.clause(eq(in.c, in.totalOf(r.v), r.d.Count))
		added++
	}
	in.uncounted = kept
	return added
}

// nodeCapacity keeps the typed roots on one node within its devices:
// their counts sum to at most the block's, and at most one model-parallel
// component continues into the node (from its first device) and at most
// one out of it (to its last). Every typed root keeps its own devices in
// the placing instance, as separate has it for the device encoding.
func (in *instance) nodeCapacity(k blockKey) {
	refs := in.shared[k]
	if !capacityBinds(k, refs) {
		return
	}
	counts := make([]weighted, len(refs))
	var into, out []z.Lit
	for r, ref := range refs {
		v := in.roots[ref.root]
		counts[r] = v.unitsOn(ref.b)
		if v.d.Global {
			into = append(into, in.continues(v, ref.b, ref.b-1))
			out = append(out, in.continues(v, ref.b, ref.b+1))
		}
	}
	in.atMost(counts, in.roots[refs[0].root].blocks[refs[0].b].Cap)
	in.atMostOne(into)
	in.atMostOne(out)
}

// capacityBinds says whether a block's roots need a capacity constraint:
// typed devices two or more roots may take (nodes themselves are shared
// freely, and one root's steps never exceed its block).
func capacityBinds(k blockKey, refs []blockRef) bool {
	return k.typ != "" && len(refs) >= 2
}

// overfull is every block the solver's current model breaks capacity on:
// the roots' devices there over the block's, or two model-parallel
// components continuing into it (or out of it). A block whose constraint
// was added holds in every model, so no record of them is kept. A binary
// search per root and block over its ordered unit literals; in node
// order, so the clauses added (and the answers) do not depend on map
// order.
func (in *instance) overfull() []blockKey {
	var out []blockKey
	for k, refs := range in.shared {
		if !capacityBinds(k, refs) {
			continue
		}
		devices, into, outOf := 0, 0, 0
		for _, ref := range refs {
			v := in.roots[ref.root]
			devices += in.stepsTaken(v, ref.b) * v.step(ref.b)
			if v.d.Global && in.modelTakes(v, ref.b) == 1 {
				into += in.modelTakes(v, ref.b-1)
				outOf += in.modelTakes(v, ref.b+1)
			}
		}
		if devices > in.roots[refs[0].root].blocks[refs[0].b].Cap || into > 1 || outOf > 1 {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b blockKey) int {
		return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.typ, b.typ))
	})
	return out
}

// stepsTaken is how many of root v's unit literals on block b the model
// sets (they are ordered: the true ones are a prefix).
func (in *instance) stepsTaken(v *demandVars, b int) int {
	xs := v.units[b]
	return sort.Search(len(xs), func(j int) bool { return !in.g.Value(xs[j]) })
}

// modelTakes is 1 when the model gives root v devices on block b, else 0
// (out of range: 0).
func (in *instance) modelTakes(v *demandVars, b int) int {
	if b >= 0 && b < len(v.units) && len(v.units[b]) > 0 && in.g.Value(v.units[b][0]) {
		return 1
	}
	return 0
}
