package solver

import "github.com/go-air/gini/z"

// status is a SAT call's answer.
type status int

const (
	unsat   status = -1
	unknown status = 0
	sat     status = 1
)

// optimizer tightens bounds under assumptions: each bound reached is kept
// (fixed) while the next objective is optimized.
type optimizer struct {
	in       *instance
	opt      PlaceOptions
	deadline cpuDeadline
	fixed    []z.Lit
	best     [][]bool
	calls    int
	optimal  bool
	last     status
	// guessed is set while the best placement is the first-fit guess:
	// its ranks are the lowest already.
	guessed bool
	// fresh is set while the next call may use the whole budget: the
	// first, and the first on a fresh instance.
	fresh bool
	// cutBy is the bound that last cut a call (BoundBudget, BoundStep).
	cutBy string
	// keepLB is keep's lower bound on the workers moved (keepSets').
	keepLB int
	// capped counts the nodes whose capacity models overfilled (by nodes,
	// instance.solve).
	capped int
}

// try solves under the fixed bounds and extra; the first call may use
// the whole budget, the optimizing ones a step each (by nodes, with
// capacity added as models overfill nodes: instance.solve).
func (o *optimizer) try(extra ...z.Lit) status {
	left, bound := o.deadline.left(), BoundBudget
	if !o.fresh && o.opt.Step < left {
		left, bound = o.opt.Step, BoundStep
	}
	o.fresh = false
	assume := append(append([]z.Lit(nil), o.fixed...), extra...)
	o.in.flush(assume...)
	st, runs, capped := o.in.solve(left, assume...)
	o.calls, o.capped = o.calls+runs, o.capped+capped
	o.last = st
	if st == unknown {
		o.cutBy = bound
	}
	if st == sat {
		o.best = o.in.snapshot()
		o.guessed = false
	}
	return st
}

// valueOf is a number's value in the best placement, evaluated from its
// devices: no search.
func (o *optimizer) valueOf(x []z.Lit) int { return numberIn(o.evalBest(), x) }

// evalBest is every circuit node's value in the best placement: one
// evaluation serves every number read from it.
func (o *optimizer) evalBest() []bool {
	c := o.in.c
	vs := make([]bool, c.Len())
	vs[1] = true // the constant node: c.T is its positive literal
	for i, v := range o.in.roots {
		if v == nil {
			continue
		}
		if in := o.in; in.enc == byNode {
			v.setSteps(vs, o.best[i])
			continue
		}
		p := 0
		for _, ls := range v.lit {
			for _, m := range ls {
				if m != c.F {
					vs[m.Var()] = o.best[i][p] == m.IsPos()
				}
				p++
			}
		}
	}
	c.Eval(vs)
	return vs
}

// numberIn reads a number from evaluated circuit values.
func numberIn(vs []bool, x []z.Lit) int {
	n := 0
	for k, b := range x {
		if vs[b.Var()] == b.IsPos() {
			n |= 1 << k
		}
	}
	return n
}

// optimize runs the objective, then the lowest ranks; keep's ties go to
// the fewest nodes, as pack's.
func (o *optimizer) optimize(res *Placement) error {
	o.optimal = true
	switch o.opt.Objective {
	case ObjectivePack:
		res.Value = o.pack()
	case ObjectiveSpread:
		res.Value = o.spread()
	case ObjectiveKeep:
		res.Value = o.keep()
		o.pack()
	}
	switch {
	case o.guessed:
	case o.in.enc == byNode:
		o.lowestBlocks()
	default:
		o.lowest()
	}
	res.Optimal = o.optimal
	if !o.optimal {
		res.CutBy = o.cutBy
	}
	return nil
}

// minimize finds the least value of x at or above lo, starting from the
// best placement's (hi), and fixes it.
func (o *optimizer) minimize(x []z.Lit, lo, hi int) int {
	c := o.in.c
	if lo < hi {
		// Only a call reads x: the first-fit guess often meets lo.
		o.in.flush(x...)
	}
	hi = o.tighten(lo, hi, func(mid int) z.Lit { return leq(c, x, mid) }, func() int { return o.valueOf(x) })
	o.fixed = append(o.fixed, leq(c, x, hi))
	return hi
}

// tighten finds the least bound in [lo, hi] the placement can meet: the
// solver is asked for one within bound(mid); one found moves hi to its
// value, none moves lo past mid, and a call the budget cuts ends the
// search (the result is then not proven optimal).
func (o *optimizer) tighten(lo, hi int, bound func(mid int) z.Lit, value func() int) int {
	for lo < hi {
		mid := lo + (hi-lo)/2
		switch o.try(bound(mid)) {
		case sat:
			hi = value()
		case unsat:
			lo = mid + 1
		default:
			o.optimal = false
			lo = hi
		}
	}
	return hi
}

// pack minimizes the nodes that hold devices of any component. A
// first-fit guess that meets the lower bound is the answer, and no later
// call needs the bound: the count is then read from its devices, with no
// circuit built.
func (o *optimizer) pack() int {
	used, held, lb := o.in.nodesUsed()
	if cur := o.in.nodesTaken(o.best); o.guessed && cur <= max(held, lb) {
		return cur
	}
	x := popcount(o.in.c, used)
	return held + o.minimize(x, max(0, lb-held), o.valueOf(x))
}

