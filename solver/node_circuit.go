package solver

import (
	"math/bits"
	"slices"

	"github.com/go-air/gini/z"
)

// Numbers of the node encoding that only clauses read (a root's total,
// the devices on a node), written as clauses rather than logic.C gates:
// a full adder is two variables and fourteen clauses where its gates take
// nine variables and twenty-seven clauses, and the totals are most of the
// instance. The solver's model gives their values; the circuit's Eval
// does not (they are inputs to it).

// symmetric is a fresh literal equal to f of how many of ins are true
// (constant-false inputs dropped), as one clause per assignment of ins.
func (in *instance) symmetric(ins []z.Lit, f func(n int) bool) z.Lit {
	var buf [4]z.Lit // an adder's three inputs (and F): no allocation
	live := buf[:0]
	for _, m := range ins {
		if m != in.c.F {
			live = append(live, m)
		}
	}
	switch {
	case !f(0) && !holdsFor(len(live), f):
		return in.c.F
	case len(live) == 1 && !f(0) && f(1):
		return live[0]
	}
	out := in.c.Lit()
	if slices.Contains(live, in.c.T) {
		live = append(live, in.c.F) // not raw: clause drops what T satisfies
	}
	raw := !slices.Contains(live, in.c.F)
	if raw {
		// The gates under the inputs reach gini once, not per clause.
		in.pend(live...)
	}
	var cbuf [5]z.Lit
	cl := cbuf[:0]
	for a := 0; a < 1<<len(live); a++ {
		cl = cl[:0]
		n := 0
		for k, m := range live {
			if a>>k&1 == 1 {
				cl, n = append(cl, m.Not()), n+1
			} else {
				cl = append(cl, m)
			}
		}
		if f(n) {
			cl = append(cl, out)
		} else {
			cl = append(cl, out.Not())
		}
		in.emit(raw, cl...)
	}
	return out
}

// emit adds a clause: raw (rawClause) or as clause does.
func (in *instance) emit(raw bool, ms ...z.Lit) {
	if raw {
		in.rawClause(ms)
		return
	}
	in.clause(ms...)
}

// rawClause adds a clause of no constant literal whose gates are already
// pending.
func (in *instance) rawClause(ms []z.Lit) {
	for _, m := range ms {
		in.g.Add(m)
	}
	in.g.Add(0)
	in.clauses++
}

// holdsFor says whether f holds for some count 1..k.
func holdsFor(k int, f func(n int) bool) bool {
	for n := 1; n <= k; n++ {
		if f(n) {
			return true
		}
	}
	return false
}

func odd(n int) bool { return n%2 == 1 }

// carry is a fresh literal true when at least two of ins are (constant
// false ones dropped): the majority's six clauses of three literals, or
// an AND's three, where a clause per assignment takes eight of four.
func (in *instance) carry(ins []z.Lit) z.Lit {
	var buf [3]z.Lit
	live := buf[:0]
	for _, m := range ins {
		if m != in.c.F {
			live = append(live, m)
		}
	}
	if len(live) < 2 {
		return in.c.F
	}
	out := in.c.Lit()
	raw := !slices.Contains(live, in.c.T)
	if raw {
		in.pend(live...)
	}
	for a := range live {
		for b := a + 1; b < len(live); b++ {
			in.emit(raw, live[a].Not(), live[b].Not(), out)
		}
	}
	if len(live) == 2 {
		in.emit(raw, live[0], out.Not())
		in.emit(raw, live[1], out.Not())
		return out
	}
	for a := range live {
		for b := a + 1; b < len(live); b++ {
			in.emit(raw, live[a], live[b], out.Not())
		}
	}
	return out
}

// cnfAdd is the ripple-carry sum of two numbers, in clauses.
func (in *instance) cnfAdd(a, b []z.Lit) []z.Lit {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := make([]z.Lit, 0, len(a)+1)
	carry := in.c.F
	for i, x := range a {
		y := in.c.F
		if i < len(b) {
			y = b[i]
		}
		ins := [3]z.Lit{x, y, carry}
		out = append(out, in.symmetric(ins[:], odd))
		carry = in.carry(ins[:])
	}
	if carry != in.c.F {
		out = append(out, carry)
	}
	return out
}

