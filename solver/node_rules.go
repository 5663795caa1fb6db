package solver

import "github.com/go-air/gini/z"

// blockRef is root root's block b (its index among the root's blocks).
type blockRef struct{ root, b int }

// nodeSeparate records, per typed block, the roots that may take it
// (shared, which the layout and keep's offsets read). Their capacity is
// not encoded here: nodeCapacity adds it for a node the solver overfills.
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
}

// continues is true when root v takes both block b and its neighbour nb
// (out of range: false).
func (in *instance) continues(v *demandVars, b, nb int) z.Lit {
	if nb < 0 || nb >= len(v.any) {
		return in.c.F
	}
	return in.c.And(v.any[b], v.any[nb])
}