// spread minimizes the most devices one component takes on one node:
// from the counting bound up, each cap is tried as a first-fit guess
// (propagation only) before any call must prove a cap impossible.
func (o *optimizer) spread() int {
	c := o.in.c
	var counts [][]z.Lit
	for _, v := range o.in.roots {
		if v != nil && v.d.Type != "" {
			counts = append(counts, o.in.counts(v)...)
		}
	}
	bound := func(k int) z.Lit {
		ls := make([]z.Lit, len(counts))
		for i, x := range counts {
			ls[i] = leq(c, x, k)
		}
		return c.Ands(ls...)
	}
	most := func() int {
		vs, m := o.evalBest(), 0
		for _, x := range counts {
			m = max(m, numberIn(vs, x))
		}
		return m
	}
	lb := o.in.spreadBound()
	if !o.guessed || most() > lb {
		o.spreadGuess(lb+1, most())
	}
	hi := o.tighten(lb, most(), bound, most)
	o.fixed = append(o.fixed, bound(hi))
	if !o.guessed || most() > hi {
		// The lowest devices under the bound, as a guess: when it holds,
		// it is the placement.
		o.in.spreadCap = hi
		if guess, ok := o.in.guess(nil); ok && o.try(guess...) == sat {
			o.guessed = true
		}
	}
	return hi
}

// spreadGuess tries first-fit guesses capped at from, from+1, ... below
// to, and keeps the first that holds: the search below it starts from a
// placement as good as counting allows so far.
func (o *optimizer) spreadGuess(from, to int) {
	for k := from; k < to; k++ {
		o.in.spreadCap = k
		guess, ok := o.in.guess(nil)
		if !ok {
			continue
		}
		if o.try(guess...) == sat {
			o.guessed = true
		}
		return // held, or the solver refused what first fit allowed: search
	}
}

// spreadBound is a lower bound on spread's value: each typed root's count
// over the blocks it may use, in whole units per block.
func (in *instance) spreadBound() int {
	lb := 1
	for _, v := range in.roots {
		if v == nil || v.d.Type == "" || v.d.Count <= 0 || v.d.Whole > 0 {
			continue
		}
		blocks := 0
		for b := range v.blocks {
			if v.inGroup[b] && v.anyOpen(in, b) {
				blocks++
			}
		}
		u := max(1, v.d.Unit)
		if v.d.Global {
			u = 1
		}
		if blocks > 0 {
			lb = max(lb, u*((v.d.Count+blocks*u-1)/(blocks*u)))
		}
	}
	return lb
}

// keep minimizes the workers of the previous plan that move: first with
// the best keep set of each component alone assumed, which is optimal when
// it holds (it meets the lower bound). A guess that meets the bound, and
// pack's after it, is the answer with no circuit built (keepGuess).
func (o *optimizer) keep() int {
	sets, lb := o.in.keepSets(o.opt.Previous)
	o.keepLB = lb
	o.keepOrder(sets)
	guess, ok := o.in.guessWith(nil, o.in.keepFitter(keepFits(sets)))
	if ok && o.keepGuess(guess, sets, lb) {
		return lb
	}
	x, assume := o.in.keepCircuit(sets)
	if len(x) == 0 {
		return 0
	}
	o.in.flush(x...)
	if ok {
		// Built from the lowest free devices, as pack's guess is.
		o.guessed = o.repair(assume, guess) == sat
	}
	return o.minimize(x, lb, o.valueOf(x))
}

// repair solves under hard assumptions and as many of soft (a full
// placement) as agree with them: each time the solver says which
// assumptions fail together, the soft ones among them go. Every call is
// mostly propagation; it gives up after a few rounds or when only hard
// assumptions fail.
func (o *optimizer) repair(hard, soft []z.Lit) status {
	const rounds = 32
	for k := 0; k < rounds; k++ {
		switch o.try(append(append([]z.Lit(nil), hard...), soft...)...) {
		case sat:
			return sat
		case unknown:
			return unknown
		}
		failed := map[z.Lit]bool{}
		for _, m := range o.in.g.Why(nil) {
			failed[m] = true
		}
		kept := soft[:0]
		for _, m := range soft {
			if !failed[m] {
				kept = append(kept, m)
			}
		}
		if len(kept) == len(soft) {
			return unsat
		}
		soft = kept
	}
	return unknown
}

// lowest gives each component, in file order, the lowest last position
// it can have once the components before it have theirs.
func (o *optimizer) lowest() {
	for i, v := range o.in.roots {
		if v == nil {
			continue
		}
		beyond := v.suffix(o.in)
		hi := o.tighten(v.lowestLast(o.in, o.best[i]), o.lastTaken(i), func(mid int) z.Lit { return beyond[mid+1].Not() }, func() int { return o.lastTaken(i) })
		if hi >= 0 {
			o.fixed = append(o.fixed, beyond[hi+1].Not())
		}
	}
}

// lastTaken is root i's last taken position in the best model (-1: none).
func (o *optimizer) lastTaken(i int) int {
	for p := len(o.best[i]) - 1; p >= 0; p-- {
		if o.best[i][p] {
			return p
		}
	}
	return -1
}
