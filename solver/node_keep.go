package solver

import (
	"math/bits"

	"github.com/go-air/gini/z"
)

// Keep on the node encoding: place_keep_blocks.go's per-block test reads
// a root's count on a block, the prefix of its counts and the in-block
// offset of its run. The node encoding has the counts; the offset is
// where node_layout.go lays the run out, a function of the counts of the
// roots that share the block: the model-parallel component continuing
// into the block at 0, the others in file order after it, the one
// continuing out of it right-aligned. A worker's devices are then taken
// exactly when the root's devices before the block and up to its end
// enclose its share (given the alignment): no per-device literal.
//
// The layout packs runs, so it cannot leave the hole the device encoding
// may leave before a run to keep it where it was (a component that grows
// on a node moves the runs after it). Keep on nodes is therefore taken
// only when it meets keep's lower bound (bestKeep's, which bounds every
// placement): then no encoding moves fewer. Otherwise Place solves again
// by devices (keepFallback).

// nodeOffset is the in-block offset of root v's run on block b as the
// layout places it (bits mod a power of two above the block's devices;
// its value does not matter when the root takes none of b).
func (in *instance) nodeOffset(v *demandVars, b int) []z.Lit {
	blk := v.blocks[b]
	if blk.Type == "" || v.units[b] == nil {
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

// nodeHolds says root v takes the share devices from the worker's
// first (at share index first/share), given its alignment on block b:
// the root's devices before b are at most first (the run starts at or
// before the worker's devices) and those up to b's end at least
// first+share (it ends at or after them).
func (kb *keepBlocks) nodeHolds(in *instance, b, first, share int) z.Lit {
	return in.c.And(leq(in.c, kb.prefixAt(in, b), first), leq(in.c, kb.prefixAt(in, b+1), first+share-1).Not())
}
