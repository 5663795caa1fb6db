package solver

import (
	"math/bits"
	"sort"

	"github.com/go-air/gini/z"
)

// Keep counts the workers that stay per block of a root, not per worker.
// Each block's share of a root is one contiguous run (shape), starting at
// in-block offset o' with c' devices, after p' devices of the root in the
// blocks before it. A taken device at in-block l then has p'+l-o' devices
// of the root before it, so worker r (share index k, old devices from
// in-block q) keeps its devices exactly when they are taken and
// p'-o' = k*share-q: one comparison per block and value of k*share-q (one
// value per block when the previous plan's workers there are one aligned
// run, as solve writes them), whatever the previous plan's holes. A
// worker with fewer positions the root may take before it than its rank
// needs never stays (after a failed node, the later ranks of the
// components that were on it): counting settles it, without a circuit.
// moved is the old workers less the sum of the per-block stayed counts.
// The numbers come from count (per block), offset (a method, so another
// encoding of the same blocks can give its own) and one prefix chain per
// root.

// keepBlocks are a root's per-block numbers for keep, built once per root
// and only as far as a previous worker needs them.
type keepBlocks struct {
	v *demandVars
	// prefix[b] is the root's devices in the blocks before b: one adder
	// chain over the block counts, extended to the last block asked for
	// (a packed previous plan leaves the blocks after it alone).
	prefix [][]z.Lit
	// width bounds the chain: the sum never exceeds the root's positions,
	// so its bits past that width are false and dropped.
	width int
	// low[b] is (p'-o'-1) mod 2^m for m offset bits: p' low bits plus
	// the offset's complement (aligned).
	low map[int][]z.Lit
	m   int
	// avail[p] is the positions before p the root may take.
	avail []int
	// end[b] is where block b's run ends (the node encoding's offset
	// plus count).
	end map[int][]z.Lit
}

func newKeepBlocks(in *instance, v *demandVars) *keepBlocks {
	widest, n := 1, 0
	for _, blk := range v.blocks {
		widest = max(widest, blk.Cap)
		n += blk.Cap
	}
	in.counts(v) // the node encoding builds its counts on demand
	return &keepBlocks{v: v, width: bits.Len(uint(n)), low: map[int][]z.Lit{}, end: map[int][]z.Lit{}, m: bits.Len(uint(widest - 1)), avail: v.availBefore(in)}
}

// prefixAt is the root's device count in the blocks before b.
func (kb *keepBlocks) prefixAt(in *instance, b int) []z.Lit {
	for len(kb.prefix) <= b {
		k := len(kb.prefix)
		var run []z.Lit
		if k > 0 {
			run = add(in.c, kb.prefix[k-1], kb.v.count[k-1])
			run = run[:min(len(run), kb.width)]
		}
		kb.prefix = append(kb.prefix, run)
	}
	return kb.prefix[b]
}

// offset is the in-block offset of block b's run (0 when empty): bit k is
// set when the run starts at a device whose offset has bit k set.
func (v *demandVars) offset(in *instance, b int) []z.Lit {
	if v.lit == nil {
		return in.nodeOffset(v, b)
	}
	starts := localStarts(in, v.lit[b])
	out := make([]z.Lit, bits.Len(uint(len(starts)-1)))
	for k := range out {
		out[k] = in.c.F
		for l, s := range starts {
			if l>>k&1 == 1 {
				out[k] = in.c.Or(out[k], s)
			}
		}
	}
	return out
}

// aligned is true when block b's run puts share index k's devices at
// in-block offset q: p'-o' = want for want = k*share-q. With M = 2^m
// above every offset, p' = hi*M+lo and want = hq*M+r (0 <= r < M), that is
// lo-o' = r (mod M) and hi = hq+1 when lo < r (the offset carried into
// the high bits), else hq: the low bits cost one m-bit adder per block
// and the high bits one comparison, where p'-o' in full would take an
// adder of the prefix's width.
func (kb *keepBlocks) aligned(in *instance, b, want int) z.Lit {
	c := in.c
	p := kb.prefixAt(in, b)
	lo := make([]z.Lit, kb.m)
	for k := range lo {
		lo[k] = c.F
		if k < len(p) {
			lo[k] = p[k]
		}
	}
	var hi []z.Lit
	if len(p) > kb.m {
		hi = p[kb.m:]
	}
	diff, ok := kb.low[b]
	if !ok {
		o := kb.v.offset(in, b)
		not := make([]z.Lit, kb.m)
		for k := range not {
			not[k] = c.T
			if k < len(o) {
				not[k] = o[k].Not()
			}
		}
		diff = add(c, lo, not)
		diff = diff[:min(len(diff), kb.m)] // lo + (M-1-o') = lo-o'-1 (mod M)
		kb.low[b] = diff
	}
	size := 1 << kb.m
	hq := want >> kb.m // floor, for a negative want too
	r := want - hq*size
	carried := leq(c, lo, r-1)
	return c.And(eq(c, diff, (r-1+size)%size), c.Choice(carried, eq(c, hi, hq+1), eq(c, hi, hq)))
}

// holds says the root takes positions ps of block b (given their
// alignment, aligned): by their literals, or where the node encoding has
// none, by its run's offset and count there (nodeHolds).
func (kb *keepBlocks) holds(in *instance, b int, ps []int) z.Lit {
	v := kb.v
	if v.lit == nil {
		return kb.nodeHolds(in, b, ps[0]-v.pos[b], len(ps))
	}
	ls := make([]z.Lit, len(ps))
	for k, p := range ps {
		ls[k] = v.lit[b][p-v.pos[b]]
	}
	return in.c.Ands(ls...)
}

// blockOf is the block holding flat position p.
func (v *demandVars) blockOf(p int) int {
	return sort.Search(len(v.pos), func(i int) bool { return v.pos[i] > p }) - 1
}

// keepStays is, per worker of a demand on v, whether it keeps its old
// devices, and per block (in blocks' order) the number of its workers that
// do.
func (in *instance) keepStays(kb *keepBlocks, pos [][]int, share, perDevice int) (stays []z.Lit, stayed [][]z.Lit) {
	v := kb.v
	stays = make([]z.Lit, len(pos))
	onBlock := map[int][]z.Lit{}
	for r, ps := range pos {
		stays[r] = in.c.F
		if len(ps) != share || kb.avail[ps[0]] < r/perDevice*share {
			// Counting settles it: fewer devices the root may take come
			// before it than its rank needs (the workers after a failed
			// node, in a full cluster): it needs no circuit.
			continue
		}
		b := v.blockOf(ps[0])
		stays[r] = in.c.And(kb.aligned(in, b, r/perDevice*share-(ps[0]-v.pos[b])), kb.holds(in, b, ps))
		onBlock[b] = append(onBlock[b], stays[r])
	}
	bs := make([]int, 0, len(onBlock))
	for b := range onBlock {
		bs = append(bs, b)
	}
	sort.Ints(bs)
	for _, b := range bs {
		stayed = append(stayed, popcount(in.c, onBlock[b]))
	}
	return stays, stayed
}
