package solver

import "github.com/go-air/gini/z"

// blockRef is root root's block b (its index among the root's blocks).
type blockRef struct{ root, b int }

// nodeSeparate keeps the typed roots on one node within its devices:
// their counts sum to at most the block's, and at most one model-parallel
// component continues into the node (from its first device) and at most
// one out of it (to its last). Every typed root keeps its own devices in
// the placing instance, as separate has it for the device encoding.
func (in *instance) nodeSeparate() {
	in.shared = map[blockKey][]blockRef{}
	for i, v := range in.roots {
		if v == nil {
			continue
		}
		for b, blk := range v.blocks {
			if len(v.units[b]) > 0 {
				k := blockKey{blk.Node, blk.Type}
				in.shared[k] = append(in.shared[k], blockRef{i, b})
			}
		}
	}
	for k, refs := range in.shared {
		if k.typ == "" || len(refs) < 2 {
			continue // nodes themselves are shared freely
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
}

// continues is true when root v takes both block b and its neighbour nb
// (out of range: false).
func (in *instance) continues(v *demandVars, b, nb int) z.Lit {
	if nb < 0 || nb >= len(v.any) {
		return in.c.F
	}
	return in.c.And(v.any[b], v.any[nb])
}
