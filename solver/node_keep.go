package solver

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// Keep on the node encoding: place_keep_blocks.go's per-block test reads
// a root's count on a block, the prefix of its counts and the in-block
// offset of its run. The node encoding has the counts; the offset is
// where node_layout.go lays the run out, a function of the counts of the
// roots that share the block: the model-parallel component continuing
// into the block at 0, the others in the block's order after it (shared's
// order, which keepOrder sets to the previous plan's and fixes), the one
// continuing out of it right-aligned. Given the alignment, a worker's
// devices are taken exactly when the run starts at or before them and
// ends at or after them: comparisons of numbers of a few bits, no
// per-device literal.
//
// The layout packs runs, so it cannot leave the hole the device encoding
// may leave before a run to keep it where it was (a component that grows
// on a node moves the runs after it). Keep on nodes is therefore taken
// only when it meets keep's lower bound (bestKeep's, which bounds every
// placement): then no encoding moves fewer. Otherwise Place solves again
// by devices (keepFallback). TestPropNodeKeepMatchesDevices measures how
// often: never on generated plans that pack wrote, on most device
// placements with holes.

// nodeOffset is the in-block offset of root v's run on block b as the
// layout places it: exact whenever the root takes some of b (its value
// does not matter when it takes none).
func (in *instance) nodeOffset(v *demandVars, b int) []z.Lit {
	blk := v.blocks[b]
	if blk.Type == "" || len(v.units[b]) == 0 {
		return nil // a node placement's run is laid alone, from 0
	}
	c := in.c
	refs := in.shared[blockKey{blk.Node, blk.Type}]
	self := 0
	for r, ref := range refs {
		if ref.root == v.idx && ref.b == b {
			self = r
		}
	}
	var parts [][]z.Lit
	for r, ref := range refs {
		u := in.roots[ref.root]
		if r == self || !u.d.Global && r > self {
			continue
		}
		before := c.T // a packed root before v in file order
		if u.d.Global {
			into := in.continues(u, ref.b, ref.b-1)
			before = into
			if r < self {
				before = c.Or(into, in.continues(u, ref.b, ref.b+1).Not())
			}
		}
		parts = append(parts, gated(in, in.counts(u)[ref.b], before))
	}
	packed := sum(c, parts)
	if !v.d.Global {
		return packed
	}
	into, outOf := in.continues(v, b, b-1), in.continues(v, b, b+1)
	w := bits.Len(uint(blk.Cap)) + 1
	right := rest(in, blk.Cap, in.counts(v)[b], w)
	out := make([]z.Lit, w)
	for k := range out {
		out[k] = c.Choice(into, c.F, c.Choice(outOf, right[k], bitOf(in, packed, k)))
	}
	return out
}

// gated is x where on holds, else 0.
func gated(in *instance, x []z.Lit, on z.Lit) []z.Lit {
	out := make([]z.Lit, len(x))
	for k, m := range x {
		out[k] = in.c.And(m, on)
	}
	return out
}

// bitOf is bit k of x (false past its width).
func bitOf(in *instance, x []z.Lit, k int) z.Lit {
	if k < len(x) {
		return x[k]
	}
	return in.c.F
}

// rest is total-x in w bits (x at most total, total below 2^w): total+1
// plus x's complement, modulo 2^w.
func rest(in *instance, total int, x []z.Lit, w int) []z.Lit {
	not, k := make([]z.Lit, w), make([]z.Lit, w)
	for i := range not {
		not[i] = bitOf(in, x, i).Not()
		k[i] = in.c.F
		if (total+1)>>i&1 == 1 {
			k[i] = in.c.T
		}
	}
	return add(in.c, not, k)[:w]
}

// nodeHolds says root v takes the share devices of block b from
// in-block q: its run there (offset o', count c') starts at or before q
// and ends at or after q+share. o' is exact below the block's devices
// whenever c' > 0, so these are comparisons of numbers of a few bits; the
// end is built once per block.
func (kb *keepBlocks) nodeHolds(in *instance, b, q, share int) z.Lit {
	o := kb.v.offset(in, b)
	end, ok := kb.end[b]
	if !ok {
		end = add(in.c, o, in.counts(kb.v)[b])
		kb.end[b] = end
	}
	return in.c.And(leq(in.c, o, q), leq(in.c, end, q+share-1).Not())
}

// keepFallback is keep by devices where keep on nodes (node) moved more
// workers than keep's lower bound: the layout may be what kept it from
// the bound. The device encoding's answer replaces it when it moves
// fewer; where that one cannot be built or finished in the budget left,
// node's answer stands, said not to be proven optimal, with the bound
// that kept the device encoding from proving more.
func keepFallback(sp *rules.Space, opt PlaceOptions, node *Placement, deadline cpuDeadline) *Placement {
	unproven := func(bound string) *Placement {
		node.Optimal, node.CutBy = false, bound
		return node
	}
	if checkSize(sp, byDevice, false, opt.Previous) != nil {
		return unproven(BoundSize)
	}
	if deadline.left() <= 0 {
		return unproven(BoundBudget)
	}
	dev, _, err := placeIn(sp, opt, byDevice, deadline)
	if err != nil || dev.Placed == nil || dev.Value > node.Value || !dev.Optimal && dev.Value == node.Value {
		bound := BoundBudget
		if dev != nil && dev.CutBy != "" {
			bound = dev.CutBy
		}
		return unproven(bound)
	}
	dev.Stats.Calls += node.Stats.Calls
	return dev
}

// estimateKeepNodes is what keep adds to the node encoding's instance
// for workers previous workers: per block a root may take, its prefix
// adder and offset (bits of a count of the root's devices), and per
// worker its alignment and bounds (none without a previous plan).
func estimateKeepNodes(sp *rules.Space, workers int) int {
	if workers == 0 {
		return 0
	}
	blocks, devices := 0, 0
	for i, d := range sp.Demands {
		if !ownsDevices(sp, i) {
			continue
		}
		for _, b := range d.Blocks {
			if blockOpen(sp, i, b) {
				blocks++
				devices += b.Cap
			}
		}
	}
	return costPerKeepBlockBit*bits.Len(uint(devices))*blocks + costPerKeepWorker*workers
}

// keepOrder lays the roots sharing a block out in the previous plan's
// order there (by the first device their previous workers held on it;
// roots with none there after them, in file order), where file order
// would put a root that moves onto a node in front of one that stayed.
// Then best is laid out again in that order: it is the same counts, and
// what the keep circuit reads from them.
func (o *optimizer) keepOrder(sets []keepSet) {
	in := o.in
	if in.enc != byNode {
		return
	}
	first := map[blockRef]int{}
	for _, s := range sets {
		for _, ps := range s.pos {
			if len(ps) == 0 {
				continue
			}
			b := s.v.blockOf(ps[0])
			ref, l := blockRef{s.v.idx, b}, ps[0]-s.v.pos[b]
			if f, ok := first[ref]; !ok || l < f {
				first[ref] = l
			}
		}
	}
	key := func(r blockRef) int {
		if f, ok := first[r]; ok {
			return f
		}
		return math.MaxInt
	}
	for _, refs := range in.shared {
		slices.SortStableFunc(refs, func(a, b blockRef) int { return cmp.Compare(key(a), key(b)) })
	}
	in.layFixed = true
	if best := o.best; best != nil {
		o.best = in.layout(func(i, b int) int { return in.roots[i].takenOn(best[i], b) })
	}
}
