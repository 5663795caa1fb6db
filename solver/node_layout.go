package solver

import (
	"slices"

	"github.com/go-air/gini/z"
)

// The node encoding's devices, laid out after the solve from the counts:
// on each node, [the model-parallel component continuing into it, from
// its first device][the other roots in the guess's order (file order
// unless it had to fit the most confined first), packed][the
// model-parallel component continuing out of it, ending at its last
// device]. The counts fit (nodeSeparate), so the runs do not overlap;
// first fit lays a guess out the same way on a regular node (taking the
// roots in the guess's order), so a first-fit guess's devices are the
// layout of its counts (keep's guess, which keeps workers where they
// were, may leave holes the layout packs).

// size is the number of the root's positions (its blocks' devices).
func (v *demandVars) size() int {
	n := len(v.blocks)
	if n == 0 {
		return 0
	}
	return v.pos[n-1] + v.blocks[n-1].Cap
}

// open says whether the root may take local device l of block b.
func (v *demandVars) open(in *instance, b, l int) bool {
	if v.lit == nil {
		return len(v.units[b]) > 0
	}
	return v.lit[b][l] != in.c.F
}

// anyOpen says whether the root may take some device of block b.
func (v *demandVars) anyOpen(in *instance, b int) bool {
	for l := 0; l < v.blocks[b].Cap; l++ {
		if v.open(in, b, l) {
			return true
		}
	}
	return false
}

// takenOn is how many devices of block b a snapshot gives the root.
func (v *demandVars) takenOn(taken []bool, b int) int {
	n := 0
	for _, t := range taken[v.pos[b] : v.pos[b]+v.blocks[b].Cap] {
		if t {
			n++
		}
	}
	return n
}

// layout lays every root's devices out from devices(i, b), the count of
// root i on its block b, by flat position as snapshot gives them.
func (in *instance) layout(devices func(i, b int) int) [][]bool {
	out := make([][]bool, len(in.roots))
	for i, v := range in.roots {
		if v != nil {
			out[i] = make([]bool, v.size())
		}
	}
	for k, refs := range in.shared {
		if k.typ != "" {
			in.layBlock(refs, devices, out)
			continue
		}
		for _, ref := range refs {
			in.layBlock([]blockRef{ref}, devices, out)
		}
	}
	return out
}

// layIn makes order (the roots as a guess took them) the order in which
// each node's roots are laid out, unless a circuit already reads that
// order (layFixed): one order, in shared, for the layout and for keep's
// offsets.
func (in *instance) layIn(order []int) {
	if in.enc != byNode || in.layFixed {
		return
	}
	rank := make([]int, len(in.roots))
	for k, i := range order {
		rank[i] = k
	}
	for _, refs := range in.shared {
		slices.SortStableFunc(refs, func(a, b blockRef) int { return rank[a.root] - rank[b.root] })
	}
}

// layBlock lays out the roots sharing one block, packed in shared's
// order: the guess's (file order unless it had to fit the most confined
// roots first), or the previous plan's for keep (keepOrder).
func (in *instance) layBlock(refs []blockRef, devices func(i, b int) int, out [][]bool) {
	into, outOf := -1, -1
	used := func(i, b int) bool { return b >= 0 && b < len(in.roots[i].blocks) && devices(i, b) > 0 }
	for r, ref := range refs {
		if !in.roots[ref.root].d.Global || devices(ref.root, ref.b) == 0 {
			continue
		}
		switch {
		case used(ref.root, ref.b-1):
			into = r
		case used(ref.root, ref.b+1):
			outOf = r
		}
	}
	put := func(r, at int) int {
		ref := refs[r]
		v, n := in.roots[ref.root], devices(ref.root, ref.b)
		for l := at; l < at+n; l++ {
			out[ref.root][v.pos[ref.b]+l] = true
		}
		return at + n
	}
	at := 0
	if into >= 0 {
		at = put(into, 0)
	}
	for r := range refs {
		if r != into && r != outOf {
			at = put(r, at)
		}
	}
	if outOf >= 0 {
		ref := refs[outOf]
		put(outOf, in.roots[ref.root].blocks[ref.b].Cap-devices(ref.root, ref.b))
	}
}

// nodeSnapshot is the current model's layout.
func (in *instance) nodeSnapshot() [][]bool {
	return in.layout(func(i, b int) int {
		v, n := in.roots[i], 0
		for _, x := range v.units[b] {
			if in.g.Value(x) {
				n++
			}
		}
		return n * v.step(b)
	})
}

// assumeSteps are the assumptions that give the root, per block, the
// devices taken has there: at least that many steps and no more.
func (v *demandVars) assumeSteps(taken []bool) []z.Lit {
	var out []z.Lit
	for b, xs := range v.units {
		k := v.takenOn(taken, b) / v.step(b)
		if k > 0 {
			out = append(out, xs[k-1])
		}
		if k < len(xs) {
			out = append(out, xs[k].Not())
		}
	}
	return out
}

// setSteps sets the unit literals' values in vs from a snapshot's devices.
func (v *demandVars) setSteps(vs []bool, taken []bool) {
	for b, xs := range v.units {
		k := v.takenOn(taken, b) / v.step(b)
		for j, x := range xs {
			vs[x.Var()] = (j < k) == x.IsPos()
		}
	}
}
