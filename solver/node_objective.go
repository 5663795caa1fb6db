package solver

import "github.com/go-air/gini/z"

// lowestBlocks is lowest for the node encoding, at block granularity:
// each root in file order gets the lowest last block it can once the
// roots before it have theirs, then the fewest devices on that block.
// The device encoding minimizes the last position instead: the last
// block's first position plus where the run ends in it. A lower last block
// is a lower last position; on the same last block the layout starts the
// root's run after the runs of the roots before it in file order (fixed by
// then), or at the block's first device when it continues into the
// block, so fewer devices there end it no later. Where a later root
// continues into that block the layout moves this root's run up by that
// root's devices, which the device encoding could avoid: both answers are
// optimal for the objective, they may differ in ranks.
func (o *optimizer) lowestBlocks() {
	in := o.in
	for i, v := range in.roots {
		if v == nil {
			continue
		}
		beyond := v.blockSuffix(in)
		last := func() int { return lastBlock(v, o.best[i]) }
		hi := o.tighten(v.lowestBlock(o.best[i]), last(), func(mid int) z.Lit { return beyond[mid+1].Not() }, last)
		if hi < 0 {
			continue
		}
		o.fixed = append(o.fixed, beyond[hi+1].Not())
		o.minimize(in.counts(v)[hi], min(v.step(hi), v.takenOn(o.best[i], hi)), v.takenOn(o.best[i], hi))
	}
}

// blockSuffix is, per block b (and one past the last), whether the root
// takes devices on block b or a later one.
func (v *demandVars) blockSuffix(in *instance) []z.Lit {
	if v.lastBlock != nil {
		return v.lastBlock
	}
	v.lastBlock = make([]z.Lit, len(v.any)+1)
	v.lastBlock[len(v.any)] = in.c.F
	for b := len(v.any) - 1; b >= 0; b-- {
		v.lastBlock[b] = in.c.Or(v.any[b], v.lastBlock[b+1])
	}
	return v.lastBlock
}

// lastBlock is the root's last block with devices in a snapshot (-1:
// none).
func lastBlock(v *demandVars, taken []bool) int {
	for b := len(v.blocks) - 1; b >= 0; b-- {
		if v.takenOn(taken, b) > 0 {
			return b
		}
	}
	return -1
}

// lowestBlock is the least last block the root can have with as many
// devices as it takes in a snapshot: past the blocks it may never take,
// each of the others holding at most its whole steps.
func (v *demandVars) lowestBlock(taken []bool) int {
	n := 0
	for _, t := range taken {
		if t {
			n++
		}
	}
	if n == 0 {
		return -1
	}
	for b, xs := range v.units {
		if n -= len(xs) * v.step(b); n <= 0 {
			return b
		}
	}
	return len(v.units) - 1
}
