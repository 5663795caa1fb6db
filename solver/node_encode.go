package solver

import (
	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// The node-level placing encoding ("nodes before devices", issue 21).
// Each node's share of a root is one contiguous run whose length is a
// multiple of the root's unit. On a block every device of which the root
// may take, where the run sits does not matter for feasibility, so SAT
// decides how many units each root takes on each block, and the devices
// are laid out afterwards (node_layout.go). The instance then grows with
// blocks times units, not with devices times their circuits.

// encoding says what the placing instance's literals stand for.
type encoding int

const (
	// byDevice is one literal per root and device it may take.
	byDevice encoding = iota
	// byNode is an order (unary) encoding of each root's units per block.
	byNode
)

func (e encoding) String() string {
	if e == byNode {
		return "node"
	}
	return "device"
}

// encodingFor decides, once per instance, which encoding places sp. The
// node encoding needs every block to be all free or all closed for each
// root, and every root to see a node's devices as the same block: then
// counts alone decide feasibility. Explaining (selectors guard single
// devices) and AUTO mode (an order over single GPU ranks) keep the device
// encoding; keep places by nodes and falls back to devices where that
// misses its lower bound (node_keep.go).
func encodingFor(sp *rules.Space, explain bool) encoding {
	if explain || sp.Auto != nil || !regular(sp) {
		return byDevice
	}
	return byNode
}

// blockKey is a node's devices of one type.
type blockKey struct {
	node int
	typ  string
}

// regular says whether every root's blocks are whole: each open to it in
// full or closed in full, one per node and type, the same devices for
// every root on that node.
func regular(sp *rules.Space) bool {
	type span struct{ local0, cap int }
	seen := map[blockKey]span{}
	for i, d := range sp.Demands {
		if !ownsDevices(sp, i) {
			continue
		}
		mine := map[blockKey]bool{}
		for _, b := range d.Blocks {
			k := blockKey{b.Node, b.Type}
			s, ok := seen[k]
			if mine[k] || ok && s != (span{b.Local0, b.Cap}) {
				return false
			}
			mine[k], seen[k] = true, span{b.Local0, b.Cap}
			if held := heldIn(sp, b); held > 0 && held < b.Cap {
				return false
			}
		}
	}
	return true
}

// heldIn is how many of a typed block's devices placed components hold.
func heldIn(sp *rules.Space, b rules.Block) int {
	if b.Type == "" {
		return 0
	}
	n := 0
	for l := 0; l < b.Cap; l++ {
		if _, ok := sp.Taken[b.Device(l)]; ok {
			n++
		}
	}
	return n
}

// blockOpen says whether root i may take block b's devices (all of them:
// the space is regular).
func blockOpen(sp *rules.Space, i int, b rules.Block) bool {
	_, down := sp.Down[b.Node]
	_, unfit := sp.Unfit[i][b.Node]
	return !down && !unfit && heldIn(sp, b) == 0
}

// all is every fact present.
func all(f int) bool { return f >= 0 }

// nodeVars creates root i's unit literals, in the order of its blocks.
func (in *instance) nodeVars(i int, d *rules.Demand) *demandVars {
	v := &demandVars{d: d, idx: i}
	v.unit, _, _ = in.want(i, v, all)
	pos := 0
	for _, b := range d.Blocks {
		v.blocks, v.inGroup, v.pos = append(v.blocks, b), append(v.inGroup, true), append(v.pos, pos)
		pos += b.Cap
		var xs []z.Lit
		if blockOpen(in.sp, i, b) {
			xs = make([]z.Lit, b.Cap/v.step(len(v.blocks)-1))
			for j := range xs {
				xs[j] = in.c.Lit()
			}
		}
		v.units = append(v.units, xs)
	}
	in.nodeShape(v)
	return v
}

// step is what one unit literal of block b stands for: the root's unit,
// or the whole block for whole nodes (none when the block is not whole
// units).
func (v *demandVars) step(b int) int {
	c := v.blocks[b].Cap
	if v.d.Whole > 0 {
		if c%v.unit != 0 {
			return c + 1
		}
		return c
	}
	return v.unit
}

// full is true when the root takes every device of block b.
func (v *demandVars) full(in *instance, b int) z.Lit {
	xs := v.units[b]
	if len(xs) == 0 || len(xs)*v.step(b) != v.blocks[b].Cap {
		return in.c.F
	}
	return xs[len(xs)-1]
}

// nodeShape orders each block's unit literals, derives the counts the
// objectives and rules read, and keeps a model-parallel component one
// contiguous range over its blocks.
func (in *instance) nodeShape(v *demandVars) {
	c := in.c
	for _, xs := range v.units {
		for j := 1; j < len(xs); j++ {
			in.clause(xs[j].Not(), xs[j-1])
		}
		any := c.F
		if len(xs) > 0 {
			any = xs[0]
		}
		v.any = append(v.any, any)
	}
	if v.d.Global {
		in.nodeRange(v)
	}
}

// totalOf is root v's device count over its blocks as clauses, built
// when a count rule is first added (node encoding; the device encoding's
// total is built with its shape).
func (in *instance) totalOf(v *demandVars) []z.Lit {
	if v.total == nil {
		leaves := make([][]z.Lit, len(v.units))
		for b, xs := range v.units {
			leaves[b] = in.binaryOf(xs, v.step(b))
		}
		v.total = in.cnfSum(leaves)
	}
	return v.total
}

// counts are root v's device counts per block, as gates the objectives
// can bound and evaluate: built when an objective first asks (packing
// needs none), where the total is clauses from the start.
func (in *instance) counts(v *demandVars) [][]z.Lit {
	if v.count == nil && in.enc == byNode {
		for b, xs := range v.units {
			v.count = append(v.count, unaryCount(in.c, xs, v.step(b)))
		}
	}
	return v.count
}

// nodeRange makes the blocks a model-parallel component uses one run of
// its blocks, every one inside it full: with the run right-aligned on its
// first block and left-aligned on its last, its devices are one range.
func (in *instance) nodeRange(v *demandVars) {
	c := in.c
	starts := make([]z.Lit, len(v.any))
	for b, a := range v.any {
		starts[b] = a
		if b > 0 {
			starts[b] = c.And(a, v.any[b-1].Not())
		}
		if b > 0 && b+1 < len(v.any) {
			in.clause(v.any[b-1].Not(), v.any[b+1].Not(), v.full(in, b))
		}
	}
	in.atMostOne(starts)
}

// unaryCount is the binary number of devices that ordered unit literals
// stand for: step times the number of them true.
func unaryCount(c *logic.C, xs []z.Lit, step int) []z.Lit {
	n := len(xs) * step
	width := 0
	for n>>width > 0 {
		width++
	}
	bits := make([][]z.Lit, width)
	for j := 1; j <= len(xs); j++ {
		exactly := xs[j-1]
		if j < len(xs) {
			exactly = c.And(xs[j-1], xs[j].Not())
		}
		for k := 0; k < width; k++ {
			if (j*step)>>k&1 == 1 {
				bits[k] = append(bits[k], exactly)
			}
		}
	}
	out := make([]z.Lit, width)
	for k := range out {
		out[k] = c.Ors(bits[k]...)
	}
	return out
}
