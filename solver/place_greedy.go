package solver

import (
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// A first guess before the search: each root, in file order, takes the
// lowest devices that fit it (whole units per node, one run per node, one
// range for a model-parallel component). Solving under the guess as
// assumptions is propagation only; when it holds, the solver's saved
// phases start every later call next to it, and the bounds the guess
// already meets cost no call at all. Counting constraints are hard for
// SAT to refute (they are pigeonhole problems), so the fewer calls that
// must prove a bound impossible, the better.

// guess is a first-fit choice: per root, the flat positions it takes.
func (in *instance) guess() ([]z.Lit, bool) {
	used := map[rules.Device]bool{}
	var assume []z.Lit
	for i, v := range in.roots {
		if v == nil {
			continue
		}
		taken, ok := in.firstFit(i, v, used)
		if !ok {
			return nil, false
		}
		p := 0
		for b, ls := range v.lit {
			for l, m := range ls {
				if m != in.c.F {
					if taken[p] {
						assume = append(assume, m)
						if v.d.Type != "" {
							used[rules.Device{Node: v.blocks[b].Node, Type: v.blocks[b].Type, Local: l}] = true
						}
					} else {
						assume = append(assume, m.Not())
					}
				}
				p++
			}
		}
	}
	return assume, true
}

// firstFit chooses root i's lowest positions that fit.
func (in *instance) firstFit(i int, v *demandVars, used map[rules.Device]bool) ([]bool, bool) {
	unit, need, whole := in.want(i, v)
	free := func(b, l int) bool {
		blk := v.blocks[b]
		return v.inGroup[b] && v.lit[b][l] != in.c.F && !used[rules.Device{Node: blk.Node, Type: blk.Type, Local: l}] && in.allowed(i, blk)
	}
	n := 0
	for _, ls := range v.lit {
		n += len(ls)
	}
	taken := make([]bool, n)
	switch {
	case need < 0:
		return taken, false
	case whole > 0:
		return taken, in.fitWhole(v, free, taken, whole, unit)
	case v.d.Global:
		return taken, in.fitRange(v, free, taken, need, unit)
	}
	for b, ls := range v.lit {
		if need == 0 {
			break
		}
		start, run := bestRun(len(ls), func(l int) bool { return free(b, l) })
		k := min(run, need) / unit * unit
		for l := start; l < start+k; l++ {
			taken[v.pos[b]+l] = true
		}
		need -= k
	}
	return taken, need == 0
}

// want is what root i must take: its unit (every sharer's), its device
// count (-1: the sharers disagree) and its whole nodes.
func (in *instance) want(i int, v *demandVars) (unit, need, whole int) {
	unit, need, whole = max(1, v.d.Unit), v.d.Count, v.d.Whole
	for j, w := range in.sp.Demands {
		if j == i || in.sp.Root(j) != i {
			continue
		}
		unit = lcm(unit, max(1, w.Unit))
		if w.Count > 0 && w.CountFact >= 0 {
			if need > 0 && need != w.Count {
				return unit, -1, whole
			}
			need = w.Count
		}
	}
	return unit, need, whole
}

// allowed says whether the demands sharing root i's devices may use a
// block (their own node groups).
func (in *instance) allowed(i int, blk rules.Block) bool {
	for j, w := range in.sp.Demands {
		if j == i || in.sp.Root(j) != i || w.GroupFact < 0 {
			continue
		}
		ok := false
		for _, b := range w.Blocks {
			ok = ok || b.Node == blk.Node && b.Type == blk.Type
		}
		if !ok {
			return false
		}
	}
	return true
}

// bestRun is the first longest run of free devices in a block.
func bestRun(n int, free func(int) bool) (start, length int) {
	cur := 0
	for l := 0; l < n; l++ {
		if free(l) {
			cur++
			if cur > length {
				start, length = l-cur+1, cur
			}
		} else {
			cur = 0
		}
	}
	return start, length
}

// fitWhole takes the first whole free blocks.
func (in *instance) fitWhole(v *demandVars, free func(b, l int) bool, taken []bool, whole, unit int) bool {
	for b, ls := range v.lit {
		if whole == 0 {
			break
		}
		if len(ls)%unit != 0 {
			continue
		}
		_, run := bestRun(len(ls), func(l int) bool { return free(b, l) })
		if run != len(ls) {
			continue
		}
		for l := range ls {
			taken[v.pos[b]+l] = true
		}
		whole--
	}
	return whole == 0
}

// fitRange takes the first range of need free positions whose share of
// each block is whole units.
func (in *instance) fitRange(v *demandVars, free func(b, l int) bool, taken []bool, need, unit int) bool {
	n := len(taken)
	ok := make([]bool, n)
	for b, ls := range v.lit {
		for l := range ls {
			ok[v.pos[b]+l] = free(b, l)
		}
	}
	for s := 0; s+need <= n; s++ {
		if in.rangeFits(v, ok, s, need, unit) {
			for p := s; p < s+need; p++ {
				taken[p] = true
			}
			return true
		}
	}
	return false
}

func (in *instance) rangeFits(v *demandVars, ok []bool, s, need, unit int) bool {
	for p := s; p < s+need; p++ {
		if !ok[p] {
			return false
		}
	}
	for b, ls := range v.lit {
		lo, hi := max(s, v.pos[b]), min(s+need, v.pos[b]+len(ls))
		if hi > lo && (hi-lo)%unit != 0 {
			return false
		}
	}
	return true
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
