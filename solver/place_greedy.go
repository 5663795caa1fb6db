package solver

import (
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
	"slices"
)

// A first guess before the search: each root, in file order, takes the
// lowest devices that fit it (whole units per node, one run per node, one
// range for a model-parallel component). Solving under the guess as
// assumptions is propagation only; when it holds, the solver's saved
// phases start every later call next to it, and the bounds the guess
// already meets cost no call at all. Counting constraints are hard for
// SAT to refute (they are pigeonhole problems), so the fewer calls that
// must prove a bound impossible, the better.

// guess is a first-fit choice under the facts present (nil: all), as
// assumptions on the device literals.
func (in *instance) guess(present func(int) bool) ([]z.Lit, bool) {
	return in.guessWith(present, in.firstFit)
}

// fitter chooses a root's devices: blocked says which are another's.
type fitter func(i int, v *demandVars, has func(int) bool, blocked func(rules.Device) bool) ([]bool, bool)

// guessWith is a guess whose roots choose with fit: in file order, and
// when that fails, the roots with the fewest candidate devices first (a
// component confined to a small group takes it before a free one does).
func (in *instance) guessWith(present func(int) bool, fit fitter) ([]z.Lit, bool) {
	has := func(f int) bool { return f >= 0 && (present == nil || present(f)) }
	var order []int
	for i, v := range in.roots {
		if v != nil {
			order = append(order, i)
		}
	}
	if assume, ok := in.guessInOrder(has, order, fit); ok {
		return assume, true
	}
	size := func(i int) int {
		n := 0
		anywhere := !in.restricted(in.roots[i].d, has)
		for b, blk := range in.roots[i].blocks {
			if in.roots[i].inGroup[b] || anywhere {
				n += blk.Cap
			}
		}
		return n
	}
	slices.SortStableFunc(order, func(a, b int) int { return size(a) - size(b) })
	return in.guessInOrder(has, order, fit)
}

// guessInOrder fits the roots in the order given.
func (in *instance) guessInOrder(has func(int) bool, order []int, fit fitter) ([]z.Lit, bool) {
	takenBy := make([]map[rules.Device]bool, len(in.roots))
	var assume []z.Lit
	for _, i := range order {
		v := in.roots[i]
		blocked := func(dev rules.Device) bool {
			for j := range takenBy {
				if j != i && takenBy[j][dev] && in.separatedUnder(i, j, has) {
					return true
				}
			}
			return false
		}
		taken, ok := fit(i, v, has, blocked)
		if !ok {
			return nil, false
		}
		takenBy[i] = map[rules.Device]bool{}
		for b, blk := range v.blocks {
			for l := 0; l < blk.Cap; l++ {
				if taken[v.pos[b]+l] {
					takenBy[i][blk.Device(l)] = true
				}
			}
		}
		assume = append(assume, in.assumeTaken(v, taken)...)
	}
	in.layIn(order)
	return assume, true
}

// assumeTaken are the assumptions that give root v the devices taken
// says, and no other.
func (in *instance) assumeTaken(v *demandVars, taken []bool) []z.Lit {
	if in.enc == byNode {
		return v.assumeSteps(taken)
	}
	var assume []z.Lit
	p := 0
	for _, ls := range v.lit {
		for _, m := range ls {
			switch {
			case m == in.c.F:
			case taken[p]:
				assume = append(assume, m)
			default:
				assume = append(assume, m.Not())
			}
			p++
		}
	}
	return assume
}

// separatedUnder says whether roots i and j keep apart under the facts
// present.
func (in *instance) separatedUnder(i, j int, has func(int) bool) bool {
	if in.roots[i].d.Type == "" || in.roots[i].d.Type != in.roots[j].d.Type {
		return false
	}
	for _, f := range in.separation(i, j) {
		if has(f) {
			return true
		}
	}
	return false
}