// cnfSum adds numbers pairwise, as a balanced tree, in clauses.
func (in *instance) cnfSum(nums [][]z.Lit) []z.Lit {
	if len(nums) == 0 {
		return nil
	}
	for len(nums) > 1 {
		next := make([][]z.Lit, 0, (len(nums)+1)/2)
		for i := 0; i+1 < len(nums); i += 2 {
			next = append(next, in.cnfAdd(nums[i], nums[i+1]))
		}
		if len(nums)%2 == 1 {
			next = append(next, nums[len(nums)-1])
		}
		nums = next
	}
	return nums[0]
}

// binaryOf is the binary number of devices ordered unit literals stand
// for (step devices each), in clauses: per bit, one clause per run of
// counts that give the bit one value (ordered literals say the count is
// in j..e with xs[j-1] and not xs[e]).
func (in *instance) binaryOf(xs []z.Lit, step int) []z.Lit {
	n := len(xs)
	atLeast := func(j int) z.Lit {
		switch {
		case j == 0:
			return in.c.T
		case j > n:
			return in.c.F
		}
		return xs[j-1]
	}
	out := make([]z.Lit, bits.Len(uint(n*step)))
	for k := range out {
		bit := func(j int) bool { return (j*step)>>k&1 == 1 }
		out[k] = in.c.F
		if !holdsFor(n, bit) {
			continue
		}
		m := in.c.Lit()
		for j := 0; j <= n; {
			e := j
			for e < n && bit(e+1) == bit(j) {
				e++
			}
			val := m
			if !bit(j) {
				val = m.Not()
			}
			in.clause(atLeast(j).Not(), atLeast(e+1), val)
			j = e + 1
		}
		out[k] = m
	}
	return out
}

// weighted is an ordered unary number: at[k] is true when the number is
// at least value[k].
type weighted struct {
	value []int
	at    []z.Lit
}

// unitsOn is root v's devices on block b as a weighted unary number.
func (v *demandVars) unitsOn(b int) weighted {
	var w weighted
	for j, x := range v.units[b] {
		w.value, w.at = append(w.value, (j+1)*v.step(b)), append(w.at, x)
	}
	return w
}

// atMost keeps the sum of weighted unary numbers at most limit: a
// totalizer whose merges only imply upwards (a sum at least a+b when its
// parts are at least a and b), which is all an upper bound needs; the
// last merge is the bound itself, a clause per value of the sum so far.
func (in *instance) atMost(nums []weighted, limit int) {
	acc := nums[0]
	for _, w := range nums[1 : len(nums)-1] {
		acc = in.merge(acc, w, limit+1)
	}
	last := nums[len(nums)-1]
	for _, w := range []weighted{acc, last} {
		for k, v := range w.value {
			if v > limit {
				in.clause(w.at[k].Not())
			}
		}
	}
	for i, a := range acc.value {
		// last is ordered: its least value over the limit with a says all.
		for j, b := range last.value {
			if a <= limit && b <= limit && a+b > limit {
				in.clause(acc.at[i].Not(), last.at[j].Not())
				break
			}
		}
	}
}

// merge is an ordered weighted unary number at least a+b (capped at
// top), of ordered a and b: each pair of parts implies its sum, and of
// the pairs that reach top only the least part of a with each of b's (a
// larger one implies it).
func (in *instance) merge(a, b weighted, top int) weighted {
	av, al := append([]int{0}, a.value...), append([]z.Lit{in.c.T}, a.at...)
	bv, bl := append([]int{0}, b.value...), append([]z.Lit{in.c.T}, b.at...)
	byValue := make([]z.Lit, top+1) // z.LitNull: no literal yet
	for j := range bv {
		for i := range av {
			s := min(av[i]+bv[j], top)
			if i == 0 && j == 0 {
				continue
			}
			if s == top && i > 0 && av[i-1]+bv[j] >= top {
				break
			}
			m := byValue[s]
			if m == z.LitNull {
				m = in.c.Lit()
				byValue[s] = m
			}
			in.clause(al[i].Not(), bl[j].Not(), m)
		}
	}
	var out weighted
	for v := 1; v <= top; v++ {
		if m := byValue[v]; m != z.LitNull {
			if n := len(out.at); n > 0 {
				in.clause(m.Not(), out.at[n-1])
			}
			out.value, out.at = append(out.value, v), append(out.at, m)
		}
	}
	return out
}