// firstFit chooses root i's lowest positions that fit under the facts
// present, off the devices blocked says are another's.
func (in *instance) firstFit(i int, v *demandVars, has func(int) bool, blocked func(rules.Device) bool) ([]bool, bool) {
	unit, need, whole := in.want(i, v, has)
	anywhere := !in.restricted(v.d, has)
	free := func(b, l int) bool {
		blk := v.blocks[b]
		dev := blk.Device(l)
		if !v.open(in, b, l) || !v.inGroup[b] && !anywhere || blocked(dev) || !in.allowed(i, blk, has) {
			return false
		}
		if f, down := in.sp.Down[blk.Node]; down && has(f) {
			return false
		}
		if f, unfit := in.sp.Unfit[i][blk.Node]; unfit && has(f) {
			return false
		}
		f, held := in.sp.Taken[dev]
		return !held || blk.Type == "" || !has(f)
	}
	taken := make([]bool, v.size())
	switch {
	case need < 0:
		return taken, false
	case whole > 0:
		return taken, in.fitWhole(v, free, taken, whole, unit)
	case v.d.Global:
		return taken, in.fitRange(v, free, taken, need, unit)
	}
	for b, blk := range v.blocks {
		if need == 0 {
			break
		}
		isFree := func(l int) bool { return free(b, l) }
		_, run := bestRun(blk.Cap, isFree)
		k := min(run, need, in.blockCap(v)) / unit * unit
		start := firstRun(blk.Cap, isFree, k)
		for l := start; l < start+k; l++ {
			taken[v.pos[b]+l] = true
		}
		need -= k
	}
	return taken, need == 0
}

// want is what root i must take under the facts present: its unit
// (every sharer's), its device count (-1: the counts disagree) and its
// whole nodes.
func (in *instance) want(i int, v *demandVars, has func(int) bool) (unit, need, whole int) {
	unit = max(1, v.d.Unit)
	if has(v.d.CountFact) {
		need, whole = v.d.Count, v.d.Whole
	}
	for j, w := range in.sp.Demands {
		if j == i || in.sp.Root(j) != i {
			continue
		}
		unit = lcm(unit, max(1, w.Unit))
		if w.Count > 0 && has(w.CountFact) {
			if need > 0 && need != w.Count {
				return unit, -1, whole
			}
			need = w.Count
		}
	}
	return unit, need, whole
}

// restricted says whether a demand's node groups hold under the facts
// present.
func (in *instance) restricted(d *rules.Demand, has func(int) bool) bool {
	if !has(d.GroupFact) {
		return d.GroupFact < 0
	}
	for _, l := range d.Labels {
		if f, ok := in.sp.GroupFacts[l]; ok && !has(f) {
			return false
		}
	}
	return true
}

// allowed says whether the demands sharing root i's devices may use a
// block (their own node groups, where present).
func (in *instance) allowed(i int, blk rules.Block, has func(int) bool) bool {
	for j, w := range in.sp.Demands {
		if j == i || in.sp.Root(j) != i || !has(w.GroupFact) {
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

// firstRun is the start of the first run of at least k free devices (k
// is at most the longest run).
func firstRun(n int, free func(int) bool, k int) int {
	cur := 0
	for l := 0; l < n; l++ {
		if !free(l) {
			cur = 0
			continue
		}
		if cur++; cur >= k {
			return l - k + 1
		}
	}
	return 0
}

// fitWhole takes the first whole free blocks.
func (in *instance) fitWhole(v *demandVars, free func(b, l int) bool, taken []bool, whole, unit int) bool {
	for b, blk := range v.blocks {
		if whole == 0 {
			break
		}
		if blk.Cap%unit != 0 {
			continue
		}
		_, run := bestRun(blk.Cap, func(l int) bool { return free(b, l) })
		if run != blk.Cap {
			continue
		}
		for l := range blk.Cap {
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
	for b, blk := range v.blocks {
		for l := range blk.Cap {
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
	for b, blk := range v.blocks {
		lo, hi := max(s, v.pos[b]), min(s+need, v.pos[b]+blk.Cap)
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

// blockCap is the most devices a root may take on one block in a guess:
// the spread bound once found, else all of them.
func (in *instance) blockCap(v *demandVars) int {
	if in.spreadCap > 0 && v.d.Type != "" {
		return in.spreadCap
	}
	return 1 << 30
}
